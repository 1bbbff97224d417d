#include "kernel/priority/priority.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <queue>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_sort.h>

#include "kernel/execution_mode.hpp"
#include "kernel/util/bucket_sort.hpp"
#include "kernel/priority/maui_priority.hpp"
#include "kernel/priority/normalize.hpp"
#include "kernel/util/sort_key.hpp"
#include "kernel/tuning.hpp"

namespace schedk {
namespace {

// The three-term sum in sgeee_priority's order (first task of a job, running tasks)...
double PrioFirst(const SchedulerConfig& c, double nurg, double ntix, double npri) {
  return c.weight_urgency * nurg + c.weight_ticket * ntix + c.weight_priority * npri;
}
// ... and in recompute_prio's order (later tasks of an array job).
double PrioLater(const SchedulerConfig& c, double nurg, double ntix, double npri) {
  return c.weight_urgency * nurg + c.weight_priority * npri + c.weight_ticket * ntix;
}
double WeightedPrio(const SchedulerConfig& c, bool first_of_job, double nurg, double ntix, double npri) {
  return first_of_job ? PrioFirst(c, nurg, ntix, npri) : PrioLater(c, nurg, ntix, npri);
}

// npprior, or 0.5 where Grid Engine skips the normalisation; linearly
// ppri / 1024 (0 for the default priority 0).
double NormalizedPosix(const SchedulerConfig& c, std::int16_t posix_priority) {
  if (c.normalization == PriorityNormalization::kLinear) return posix_priority / 1024.0;
  const bool do_nprio = c.weight_priority != 0 || c.report_pjob_tickets;
  return do_nprio ? NormalizePosixPriority(posix_priority) : 0.5;
}

// ntckts: tickets over [0, max_tix], or linearly tickets / LINEAR_TICKET_SCALE
// (by default the functional and share-tree totals, 1 when both are 0).
double NormalizedTickets(const SchedulerConfig& c, double tickets, double max_tix) {
  if (c.normalization != PriorityNormalization::kLinear) return NormalizeValue(tickets, 0, max_tix);
  double scale = c.linear_ticket_scale;
  if (scale <= 0) scale = c.weight_tickets_functional + c.weight_tickets_share;
  return tickets / (scale > 0 ? scale : 1.0);
}

// A task's prio alone, as Values computes it, for ordering: the dispatch
// order's per-task loops call it, so it is inline here.
inline double TaskPrio(const Cluster& cluster, const PriorityResult& result, std::int16_t posix_priority,
                       const DispatchEntry& entry) {
  const double tix = entry.ref == kNoRef ? 0.0 : result.tickets.refs.Total(entry.ref);
  return WeightedPrio(cluster.config, entry.first_of_job, result.urgency.Nurg(entry.row, result.roles[entry.row]),
                      NormalizedTickets(cluster.config, tix, result.tickets.max_tix),
                      NormalizedPosix(cluster.config, posix_priority));
}

// A job's place in the dispatch order: prio (descending), submission time,
// job number, packed into one 128-bit key; `pending_job` says whose it is.
struct MergeKey {
  SortKey128 key;
  std::uint32_t pending_job;
  std::uint32_t row;  // the flat row of the task the key ranks
};
MergeKey MakeMergeKey(double prio, Time submit, JobNumber job, std::uint32_t pending_job, std::uint32_t row) {
  // Submission times are Grid Engine's unsigned 32-bit seconds.
  const std::uint64_t low = (std::uint64_t{static_cast<std::uint32_t>(submit)} << 32) | job;
  return MergeKey{{DescendingBits(prio), low}, pending_job, row};
}
// A function object rather than a function, so that the sorts inline it.
constexpr auto MergeBefore = [](const MergeKey& a, const MergeKey& b) { return a.key < b.key; };

}  // namespace

std::vector<RowRole> ClassifyRows(const JobTable& jobs, ExecutionMode mode) {
  std::vector<RowRole> roles(jobs.rows(), RowRole::kInactive);
  // Predecessors still in the table keep their successors waiting.
  const std::unordered_set<JobNumber> unfinished = UnfinishedPredecessors(jobs);
  const auto offsets = jobs.Offsets();
  ForEachIndex(mode, jobs.shards().size(), [&](std::size_t s) {
    const JobShard& shard = jobs.shards()[s];
    for (std::size_t r = 0; r < shard.size(); ++r) {
      RowRole role = RowRole::kInactive;
      switch (shard.state[r]) {
        case JobState::kRunning:
          role = RowRole::kRunning;
          break;
        case JobState::kSuspended:
          role = RowRole::kSuspended;
          break;
        case JobState::kPending: {
          if (shard.flags[r] & kJobBeyondTaskLimit) break;  // array_task_limit.hpp
          role = RowRole::kDispatchable;
          if (const JobExtras* e = shard.extras_of(r)) {
            for (JobNumber p : e->hold_jid) {
              if (unfinished.count(p)) role = RowRole::kInactive;
            }
          }
          break;
        }
        case JobState::kHeld:
        case JobState::kError:
          break;
      }
      roles[offsets[s] + r] = role;
    }
  });
  return roles;
}

TaskPriority PriorityResult::Values(const Cluster& cluster, const JobTable& jobs, const RowIndex& index,
                                    const DispatchEntry& entry) const {
  TaskPriority v;
  const JobShard& shard = jobs.shards()[index.shard(entry.row)];
  const std::uint32_t row = index.row(entry.row);
  v.ovrts = shard.override_tickets[row];
  const RowRole role = roles[entry.row];
  if (role == RowRole::kInactive) return v;  // Grid Engine clears priority info of such jobs
  const SchedulerConfig& c = cluster.config;
  v.nurg = urgency.Nurg(entry.row, role);
  if (urgency.computed) {
    v.urg = urgency.urg[entry.row];
    const double rrc = urgency.rrcontr[shard.requests[row].index()];
    if (!std::isnan(rrc)) {
      v.rrcontr = rrc;
      v.wtcontr = WaitingTimeContribution(c.weight_waiting_time, cluster.now, shard.submit[row]);
      v.dlcontr = DeadlineContribution(c.weight_deadline, cluster.now, shard.deadline(row));
    }
  }
  v.npprior = NormalizedPosix(c, shard.posix_priority[row]);
  if (entry.ref != kNoRef) {
    const TicketRefs& refs = tickets.refs;
    v.otckt = refs.otix[entry.ref];
    v.ftckt = refs.ftix[entry.ref];
    v.stckt = refs.stix[entry.ref];
    v.tckts = refs.Total(entry.ref);
    v.share = refs.Share(entry.ref);
  }
  v.ntckts = NormalizedTickets(c, v.tckts, tickets.max_tix);
  v.prio = WeightedPrio(c, entry.first_of_job, v.nurg, v.ntckts, v.npprior);
  if (!cleared_jobs.empty() && std::binary_search(cleared_jobs.begin(), cleared_jobs.end(), shard.number[row])) {
    // The job's own columns, as ORT_clear_pri_info leaves them; the task keeps its prio and tickets.
    v.nurg = v.npprior = v.urg = v.rrcontr = v.wtcontr = v.dlcontr = 0;
  }
  return v;
}

void PriorityResult::PrefetchValues(const JobTable& jobs, const RowIndex& index, const DispatchEntry& entry) const {
  const JobShard& shard = jobs.shards()[index.shard(entry.row)];
  const std::uint32_t row = index.row(entry.row);
  for (const void* column :
       {static_cast<const void*>(&shard.number[row]), static_cast<const void*>(&shard.posix_priority[row]),
        static_cast<const void*>(&shard.owner[row]), static_cast<const void*>(&shard.project[row]),
        static_cast<const void*>(&shard.department[row]), static_cast<const void*>(&shard.state[row]),
        static_cast<const void*>(&shard.flags[row]), static_cast<const void*>(&shard.override_tickets[row]),
        static_cast<const void*>(&shard.requests[row]), static_cast<const void*>(&shard.submit[row]),
        static_cast<const void*>(&shard.extras_index[row]), static_cast<const void*>(&roles[entry.row])}) {
    __builtin_prefetch(column);
  }
  if (urgency.computed) __builtin_prefetch(&urgency.urg[entry.row]);
  if (entry.ref != kNoRef) {
    const TicketRefs& refs = tickets.refs;
    for (const double* column : {&refs.otix[entry.ref], &refs.ftix[entry.ref], &refs.stix[entry.ref]}) {
      __builtin_prefetch(column);
    }
  }
}

namespace {

// A dispatchable job in the merge: its rows (in pending_rows) and ticket refs.
struct PendingJob {
  std::uint32_t first_row_index;  // into TicketResult::pending_rows
  std::uint32_t ref_begin;        // kNoRef: no task of the job has tickets
  std::uint32_t ref_end;
  std::uint32_t task_count;       // saturates at UINT32_MAX (array ranges hold at most 2^32-1 tasks)
};

// The entry of the job's k-th pending task (0-based). Tasks past the ticketed
// ones keep the last computed values, prio included (sgeee_resort_pending_jobs).
DispatchEntry EntryFor(const PendingJob& job, std::uint64_t k, std::uint32_t flat, TaskNumber task) {
  DispatchEntry e;
  e.row = flat;
  e.task = task;
  std::uint64_t last_computed = 0;
  if (job.ref_begin != kNoRef) {
    last_computed = job.ref_end - job.ref_begin - 1;
    e.ref = job.ref_begin + static_cast<std::uint32_t>(std::min(k, last_computed));
  }
  e.first_of_job = std::min(k, last_computed) == 0;
  return e;
}

// The dispatchable jobs in job-list order, each a run of consecutive entries
// of pending_rows. Where no job has two rows (the usual case), job j is entry
// j and nothing is stored; otherwise each job's first entry is kept, found in
// chunks that are counted and then filled in parallel (one chunk, in order,
// on one thread). The count also sums the rows' tasks. A job's refs and
// task count are read from its rows.
class PendingJobs {
 public:
  PendingJobs(const JobTable& jobs, const RowIndex& index, const TicketResult& tickets, ExecutionMode mode)
      : jobs_(jobs), index_(index), tickets_(tickets) {
    const std::size_t n = tickets.pending_rows.size();
    auto starts_job = [&](std::size_t p, RowIndex::Cursor& cursor) {
      return p == 0 || number(p - 1, cursor) != number(p, cursor);
    };
    std::vector<std::size_t> cut = {0};
    if (mode == ExecutionMode::kParallel) {
      RowIndex::Cursor cursor(jobs, index);
      for (std::size_t b = tuning::kPendingJobChunkRows; b < n; b += tuning::kPendingJobChunkRows) {
        while (b < n && !starts_job(b, cursor)) ++b;
        if (b < n) cut.push_back(b);
      }
    }
    cut.push_back(n);
    const std::size_t chunks = cut.size() - 1;
    std::vector<std::uint32_t> first_job(chunks + 1, 0);
    std::vector<std::uint64_t> chunk_tasks(chunks, 0);
    ForEachIndex(mode, chunks, [&](std::size_t c) {
      RowIndex::Cursor cursor(jobs, index);
      for (std::size_t p = cut[c]; p < cut[c + 1]; ++p) {
        first_job[c + 1] += starts_job(p, cursor);
        const auto [shard, row] = cursor.At(tickets.pending_rows[p]);
        chunk_tasks[c] += shard->task_count(row);
      }
    });
    for (std::size_t c = 0; c < chunks; ++c) first_job[c + 1] += first_job[c];
    for (std::uint64_t t : chunk_tasks) tasks_ += t;
    size_ = first_job.back();
    if (size_ == n) return;  // every entry starts a job
    first_entry_.resize(size_ + 1);  // each written where its job starts
    first_entry_.back() = static_cast<std::uint32_t>(n);
    ForEachIndex(mode, chunks, [&](std::size_t c) {
      RowIndex::Cursor cursor(jobs, index);
      std::uint32_t j = first_job[c];
      for (std::size_t p = cut[c]; p < cut[c + 1]; ++p) {
        if (starts_job(p, cursor)) first_entry_[j++] = static_cast<std::uint32_t>(p);
      }
    });
  }

