// shadow.hpp
// `schedk shadow`: runs beside a live Grid Engine cell and reports, scheduler
// run by scheduler run, how schedk's decisions compare with what the cell's
// own scheduler did. It is written as a cluster master drives `schedk serve`,
// so that other masters can copy it:
//   1. import the cell (io/ge_import) and `load` it into a `schedk serve`
//      child, once;
//   2. wait for the cell's next scheduler run, read that run's MONITOR
//      section (the cell's starts and reservations), send `clock <run time>`
//      and `schedule`, and compare decision by decision;
//   3. import the cell again and send only the changes (snapshot_diff.hpp);
//      every --digest-every rounds, check the session's `digest` against a
//      fresh session loaded from the import: a difference is a bug in the
//      feed or in the session, reported as a drift.
// The cell needs params MONITOR=1,PROFILE=1 (the schedule file and the run
// times). Exit status: 0 when the rounds ran without drift or refused
// request, 1 otherwise (disagreement alone is reported, not a failure).
#pragma once

#include <string>

namespace CLI {
class App;
}  // namespace CLI

namespace schedk::tools {

struct ShadowOptions {
  int rounds = 10;        // scheduler runs to compare
  int digest_every = 5;   // rounds between digest checks (0: never)
  int timeout = 120;      // seconds a cell command may take
  std::string log;        // keep each round's imported snapshot here (default: a directory in /tmp)
};

// Declares the subcommand's own options, bound to its options struct (command.hpp).
void SetupShadow(CLI::App& command, ShadowOptions& options);
int Shadow(const ShadowOptions& options);

}  // namespace schedk::tools
