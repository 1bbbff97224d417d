#include "kernel/simulation/pool_backfill.hpp"

#include <algorithm>
#include <cassert>
#include <tuple>

namespace schedk {
namespace {

// holding_'s order: by estimated end, then job.
constexpr auto EndsBefore = [](const auto& a, const auto& b) { return std::tie(a.end, a.job) < std::tie(b.end, b.job); };

}  // namespace

void PoolBackfill::Submit(std::uint32_t job, std::uint32_t size, Duration estimate) {
  assert(size >= 1 && estimate >= 0);
  waiting_.push_back({job, size, estimate});
  ++waiting_count_;
}

void PoolBackfill::Terminate(std::uint32_t job, Time estimated_end) {
  const auto at = std::lower_bound(holding_.begin(), holding_.end(), Holding{estimated_end, job, 0}, EndsBefore);
  // Absent where its estimated end came first and a pass let it go (reference semantics).
  if (at != holding_.end() && at->end == estimated_end && at->job == job) {
    held_ -= at->size;
    holding_.erase(at);
  }
}

void PoolBackfill::Start(Waiting& w, Time now, std::vector<std::uint32_t>& started) {
  const Holding h{now + w.estimate, w.job, w.size};
  holding_.insert(std::upper_bound(holding_.begin(), holding_.end(), h, EndsBefore), h);
  held_ += w.size;
  started.push_back(w.job);
  w.size = 0;
  ++holes_;
  --waiting_count_;
}

std::pair<Time, std::uint64_t> PoolBackfill::Shadow(std::uint64_t size, std::uint64_t free, Time now) const {
  // Holders past their estimated end (native semantics only; a prefix of
  // holding_) are all assumed to end at now + schedule_interval.
  std::size_t k = 0;
  std::uint64_t overdue = 0;
  for (; k < holding_.size() && holding_[k].end <= now; ++k) overdue += holding_[k].size;
  const Time overdue_end = now + rules_.schedule_interval;
  std::uint64_t available = free;
  while (k < holding_.size() || overdue > 0) {
    // The next assumed end, and everything that ends then.
    Time t = k < holding_.size() ? holding_[k].end : overdue_end;
    if (overdue > 0) t = std::min(t, overdue_end);
    if (overdue > 0 && t == overdue_end) {
      available += overdue;
      overdue = 0;
    }
    for (; k < holding_.size() && holding_[k].end == t; ++k) available += holding_[k].size;
    if (available >= size) return {t, available - size};
  }
  assert(false && "a job no larger than the pool fits once every holder has ended");
  return {0, 0};
}

void PoolBackfill::Pass(Time now, std::vector<std::uint32_t>& started) {
  if (rules_.estimated_end_frees) {  // estimated ends that have come free their processors
    const auto ended = std::upper_bound(holding_.begin(), holding_.end(), now,
                                        [](Time t, const Holding& h) { return t < h.end; });
    for (auto h = holding_.begin(); h != ended; ++h) held_ -= h->size;
    holding_.erase(holding_.begin(), ended);
  }

  std::uint64_t free = processors_ - held_;
  std::size_t k = head_;
  const std::size_t end = waiting_.size();
  // In order, every job whose processors are free starts, up to the first
  // that cannot start and could once the pool empties.
  for (; k < end; ++k) {
    Waiting& w = waiting_[k];
    if (w.size == 0) continue;
    if (w.size <= free) {
      free -= w.size;
      Start(w, now, started);
    } else if (w.size <= processors_ || rules_.policy == PoolPolicy::kFcfs) {
      break;  // under fcfs, even a job that never fits holds back the rest
    }
  }
  if (rules_.policy == PoolPolicy::kEasy && k < end && free > 0) {
    // The blocked job reserves; later ones start now where they leave its
    // processors free at its shadow time.
    const auto [shadow, extra_at_shadow] = Shadow(waiting_[k].size, free, now);
    std::uint64_t extra = extra_at_shadow;
    for (std::size_t b = k + 1; b < end && free > 0; ++b) {
      Waiting& w = waiting_[b];
      if (w.size == 0 || w.size > free) continue;
      const bool ends_by_shadow = now + w.estimate <= shadow;
      if (!ends_by_shadow && w.size > extra) continue;
      free -= w.size;
      if (!ends_by_shadow) extra -= w.size;
      Start(w, now, started);
    }
  }
  while (head_ < end && waiting_[head_].size == 0) {
    ++head_;
    --holes_;
  }
  if (head_ + holes_ > waiting_.size() / 2 && waiting_.size() > 64) Compact();
}

void PoolBackfill::Compact() {
  std::erase_if(waiting_, [](const Waiting& w) { return w.size == 0; });
  head_ = 0;
  holes_ = 0;
}

}  // namespace schedk
