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
#include "kernel/tuning.hpp"

namespace schedk {
namespace {

// Builds the refs: running tasks in job-list order, then each dispatchable
// job's first L pending tasks (L: max_pending_tasks_per_job, at most the free
// queue slots + 1). Chunks of the job-list order are counted, then filled,
// independently; the counts' prefix sums say where each chunk writes.
class RefBuilder {
 public:
  RefBuilder(const Cluster& cluster, const JobTable& jobs, const std::vector<RowRole>& roles, const RowIndex& index,
             const JobListOrder& order, ExecutionMode mode)
      : cluster_(cluster),
        jobs_(jobs),
        roles_(roles),
        index_(index),
        order_(order),
        limit_(
            std::min<std::uint64_t>(cluster.config.max_pending_tasks_per_job, FreeQueueSlots(cluster, jobs, mode) + 1)),
        mode_(mode) {}

  TicketResult Build() {
    TicketResult result;
    result.pending_task_limit = static_cast<std::uint32_t>(limit_);
    result.first_ref.resize(jobs_.rows());  // every row is written by the second walk
    result.ref_count.resize(jobs_.rows());
    const std::vector<ChunkCounts> base = CountChunks(mode_);
    result.refs.Resize(std::size_t{base.back().running} + base.back().pending_refs);
    result.refs.running = base.back().running;
    result.pending_rows.resize(base.back().pending_rows);
    const std::vector<UsersetId> department_of = DepartmentOf();
    ForEachIndex(mode_, order_.chunks(), [&](std::size_t c) { FillChunk(c, base[c], department_of, result); });
    if (cluster_.config.share_tree_pending == ShareTreePending::kSlots) AddSlotDilution(result);
    return result;
  }

 private:
  struct ChunkCounts {
    std::uint32_t running = 0, pending_rows = 0, pending_refs = 0;
  };

  // Walks chunk c: on_running(flat, at) for each running row (at: its shard
  // and row), on_pending(flat, at, refs) for each dispatchable row with the
  // number of its tasks among its job's first L, on_other(flat) for the others.
  template <class OnRunning, class OnPending, class OnOther>
  void Walk(std::size_t c, OnRunning&& on_running, OnPending&& on_pending, OnOther&& on_other) const {
    RowIndex::Cursor cursor(jobs_, index_);
    std::uint64_t tasks_of_job = 0;
    JobNumber previous = 0;
    bool any_pending = false;
    for (std::uint32_t k = order_.chunk_begin(c); k < order_.chunk_begin(c + 1); ++k) {
      const std::uint32_t flat = order_.rows()[k];
      const RowRole role = roles_[flat];
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
      const std::uint64_t room = limit_ - std::min(limit_, tasks_of_job);
      const std::uint64_t count = std::min<std::uint64_t>(room, at.shard->task_count(at.row));
      tasks_of_job += count;
      on_pending(flat, at, static_cast<std::uint32_t>(count));
    }
  }

  // By chunk: the counts of the chunks before it (base[0] is zero, the last
  // entry holds the totals).
  std::vector<ChunkCounts> CountChunks(ExecutionMode mode) const {
    std::vector<ChunkCounts> base(order_.chunks() + 1);
    ForEachIndex(mode, order_.chunks(), [&](std::size_t c) {
      ChunkCounts& counts = base[c + 1];
      Walk(
          c, [&](std::uint32_t, RowIndex::Row) { ++counts.running; },
          [&](std::uint32_t, RowIndex::Row, std::uint32_t refs) {
            ++counts.pending_rows;
            counts.pending_refs += refs;
          },
          [](std::uint32_t) {});
    });
    for (std::size_t c = 0; c < order_.chunks(); ++c) {
      base[c + 1].running += base[c].running;
      base[c + 1].pending_rows += base[c].pending_rows;
      base[c + 1].pending_refs += base[c].pending_refs;
    }
    return base;
  }

  // A job's department is its userset when that is a department.
  std::vector<UsersetId> DepartmentOf() const {
    const EntityTables& entities = cluster_.entities;
    std::vector<UsersetId> department_of(entities.usersets.size());
    for (std::size_t u = 0; u < department_of.size(); ++u) {
      if (entities.usersets[u].is_department) department_of[u] = UsersetId(static_cast<std::uint32_t>(u));
    }
    return department_of;
  }

