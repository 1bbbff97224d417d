#include "kernel/priority/urgency.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>

#include <tbb/blocked_range.h>
#include <tbb/parallel_reduce.h>

#include "kernel/priority/normalize.hpp"

namespace schedk {
namespace {

// The mean of the ids min..min(max, pe_slots), truncated (range_list_get_average
// with the PE's slot count as upper bound).
std::uint32_t AverageSlots(const PeRequest& pe, std::uint32_t pe_slots) {
  const std::uint32_t last = std::min(pe.max, pe_slots);
  if (last < pe.min) return 0;
  double sum = 0;
  std::uint32_t count = 0;
  for (std::uint32_t id = pe.min;; ++id) {
    sum += id;
    ++count;
    if (id == last) break;
  }
  return static_cast<std::uint32_t>(sum / count);
}

// Grid Engine's urgency contribution of one resource (centry_urgency_contribution):
// value * weight * slots for numeric types, the weight alone for string types.
double RequestContribution(const ComplexAttribute& attribute, double value, std::uint32_t slots) {
  if (!attribute.urgency_valid) return 0;
  if (IsNumeric(attribute.type)) return value * attribute.urgency * static_cast<int>(slots);
  return attribute.urgency;
}

}  // namespace

std::uint32_t UrgencySlotCount(const RequestSet& requests, const std::vector<ParallelEnvironment>& pes) {
  if (!requests.has_pe) return 1;
  const PeRequest& pe_request = requests.pe;
  if (pe_request.single_value()) return pe_request.min;
  if (pe_request.matching.empty()) return 1;  // Grid Engine logs "no matching parallel environment"
  const ParallelEnvironment& pe = pes[pe_request.matching.front().index()];
  switch (pe.urgency_slots) {
    case UrgencySlots::kMin:
      return pe_request.min;
    case UrgencySlots::kMax:
      return pe_request.max == kOpenSlotRange ? pe.slots : pe_request.max;
    case UrgencySlots::kAvg:
      return AverageSlots(pe_request, pe.slots);
    case UrgencySlots::kFixed:
      return pe.urgency_slots_fixed;
  }
  return 1;
}

std::optional<double> ResourceRequestContribution(const RequestSet& requests, const ComplexTable& complexes,
                                                  const std::vector<ParallelEnvironment>& pes) {
  if (!complexes.slots.valid()) return std::nullopt;
  const std::uint32_t slots = UrgencySlotCount(requests, pes);
  double rrc = 0;
  rrc += RequestContribution(complexes[complexes.slots], 1.0, slots);
  for (const ComplexValue& request : requests.hard) {
    rrc += RequestContribution(complexes[request.complex], request.number, slots);
  }
  return rrc;
}

double WaitingTimeContribution(double weight_waiting_time, Time now, Time submit) {
  const std::uint32_t waited = static_cast<std::uint32_t>(now) - static_cast<std::uint32_t>(submit);
  return weight_waiting_time * waited;
}

double DeadlineContribution(double weight_deadline, Time now, Time deadline) {
  if (deadline == 0) return 0;
  const int time_left = static_cast<int>(static_cast<std::uint32_t>(deadline) - static_cast<std::uint32_t>(now));
  return weight_deadline / std::max(time_left, 1);
}

namespace {

struct MinMax {
  double min = DBL_MAX;
  double max = DBL_MIN;  // Grid Engine starts max at the smallest positive double
  void Add(double v) {
    min = std::min(min, v);
    max = std::max(max, v);
  }
  void Join(const MinMax& o) {
    min = std::min(min, o.min);
    max = std::max(max, o.max);
  }
};

std::vector<double> RequestSetContributions(const Cluster& cluster, const JobTable& jobs) {
  std::vector<double> rrcontr(jobs.request_sets().size(), std::numeric_limits<double>::quiet_NaN());
  for (std::size_t i = 0; i < rrcontr.size(); ++i) {
    if (auto c = ResourceRequestContribution(jobs.request_sets()[i], cluster.complexes, cluster.pes)) rrcontr[i] = *c;
  }
  return rrcontr;
}

// urg of one row, or NaN when its request set has no urgency (no slots complex).
double RowUrgency(const Cluster& cluster, const JobShard& shard, std::size_t row, const std::vector<double>& rrcontr) {
  const double rrc = rrcontr[shard.requests[row].index()];
  if (std::isnan(rrc)) return rrc;
  const SchedulerConfig& c = cluster.config;
  const double wtc = WaitingTimeContribution(c.weight_waiting_time, cluster.now, shard.submit[row]);
  const double dtc = DeadlineContribution(c.weight_deadline, cluster.now, shard.deadline(row));
  return wtc + dtc + rrc;
}

// Whether a row's urgency spans the nurg range: running and dispatchable rows,
// or only dispatchable ones when running jobs are left out of the normalisation.
bool InRange(RowRole role, PriorityNormalization normalization) {
  if (normalization == PriorityNormalization::kPendingOnly) return role == RowRole::kDispatchable;
  return role == RowRole::kDispatchable || role == RowRole::kRunning;
}

UrgencyResult Prepare(const Cluster& cluster, const JobTable& jobs) {
  UrgencyResult result;
  const std::size_t n = jobs.rows();
  const SchedulerConfig& c = cluster.config;
  result.computed = c.weight_urgency != 0 || c.report_pjob_tickets;
  result.normalization = c.normalization;
  result.linear_scale = c.linear_urgency_scale;
  if (result.computed) {
    result.urg.resize(n);  // ShardUrgency writes every row
    result.rrcontr = RequestSetContributions(cluster, jobs);
  }
  return result;
}

// Raw urgency of the rows of shard `s`, accumulating the range over running and
// dispatchable rows.
void ShardUrgency(const Cluster& cluster, const JobTable& jobs, std::size_t s, std::uint32_t base,
                  const std::vector<RowRole>& roles, UrgencyResult& result, MinMax& range) {
  const JobShard& shard = jobs.shards()[s];
  for (std::size_t i = 0; i < shard.size(); ++i) {
    const std::uint32_t flat = base + static_cast<std::uint32_t>(i);
    double u = 0;  // where Grid Engine leaves urg unset: inactive rows, no slots complex
    if (roles[flat] != RowRole::kInactive) {
      const double computed = RowUrgency(cluster, shard, i, result.rrcontr);
      if (!std::isnan(computed)) {
        u = computed;
        if (InRange(roles[flat], result.normalization)) range.Add(u);
      }
    }
    result.urg[flat] = u;  // every row: the column is sized uninitialised
  }
}

}  // namespace

UrgencyResult ComputeUrgency(const Cluster& cluster, const JobTable& jobs, const std::vector<RowRole>& roles) {
  UrgencyResult result = Prepare(cluster, jobs);
  if (!result.computed) return result;
  const auto offsets = jobs.Offsets();
  // min and max are exact, so the reduction gives the same range for any split.
  const MinMax range = tbb::parallel_reduce(
      tbb::blocked_range<std::size_t>(0, jobs.shards().size(), 1), MinMax{},
      [&](const tbb::blocked_range<std::size_t>& r, MinMax acc) {
        for (std::size_t s = r.begin(); s != r.end(); ++s) ShardUrgency(cluster, jobs, s, offsets[s], roles, result, acc);
        return acc;
      },
      [](MinMax a, const MinMax& b) {
        a.Join(b);
        return a;
      });
  result.min_urg = range.min;
  result.max_urg = range.max;
  return result;
}

UrgencyResult ComputeUrgencyReference(const Cluster& cluster, const JobTable& jobs, const std::vector<RowRole>& roles) {
  UrgencyResult result = Prepare(cluster, jobs);
  if (!result.computed) return result;
  const auto offsets = jobs.Offsets();
  MinMax range;
  for (std::size_t s = 0; s < jobs.shards().size(); ++s) ShardUrgency(cluster, jobs, s, offsets[s], roles, result, range);
  result.min_urg = range.min;
  result.max_urg = range.max;
  return result;
}

}  // namespace schedk
