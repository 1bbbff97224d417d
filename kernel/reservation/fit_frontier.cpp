#include "kernel/reservation/fit_frontier.hpp"

#include <algorithm>

namespace schedk {

void FitFrontier::Follow(const UtilizationDiagram* diagram, std::uint64_t releases) {
  if (diagram == diagram_ && releases == releases_) return;
  diagram_ = diagram;
  releases_ = releases;
  answers_.clear();
  evict_ = 0;
}

Time FitFrontier::LowerBound(Time from, Duration duration, double limit) const {
  Time bound = from;
  for (const Answer& a : answers_) {
    if (a.from <= from && a.duration <= duration && a.limit >= limit) bound = std::max(bound, a.start);
  }
  return bound;
}

void FitFrontier::Remember(const Answer& answer) {
  // `a` implies `b` when it covers every question `b` covers with a start at least as late.
  auto implies = [](const Answer& a, const Answer& b) {
    return a.from <= b.from && a.duration <= b.duration && a.limit >= b.limit && a.start >= b.start;
  };
  for (const Answer& a : answers_) {
    if (implies(a, answer)) return;
  }
  std::erase_if(answers_, [&](const Answer& a) { return implies(answer, a); });
  if (answers_.size() < kCapacity) {
    answers_.push_back(answer);
    return;
  }
  answers_[evict_] = answer;
  evict_ = (evict_ + 1) % kCapacity;
}

}  // namespace schedk