  std::size_t size() const { return size_; }
  // The jobs' tasks, all rows summed; size() exactly when every job has one task.
  std::uint64_t tasks() const { return tasks_; }

  PendingJob operator[](std::size_t j) const {
    RowIndex::Cursor cursor(jobs_, index_);
    return At(j, cursor);
  }
  // Job j, its rows found through `cursor` (one per walk; a walk over the jobs
  // in order visits the shards in runs).
  PendingJob At(std::size_t j, RowIndex::Cursor& cursor) const {
    const std::uint32_t begin = first_entry_.empty() ? static_cast<std::uint32_t>(j) : first_entry_[j];
    const std::uint32_t end = first_entry_.empty() ? begin + 1 : first_entry_[j + 1];
    PendingJob job{begin, kNoRef, kNoRef, 0};
    for (std::uint32_t p = begin; p < end; ++p) {
      const std::uint32_t flat = tickets_.pending_rows[p];
      const auto [shard, row] = cursor.At(flat);
      job.task_count = static_cast<std::uint32_t>(
          std::min<std::uint64_t>(std::uint64_t{job.task_count} + shard->task_count(row), UINT32_MAX));
      if (tickets_.ref_count[flat] > 0) {
        if (job.ref_begin == kNoRef) job.ref_begin = tickets_.first_ref[flat];
        job.ref_end = tickets_.first_ref[flat] + tickets_.ref_count[flat];
      }
    }
    return job;
  }

