#include "kernel/priority/tickets.hpp"

#include <algorithm>
#include <functional>
#include <optional>
#include <unordered_map>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>
#include <tbb/task_group.h>

#include "kernel/priority/functional_policy.hpp"
#include "kernel/priority/override_policy.hpp"
#include "kernel/priority/share_tree_policy.hpp"

namespace schedk {
namespace {

// Builds the refs: running tasks in job-list order, then each dispatchable
// job's first L pending tasks. Chunks of the job-list order are counted, then
// filled, independently.
TicketResult BuildRefs(const Cluster& cluster, const JobTable& jobs, const std::vector<RowRole>& roles,
                       const RowIndex& index, const JobListOrder& order, ExecutionMode mode) {
  TicketResult result;
  result.first_ref.resize(jobs.rows());  // every row is written by the second walk
  result.ref_count.resize(jobs.rows());
  const std::uint64_t limit = std::min<std::uint64_t>(cluster.config.max_pending_tasks_per_job,
                                                      FreeQueueSlots(cluster, jobs) + 1);
  result.pending_task_limit = static_cast<std::uint32_t>(limit);
  // Walks chunk c: on_running(flat, at) for each running row (at: its shard and
  // row), on_pending(flat, at, refs) for each dispatchable row with the number
  // of its tasks among its job's first L, on_other(flat) for the others.
  auto walk = [&](std::size_t c, auto&& on_running, auto&& on_pending, auto&& on_other) {
    RowIndex::Cursor cursor(jobs, index);
    std::uint64_t tasks_of_job = 0;
    JobNumber previous = 0;
    bool any_pending = false;
    for (std::uint32_t k = order.chunk_begin(c); k < order.chunk_begin(c + 1); ++k) {
      const std::uint32_t flat = order.rows()[k];
      const RowRole role = roles[flat];
      if (role == RowRole::kRunning) {
        on_running(flat, cursor.At(flat));
        continue;
      }
      if (role != RowRole::kDispatchable) {
        on_other(flat);
        continue;
      }
      const RowIndex::Row at = cursor.At(flat);
      const JobNumber number = at.shard->number[at.row];
      if (!any_pending || number != previous) tasks_of_job = 0;
      any_pending = true;
      previous = number;
      const std::uint64_t room = limit - std::min(limit, tasks_of_job);
      const std::uint64_t count = std::min<std::uint64_t>(room, at.shard->task_count(at.row));
      tasks_of_job += count;
      on_pending(flat, at, static_cast<std::uint32_t>(count));
    }
  };
  struct ChunkCounts {
    std::uint32_t running = 0, pending_rows = 0, pending_refs = 0;
  };
  std::vector<ChunkCounts> base(order.chunks() + 1);
  ForEachIndex(mode, order.chunks(), [&](std::size_t c) {
    ChunkCounts& counts = base[c + 1];
    walk(
        c, [&](std::uint32_t, RowIndex::Row) { ++counts.running; },
        [&](std::uint32_t, RowIndex::Row, std::uint32_t refs) {
          ++counts.pending_rows;
          counts.pending_refs += refs;
        },
        [](std::uint32_t) {});
  });
  for (std::size_t c = 0; c < order.chunks(); ++c) {
    base[c + 1].running += base[c].running;
    base[c + 1].pending_rows += base[c].pending_rows;
    base[c + 1].pending_refs += base[c].pending_refs;
  }
  const std::uint32_t running_refs = base.back().running;
  TicketRefs& refs = result.refs;
  refs.Resize(std::size_t{running_refs} + base.back().pending_refs);
  refs.running = running_refs;
  result.pending_rows.resize(base.back().pending_rows);
  // A job's department is its userset when that is a department.
  const EntityTables& entities = cluster.entities;
  std::vector<UsersetId> department_of(entities.usersets.size());
  for (std::size_t u = 0; u < department_of.size(); ++u) {
    if (entities.usersets[u].is_department) department_of[u] = UsersetId(static_cast<std::uint32_t>(u));
  }
  auto fill = [&](std::uint32_t flat, RowIndex::Row at, std::uint32_t first, std::uint32_t count) {
    const JobShard& shard = *at.shard;
    const std::uint32_t r = at.row;
    result.first_ref[flat] = first;
    result.ref_count[flat] = count;
    const UsersetId dept = shard.department[r];
    const UsersetId department = dept.valid() ? department_of[dept.index()] : UsersetId::None();
    TaskNumber task = shard.task_first[r];
    for (std::uint32_t k = 0, i = first; k < count; ++k, ++i, task += shard.task_step[r]) {
      refs.task[i] = task;
      refs.job[i] = shard.number[r];
      refs.submit[i] = static_cast<std::uint32_t>(shard.submit[r]);
      refs.user[i] = shard.owner[r];
      refs.project[i] = shard.project[r];
      refs.department[i] = department;
      refs.jobshare[i] = shard.jobshare[r];
      refs.job_oticket[i] = shard.override_tickets[r];
      refs.ClearResults(i);
    }
  };
  auto no_refs = [&](std::uint32_t flat) {
    result.first_ref[flat] = kNoRef;
    result.ref_count[flat] = 0;
  };
  ForEachIndex(mode, order.chunks(), [&](std::size_t c) {
    std::uint32_t running = base[c].running;
    std::uint32_t pending_row = base[c].pending_rows;
    std::uint32_t pending_ref = running_refs + base[c].pending_refs;
    walk(
        c, [&](std::uint32_t flat, RowIndex::Row at) { fill(flat, at, running++, 1); },
        [&](std::uint32_t flat, RowIndex::Row at, std::uint32_t count) {
          result.pending_rows[pending_row++] = flat;
          if (count == 0) return no_refs(flat);
          fill(flat, at, pending_ref, count);
          pending_ref += count;
        },
        no_refs);
  });
  // SHARE_TREE_PENDING=8.1's dilution: each ref's job's minimum slot count.
  if (cluster.config.share_tree_pending == ShareTreePending::kSlots) {
    result.slot_dilution.resize(refs.size());
    RowIndex::Cursor cursor(jobs, index);
    for (std::uint32_t flat = 0; flat < result.ref_count.size(); ++flat) {
      if (result.ref_count[flat] == 0) continue;
      const RowIndex::Row at = cursor.At(flat);
      const RequestSet& requests = jobs.requests(at.shard->requests[at.row]);
      const std::uint32_t slots = requests.has_pe ? std::max<std::uint32_t>(1, requests.pe.min) : 1;
      std::fill_n(result.slot_dilution.begin() + result.first_ref[flat], result.ref_count[flat], slots);
    }
  }
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
  // Slots used per queue instance (queue, host) by running and suspended tasks.
  std::unordered_map<std::uint64_t, std::uint64_t> used;
  for (const JobShard& shard : jobs.shards()) {
    for (const JobExtras& extras : shard.extras) {
      for (const GrantedSlots& g : extras.granted) used[(std::uint64_t{g.queue.value} << 32) | g.host.value] += g.slots;
    }
  }
  std::uint64_t free = 0;
  for (std::size_t q = 0; q < cluster.queues.size(); ++q) {
    const ClusterQueue& queue = cluster.queues[q];
    for (HostId host : queue.hosts) {
      if (queue.closed.For(host, cluster.hostgroups)) continue;  // not in the scheduler's queue list
      const std::int64_t slots = queue.slots.For(host, cluster.hostgroups);
      const auto it = used.find((std::uint64_t{static_cast<std::uint32_t>(q)} << 32) | host.value);
      const std::int64_t in_use = it == used.end() ? 0 : static_cast<std::int64_t>(it->second);
      free += static_cast<std::uint64_t>(std::max<std::int64_t>(0, slots - in_use));
    }
  }
  return free;
}

TicketResult ComputeTickets(const Cluster& cluster, const JobTable& jobs, const RowIndex& index, JobListOrder&& order,
                            const std::vector<RowRole>& roles, ExecutionMode mode) {
  const SchedulerConfig& config = cluster.config;
  TicketResult result = [&] {
    const JobListOrder released = std::move(order);
    return BuildRefs(cluster, jobs, roles, index, released, mode);
  }();
  TicketRefs& refs = result.refs;
  EntityCounts counts = RunningCounts(cluster, refs);

  const double share_total = config.weight_tickets_share;
  ShareTreeWorkspace tree(cluster);
  const bool share_tree_on = share_total > 0 && !tree.empty();
  std::vector<ShareNodeId> ref_node;
  // Pass A, pass 0: share-tree nodes (in ref order, which creates temporary
  // "default" copies in Grid Engine's order), usage and targets; passes 1 and
  // 2 for the share tree: its running tasks' tickets.
  auto prepare_tree = [&] {
    ref_node = mode == ExecutionMode::kParallel ? tree.NodesOf(refs) : tree.NodesOfReference(refs);
    tree.ComputeUsage(mode);
    tree.ComputeTargets(refs, ref_node, /*with_pending=*/true, mode);
    if (share_tree_on) tree.RunningTickets(ref_node, share_total, refs);
  };
  // Pass A, passes 1 and 2: running tasks.
  const FunctionalSums running_sums = FunctionalTicketsRunning(config, cluster.entities, counts, refs);
  OverrideTicketsRunning(config, cluster.entities, counts, refs);

  // Pass A: pending tasks, policy by policy.
  const std::vector<std::pair<TicketPolicy, bool>> policies =
      refs.size() > refs.running ? PolicyOrder(config) : std::vector<std::pair<TicketPolicy, bool>>{};
  // Whether any policy after policies[k] satisfies `pred`.
  auto any_later = [&](std::size_t k, auto pred) {
    return std::any_of(policies.begin() + static_cast<std::ptrdiff_t>(k) + 1, policies.end(), pred);
  };
  // The share tree's layout reads only the refs' nodes, numbers and job
  // shares, which no pass writes: a functional pass before the share tree's
  // makes it on its second thread, beside its greedy rounds, which are serial.
  std::optional<ShareTreeWorkspace::PendingLayout> layout;
  const std::function<void()> lay_out_beside = [&] { layout = tree.LayOutPending(refs, ref_node, mode); };
  // The pending pass of policies[k]. A dependent pass ranks by the tickets of
  // the dependent passes before it.
  auto pending_pass = [&](std::size_t k) {
    const auto [policy, dependent] = policies[k];
    switch (policy) {
      case TicketPolicy::kShareTree: {
        if (!share_tree_on) return;
        // The share tree's ranking is the largest working set of the pass:
        // columns no later pass reads are freed before it, the job and task
        // numbers once the layout has taken their order.
        if (!layout) layout = tree.LayOutPending(refs, ref_node, mode);
        if (!any_later(k, [](const auto& later) { return later.first != TicketPolicy::kShareTree; })) {
          refs.ReleaseEntityColumns();
        }
        // Its tickets are added to the earlier ones only for a later dependent pass.
        const bool add_to_tickets = dependent && any_later(k, [](const auto& later) { return later.second; });
        if (mode == ExecutionMode::kParallel) {
          tree.PendingTickets(ref_node, std::move(*layout), share_total, dependent, add_to_tickets,
                              result.slot_dilution, refs);
        } else {
          tree.PendingTicketsReference(ref_node, std::move(*layout), share_total, dependent, add_to_tickets,
                                       result.slot_dilution, refs);
        }
        return;
      }
      case TicketPolicy::kFunctional:
        if (config.functional_split == FunctionalSplit::kLinear) {
          FunctionalTicketsPendingLinear(config, cluster.entities, dependent, refs, mode);
        } else if (mode == ExecutionMode::kParallel) {
          const bool share_tree_later =
              share_tree_on && any_later(k, [](const auto& later) { return later.first == TicketPolicy::kShareTree; });
          FunctionalTicketsPending(config, cluster.entities, counts, running_sums, dependent, refs,
                                   share_tree_later ? lay_out_beside : nullptr);
        } else {
          FunctionalTicketsPendingReference(config, cluster.entities, counts, running_sums, dependent, refs);
        }
        return;
      case TicketPolicy::kOverride:
        // Every otix stays 0 unless some task has override tickets.
        if (AnyPendingOverrideTickets(cluster.entities, refs)) {
          if (mode == ExecutionMode::kParallel) {
            OverrideTicketsPending(config, cluster.entities, counts, dependent, refs);
          } else {
            OverrideTicketsPendingReference(config, cluster.entities, counts, dependent, refs);
          }
        }
        refs.ReleaseOverrideColumn();  // before the functional pass, where the pass's memory peaks
        return;
    }
  };
  // An override pass ranked first neither reads the tree nor writes what
  // preparing the tree reads (the refs' identity and entity columns, the
  // running refs' share-tree tickets), and its working set is small: in
  // parallel mode the two run side by side, the tree's preparation being
  // mostly serial and the override loop entirely so.
  std::size_t next = 0;
  if (mode == ExecutionMode::kParallel && !policies.empty() && policies[0].first == TicketPolicy::kOverride) {
    tbb::task_group side;
    side.run(prepare_tree);
    pending_pass(0);
    side.wait();
    next = 1;
  } else {
    prepare_tree();
  }
  for (; next < policies.size(); ++next) pending_pass(next);
  // Pass B: running tasks alone define the share tree's active nodes.
  if (!tree.empty()) tree.ComputeTargets(refs, ref_node, /*with_pending=*/false, mode);
  std::vector<double> pass_a_running(refs.running);
  for (std::size_t i = 0; i < refs.running; ++i) pass_a_running[i] = refs.Total(i);
  if (share_tree_on) tree.RunningTickets(ref_node, share_total, refs);
  refs.ReleaseWorkingColumns();
  std::vector<std::uint32_t>().swap(result.slot_dilution);
  std::vector<ShareNodeId>().swap(ref_node);

  // max_tix over pass A (pending tasks and running tasks' pass A values) and pass
  // B; share = tix / sum over the pending (pass A) or running (pass B) tasks,
  // summed in job-list order.
  // With PRIORITY_NORMALIZATION=pending only the pending tasks span the range.
  const bool pending_only = config.normalization == PriorityNormalization::kPendingOnly;
  double max_tix = -1;
  if (!pending_only) {
    for (double tix : pass_a_running) max_tix = std::max(max_tix, tix);
  }
  double pending_sum = 0, running_sum = 0;
  for (std::size_t i = 0; i < refs.running; ++i) running_sum += refs.Total(i);
  for (std::size_t i = refs.running; i < refs.size(); ++i) pending_sum += refs.Total(i);
  refs.share.resize(refs.size());
  // The largest total and the shares do not depend on the order of the refs.
  auto shares = [&](std::size_t begin, std::size_t end, double max) {
    for (std::size_t i = begin; i < end; ++i) {
      const double tix = refs.Total(i);
      if (!pending_only || refs.queued(i)) max = std::max(max, tix);
      refs.share[i] = tix > 0 ? tix / (refs.queued(i) ? pending_sum : running_sum) : 0;
    }
    return max;
  };
  if (mode == ExecutionMode::kParallel) {
    max_tix = tbb::parallel_reduce(
        tbb::blocked_range<std::size_t>(0, refs.size(), 16384), max_tix,
        [&](const auto& r, double max) { return shares(r.begin(), r.end(), max); },
        [](double a, double b) { return std::max(a, b); });
  } else {
    max_tix = shares(0, refs.size(), max_tix);
  }
  result.max_tix = max_tix == -1 ? 0 : max_tix;
  return result;
}

}  // namespace schedk
