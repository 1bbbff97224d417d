#include "kernel/reservation/naive_utilization_diagram.hpp"

#include <algorithm>
#include <cassert>

namespace schedk {

void NaiveUtilizationDiagram::Add(Time start, Duration duration, double amount) {
  assert(start >= 0 && start < kDiagramForever && duration > 0);
  const Time end = DiagramEnd(start, duration);
  // utilization_add, step by step over the whole list.
  std::size_t i = 0;
  while (i < points_.size() && points_[i].time < start) ++i;
  if (i < points_.size() && points_[i].time == start) {
    points_[i].amount += amount;
  } else {
    const double previous = i == 0 ? 0.0 : points_[i - 1].amount;
    points_.insert(points_.begin() + static_cast<std::ptrdiff_t>(i), Breakpoint{start, previous + amount});
  }
  for (++i; i < points_.size() && points_[i].time < end; ++i) points_[i].amount += amount;
  if (i == points_.size() || points_[i].time != end) {
    points_.insert(points_.begin() + static_cast<std::ptrdiff_t>(i), Breakpoint{end, points_[i - 1].amount - amount});
  }
  // utilization_normalize.
  while (!points_.empty() && points_.front().amount == 0.0) points_.erase(points_.begin());
  std::vector<Breakpoint> kept;
  for (const Breakpoint& p : points_) {
    if (kept.empty() || kept.back().amount != p.amount) kept.push_back(p);
  }
  points_ = std::move(kept);
}

double NaiveUtilizationDiagram::Max(Time start, Duration duration) const {
  if (start >= kDiagramForever) return QueueEnd();  // utilization_max's QUEUE_END case
  const Time end = DiagramEnd(start, duration);
  double peak = 0;
  for (const Breakpoint& p : points_) {
    if (p.time <= start) peak = p.amount;  // the amount in effect at start
  }
  for (const Breakpoint& p : points_) {
    if (p.time > start && p.time < end) peak = std::max(peak, p.amount);
  }
  return peak;
}

double NaiveUtilizationDiagram::QueueEnd() const {
  if (points_.empty()) return 0;
  if (points_.back().time == kDiagramForever && points_.size() > 1) return points_[points_.size() - 2].amount;
  return points_.back().amount;
}

Time NaiveUtilizationDiagram::Below(double limit) const {
  // utilization_below: backwards from the end.
  for (std::size_t i = points_.size(); i-- > 1;) {
    if (points_[i].amount <= limit && points_[i - 1].amount > limit) return points_[i].time;
  }
  return 0;
}

std::optional<Time> NaiveUtilizationDiagram::EarliestFit(Time from, Duration duration, double limit) const {
  if (limit < 0 || from >= kDiagramForever) return std::nullopt;
  if (Max(from, duration) <= limit) return from;
  for (const Breakpoint& p : points_) {
    if (p.time > from && p.time < kDiagramForever && Max(p.time, duration) <= limit) return p.time;
  }
  return std::nullopt;
}

std::optional<Time> NaiveUtilizationDiagram::LastIncrease() const {
  for (std::size_t i = points_.size(); i-- > 0;) {
    if (points_[i].amount > (i == 0 ? 0.0 : points_[i - 1].amount)) return points_[i].time;
  }
  return std::nullopt;
}

std::optional<Time> NaiveUtilizationDiagram::LastBreakpoint() const {
  if (points_.empty()) return std::nullopt;
  return points_.back().time;
}

std::optional<Time> NaiveUtilizationDiagram::LastBreakpointBefore(Time t) const {
  std::optional<Time> found;
  for (const Breakpoint& p : points_) {
    if (p.time < t) found = p.time;
  }
  return found;
}

}  // namespace schedk