  void FillChunk(std::size_t c, const ChunkCounts& before, const std::vector<UsersetId>& department_of,
                 TicketResult& result) const {
    std::uint32_t running = before.running;
    std::uint32_t pending_row = before.pending_rows;
    std::uint32_t pending_ref = result.refs.running + before.pending_refs;
    auto no_refs = [&](std::uint32_t flat) {
      result.first_ref[flat] = kNoRef;
      result.ref_count[flat] = 0;
    };
    Walk(
        c, [&](std::uint32_t flat, RowIndex::Row at) { FillRow(flat, at, running++, 1, department_of, result); },
        [&](std::uint32_t flat, RowIndex::Row at, std::uint32_t count) {
          result.pending_rows[pending_row++] = flat;
          if (count == 0) return no_refs(flat);
          FillRow(flat, at, pending_ref, count, department_of, result);
          pending_ref += count;
        },
        no_refs);
  }

  // The refs [first, first + count) of row `flat`: its tasks in order.
  static void FillRow(std::uint32_t flat, RowIndex::Row at, std::uint32_t first, std::uint32_t count,
                      const std::vector<UsersetId>& department_of, TicketResult& result) {
    const JobShard& shard = *at.shard;
    const std::uint32_t r = at.row;
    TicketRefs& refs = result.refs;
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
  }

  // SHARE_TREE_PENDING=8.1's dilution: each ref's job's minimum slot count.
  void AddSlotDilution(TicketResult& result) const {
    result.slot_dilution.resize(result.refs.size());
    RowIndex::Cursor cursor(jobs_, index_);
    for (std::uint32_t flat = 0; flat < result.ref_count.size(); ++flat) {
      if (result.ref_count[flat] == 0) continue;
      const RowIndex::Row at = cursor.At(flat);
      const RequestSet& requests = jobs_.requests(at.shard->requests[at.row]);
      const std::uint32_t slots = requests.has_pe ? std::max<std::uint32_t>(1, requests.pe.min) : 1;
      std::fill_n(result.slot_dilution.begin() + result.first_ref[flat], result.ref_count[flat], slots);
    }
  }

  const Cluster& cluster_;
  const JobTable& jobs_;
  const std::vector<RowRole>& roles_;
  const RowIndex& index_;
  const JobListOrder& order_;
  const std::uint64_t limit_;  // L
  const ExecutionMode mode_;
};

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

std::uint64_t FreeQueueSlots(const Cluster& cluster, const JobTable& jobs, ExecutionMode mode) {
  // The open queue instances (queue, host), numbered.
  auto key = [](std::uint32_t queue, HostId host) { return (std::uint64_t{queue} << 32) | host.value; };
  std::unordered_map<std::uint64_t, std::uint32_t> instance;
  for (std::size_t q = 0; q < cluster.queues.size(); ++q) {
    const ClusterQueue& queue = cluster.queues[q];
    for (HostId host : queue.hosts) {
      if (queue.closed.For(host, cluster.hostgroups)) continue;  // not in the scheduler's queue list
      instance.emplace(key(static_cast<std::uint32_t>(q), host), static_cast<std::uint32_t>(instance.size()));
    }
  }
  // Slots used there by running and suspended tasks: the shards in a fixed
  // number of groups, each group summed on a core of its own (in order
  // unless serial), then the groups added per instance (integer sums).
  const std::size_t shards = jobs.shards().size();
  std::vector<std::vector<std::uint64_t>> by_group(tuning::kFreeSlotGroups);
  ForEachIndex(mode, by_group.size(), [&](std::size_t group) {
    std::vector<std::uint64_t>& used = by_group[group];
    used.assign(instance.size(), 0);
    for (std::size_t s = group; s < shards; s += by_group.size()) {
      for (const JobExtras& extras : jobs.shards()[s].extras) {
        for (const GrantedSlots& g : extras.granted) {
          const auto it = instance.find(key(g.queue.value, g.host));
          if (it != instance.end()) used[it->second] += g.slots;
        }
      }
    }
  });
  std::uint64_t free = 0;
  for (std::size_t q = 0; q < cluster.queues.size(); ++q) {
    const ClusterQueue& queue = cluster.queues[q];
    for (HostId host : queue.hosts) {
      if (queue.closed.For(host, cluster.hostgroups)) continue;
      const std::int64_t slots = queue.slots.For(host, cluster.hostgroups);
      const std::uint32_t k = instance.at(key(static_cast<std::uint32_t>(q), host));
      std::int64_t in_use = 0;
      for (const std::vector<std::uint64_t>& used : by_group) in_use += static_cast<std::int64_t>(used[k]);
      free += static_cast<std::uint64_t>(std::max<std::int64_t>(0, slots - in_use));
    }
  }
  return free;
}

namespace {

// The ticket passes of one interval over built refs (sgeee.c's
// calc_pending_job_tickets and its callers): pass A gives the running tasks
// their tickets, then the pending tasks policy by policy; pass B recomputes
// the running tasks' share-tree tickets with running tasks alone active; the
// shares and the largest total then normalise them.
class TicketPasses {
 public:
  TicketPasses(const Cluster& cluster, TicketResult& result, Twin twin)
      : cluster_(cluster),
        config_(cluster.config),
        twin_(twin),
        mode_(ThreadsFor(twin)),
        result_(result),
        refs_(result.refs),
        counts_(RunningCounts(cluster, refs_)),
        tree_(cluster),
        share_total_(config_.weight_tickets_share),
        share_tree_on_(share_total_ > 0 && !tree_.empty()) {}

