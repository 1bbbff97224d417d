#include "kernel/dispatch/queue_instances.hpp"

namespace schedk {

std::uint32_t QueueInstanceTable::Find(QueueId q, HostId h) const {
  if (!h.valid() || h.index() + 1 >= host_first.size()) return UINT32_MAX;
  for (std::uint32_t k = host_first[h.index()]; k < host_first[h.index() + 1]; ++k) {
    if (queue[on_host[k]] == q) return on_host[k];
  }
  return UINT32_MAX;
}

QueueInstanceTable QueueInstanceTable::Build(const Cluster& cluster) {
  QueueInstanceTable t;
  const auto& groups = cluster.hostgroups;
  for (std::size_t q = 0; q < cluster.queues.size(); ++q) {
    const ClusterQueue& cq = cluster.queues[q];
    for (HostId h : cq.hosts) {
      t.queue.push_back(QueueId(static_cast<std::uint32_t>(q)));
      t.host.push_back(h);
      t.slots.push_back(cq.slots.For(h, groups));
      t.seq_no.push_back(cq.seq_no.For(h, groups));
      t.qtype.push_back(cq.qtype.For(h, groups));
      t.h_rt.push_back(cq.h_rt.For(h, groups));
      t.s_rt.push_back(cq.s_rt.For(h, groups));
      t.pe_list.push_back(&cq.pe_list.For(h, groups));
      t.complex_values.push_back(&cq.complex_values.For(h, groups));
      t.load_thresholds.push_back(&cq.load_thresholds.For(h, groups));
      t.user_lists.push_back(&cq.user_lists.For(h, groups));
      t.xuser_lists.push_back(&cq.xuser_lists.For(h, groups));
      t.projects.push_back(&cq.projects.For(h, groups));
      t.xprojects.push_back(&cq.xprojects.For(h, groups));
      t.closed.push_back(cq.closed.For(h, groups));
    }
  }
  t.host_first.assign(cluster.hosts.size() + 1, 0);
  for (HostId h : t.host) ++t.host_first[h.index() + 1];
  for (std::size_t h = 0; h < cluster.hosts.size(); ++h) t.host_first[h + 1] += t.host_first[h];
  t.on_host.resize(t.size());
  std::vector<std::uint32_t> fill(t.host_first.begin(), t.host_first.end() - 1);
  for (std::uint32_t i = 0; i < t.size(); ++i) t.on_host[fill[t.host[i].index()]++] = i;
  return t;
}

}  // namespace schedk
