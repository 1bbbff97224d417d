// simulate.hpp
// `schedk simulate`: reads a trace (Standard Workload Format, plain or gzip,
// or a snapshot whose jobs carry runtime=), replays it
// (kernel/simulation/simulator.hpp), writes the per-job results (--jobs-out:
// SWF with the simulated wait in field 3, or CSV for a .csv file) and prints
// the summary (text or JSON), and draws it (--plot, SVG); a progress bar goes
// to stderr when stderr is a terminal. An SWF trace replays in submission order,
// or with --maui FILE under the Maui policy that FILE's maui.cfg lines configure
// (a snapshot trace carries its own sconf and maui block). An SWF trace's
// machine is one pool of processors, so under fcfs and easy its passes run
// on the one-pool engine unless --passes kernel.
#pragma once

#include <string>

namespace CLI {
class App;
}  // namespace CLI

namespace schedk::tools {

struct SimulateOptions {
  std::string trace;
  std::string format = "auto";  // swf | snapshot | auto (from the content)
  std::string policy = "easy";
  std::string estimate = "requested";
  std::string semantics = "reference";
  long long interval = 0;
  std::string filter = "none";
  std::string jobs_out;
  std::string plot;  // an SVG file
  std::string summary_format = "text";
  bool lenient = false;
  std::string passes = "auto";  // auto | kernel (never the one-pool engine)
  std::string maui;  // an SWF trace under PRIORITY_POLICY=maui, configured by this file of maui.cfg lines
};

// Declares the subcommand's own options, bound to its options struct (command.hpp).
void SetupSimulate(CLI::App& command, SimulateOptions& options);
// Returns the exit status: 0 success, 2 bad input, 1 any other failure.
int Simulate(const SimulateOptions& options);

}  // namespace schedk::tools