 private:
  JobNumber number(std::size_t p, RowIndex::Cursor& cursor) const {
    const auto [shard, row] = cursor.At(tickets_.pending_rows[p]);
    return shard->number[row];
  }

  const JobTable& jobs_;
  const RowIndex& index_;
  const TicketResult& tickets_;
  std::size_t size_ = 0;
  std::uint64_t tasks_ = 0;
  Column<std::uint32_t> first_entry_;  // empty, or each job's first entry and then pending_rows.size()
};

// The dispatch order of every pending task as one sort. Grid Engine takes the
// best job's next task and ranks the job again by its following task; that
// merge of the jobs' task sequences emits each task at its job's running worst
// key (the lowest prio among the job's tasks up to it), so sorting the tasks by
// that key, then by job and task, gives the same order. Each key carries the
// task's position in job-list order in place of the job number, so the keys
// are distinct and a sorted key says whose rank it holds. The keys are sorted
// (ParallelSortByKey), and each task's entry goes to its rank.
// Returns false, having done nothing, when the tasks do not fit 32-bit
// positions.
bool OrderTasksBySort(const Cluster& cluster, const JobTable& jobs, const RowIndex& index,
                      const PendingJobs& pending_jobs, PriorityResult& result, std::size_t extra) {
  const Column<std::uint32_t>& pending_rows = result.tickets.pending_rows;
  // Calls f(j, cursor) for every job, in parallel ranges that each walk their rows with a cursor.
  auto for_each_job = [&](auto&& f) {
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, pending_jobs.size(), 1024), [&](const auto& range) {
      RowIndex::Cursor cursor(jobs, index);
      for (std::size_t j = range.begin(); j != range.end(); ++j) f(j, cursor);
    });
  };
  const std::uint64_t total = pending_jobs.tasks();
  if (total >= UINT32_MAX) return false;
  // Each job's first task position: where every job has one task (the usual
  // case) the job's own index, and nothing is stored; otherwise chunks of jobs
  // count their tasks, then number them from the chunk's start.
  Column<std::uint32_t> first_task;  // empty, or every job's, then the total
  if (total != pending_jobs.size()) {
    const std::size_t chunks = (pending_jobs.size() + tuning::kTaskNumberChunkJobs - 1) / tuning::kTaskNumberChunkJobs;
    auto chunk_jobs = [&](std::size_t c) {
      return std::pair<std::size_t, std::size_t>{c * tuning::kTaskNumberChunkJobs,
                                                 std::min(pending_jobs.size(), (c + 1) * tuning::kTaskNumberChunkJobs)};
    };
    first_task.resize(pending_jobs.size() + 1);  // written below
    std::vector<std::uint64_t> chunk_start(chunks + 1, 0);
    ForEachIndex(ExecutionMode::kParallel, chunks, [&](std::size_t c) {
      const auto [first, last] = chunk_jobs(c);
      RowIndex::Cursor cursor(jobs, index);
      for (std::size_t j = first; j < last; ++j) {
        chunk_start[c + 1] += first_task[j] = pending_jobs.At(j, cursor).task_count;
      }
    });
    for (std::size_t c = 0; c < chunks; ++c) chunk_start[c + 1] += chunk_start[c];
    ForEachIndex(ExecutionMode::kParallel, chunks, [&](std::size_t c) {
      const auto [first, last] = chunk_jobs(c);
      auto at = static_cast<std::uint32_t>(chunk_start[c]);
      for (std::size_t j = first; j < last; ++j) at += std::exchange(first_task[j], at);
    });
    first_task.back() = static_cast<std::uint32_t>(total);
  }
  auto base = [&](std::size_t j) { return first_task.empty() ? static_cast<std::uint32_t>(j) : first_task[j]; };
  // Calls visit(k, entry) for the job's tasks in task order, as the merge's cursor walks them.
  auto walk = [&](const PendingJob& job, RowIndex::Cursor& cursor, auto&& visit) {
    std::uint32_t row_index = job.first_row_index;
    std::uint32_t flat = pending_rows[row_index];
    RowIndex::Row at = cursor.At(flat);
    TaskNumber task = at.shard->task_first[at.row];
    for (std::uint64_t k = 0;; ++k) {
      visit(k, EntryFor(job, k, flat, task));
      if (k + 1 == job.task_count) break;
      if (at.shard->task_last[at.row] - task >= at.shard->task_step[at.row]) {
        task += at.shard->task_step[at.row];
      } else {
        flat = pending_rows[++row_index];
        at = cursor.At(flat);
        task = at.shard->task_first[at.row];
      }
    }
  };
  Column<SortKey128> keys(total);  // every task writes its own
  for_each_job([&](std::size_t j, RowIndex::Cursor& cursor) {
    // Submission time and POSIX priority are the same on every row of a job.
    const PendingJob job = pending_jobs.At(j, cursor);
    const auto [shard, row] = cursor.At(pending_rows[job.first_row_index]);
    const std::uint64_t submit = std::uint64_t{static_cast<std::uint32_t>(shard->submit[row])} << 32;
    const std::int16_t posix_priority = shard->posix_priority[row];
    std::uint64_t worst = 0;
    walk(job, cursor, [&](std::uint64_t k, const DispatchEntry& e) {
      worst = std::max(worst, DescendingBits(TaskPrio(cluster, result, posix_priority, e)));
      keys[base(j) + k] = {worst, submit | (base(j) + k)};
    });
  });
  Column<std::uint32_t> place(keys.size());  // every key's rank, written as its run of the sort is handed over
  ParallelSortByKey(keys.data(), keys.size(), [](const SortKey128& k) { return k.wide(); }, SortKey128Before{},
                    [&](const SortKey128* sorted, std::size_t count, std::size_t rank) {
                      for (std::size_t k = 0; k < count; ++k) {
                        place[static_cast<std::uint32_t>(sorted[k].low)] = static_cast<std::uint32_t>(rank + k);
                      }
                    });
  Column<SortKey128>().swap(keys);
  // The entries go to places all over the order: the targets are fetched a few jobs ahead.
  result.order.reserve(place.size() + extra);
  result.order.resize(place.size());
  for_each_job([&](std::size_t j, RowIndex::Cursor& cursor) {
    if (j + tuning::kOrderPrefetchJobs < pending_jobs.size())
      __builtin_prefetch(&result.order[place[base(j + tuning::kOrderPrefetchJobs)]], 1);
    walk(pending_jobs.At(j, cursor), cursor,
         [&](std::uint64_t k, const DispatchEntry& e) { result.order[place[base(j) + k]] = e; });
  });
  return true;
}

