// naive_utilization_diagram.hpp
// The test oracle for UtilizationDiagram: Grid Engine's list operations of
// sge_resource_utilization.c spelt out over one sorted vector, every operation
// O(n) (EarliestFit O(n^2)). Same interface, same results to the bit.
// Invariants: those of UtilizationDiagram.
#pragma once

#include <optional>
#include <utility>
#include <vector>

#include "kernel/reservation/utilization_diagram.hpp"

namespace schedk {

class NaiveUtilizationDiagram {
 public:
  bool empty() const { return points_.empty(); }
  std::size_t size() const { return points_.size(); }
  void Add(Time start, Duration duration, double amount);
  double Max(Time start, Duration duration) const;
  double AmountAt(Time t) const {
    double amount = 0;
    for (const Breakpoint& p : points_) {
      if (p.time > t) break;
      amount = p.amount;
    }
    return amount;
  }
  double QueueEnd() const;
  Time Below(double limit) const;
  std::optional<Time> EarliestFit(Time from, Duration duration, double limit) const;
  std::optional<Time> LastBreakpoint() const;
  std::optional<Time> LastBreakpointBefore(Time t) const;
  std::optional<Time> LastIncrease() const;
  const std::vector<Breakpoint>& Breakpoints() const { return points_; }
  void AppendTimesIn(Time from, Time to, std::vector<Time>& out) const {
    for (const Breakpoint& p : points_) {
      if (p.time >= from && p.time < to) out.push_back(p.time);
    }
  }
  std::optional<Time> NextBreakpoint(Time t) const {
    for (const Breakpoint& p : points_) {
      if (p.time >= t) return p.time;
    }
    return std::nullopt;
  }
  std::optional<Time> FirstBreakpoint() const {
    return points_.empty() ? std::nullopt : std::optional<Time>(points_.front().time);
  }
  // Takes over normalised breakpoints (benchmarks start large diagrams this way).
  void Assign(std::vector<Breakpoint> points) { points_ = std::move(points); }

 private:
  std::vector<Breakpoint> points_;
};

}  // namespace schedk
