// scheduler_config.hpp
// The scheduler configuration (qconf -ssconf, sched_conf(5)). Every field
// starts at Grid Engine's install-template default (what a fresh cell's
// qconf -ssconf prints), which is what a snapshot gets for a key it leaves out.
// Invariants: weights are finite; policy_hierarchy holds each policy at most once.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "kernel/model/load_formula.hpp"
#include "kernel/types.hpp"

namespace schedk {

enum class TicketPolicy : std::uint8_t { kOverride, kFunctional, kShareTree };
enum class QueueSortMethod : std::uint8_t { kLoad, kSeqNo };

// Which priority orders the pending jobs (params PRIORITY_POLICY=ge|maui).
enum class PriorityPolicy : std::uint8_t { kGridEngine, kMaui };
// How the Grid Engine policy normalises urgency, tickets and POSIX priority
// (params PRIORITY_NORMALIZATION=ge|pending|linear), schedk options after the
// blog post "Calculating GE Job Priorities" (docs/priority-policies.md):
//   kGridEngine: min-max over running and dispatchable jobs, 0.5 for a flat range;
//   kPendingOnly: the same over the dispatchable jobs alone;
//   kLinear: nurg = urg / LINEAR_URGENCY_SCALE, ntckts = tckts / LINEAR_TICKET_SCALE,
//            npprior = ppri / 1024: no range, and 0 where a policy gives nothing.
enum class PriorityNormalization : std::uint8_t { kGridEngine, kPendingOnly, kLinear };
// How pending jobs get functional tickets (params FUNCTIONAL_SPLIT=ge|linear):
// Grid Engine's greedy loop, or each entity's share split evenly among its
// pending jobs, so that the pending jobs' tickets sum to the configured total.
enum class FunctionalSplit : std::uint8_t { kGridEngine, kLinear };
// How a share-tree node spreads its short-term entitlement over the pending
// jobs below it (params SHARE_TREE_PENDING=6.2|8.1):
//   kJobs (6.2, the default): the k-th pending job gets stt / (running jobs
//          below + finished jobs + k), below the highest node with pending jobs
//          in more than one child;
//   kSlots (Son of Grid Engine 8.1.9): running jobs rank first, and each job
//          dilutes the entitlement of those after it by its minimum slot count
//          (the first PE range's minimum, 1 without a PE), below the highest
//          node with jobs of any state in more than one child.
// The two agree where no job asks for more than one slot and every subtree
// with running jobs also has pending ones.
enum class ShareTreePending : std::uint8_t { kJobs, kSlots };

// One usage counter name (cpu, mem, io, finished_jobs, ...) with a number.
struct UsageValue {
  std::string name;
  double value = 0;
};

struct SchedulerConfig {
  // Priority weights: prio = weight_urgency*nurg + weight_ticket*ntckts + weight_priority*npprior.
  double weight_priority = 1.0;
  double weight_urgency = 0.1;
  double weight_ticket = 0.01;
  // Urgency: wtcontr = weight_waiting_time * waiting seconds; dlcontr = weight_deadline / seconds left.
  double weight_waiting_time = 0.0;
  double weight_deadline = 3600000.0;
  // Functional policy category weights.
  double weight_user = 0.25;
  double weight_project = 0.25;
  double weight_department = 0.25;
  double weight_job = 0.25;
  // Total tickets of the functional and share-tree policies.
  double weight_tickets_functional = 0;
  double weight_tickets_share = 0;
  bool share_override_tickets = true;
  bool share_functional_shares = true;
  std::uint32_t max_functional_jobs_to_schedule = 200;
  bool report_pjob_tickets = true;
  std::uint32_t max_pending_tasks_per_job = 50;
  // Dependent policies in order (default "OFS"); policies not listed run afterwards, independent.
  std::vector<TicketPolicy> policy_hierarchy = {TicketPolicy::kOverride, TicketPolicy::kFunctional,
                                                TicketPolicy::kShareTree};
  // Share tree usage decay: halftime in hours; halflife_decay_list in minutes per usage name.
  std::int64_t halftime_hours = 168;
  std::vector<UsageValue> halflife_decay_list;  // empty = NONE
  std::vector<UsageValue> usage_weight_list = {{"cpu", 1.0}, {"mem", 0.0}, {"io", 0.0}};
  double compensation_factor = 5.0;
  // Reservation and dispatch.
  std::uint32_t max_reservation = 0;
  Duration default_duration = kInfiniteDuration;
  Duration schedule_interval = 15;
  QueueSortMethod queue_sort_method = QueueSortMethod::kLoad;
  std::string load_formula = "np_load_avg";
  LoadFormula load_formula_terms;  // load_formula read against the complex (io/ fills it)
  std::vector<std::pair<ComplexId, double>> job_load_adjustments;  // np_load_avg=0.50 when configured
  Duration load_adjustment_decay_time = 450;
  std::uint32_t maxujobs = 0;
  Duration reprioritize_interval = 0;
  // params
  bool monitor = false;
  bool profile = false;
  Duration duration_offset = 60;
  // schedk extension (params RESERVE_IN_GAPS=1): reservations may use gaps in the
  // utilisation diagrams instead of only their tails. Off: Grid Engine's behaviour.
  bool reserve_in_gaps = false;
  std::string pe_range_alg = "auto";
  // schedk priority options (params); the defaults are Grid Engine's behaviour.
  PriorityPolicy priority_policy = PriorityPolicy::kGridEngine;
  PriorityNormalization normalization = PriorityNormalization::kGridEngine;
  double linear_urgency_scale = 1000;  // LINEAR_URGENCY_SCALE: the urgency of one slot in the template complex
  double linear_ticket_scale = 0;      // LINEAR_TICKET_SCALE; 0: weight_tickets_functional + weight_tickets_share
  FunctionalSplit functional_split = FunctionalSplit::kGridEngine;
  ShareTreePending share_tree_pending = ShareTreePending::kJobs;
  // Cluster configuration (qconf -mconf) keys the snapshot carries in sconf, because
  // Grid Engine creates user objects automatically with these values (enforce_user auto).
  double auto_user_fshare = 0;
  double auto_user_oticket = 0;
  ProjectId auto_user_default_project;
  // max_aj_instances (qconf -sconf): at most this many task objects of one array
  // job at once; 0: no limit. 2000 is Grid Engine's default.
  std::uint32_t max_aj_instances = 2000;
};

}  // namespace schedk
