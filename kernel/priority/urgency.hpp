// urgency.hpp
// The urgency policy (sge_priority(5), sge_urgency.c):
//   urg = rrcontr + wtcontr + dlcontr
// rrcontr (resource requirement contribution) comes from the implicit slots
// request and every hard -l request, each weighted by its complex's urgency and,
// for numeric types, by the assumed slot count S; wtcontr grows with waiting
// time; dlcontr with the nearness of a deadline. nurg normalises urg over the
// running jobs plus the dispatchable pending jobs of the interval (schedk's
// options: over the dispatchable jobs alone, or linearly by a fixed scale).
// Thread-safety: pure functions; ComputeUrgency runs in parallel with oneTBB
// and ComputeUrgencyReference is its reference twin (the test oracle).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "kernel/util/column.hpp"
#include "kernel/model/cluster.hpp"
#include "kernel/model/job_table.hpp"
#include "kernel/priority/normalize.hpp"

namespace schedk {

// The slot count S the urgency policy assumes for a job (sge_job_slot_request):
// 1 for a sequential job, the single value of a fixed PE range, otherwise the
// PE's urgency_slots rule (min, max, avg, or a fixed number) applied to the range.
std::uint32_t UrgencySlotCount(const RequestSet& requests, const std::vector<ParallelEnvironment>& pes);

// rrcontr for one request set, or nullopt when the complex has no "slots" row
// (Grid Engine then leaves the job's urgency unset).
std::optional<double> ResourceRequestContribution(const RequestSet& requests, const ComplexTable& complexes,
                                                  const std::vector<ParallelEnvironment>& pes);

// wtcontr = weight * (now - submit), with the difference in Grid Engine's
// unsigned 32-bit seconds.
double WaitingTimeContribution(double weight_waiting_time, Time now, Time submit);

// dlcontr = weight_deadline / max(deadline - now, 1) for a job with a deadline, else 0.
double DeadlineContribution(double weight_deadline, Time now, Time deadline);

// Which rows take part in the urgency range (and in the ticket passes).
enum class RowRole : std::uint8_t {
  kDispatchable,  // pending, not held, no unfinished predecessor
  kRunning,       // running, not suspended
  kSuspended,     // shown, but outside every range and ticket pass
  kInactive,      // held, waiting on a predecessor, or in error: priority info cleared
};

struct UrgencyResult {
  std::vector<double> rrcontr;  // per request set (NaN when unset)
  Column<double> urg;           // per flat row; empty when not computed
  double min_urg = 0;           // the range over running and dispatchable rows (dispatchable only
  double max_urg = 0;           // with PRIORITY_NORMALIZATION=pending)
  bool computed = false;        // false: weight_urgency == 0 and !report_pjob_tickets, nurg forced to 0.5
  PriorityNormalization normalization = PriorityNormalization::kGridEngine;
  double linear_scale = 1;      // LINEAR_URGENCY_SCALE

  // nurg of a row, normalised on demand (sge_normalize_urgency); 0 for rows
  // whose priority information Grid Engine clears. The linear option divides
  // by the fixed scale instead, and gives 0 where urgency is not computed.
  double Nurg(std::size_t flat, RowRole role) const {
    if (role == RowRole::kInactive) return 0;
    if (normalization == PriorityNormalization::kLinear) return computed ? urg[flat] / linear_scale : 0.0;
    if (!computed) return 0.5;
    return NormalizeValue(urg[flat], min_urg, max_urg);
  }
};

// Computes urgency for every row (flat index = JobTable::Offsets()[shard] + row).
UrgencyResult ComputeUrgency(const Cluster& cluster, const JobTable& jobs, const std::vector<RowRole>& roles);
UrgencyResult ComputeUrgencyReference(const Cluster& cluster, const JobTable& jobs, const std::vector<RowRole>& roles);

}  // namespace schedk