// A running or suspended task under its merge key, and a task without
// priority information under its job number. Both are trivially copyable:
// a Column of them is left to the parallel copies that fill it.
struct RankedTask {
  MergeKey key;
  DispatchEntry entry;
};
struct NumberedTask {
  JobNumber job;
  DispatchEntry entry;
};
// The tasks that are not dispatchable: running and suspended ones by prio
// (then task), the tasks without priority information by job and task.
struct OtherTasks {
  Column<RankedTask> running;
  Column<NumberedTask> rest;
};

// The jobs with running or suspended tasks whose priority information Grid
// Engine clears: a job with a task that is held, waiting, in error or beyond
// the array task limit (`rest`, in job order) and no dispatchable task.
std::vector<JobNumber> ClearedJobs(const JobTable& jobs, const RowIndex& index, const PriorityResult& result,
                                   const Column<NumberedTask>& rest) {
  auto number = [&](const DispatchEntry& e) { return jobs.shards()[index.shard(e.row)].number[index.row(e.row)]; };
  std::vector<JobNumber> inactive;
  for (const NumberedTask& t : rest) {
    if (inactive.empty() || inactive.back() != t.job) inactive.push_back(t.job);
  }
  std::vector<JobNumber> cleared;
  if (inactive.empty()) return cleared;
  for (std::size_t i = result.dispatchable_tasks; i < result.order.size(); ++i) {
    const RowRole role = result.roles[result.order[i].row];
    if (role != RowRole::kRunning && role != RowRole::kSuspended) continue;
    const JobNumber job = number(result.order[i]);
    if (std::binary_search(inactive.begin(), inactive.end(), job)) cleared.push_back(job);
  }
  if (cleared.empty()) return cleared;
  std::sort(cleared.begin(), cleared.end());
  cleared.erase(std::unique(cleared.begin(), cleared.end()), cleared.end());
  std::vector<bool> dispatchable(cleared.size(), false);
  for (std::size_t i = 0; i < result.dispatchable_tasks; ++i) {
    const auto it = std::lower_bound(cleared.begin(), cleared.end(), number(result.order[i]));
    if (it != cleared.end() && *it == number(result.order[i])) dispatchable[it - cleared.begin()] = true;
  }
  std::vector<JobNumber> kept;
  for (std::size_t k = 0; k < cleared.size(); ++k) {
    if (!dispatchable[k]) kept.push_back(cleared[k]);
  }
  return kept;
}

