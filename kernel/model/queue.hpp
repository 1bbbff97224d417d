// queue.hpp
// Cluster queues (qconf -sq, queue_conf(5)) and their per-host values. A
// cluster queue spans the hosts of its hostlist; each (queue, host) pair is a
// queue instance `queue@host`. Most attributes may differ per host:
// `16,[@big=32],[n3=64]` means 16 by default, 32 on hosts of @big and 64 on n3
// (a host beats a hostgroup beats the default).
// Invariants: `hosts` is the resolved hostlist (sorted, unique); every
// PerHost value has a default.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "kernel/model/complex_value.hpp"
#include "kernel/model/host.hpp"
#include "kernel/types.hpp"

namespace schedk {

template <class T>
struct PerHost {
  using value_type = T;
  T default_value{};
  std::vector<std::pair<HostgroupId, T>> group_values;  // in the order written
  std::vector<std::pair<HostId, T>> host_values;

  PerHost() = default;
  explicit PerHost(T value) : default_value(std::move(value)) {}

  // Returns the value for `host`: its own override, else the first override of
  // a hostgroup that contains it, else the default.
  const T& For(HostId host, const std::vector<Hostgroup>& groups) const {
    for (const auto& [h, v] : host_values) {
      if (h == host) return v;
    }
    for (const auto& [g, v] : group_values) {
      const auto& members = groups[g.index()].hosts;  // sorted
      if (std::binary_search(members.begin(), members.end(), host)) return v;
    }
    return default_value;
  }
};

enum QueueType : std::uint8_t { kQueueBatch = 1, kQueueInteractive = 2, kQueueParallel = 4, kQueueCheckpointing = 8 };

struct ClusterQueue {
  std::vector<HostId> hosts;  // resolved hostlist
  PerHost<std::int64_t> seq_no;
  PerHost<ComplexValueList> load_thresholds;
  PerHost<ComplexValueList> suspend_thresholds;
  PerHost<std::uint32_t> nsuspend;
  PerHost<Duration> suspend_interval;
  PerHost<std::uint8_t> qtype{static_cast<std::uint8_t>(kQueueBatch | kQueueInteractive)};
  PerHost<std::vector<PeId>> pe_list;
  PerHost<std::uint32_t> slots{1};
  PerHost<ComplexValueList> complex_values;
  PerHost<std::vector<UsersetId>> user_lists;
  PerHost<std::vector<UsersetId>> xuser_lists;
  PerHost<std::vector<ProjectId>> projects;
  PerHost<std::vector<ProjectId>> xprojects;
  // Resource limits (queue_conf(5) RESOURCE LIMITS); INFINITY is kInfiniteDuration or
  // a huge number of bytes.
  PerHost<Duration> h_rt{kInfiniteDuration};
  PerHost<Duration> s_rt{kInfiniteDuration};
  // 1 where the instance is closed: disabled, suspended, preempted, unknown,
  // in error or orphaned as qstat reports it (the `states` attribute). A closed instance
  // takes no job and no reservation; its running jobs keep their resources.
  PerHost<std::uint8_t> closed{0};
};

}  // namespace schedk
