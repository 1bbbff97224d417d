// queue_instances.hpp
// The queue instances of a cluster (every `queue@host` pair of a cluster
// queue and a host of its hostlist) with their per-host attribute values
// resolved once, as a struct of arrays. Indices are dense, in definition
// order: queues as the snapshot defines them, hosts in hostlist order.
// Invariants: every column has size(); pointers point into the Cluster the
// table was built from, which must outlive it.
#pragma once

#include <cstdint>
#include <vector>

#include "kernel/model/cluster.hpp"

namespace schedk {

struct QueueInstanceTable {
  std::vector<QueueId> queue;
  std::vector<HostId> host;
  std::vector<std::uint32_t> slots;
  std::vector<std::int64_t> seq_no;
  std::vector<std::uint8_t> qtype;
  std::vector<Duration> h_rt;
  std::vector<Duration> s_rt;
  std::vector<const std::vector<PeId>*> pe_list;
  std::vector<const ComplexValueList*> complex_values;
  std::vector<const ComplexValueList*> load_thresholds;
  std::vector<const std::vector<UsersetId>*> user_lists;
  std::vector<const std::vector<UsersetId>*> xuser_lists;
  std::vector<const std::vector<ProjectId>*> projects;
  std::vector<const std::vector<ProjectId>*> xprojects;
  std::vector<std::uint8_t> closed;  // ClusterQueue::closed
  // Instances per host, in index order (CSR: on_host[host_first[h], host_first[h + 1])).
  std::vector<std::uint32_t> host_first;
  std::vector<std::uint32_t> on_host;

  std::size_t size() const { return queue.size(); }
  // The instance of `q` on `h`, or UINT32_MAX.
  std::uint32_t Find(QueueId q, HostId h) const;

  static QueueInstanceTable Build(const Cluster& cluster);
};

}  // namespace schedk