  void PassA() {
    running_sums_ = FunctionalTicketsRunning(config_, cluster_.entities, counts_, refs_, mode_);
    OverrideTicketsRunning(config_, cluster_.entities, counts_, refs_);
    if (refs_.size() > refs_.running) policies_ = PolicyOrder(config_);
    // An override pass ranked first neither reads the tree nor writes what
    // preparing the tree reads (the refs' identity and entity columns, the
    // running refs' share-tree tickets), and its working set is small: in
    // parallel mode the two run side by side, the tree's preparation being
    // mostly serial and the override loop entirely so.
    std::size_t next = 0;
    if (mode_ == ExecutionMode::kParallel && !policies_.empty() && policies_[0].first == TicketPolicy::kOverride) {
      tbb::task_group side;
      side.run([this] { PrepareTree(); });
      PendingPass(0);
      side.wait();
      next = 1;
    } else {
      PrepareTree();
    }
    for (; next < policies_.size(); ++next) PendingPass(next);
  }

  // Pass B: running tasks alone define the share tree's active nodes. Returns
  // the running tasks' pass A totals.
  std::vector<double> PassB() {
    if (!tree_.empty()) tree_.ComputeTargets(refs_, ref_node_, /*with_pending=*/false, mode_);
    std::vector<double> pass_a_running(refs_.running);
    for (std::size_t i = 0; i < refs_.running; ++i) pass_a_running[i] = refs_.Total(i);
    if (share_tree_on_) tree_.RunningTickets(ref_node_, share_total_, refs_);
    refs_.ReleaseWorkingColumns();
    std::vector<std::uint32_t>().swap(result_.slot_dilution);
    std::vector<ShareNodeId>().swap(ref_node_);
    return pass_a_running;
  }

  void Normalize(const std::vector<double>& pass_a_running);

 private:
  // Whether any policy after policies_[k] satisfies `pred`.
  template <class Pred>
  bool AnyLater(std::size_t k, Pred pred) const {
    return std::any_of(policies_.begin() + static_cast<std::ptrdiff_t>(k) + 1, policies_.end(), pred);
  }

  // Pass A, pass 0: share-tree nodes (in ref order, which creates temporary
  // "default" copies in Grid Engine's order), usage and targets; passes 1 and
  // 2 for the share tree: its running tasks' tickets.
  void PrepareTree() {
    ref_node_ = twin_ == Twin::kOptimised ? tree_.NodesOf(refs_) : tree_.NodesOfReference(refs_);
    tree_.ComputeUsage(mode_);
    tree_.ComputeTargets(refs_, ref_node_, /*with_pending=*/true, mode_);
    if (share_tree_on_) tree_.RunningTickets(ref_node_, share_total_, refs_);
  }

  // The pending pass of policies_[k]. A dependent pass ranks by the tickets of
  // the dependent passes before it.
  void PendingPass(std::size_t k) {
    const auto [policy, dependent] = policies_[k];
    switch (policy) {
      case TicketPolicy::kShareTree:
        return ShareTreePending(k, dependent);
      case TicketPolicy::kFunctional:
        return FunctionalPending(k, dependent);
      case TicketPolicy::kOverride:
        return OverridePending(dependent);
    }
  }

  void ShareTreePending(std::size_t k, bool dependent) {
    if (!share_tree_on_) return;
    // The share tree's ranking is the largest working set of the pass:
    // columns no later pass reads are freed before it, the job and task
    // numbers once the layout has taken their order.
    if (!layout_) layout_ = tree_.LayOutPending(refs_, ref_node_, mode_);
    if (!AnyLater(k, [](const auto& later) { return later.first != TicketPolicy::kShareTree; })) {
      refs_.ReleaseEntityColumns();
    }
    // Its tickets are added to the earlier ones only for a later dependent pass.
    const bool add_to_tickets = dependent && AnyLater(k, [](const auto& later) { return later.second; });
    if (twin_ == Twin::kOptimised) {
      tree_.PendingTickets(ref_node_, std::move(*layout_), share_total_, dependent, add_to_tickets,
                           result_.slot_dilution, refs_);
    } else {
      tree_.PendingTicketsReference(ref_node_, std::move(*layout_), share_total_, dependent, add_to_tickets,
                                    result_.slot_dilution, refs_);
    }
  }

