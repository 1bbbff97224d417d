// schedule.hpp
// `schedk schedule`: reads a snapshot, runs one scheduling interval and
// prints its starts, reservations and pending reasons as text or JSON Lines
// (io/schedule_writer.hpp); with --monitor it also appends the interval's
// MONITOR section to a file, as Grid Engine's schedule file grows.
#pragma once

#include <string>

namespace CLI {
class App;
}  // namespace CLI

namespace schedk::tools {

struct ScheduleOptions {
  std::string snapshot = "-";
  std::string format = "text";  // text | jsonl
  std::string monitor;          // a file to append to; empty: none
  bool profile = false;         // --profile
};

// Declares the subcommand's own options, bound to its options struct (command.hpp).
void SetupSchedule(CLI::App& command, ScheduleOptions& options);
// Returns the exit status: 0 success, 2 bad input, 1 any other failure.
int Schedule(const ScheduleOptions& options);

}  // namespace schedk::tools
