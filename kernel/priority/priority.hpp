// priority.hpp
// Grid Engine's job priority (sge_priority(5), sgeee_scheduler in sgeee.c):
//   prio = weight_urgency * nurg + weight_ticket * ntckts + weight_priority * npprior
// for every job task, where nurg normalises urgency over running and
// dispatchable pending jobs, ntckts normalises tickets over [0, max_tix] and
// npprior maps the POSIX priority -1023..1024 onto [0, 1]. The weights come from
// the scheduler configuration (install defaults 0.1 / 0.01 / 1.0).
//
// The dispatch order ranks each pending job by the prio of its next task, then
// by submission time and job number; after a task of an array job is taken the
// job is re-ranked by its following task (sgeee_resort_pending_jobs). That
// merge emits every task at its job's running worst key (the lowest prio among
// the job's tasks up to it), so the optimised pass sorts all tasks by that
// key; the reference twin merges.
//
// Rows and values shown (schedk's choices where Grid Engine has no display):
//   * dispatchable tasks come first, in dispatch order; then running and
//     suspended tasks by prio; then held, dependency-waiting and error tasks,
//     whose priority information Grid Engine clears (all zeros);
//   * a pending task beyond the first L = min(max_pending_tasks_per_job, free
//     slots + 1) of its job shows the last computed task's values, which is what
//     Grid Engine ranks it by when the earlier tasks are dispatched;
//   * a suspended task takes part in no range or ticket pass; it shows its
//     current urgency and no tickets.
// ComputePriorities(..., Twin::kReference) is the reference twin of the default.
// With params PRIORITY_POLICY=maui the order comes from ComputeMauiPriorities
// instead; Values() is then not defined (the factors are
// MauiPriorityContext's).
#pragma once

#include <cstdint>
#include <vector>

#include "kernel/util/column.hpp"
#include "kernel/model/cluster.hpp"
#include "kernel/model/job_table.hpp"
#include "kernel/priority/tickets.hpp"
#include "kernel/priority/urgency.hpp"
#include "kernel/stage_profile.hpp"
#include "kernel/util/row_index.hpp"

namespace schedk {

// One output row: a job task in dispatch order.
struct DispatchEntry {
  std::uint32_t row = 0;      // flat job-table row
  TaskNumber task = 0;
  std::uint32_t ref = kNoRef;  // ticket ref whose values the task shows
  bool first_of_job = false;  // prio as sgeee_priority computes it (else as recompute_prio)
};

// Every column of qstat -ext -urg -pri for one task.
struct TaskPriority {
  double prio = 0;
  double nurg = 0;
  double npprior = 0;
  double ntckts = 0;
  double urg = 0;
  double rrcontr = 0;
  double wtcontr = 0;
  double dlcontr = 0;
  double tckts = 0;
  double ovrts = 0;  // the job's own override tickets (-ot)
  double otckt = 0;
  double ftckt = 0;
  double stckt = 0;
  double share = 0;
};

struct PriorityResult {
  PriorityPolicy policy = PriorityPolicy::kGridEngine;  // kMaui: urgency and tickets are empty
  std::vector<RowRole> roles;  // per flat row
  UrgencyResult urgency;
  TicketResult tickets;
  Column<DispatchEntry> order;  // dispatchable tasks, then running/suspended, then the rest
  std::size_t dispatchable_tasks = 0;
  // Jobs with running or suspended tasks, a held, waiting, error or
  // beyond-the-limit task and no dispatchable one, ascending: Grid Engine
  // clears their job-level columns (nurg, npprior, urg and its parts), which
  // their running tasks show too.
  std::vector<JobNumber> cleared_jobs;

  // The values of one output row.
  TaskPriority Values(const Cluster& cluster, const JobTable& jobs, const RowIndex& index,
                      const DispatchEntry& entry) const;
  // Asks the caches for the per-row and per-ref memory Values reads for
  // `entry` (and the writers' row columns): rows in task order lie scattered,
  // so a writer asks a few rows ahead. Changes nothing.
  void PrefetchValues(const JobTable& jobs, const RowIndex& index, const DispatchEntry& entry) const;
};

// Classifies every row (flat index) for the interval; shard by shard in
// parallel unless `mode` is kSerial (rows are classified independently).
std::vector<RowRole> ClassifyRows(const JobTable& jobs, ExecutionMode mode = ExecutionMode::kParallel);

// The pass of the configured policy: Grid Engine's, or Maui's (maui_priority.hpp).
// Twin::kReference runs every step's reference twin, on one thread.
// `stages`, if given, hears where each stage begins (stage_profile.hpp; Maui's pass is one stage).
PriorityResult ComputePriorities(const Cluster& cluster, const JobTable& jobs, Twin twin = Twin::kOptimised,
                                 const StageListener* stages = nullptr);

}  // namespace schedk
