// Soft requests (-soft -l, -soft -q) in the dispatch: a queue instance's
// violations as Grid Engine 8.1.9's compute_soft_violations counts them, and
// what a grant met (docs/resource-quotas.md, "Soft requests"). The parallel
// room they order is SoftRoom, in interval_parallel.cpp.
#include <algorithm>
#include <tuple>

#include "kernel/dispatch/interval.hpp"

namespace schedk::dispatch_detail {

// Per soft -l request, level by level (global, host, queue): a level whose
// value misses counts 1; a request that neither the global host nor the host
// met and the queue instance does not define counts 1 more. Per soft -q
// entry, 1 where it does not name the instance.
std::uint32_t Interval::SoftViolations(const JobView& job, std::uint32_t i, std::uint64_t* missed) const {
  const RequestSet& req = *job.requests;
  const ContainerRef levels[] = {
      {ContainerLevel::kGlobal, 0}, {ContainerLevel::kHost, instances_.host[i].index()}, {ContainerLevel::kQueue, i}};
  std::uint32_t violations = 0;
  std::uint64_t miss = 0;
  auto count = [&](std::size_t bit, std::uint32_t n) {
    violations += n;
    if (n > 0 && bit < 64) miss |= std::uint64_t{1} << bit;
  };
  // A consumable (qsub refuses it soft, but a complex can become consumable
  // later) is met at a level where that much of it is free now.
  auto match_at = [&](ContainerRef c, const ComplexValue& v) {
    if (const std::optional<std::uint32_t> k = ledger_.Find(c, v.complex)) {
      const ConsumableEntry& e = ledger_.entry(*k);
      return e.total - e.used_now >= v.number ? LevelMatch::kMatch : LevelMatch::kMismatch;
    }
    return MatchAt(c, v);
  };
  for (std::size_t r = 0; r < req.soft.size(); ++r) {
    bool met = false;
    std::uint32_t n = 0;
    for (const ContainerRef& c : levels) {
      const LevelMatch match = match_at(c, req.soft[r]);
      if (match == LevelMatch::kMismatch) ++n;
      if (match == LevelMatch::kMatch) met = true;
      if (match == LevelMatch::kUndefined && c.level == ContainerLevel::kQueue && !met) ++n;
    }
    count(r, n);
  }
  for (std::size_t k = 0; k < req.queue_soft.size(); ++k) {
    count(req.soft.size() + k, Selects(req.queue_soft[k], i) ? 0 : 1);
  }
  if (missed != nullptr) *missed = miss;
  return violations;
}

std::uint64_t Interval::PlacementSoftViolations(const JobView& job, const std::vector<Grant>& grants) const {
  std::uint64_t sum = 0;
  if (!HasSoftRequests(job)) return sum;
  for (const Grant& g : grants) sum += std::uint64_t{g.slots} * SoftViolations(job, g.instance);
  return sum;
}

void Interval::KeepSoftOrder(const JobView& job) {
  // The tags are those of the last PE the search tried.
  PeId pe;
  for (PeId p : job.requests->pe.matching) {
    if (!SlotCandidates(job, p).empty()) pe = p;
  }
  if (!pe.valid()) return;
  std::vector<std::tuple<bool, std::uint32_t, QueueKey>> keyed;  // untagged, violations, queue order
  keyed.reserve(instances_.size());
  for (std::uint32_t i = 0; i < instances_.size(); ++i) {
    const bool tagged = QueueStatic(job, i, pe);
    keyed.emplace_back(!tagged, tagged ? SoftViolations(job, i) : 0, KeyOf(i));
  }
  std::sort(keyed.begin(), keyed.end());
  soft_list_.clear();
  for (const auto& [untagged, violations, key] : keyed) soft_list_.push_back(key.instance);
  list_order_.SoftSearchFailed();
}

void Interval::NoteSoftRequests(const JobView& job, Decision& decision, const std::vector<Grant>& grants) {
  if (!HasSoftRequests(job)) return;
  decision.soft_begin = static_cast<std::uint32_t>(result_.soft.size());
  for (const Grant& g : grants) {
    SoftOutcome outcome;
    outcome.violations = SoftViolations(job, g.instance, &outcome.missed);
    result_.soft.push_back(outcome);
  }
}

}  // namespace schedk::dispatch_detail