// A task's merge key: its prio, then submission time, job number, pending
// job index and row, which order all tasks totally.
class TaskKeys {
 public:
  TaskKeys(const Cluster& cluster, const JobTable& jobs, const RowIndex& index, const PriorityResult& result)
      : cluster_(cluster), jobs_(jobs), index_(index), result_(result) {}
  MergeKey operator()(std::uint32_t pending_job, const DispatchEntry& e) const {
    const JobShard& shard = jobs_.shards()[index_.shard(e.row)];
    const std::uint32_t row = index_.row(e.row);
    return MakeMergeKey(TaskPrio(cluster_, result_, shard.posix_priority[row], e), shard.submit[row], shard.number[row],
                        pending_job, e.row);
  }

 private:
  const Cluster& cluster_;
  const JobTable& jobs_;
  const RowIndex& index_;
  const PriorityResult& result_;
};

// Appends the shards' lists to `all` in shard order, each shard's part
// copied on a core of its own (unless serial), so that the pages of `all`
// are first touched there.
template <class Task>
void JoinInShardOrder(const std::vector<OtherTasks>& parts, Column<Task> OtherTasks::*list, Column<Task>& all,
                      ExecutionMode mode) {
  std::vector<std::size_t> at(parts.size() + 1, all.size());
  for (std::size_t s = 0; s < parts.size(); ++s) at[s + 1] = at[s] + (parts[s].*list).size();
  all.resize(at.back());
  ForEachIndex(mode, parts.size(), [&](std::size_t s) {
    std::copy((parts[s].*list).begin(), (parts[s].*list).end(), all.begin() + static_cast<std::ptrdiff_t>(at[s]));
  });
}

