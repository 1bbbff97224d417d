// simulation_metrics.hpp
// The summary of a replay (docs/replay.md, Outputs): jobs, mean wait (start - submit),
// mean bounded slowdown max(1, (wait + run) / max(run, tau)) with tau = 10 s
// over all jobs, utilisation sum(run * slots) / (capacity * (last end - first
// submit)), and the makespan (last end - first submit). Jobs that never
// started are counted apart and left out of the means.
#pragma once

#include <cstdint>
#include <vector>

#include "kernel/simulation/simulator.hpp"

namespace schedk {

inline constexpr double kBoundedSlowdownTau = 10.0;

struct SimulationSummary {
  std::size_t jobs = 0;
  std::size_t never_started = 0;
  double mean_wait = 0;
  double mean_bsld = 0;
  double utilization = 0;
  Time makespan = 0;
  std::uint64_t passes = 0;
};

// `capacity`: the slots of the machine (MaxProcs for a trace).
SimulationSummary Summarize(const SimulationResult& result, double capacity);

}  // namespace schedk
