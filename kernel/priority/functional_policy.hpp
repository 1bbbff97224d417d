// functional_policy.hpp
// The functional ticket policy (sge_priority(5), sgeee.c): weight_tickets_functional
// tickets are split over the four categories user, project, department and job
// in proportion to the category weights, and inside a category in proportion to
// the entities' functional shares (fshare, -js). With share_functional_shares an
// entity's shares are divided among its jobs.
//
// Running tasks get their share directly (passes 1 and 2). Pending tasks are
// ranked by a greedy loop: in each of max_functional_jobs_to_schedule rounds
// the pending task that would get the most tickets if it ran next is marked as
// running and gets its tickets; tasks never picked get their category head's
// last estimate. FunctionalTicketsPending does this with a lazy heap over the
// category heads (estimates only fall from round to round), re-keys the heads
// a round must look at in one parallel batch, orders a category past its head
// only once it wins, and hands the heads' values on in one pass over the refs;
// the naive all-categories-every-round loop, which walks each category's
// members, is kept as its oracle.
#pragma once

#include <functional>

#include "kernel/execution_mode.hpp"
#include "kernel/model/entities.hpp"
#include "kernel/model/scheduler_config.hpp"
#include "kernel/priority/ticket_refs.hpp"

namespace schedk {

// Sums of functional shares over the tasks considered active.
struct FunctionalSums {
  double user = 0;
  double project = 0;
  double department = 0;
  double job = 0;
};

// Category weights normalised over the categories with non-zero sums
// (get_functional_weighting_parameters).
struct FunctionalWeights {
  double user = 0;
  double department = 0;
  double project = 0;
  double job = 0;
};

FunctionalWeights FunctionalWeighting(const SchedulerConfig& config, const FunctionalSums& sums);

// Passes 1 and 2 for the running refs: writes ftix of refs [0, running) and
// returns the sums of functional shares over them, summed in ref order on this
// thread (`mode`: where each task's shares and tickets are worked out).
FunctionalSums FunctionalTicketsRunning(const SchedulerConfig& config, const EntityTables& entities,
                                        const EntityCounts& running_counts, TicketRefs& refs,
                                        ExecutionMode mode = ExecutionMode::kParallel);

// The pending greedy loop. Writes ftix of the pending refs and, if `dependent`,
// adds them to refs.tickets. `counts` must hold the running counts; it is
// returned unchanged. `beside_rounds`, if given, runs on another thread
// beside the greedy rounds (one after another), unless the pass has no rounds
// (the caller then finds it not run); it must neither write what the pass
// reads nor read what it writes.
void FunctionalTicketsPending(const SchedulerConfig& config, const EntityTables& entities, EntityCounts& counts,
                              const FunctionalSums& running_sums, bool dependent, TicketRefs& refs,
                              const std::function<void()>& beside_rounds = nullptr);
void FunctionalTicketsPendingReference(const SchedulerConfig& config, const EntityTables& entities,
                                       EntityCounts& counts, const FunctionalSums& running_sums, bool dependent,
                                       TicketRefs& refs);

// schedk's FUNCTIONAL_SPLIT=linear (after the critique of the greedy loop in
// docs/priority-policies.md): each category's tickets go to the entities with pending tasks in
// proportion to their shares, and each entity's evenly to its pending tasks
// (the job category: in proportion to -js). The pending tasks' functional
// tickets then sum to weight_tickets_functional (each category weight counts
// when some pending task has a share in it). Running tasks keep passes 1 and 2.
void FunctionalTicketsPendingLinear(const SchedulerConfig& config, const EntityTables& entities, bool dependent,
                                    TicketRefs& refs, ExecutionMode mode);

}  // namespace schedk