// Appends the tasks' entries to the dispatch order, in order, written in
// parallel chunks unless serial.
template <class Task>
void AppendEntries(const Column<Task>& tasks, Column<DispatchEntry>& order, ExecutionMode mode) {
  const std::size_t at = order.size();
  order.resize(at + tasks.size());
  ForEachRange(mode, 0, tasks.size(), 16384, [&](std::size_t begin, std::size_t end) {
    for (std::size_t k = begin; k < end; ++k) order[at + k] = tasks[k].entry;
  });
}

// Shards are collected apart (in parallel unless serial) and joined in shard
// order; both lists are then sorted by keys that order them totally.
OtherTasks CollectOtherTasks(const JobTable& jobs, const RowIndex& index, const PriorityResult& result,
                             const TaskKeys& key_for, ExecutionMode mode) {
  const std::size_t shards = jobs.shards().size();
  std::vector<OtherTasks> by_shard(shards);
  ForEachIndex(mode, shards, [&](std::size_t s) {
    const JobShard& shard = jobs.shards()[s];
    for (std::size_t r = 0; r < shard.size(); ++r) {
      const std::uint32_t flat = index.offsets()[s] + static_cast<std::uint32_t>(r);
      const RowRole role = result.roles[flat];
      if (role == RowRole::kRunning || role == RowRole::kSuspended) {
        const DispatchEntry e{flat, shard.task_first[r], result.tickets.first_ref[flat], true};
        by_shard[s].running.push_back({key_for(0, e), e});
      } else if (role == RowRole::kInactive) {
        for (TaskNumber t = shard.task_first[r];; t += shard.task_step[r]) {
          by_shard[s].rest.push_back({shard.number[r], DispatchEntry{flat, t, kNoRef, true}});
          if (shard.task_last[r] - t < shard.task_step[r]) break;
        }
      }
    }
  });
  OtherTasks all;
  JoinInShardOrder(by_shard, &OtherTasks::running, all.running, mode);
  JoinInShardOrder(by_shard, &OtherTasks::rest, all.rest, mode);
  // A total order sorts to the same list serially or in parallel.
  auto sort = [mode](auto& list, auto less) {
    if (mode == ExecutionMode::kParallel) {
      tbb::parallel_sort(list.begin(), list.end(), less);
    } else {
      std::sort(list.begin(), list.end(), less);
    }
  };
  sort(all.running, [](const RankedTask& a, const RankedTask& b) {
    if (MergeBefore(a.key, b.key)) return true;
    if (MergeBefore(b.key, a.key)) return false;
    return a.entry.task < b.entry.task;
  });
  sort(all.rest, [](const NumberedTask& a, const NumberedTask& b) {
    return std::make_tuple(a.job, a.entry.task) < std::make_tuple(b.job, b.entry.task);
  });
  return all;
}

