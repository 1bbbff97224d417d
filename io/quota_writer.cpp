#include "io/quota_writer.hpp"

#include <algorithm>
#include <cstdio>

#include "io/quota_text.hpp"
#include "kernel/dispatch/host_load.hpp"
#include "kernel/quota/quota_usage.hpp"

namespace schedk::io {
namespace {

std::string Number(double value) {
  char text[64];
  std::snprintf(text, sizeof text, "%.10g", value);
  return text;
}

// The filter column: each present filter by keyword, an expanded one by the instance's value.
std::string FilterColumn(const Snapshot& s, const QuotaInstance& instance) {
  const QuotaRule& rule = s.cluster.quota_sets[instance.set].rules[instance.rule];
  const struct {
    const char* keyword;
    const QuotaFilter& filter;
    const NameTable& names;
    std::uint32_t value;
  } kinds[] = {
      {"users", rule.users, s.names.users, instance.user.value},
      {"projects", rule.projects, s.names.projects, instance.project.value},
      {"pes", rule.pes, s.names.pes, instance.pe.value},
      {"queues", rule.queues, s.names.queues, instance.queue.value},
      {"hosts", rule.hosts, s.names.hosts, instance.host.value},
  };
  std::string column;
  for (const auto& k : kinds) {
    if (!k.filter.present) continue;
    if (!column.empty()) column += ' ';
    column += std::string(k.keyword) + " " + (k.filter.expand ? k.names.Name(k.value) : k.filter.text);
  }
  return column.empty() ? "-" : column;
}

}  // namespace

std::vector<std::string> QuotaTable(const Snapshot& s) {
  const HostLoad load(s.cluster, s.jobs);
  const QuotaUsage usage =
      RunningQuotaUsage(s.cluster, s.cluster.quota_sets, s.jobs,
                        [&load](const LoadFormula& formula, HostId host) { return load.Evaluate(formula, host); });
  std::vector<std::string> rows;
  char line[512];
  std::snprintf(line, sizeof line, "%-18s %-20.20s %s", "resource quota rule", "limit", "filter");
  rows.emplace_back(line);
  rows.emplace_back(80, '-');
  std::vector<std::pair<std::string, std::string>> body;  // (sort key, row) per instance and limit
  for (const auto& [instance, counter] : usage.instances()) {
    const QuotaRule& rule = s.cluster.quota_sets[instance.set].rules[instance.rule];
    for (std::uint32_t l = 0; l < rule.limits.size() && l < counter.now.size(); ++l) {
      if (counter.now[l] == 0) continue;
      const std::string limit = s.names.complexes.Name(rule.limits[l].attribute.value) + "=" + Number(counter.now[l]) +
                                "/" + Number(usage.LimitOf(instance, l));
      std::snprintf(line, sizeof line, "%-18s %-20.20s %s", QuotaRuleName(s.cluster, instance).c_str(), limit.c_str(),
                    FilterColumn(s, instance).c_str());
      char order[32];
      std::snprintf(order, sizeof order, "%08u:%08u:%08u:", instance.set, instance.rule, l);
      body.emplace_back(order + QuotaKeyText(s.names, instance), line);
    }
  }
  std::sort(body.begin(), body.end());
  for (auto& [key, row] : body) rows.push_back(std::move(row));
  return rows;
}

}  // namespace schedk::io
