#include "kernel/priority/tickets.hpp"

#include <algorithm>
#include <tuple>

#include <tbb/parallel_sort.h>

#include "kernel/priority/functional_policy.hpp"
#include "kernel/priority/override_policy.hpp"
#include "kernel/priority/share_tree_policy.hpp"

namespace schedk {
namespace {

struct RowKey {
  JobNumber job;
  TaskNumber first_task;
  std::uint32_t flat;
  std::uint32_t shard;
  std::uint32_t row;
  bool operator<(const RowKey& o) const { return std::tie(job, first_task) < std::tie(o.job, o.first_task); }
};

template <class It, class Less>
void Sort(ExecutionMode mode, It begin, It end, Less less) {
  if (mode == ExecutionMode::kParallel) {
    tbb::parallel_sort(begin, end, less);
  } else {
    std::sort(begin, end, less);
  }
}

void AppendRef(TicketRefs& refs, const JobShard& shard, std::size_t row, std::uint32_t flat, TaskNumber task,
               const EntityTables& entities) {
  refs.row.push_back(flat);
  refs.task.push_back(task);
  refs.job.push_back(shard.number[row]);
  refs.submit.push_back(shard.submit[row]);
  refs.user.push_back(shard.owner[row]);
  refs.project.push_back(shard.project[row]);
  const UsersetId dept = shard.department[row];
  refs.department.push_back(dept.valid() && entities.userset(dept).is_department ? dept : UsersetId::None());
  refs.jobshare.push_back(shard.jobshare[row]);
  refs.job_oticket.push_back(shard.override_tickets[row]);
}

// Builds the refs: running tasks in job-list order, then each dispatchable
// job's first L pending tasks.
TicketResult BuildRefs(const Cluster& cluster, const JobTable& jobs, const std::vector<RowRole>& roles,
                       ExecutionMode mode) {
  TicketResult result;
  const auto offsets = jobs.Offsets();
  const std::size_t n = jobs.rows();
  result.first_ref.assign(n, kNoRef);
  result.ref_count.assign(n, 0);
  std::vector<RowKey> running, pending;
  for (std::size_t s = 0; s < jobs.shards().size(); ++s) {
    const JobShard& shard = jobs.shards()[s];
    for (std::size_t r = 0; r < shard.size(); ++r) {
      const std::uint32_t flat = offsets[s] + static_cast<std::uint32_t>(r);
      const RowKey key{shard.number[r], shard.task_first[r], flat, static_cast<std::uint32_t>(s),
                       static_cast<std::uint32_t>(r)};
      if (roles[flat] == RowRole::kRunning) running.push_back(key);
      if (roles[flat] == RowRole::kDispatchable) pending.push_back(key);
    }
  }
  Sort(mode, running.begin(), running.end(), std::less<RowKey>());
  Sort(mode, pending.begin(), pending.end(), std::less<RowKey>());

  const std::uint64_t limit = std::min<std::uint64_t>(cluster.config.max_pending_tasks_per_job,
                                                      FreeQueueSlots(cluster, jobs) + 1);
  result.pending_task_limit = static_cast<std::uint32_t>(limit);
  TicketRefs& refs = result.refs;
  for (const RowKey& k : running) {
    const JobShard& shard = jobs.shards()[k.shard];
    result.first_ref[k.flat] = static_cast<std::uint32_t>(refs.size());
    result.ref_count[k.flat] = 1;
    AppendRef(refs, shard, k.row, k.flat, shard.task_first[k.row], cluster.entities);
  }
  refs.running = refs.size();
  std::uint64_t tasks_of_job = 0;
  for (std::size_t p = 0; p < pending.size(); ++p) {
    const RowKey& k = pending[p];
    if (p == 0 || pending[p - 1].job != k.job) tasks_of_job = 0;
    const JobShard& shard = jobs.shards()[k.shard];
    const std::uint32_t first = static_cast<std::uint32_t>(refs.size());
    for (TaskNumber t = shard.task_first[k.row]; tasks_of_job < limit; t += shard.task_step[k.row]) {
      AppendRef(refs, shard, k.row, k.flat, t, cluster.entities);
      ++tasks_of_job;
      if (shard.task_last[k.row] - t < shard.task_step[k.row]) break;
    }
    if (refs.size() > first) {
      result.first_ref[k.flat] = first;
      result.ref_count[k.flat] = static_cast<std::uint32_t>(refs.size()) - first;
    }
  }
  refs.ResetResults();
  result.pending_rows.reserve(pending.size());
  for (const RowKey& k : pending) result.pending_rows.push_back(k.flat);
  return result;
}

EntityCounts RunningCounts(const Cluster& cluster, const TicketRefs& refs) {
  EntityCounts counts;
  counts.user.assign(cluster.entities.users.size(), 0);
  counts.project.assign(cluster.entities.projects.size(), 0);
  counts.department.assign(cluster.entities.usersets.size(), 0);
  for (std::size_t i = 0; i < refs.running; ++i) counts.Add(refs, i, +1);
  return counts;
}

// sconf_ph_fill_array: the listed policies (dependent) in order, then the others.
std::vector<std::pair<TicketPolicy, bool>> PolicyOrder(const SchedulerConfig& config) {
  std::vector<std::pair<TicketPolicy, bool>> order;
  for (TicketPolicy p : config.policy_hierarchy) order.emplace_back(p, true);
  for (TicketPolicy p : {TicketPolicy::kOverride, TicketPolicy::kFunctional, TicketPolicy::kShareTree}) {
    if (std::find(config.policy_hierarchy.begin(), config.policy_hierarchy.end(), p) ==
        config.policy_hierarchy.end()) {
      order.emplace_back(p, false);
    }
  }
  return order;
}

}  // namespace

std::uint64_t FreeQueueSlots(const Cluster& cluster, const JobTable& jobs) {
  // Slots used per queue instance by running and suspended tasks.
  std::vector<std::vector<std::pair<HostId, std::uint64_t>>> used(cluster.queues.size());
  for (const JobShard& shard : jobs.shards()) {
    for (std::size_t r = 0; r < shard.size(); ++r) {
      if (shard.state[r] != JobState::kRunning && shard.state[r] != JobState::kSuspended) continue;
      const JobExtras* extras = shard.extras_of(r);
      if (extras == nullptr) continue;
      for (const GrantedSlots& g : extras->granted) {
        auto& list = used[g.queue.index()];
        auto it = std::find_if(list.begin(), list.end(), [&](const auto& e) { return e.first == g.host; });
        if (it == list.end()) {
          list.emplace_back(g.host, g.slots);
        } else {
          it->second += g.slots;
        }
      }
    }
  }
  std::uint64_t free = 0;
  for (std::size_t q = 0; q < cluster.queues.size(); ++q) {
    const ClusterQueue& queue = cluster.queues[q];
    for (HostId host : queue.hosts) {
      const std::int64_t slots = queue.slots.For(host, cluster.hostgroups);
      std::int64_t in_use = 0;
      for (const auto& [h, u] : used[q]) {
        if (h == host) in_use = static_cast<std::int64_t>(u);
      }
      free += static_cast<std::uint64_t>(std::max<std::int64_t>(0, slots - in_use));
    }
  }
  return free;
}

TicketResult ComputeTickets(const Cluster& cluster, const JobTable& jobs, const std::vector<RowRole>& roles,
                            ExecutionMode mode) {
  const SchedulerConfig& config = cluster.config;
  TicketResult result = BuildRefs(cluster, jobs, roles, mode);
  TicketRefs& refs = result.refs;
  EntityCounts counts = RunningCounts(cluster, refs);

  // Pass A, pass 0: share-tree nodes (in ref order, which creates temporary
  // "default" copies in Grid Engine's order), usage and targets.
  ShareTreeWorkspace tree(cluster);
  std::vector<ShareNodeId> ref_node(refs.size());
  for (std::size_t i = 0; i < refs.size(); ++i) ref_node[i] = tree.NodeFor(refs.user[i], refs.project[i]);
  tree.ComputeUsage();
  tree.ComputeTargets(refs, ref_node, /*with_pending=*/true);
  const double share_total = config.weight_tickets_share;
  const bool share_tree_on = share_total > 0 && !tree.empty();

  // Pass A, passes 1 and 2: running tasks.
  if (share_tree_on) tree.RunningTickets(ref_node, share_total, refs);
  const FunctionalSums running_sums = FunctionalTicketsRunning(config, cluster.entities, counts, refs);
  OverrideTicketsRunning(config, cluster.entities, counts, refs);

  // Pass A: pending tasks, policy by policy.
  if (refs.size() > refs.running) {
    for (const auto& [policy, dependent] : PolicyOrder(config)) {
      switch (policy) {
        case TicketPolicy::kShareTree:
          if (!share_tree_on) break;
          if (mode == ExecutionMode::kParallel) {
            tree.PendingTickets(ref_node, share_total, dependent, refs);
          } else {
            tree.PendingTicketsSerial(ref_node, share_total, dependent, refs);
          }
          break;
        case TicketPolicy::kFunctional:
          if (mode == ExecutionMode::kParallel) {
            FunctionalTicketsPending(config, cluster.entities, counts, running_sums, dependent, refs);
          } else {
            FunctionalTicketsPendingNaive(config, cluster.entities, counts, running_sums, dependent, refs);
          }
          break;
        case TicketPolicy::kOverride:
          if (mode == ExecutionMode::kParallel) {
            OverrideTicketsPending(config, cluster.entities, counts, dependent, refs);
          } else {
            OverrideTicketsPendingNaive(config, cluster.entities, counts, dependent, refs);
          }
          break;
      }
    }
  }
  double max_tix = -1;
  double pending_sum = 0;
  for (std::size_t i = 0; i < refs.size(); ++i) {
    const double tix = refs.Total(i);
    max_tix = std::max(max_tix, tix);
    if (refs.queued(i)) pending_sum += tix;
  }
  for (std::size_t i = refs.running; i < refs.size(); ++i) {
    const double tix = refs.Total(i);
    refs.share[i] = tix > 0 ? tix / pending_sum : 0;
  }

  // Pass B: running tasks alone define the share tree's active nodes.
  if (!tree.empty()) tree.ComputeTargets(refs, ref_node, /*with_pending=*/false);
  if (share_tree_on) tree.RunningTickets(ref_node, share_total, refs);
  double running_sum = 0;
  for (std::size_t i = 0; i < refs.running; ++i) running_sum += refs.Total(i);
  for (std::size_t i = 0; i < refs.running; ++i) {
    const double tix = refs.Total(i);
    max_tix = std::max(max_tix, tix);
    refs.share[i] = tix > 0 ? tix / running_sum : 0;
  }
  result.max_tix = max_tix == -1 ? 0 : max_tix;
  return result;
}

}  // namespace schedk