// Grid Engine's merge (sgeee_resort_pending_jobs), OrderTasksBySort's
// reference: the jobs ranked by their first task, then the best job's next
// task is taken and the job comes back ranked by its following task.
class TaskMerge {
 public:
  TaskMerge(const JobTable& jobs, const RowIndex& index, const PendingJobs& pending_jobs, const TaskKeys& key_for,
            PriorityResult& result)
      : jobs_(jobs), index_(index), pending_jobs_(pending_jobs), key_for_(key_for), result_(result) {}

  void Run(std::size_t extra, ExecutionMode mode) {
    const std::vector<MergeKey> ranked = RankJobs(mode);
    auto worse = [](const MergeKey& a, const MergeKey& b) { return MergeBefore(b, a); };
    std::priority_queue<MergeKey, std::vector<MergeKey>, decltype(worse)> again(worse);
    if (pending_jobs_.size() > 0) result_.order.reserve(pending_jobs_.size() + extra);
    std::size_t next = 0;
    while (next < ranked.size() || !again.empty()) {
      MergeKey key;
      if (again.empty() || (next < ranked.size() && MergeBefore(ranked[next], again.top()))) {
        key = ranked[next++];
      } else {
        key = again.top();
        again.pop();
      }
      if (auto following = Take(key.pending_job)) again.push(*following);
    }
  }

 private:
  // Where a job with more than one task stands in its task sequence.
  struct Cursor {
    std::uint32_t row_index;  // into pending_rows
    TaskNumber task;
    std::uint64_t k;
  };

  const JobShard& ShardOf(std::uint32_t flat) const { return jobs_.shards()[index_.shard(flat)]; }

  // Job j's first task.
  DispatchEntry FirstEntry(std::size_t j) const {
    const PendingJob job = pending_jobs_[j];
    const std::uint32_t flat = result_.tickets.pending_rows[job.first_row_index];
    return EntryFor(job, 0, flat, ShardOf(flat).task_first[index_.row(flat)]);
  }

  // Each job's first task's rank key, computed in job order (sequential reads), sorted.
  std::vector<MergeKey> RankJobs(ExecutionMode mode) const {
    std::vector<MergeKey> ranked(pending_jobs_.size());
    auto rank_job = [&](std::size_t j) { ranked[j] = key_for_(static_cast<std::uint32_t>(j), FirstEntry(j)); };
    if (mode == ExecutionMode::kParallel) {
      tbb::parallel_for(tbb::blocked_range<std::size_t>(0, ranked.size(), 4096), [&](const auto& r) {
        for (std::size_t j = r.begin(); j != r.end(); ++j) rank_job(j);
      });
      tbb::parallel_sort(ranked.begin(), ranked.end(), MergeBefore);
    } else {
      for (std::size_t j = 0; j < ranked.size(); ++j) rank_job(j);
      std::sort(ranked.begin(), ranked.end(), MergeBefore);
    }
    return ranked;
  }

