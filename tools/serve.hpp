// serve.hpp
// `schedk serve`: a session (io/session/session.hpp) over standard input and
// output. Reads requests as they come (a line longer than the limit is cut and
// the rest dropped, so memory stays bounded), flushes replies whenever no
// further input is waiting, writes one log line per request to the log file,
// and treats a closed standard output as the end of the session.
#pragma once

#include <cstddef>
#include <string>

namespace CLI {
class App;
}  // namespace CLI

namespace schedk::tools {

struct ServeOptions {
  std::string log_file;
  std::size_t max_line_bytes = 1 << 20;
};

// Declares the subcommand's own options, bound to its options struct (command.hpp).
void SetupServe(CLI::App& command, ServeOptions& options);
// Runs the session until `quit` or the end of input; returns the exit status.
int Serve(const ServeOptions& options);

}  // namespace schedk::tools
