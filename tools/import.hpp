// import.hpp
// `schedk import ge`: reads a Grid Engine cell through its own commands (or a
// capture of them, --from) and writes one snapshot. The snapshot goes to
// --output (written whole, then renamed into place) or standard output; notes
// (how `now` was found) go to stderr. With --save, every command's output is
// kept as a capture that --from replays.
#pragma once

#include <optional>
#include <string>

namespace schedk::tools {

struct ImportOptions {
  std::string source = "ge";  // the only kind of cell so far
  std::string output;         // empty: standard output
  std::string from;           // a capture directory instead of the live cell
  std::string save;           // keep the live cell's outputs here
  std::string now;            // the scheduler's clock, epoch or ISO-8601
  int timeout = 120;          // seconds a live command may take
};

int Import(const ImportOptions& options);

}  // namespace schedk::tools
