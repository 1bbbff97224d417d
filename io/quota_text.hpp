// quota_text.hpp
// How Grid Engine names a resource quota rule instance: the rule as
// `<set>/<rule name>` (`<set>/<index from 1>` for an unnamed rule) and the
// usage key `user/project/pe/queue/host/`, with only the rule's expanded
// filters filled in (`u1/////`, `/////`).
#pragma once

#include <string>

#include "io/snapshot.hpp"
#include "kernel/model/resource_quota.hpp"

namespace schedk::io {

inline std::string QuotaRuleName(const Cluster& cluster, const QuotaInstance& instance) {
  const ResourceQuotaSet& set = cluster.quota_sets[instance.set];
  const std::string& name = set.rules[instance.rule].name;
  return set.name + "/" + (name.empty() ? std::to_string(instance.rule + 1) : name);
}

inline std::string QuotaKeyText(const Names& names, const QuotaInstance& instance) {
  auto part = [](const NameTable& table, std::uint32_t id, bool valid) {
    return (valid ? table.Name(id) : std::string()) + "/";
  };
  return part(names.users, instance.user.value, instance.user.valid()) +
         part(names.projects, instance.project.value, instance.project.valid()) +
         part(names.pes, instance.pe.value, instance.pe.valid()) +
         part(names.queues, instance.queue.value, instance.queue.valid()) +
         part(names.hosts, instance.host.value, instance.host.valid());
}

}  // namespace schedk::io
