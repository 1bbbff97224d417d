#include "kernel/simulation/simulation_metrics.hpp"

#include <algorithm>

namespace schedk {

SimulationSummary Summarize(const SimulationResult& result, double capacity) {
  SimulationSummary s;
  s.passes = result.passes;
  if (result.jobs.empty()) return s;
  double wait = 0, bsld = 0, work = 0;
  Time first_submit = result.jobs.front().submit, last_end = first_submit;
  for (const SimulatedJob& j : result.jobs) {
    first_submit = std::min(first_submit, j.submit);
    if (j.start < 0) {
      ++s.never_started;
      continue;
    }
    ++s.jobs;
    const double w = static_cast<double>(j.start - j.submit);
    const double run = static_cast<double>(j.runtime);
    wait += w;
    bsld += std::max(1.0, (w + run) / std::max(run, kBoundedSlowdownTau));
    work += run * j.slots;
    last_end = std::max(last_end, j.start + j.runtime);
  }
  if (s.jobs > 0) {
    s.mean_wait = wait / static_cast<double>(s.jobs);
    s.mean_bsld = bsld / static_cast<double>(s.jobs);
  }
  s.makespan = last_end - first_submit;
  if (capacity > 0 && s.makespan > 0) s.utilization = work / (capacity * static_cast<double>(s.makespan));
  return s;
}

}  // namespace schedk