  void FunctionalPending(std::size_t k, bool dependent) {
    if (config_.functional_split == FunctionalSplit::kLinear) {
      FunctionalTicketsPendingLinear(config_, cluster_.entities, dependent, refs_, mode_);
    } else if (twin_ == Twin::kOptimised) {
      // The share tree's layout reads only the refs' nodes, numbers and job
      // shares, which no pass writes: a functional pass before the share
      // tree's makes it on another thread, beside its greedy rounds, which
      // follow one another.
      const bool share_tree_later =
          share_tree_on_ && AnyLater(k, [](const auto& later) { return later.first == TicketPolicy::kShareTree; });
      const std::function<void()> lay_out_beside = [this] { layout_ = tree_.LayOutPending(refs_, ref_node_, mode_); };
      FunctionalTicketsPending(config_, cluster_.entities, counts_, running_sums_, dependent, refs_,
                               share_tree_later ? lay_out_beside : nullptr);
    } else {
      FunctionalTicketsPendingReference(config_, cluster_.entities, counts_, running_sums_, dependent, refs_);
    }
  }

  void OverridePending(bool dependent) {
    // Every otix stays 0 unless some task has override tickets.
    if (AnyPendingOverrideTickets(cluster_.entities, refs_)) {
      if (twin_ == Twin::kOptimised) {
        OverrideTicketsPending(config_, cluster_.entities, counts_, dependent, refs_);
      } else {
        OverrideTicketsPendingReference(config_, cluster_.entities, counts_, dependent, refs_);
      }
    }
    refs_.ReleaseOverrideColumn();  // before the functional pass, where the pass's memory peaks
  }

  const Cluster& cluster_;
  const SchedulerConfig& config_;
  const Twin twin_;
  const ExecutionMode mode_;  // the threads: ThreadsFor(twin_)
  TicketResult& result_;
  TicketRefs& refs_;
  EntityCounts counts_;
  ShareTreeWorkspace tree_;
  const double share_total_;
  const bool share_tree_on_;
  std::vector<ShareNodeId> ref_node_;
  FunctionalSums running_sums_;
  std::vector<std::pair<TicketPolicy, bool>> policies_;
  std::optional<ShareTreeWorkspace::PendingLayout> layout_;
};

// max_tix over pass A (pending tasks and running tasks' pass A values) and
// pass B; the sums of tix over the pending (pass A) and running (pass B)
// tasks, in job-list order, which TicketRefs::Share divides by. With
// PRIORITY_NORMALIZATION=pending only the pending tasks span the range.
void TicketPasses::Normalize(const std::vector<double>& pass_a_running) {
  const bool pending_only = config_.normalization == PriorityNormalization::kPendingOnly;
  double max_tix = -1;
  if (!pending_only) {
    for (double tix : pass_a_running) max_tix = std::max(max_tix, tix);
  }
  double pending_sum = 0, running_sum = 0;
  for (std::size_t i = 0; i < refs_.running; ++i) running_sum += refs_.Total(i);
  for (std::size_t i = refs_.running; i < refs_.size(); ++i) pending_sum += refs_.Total(i);
  refs_.running_sum = running_sum;
  refs_.pending_sum = pending_sum;
  // The largest total does not depend on the order of the refs.
  auto largest = [&](std::size_t begin, std::size_t end, double max) {
    for (std::size_t i = begin; i < end; ++i) {
      if (!pending_only || refs_.queued(i)) max = std::max(max, refs_.Total(i));
    }
    return max;
  };
  if (mode_ == ExecutionMode::kParallel) {
    max_tix = tbb::parallel_reduce(
        tbb::blocked_range<std::size_t>(0, refs_.size(), 16384), max_tix,
        [&](const auto& r, double max) { return largest(r.begin(), r.end(), max); },
        [](double a, double b) { return std::max(a, b); });
  } else {
    max_tix = largest(0, refs_.size(), max_tix);
  }
  result_.max_tix = max_tix == -1 ? 0 : max_tix;
}

}  // namespace

TicketResult ComputeTickets(const Cluster& cluster, const JobTable& jobs, const RowIndex& index, JobListOrder&& order,
                            const std::vector<RowRole>& roles, Twin twin) {
  TicketResult result = [&] {
    const JobListOrder released = std::move(order);  // freed once the refs are built
    return RefBuilder(cluster, jobs, roles, index, released, ThreadsFor(twin)).Build();
  }();
  TicketPasses passes(cluster, result, twin);
  passes.PassA();
  passes.Normalize(passes.PassB());
  return result;
}

}  // namespace schedk
