// priorities.hpp
// `schedk priorities`: reads a snapshot and prints its jobs' priorities as
// `qstat -ext -urg -pri` shows them, in dispatch order, as a table or JSON
// Lines (io/priority_writer.hpp).
#pragma once

#include <string>

namespace CLI {
class App;
}  // namespace CLI

namespace schedk::tools {

struct PrioritiesOptions {
  std::string snapshot = "-";
  std::string format = "table";      // table | jsonl
  std::string task_values = "qstat";  // qstat | computed
  bool profile = false;               // --profile
};

// Declares the subcommand's own options, bound to its options struct (command.hpp).
void SetupPriorities(CLI::App& command, PrioritiesOptions& options);
// Returns the exit status: 0 success, 2 bad input, 1 any other failure.
int Priorities(const PrioritiesOptions& options);

}  // namespace schedk::tools
