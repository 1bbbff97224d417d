// tickets.hpp
// The ticket computation of one interval (sge_calc_tickets, called twice by
// sgeee_scheduler):
//   Pass A, running and pending tasks: entity counts, share-tree usage and
//     targets, running tickets, then the pending tickets policy by policy in
//     policy_hierarchy order (listed policies are dependent: their tickets rank
//     the next policy's tasks), then every task's total.
//   Pass B, running tasks only: share-tree targets without the pending tasks;
//     running tasks keep these values, pending tasks keep pass A's.
// max_tix, the upper end of the ntckts range, is the largest total of either pass
// (of the pending tasks alone with PRIORITY_NORMALIZATION=pending).
// Thread-safety: pure function of its inputs. Twin::kReference runs the
// reference pending loops and sorts, on one thread: the oracle of the default.
#pragma once

#include <cstdint>
#include <vector>

#include "kernel/execution_mode.hpp"
#include "kernel/twin.hpp"
#include "kernel/job_list_order.hpp"
#include "kernel/model/cluster.hpp"
#include "kernel/model/job_table.hpp"
#include "kernel/priority/ticket_refs.hpp"
#include "kernel/priority/urgency.hpp"
#include "kernel/util/row_index.hpp"

namespace schedk {

inline constexpr std::uint32_t kNoRef = UINT32_MAX;

struct TicketResult {
  // The final tickets (ftix, otix, stix) of every ref and the sums their shares
  // divide by; the working columns are released when ComputeTickets returns.
  TicketRefs refs;
  double max_tix = 0;
  // Per flat row: the row's first ref and how many refs it has. A pending row's
  // refs are its first tasks, in task order, up to the job's limit L.
  Column<std::uint32_t> first_ref;
  Column<std::uint32_t> ref_count;
  std::uint32_t pending_task_limit = 0;  // L = min(max_pending_tasks_per_job, free queue slots + 1)
  // Dispatchable rows (flat) in job-list order: job number, then first task.
  // ComputePriorities releases it once it has the dispatch order.
  Column<std::uint32_t> pending_rows;  // sized uninitialised, written in full
  // Per ref, under SHARE_TREE_PENDING=8.1 alone: its job's minimum slot count
  // (the share tree's dilution); empty otherwise. Released with the working columns.
  std::vector<std::uint32_t> slot_dilution;
};

// Free slots over the open queue instances: sum of max(0, slots - slots used
// by running and suspended tasks). Closed instances (disabled, suspended,
// unknown, in error) are not in Grid Engine's queue list for the run. The
// running tasks' slots are summed by groups of shards, in parallel unless
// `mode` is serial.
std::uint64_t FreeQueueSlots(const Cluster& cluster, const JobTable& jobs,
                             ExecutionMode mode = ExecutionMode::kParallel);

// `order` is only read to build the refs; its memory is freed right after
// (the caller's object is left empty).
TicketResult ComputeTickets(const Cluster& cluster, const JobTable& jobs, const RowIndex& index, JobListOrder&& order,
                            const std::vector<RowRole>& roles, Twin twin);

}  // namespace schedk
