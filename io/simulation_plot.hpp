// simulation_plot.hpp
// A replay drawn as an SVG page to look at rather than read: three panels over
// simulated time (days since the first submission): the queue length (jobs
// submitted and not started), the utilisation (busy slots over capacity), and
// the running mean of the wait (over the jobs started so far). Each series is
// a step function sampled at its events and thinned to at most
// kPlotPoints points per panel, so the file stays small for any trace.
#pragma once

#include <string>

#include "io/tuning.hpp"
#include "kernel/simulation/simulator.hpp"

namespace schedk::io {

using tuning::kPlotPoints;

std::string PlotSvg(const SimulationResult& result, double capacity, const std::string& title);

}  // namespace schedk::io
