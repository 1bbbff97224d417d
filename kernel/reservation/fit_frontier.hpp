// fit_frontier.hpp
// What earlier earliest-start answers on one utilisation diagram prove about
// later questions, so that a run of them (a conservative backfilling pass: one
// job's earliest start, its booking, the next job's earliest start, ...) does
// not search the diagram from its beginning each time.
//
// Why it holds: while a diagram only gains usage (every Add since an answer
// had a non-negative amount, and floating-point addition of a non-negative
// amount never lowers a value), its usage grows pointwise. The set of starts at
// which the usage stays <= `limit` for `duration` seconds therefore only
// shrinks, and it is smaller still for a lower limit or a longer duration. So
// the answer t to (from, duration, limit) is a lower bound for the answer to
// any later (from' >= from, duration' >= duration, limit' <= limit), and "no
// fit" stays "no fit". The earliest feasible start is always `from` or a
// breakpoint time, so a search may begin at the bound and find the same start.
//
// Invariants: at most kCapacity answers are kept; none is implied by another
// (they form a Pareto set over from, duration, limit and start); all are
// forgotten when the diagram releases usage (an Add with a negative amount) or
// when the frontier is used with another diagram.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernel/types.hpp"

namespace schedk {

class UtilizationDiagram;

class FitFrontier {
 public:
  static constexpr std::size_t kCapacity = 256;

  std::size_t size() const { return answers_.size(); }

 private:
  friend class UtilizationDiagram;

  struct Answer {
    Time from = 0;
    Duration duration = 0;
    double limit = 0;
    Time start = 0;  // kDiagramForever: no fit
  };

  // Forgets everything unless the answers were given by `diagram` at release count `releases`.
  void Follow(const UtilizationDiagram* diagram, std::uint64_t releases);
  // The latest start an earlier answer rules out for this question (`from` if none does).
  Time LowerBound(Time from, Duration duration, double limit) const;
  void Remember(const Answer& answer);

  const UtilizationDiagram* diagram_ = nullptr;
  std::uint64_t releases_ = 0;
  std::vector<Answer> answers_;
  std::size_t evict_ = 0;  // the slot a full frontier overwrites next, round robin
};

}  // namespace schedk
