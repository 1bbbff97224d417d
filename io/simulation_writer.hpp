// simulation_writer.hpp
// Writes a replay's results: per job as Standard Workload Format lines (the
// trace's own fields, field 3 replaced by the simulated wait, -1 for a job
// that never started) or as CSV (job,submit,start,wait,runtime,estimate,slots),
// and the summary as text or as one JSON object with the keys of docs/protocol.md §4
// (jobs, mean_wait, mean_bsld, utilization, makespan, passes, sched_seconds).
#pragma once

#include <string>

#include "io/swf_reader.hpp"
#include "kernel/simulation/simulation_metrics.hpp"
#include "kernel/simulation/simulator.hpp"

namespace schedk::io {

// SWF lines for the jobs of `trace`, in its order.
std::string SimulatedSwf(const SwfTrace& trace, const SimulationResult& result);
// CSV with a header line, in submission order.
std::string SimulatedCsv(const SimulationResult& result);

std::string SummaryText(const SimulationSummary& summary, double sched_seconds);
std::string SummaryJson(const SimulationSummary& summary, double sched_seconds);

}  // namespace schedk::io
