// import.hpp
// `schedk import ge`: reads a Grid Engine cell through its own commands (or a
// capture of them, --from) and writes one snapshot. `schedk import accounting
// FILE`: writes the share-tree usage records of a Grid Engine accounting file,
// decayed to --now (or the --snapshot's now) with its halftime, for a snapshot. The snapshot goes to
// --output (written whole, then renamed into place) or standard output; notes
// (how `now` was found) go to stderr. With --save, every command's output is
// kept as a capture that --from replays.
#pragma once

#include <optional>
#include <string>

namespace CLI {
class App;
}  // namespace CLI

namespace schedk::tools {

struct ImportOptions {
  std::string source = "ge";  // ge: a live cell; accounting: its accounting file's usage
  std::string file;           // accounting: the file
  std::string snapshot;       // accounting: take now and halftime from this snapshot
  double halftime = -1;       // accounting: hours (default: the snapshot's, else 168)
  std::string output;         // empty: standard output
  std::string from;           // a capture directory instead of the live cell
  std::string save;           // keep the live cell's outputs here
  std::string now;            // the scheduler's clock, epoch or ISO-8601
  int timeout = 120;          // seconds a live command may take
};

// Declares the subcommand's own options, bound to its options struct (command.hpp).
void SetupImport(CLI::App& command, ImportOptions& options);
int Import(const ImportOptions& options);

}  // namespace schedk::tools