  // Appends job j's next task to the order; returns the key of the task after
  // it, if the job has one.
  std::optional<MergeKey> Take(std::uint32_t j) {
    const Column<std::uint32_t>& pending_rows = result_.tickets.pending_rows;
    const PendingJob job = pending_jobs_[j];  // a view's value
    if (job.task_count == 1) {
      result_.order.push_back(FirstEntry(j));
      return std::nullopt;
    }
    auto [it, fresh] = cursors_.try_emplace(j);
    Cursor& c = it->second;
    if (fresh) c = {job.first_row_index, FirstEntry(j).task, 0};
    const std::uint32_t flat = pending_rows[c.row_index];
    result_.order.push_back(EntryFor(job, c.k, flat, c.task));
    ++c.k;
    if (c.k == job.task_count) return std::nullopt;
    const JobShard& shard = ShardOf(flat);
    const std::uint32_t row = index_.row(flat);
    if (shard.task_last[row] - c.task >= shard.task_step[row]) {
      c.task += shard.task_step[row];
    } else {
      ++c.row_index;
      const std::uint32_t next_flat = pending_rows[c.row_index];
      c.task = ShardOf(next_flat).task_first[index_.row(next_flat)];
    }
    return key_for_(j, EntryFor(job, c.k, pending_rows[c.row_index], c.task));
  }

  const JobTable& jobs_;
  const RowIndex& index_;
  const PendingJobs& pending_jobs_;
  const TaskKeys& key_for_;
  PriorityResult& result_;
  std::unordered_map<std::uint32_t, Cursor> cursors_;  // only jobs with more than one task
};

}  // namespace

PriorityResult ComputePriorities(const Cluster& cluster, const JobTable& jobs, Twin twin, const StageListener* stages) {
  const ExecutionMode mode = ThreadsFor(twin);
  if (cluster.config.priority_policy == PriorityPolicy::kMaui) {
    EnterStage(stages, Stage::kTaskOrder);
    PriorityResult result = ComputeMauiPriorities(cluster, jobs, mode);
    EnterStage(stages, Stage::kDone);
    return result;
  }
  PriorityResult result;
  EnterStage(stages, Stage::kClassify);
  result.roles = ClassifyRows(jobs, mode);
  const RowIndex index(jobs);
  // Tickets first: their working columns are released before urgency's column exists.
  EnterStage(stages, Stage::kTickets);
  result.tickets = ComputeTickets(cluster, jobs, index, JobListOrder(jobs, index, twin), result.roles, twin);
  EnterStage(stages, Stage::kUrgency);
  result.urgency = twin == Twin::kOptimised ? ComputeUrgency(cluster, jobs, result.roles)
                                            : ComputeUrgencyReference(cluster, jobs, result.roles);
  EnterStage(stages, Stage::kTaskOrder);
  const TaskKeys key_for(cluster, jobs, index, result);
  const OtherTasks others = CollectOtherTasks(jobs, index, result, key_for, mode);
  {
    // The dispatchable tasks: by one sort, or by Grid Engine's merge where the
    // sort cannot number them (and in the reference).
    const PendingJobs pending_jobs(jobs, index, result.tickets, mode);
    const std::size_t extra = others.running.size() + others.rest.size();
    const bool sorted = twin == Twin::kOptimised && OrderTasksBySort(cluster, jobs, index, pending_jobs, result, extra);
    if (!sorted) TaskMerge(jobs, index, pending_jobs, key_for, result).Run(extra, mode);
  }
  result.dispatchable_tasks = result.order.size();
  Column<std::uint32_t>().swap(result.tickets.pending_rows);
  // Then running and suspended tasks, then the tasks without priority information.
  AppendEntries(others.running, result.order, mode);
  AppendEntries(others.rest, result.order, mode);
  result.cleared_jobs = ClearedJobs(jobs, index, result, others.rest);
  EnterStage(stages, Stage::kDone);
  return result;
}

}  // namespace schedk
