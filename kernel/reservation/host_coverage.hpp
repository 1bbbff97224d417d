// host_coverage.hpp
// For $pe_slots and a fixed allocation rule on hosts with one queue instance
// each: the start times t at which a host of a walk plan cannot give the
// rule's per-host count over [t, t + d), and those at which too few hosts can
// for the rule, as sorted, disjoint ranges [from, to] (bounds included). A
// demand denies its host for the start times whose window meets a step of its
// diagram that leaves fewer than per_host slots, [step start - d + 1, step end - 1];
// those times, gathered per host and counted over the hosts, give the hosts'
// verdict at every start time at once, so a queue-end-time walk reads its
// verdicts instead of weighing every host at every candidate.
// Invariants: `denied` holds each plan host's ranges in plan order, merged;
// `failures` are exactly the times at which the hosts not denied are too few
// for the rule (RuleVerdict).
#pragma once

#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "kernel/dispatch/flat_diagrams.hpp"
#include "kernel/dispatch/walk_plan.hpp"
#include "kernel/model/parallel_environment.hpp"

namespace schedk::dispatch_detail {

// Whether hosts whose availabilities sum to `total`, `roomy` of them with room
// for the rule's per-host count, give a parallel job `least` slots under its
// allocation rule (exactly when Grid Engine's parallel assignment succeeds).
struct RuleVerdict {
  AllocationRule rule;
  std::uint32_t least = 0;
  std::uint32_t per_host = 1;  // the least, a fixed rule's slots per host, or 1
  bool Allows(std::uint64_t total, std::uint64_t roomy) const {
    switch (rule) {
      case AllocationRule::kFillUp:
      case AllocationRule::kRoundRobin:
        return total >= least;
      case AllocationRule::kPeSlots:
        return roomy >= 1;
      case AllocationRule::kFixed:
        return roomy * per_host >= least;
    }
    return false;
  }
};

struct HostCoverage {
  std::vector<std::pair<Time, Time>> denied;  // per host of the walk's plan, in plan order
  std::vector<std::uint32_t> host_first;      // per host: where its ranges begin in `denied`, plus the end
  std::vector<std::pair<Time, Time>> failures;

  bool Denies(std::uint32_t h, Time t) const;  // host h (plan index) at t
  bool FailsAt(Time t) const;                  // the hosts at t
  bool FailsIn(Time low, Time high) const;     // the hosts at some time of [low, high]

  // The coverage of `walk` for windows of length d. Refreshes `flat` with the
  // plan's entries, whose steps it reads.
  static HostCoverage Build(const WalkPlan& walk, const DemandCounter& count, const RuleVerdict& verdict, Duration d,
                            const ResourceLedger& ledger, FlatDiagrams& flat);
};

}  // namespace schedk::dispatch_detail
