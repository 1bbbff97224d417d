// cell_commands.hpp
// How the Grid Engine importer reads a cell: every fact comes from the output
// of one of the cell's own commands (qconf, qstat, sge_share_mon, ...). A
// CellCommands answers "what does this command print": the live cell runs it,
// a capture directory holds what it printed when it was run.
// Invariants: an answer is the command's whole standard output, or a Status
// naming the command; a command that ends with a failure status is an error,
// except that qconf's "no ... defined" for an empty list is an empty answer.
// A capture holds one file per command, named by the command's `capture`.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "io/status.hpp"

namespace schedk::io {

using CommandLine = std::vector<std::string>;

struct CellCommand {
  CommandLine argv;
  std::string capture;  // its file in a capture directory (CaptureFileName(argv) unless named)
};

// A command whose capture file is CaptureFileName(argv).
CellCommand Command(CommandLine argv);

// Runs (or looks up) one command and returns its standard output.
using CellCommands = std::function<Result<std::string>(const CellCommand&)>;

// The argv joined with '_', bytes outside [A-Za-z0-9.@+=,-] written %XX:
// `qstat -j * -xml` is stored as `qstat_-j_%2A_-xml`.
std::string CaptureFileName(const CommandLine& argv);

// Whether `name` (from a listing or a report) may be an object name: it goes
// into command lines, capture file names and snapshot block headers, so only
// Grid Engine's name characters (letters, digits and . _ @ + -), at most
// kMaxObjectNameBytes.
inline constexpr std::size_t kMaxObjectNameBytes = 256;
bool IsObjectName(std::string_view name);

// "qconf -sq all.q": a command as the messages show it.
std::string CommandText(const CommandLine& argv);

// The live cell: runs argv (found on PATH) with SGE_ROOT/SGE_CELL as in the
// environment, no shell, standard input closed; a command still running after
// `timeout_seconds` is killed and reported as a cell that does not answer.
CellCommands LiveCell(int timeout_seconds);

// A capture directory: the file `capture` in `dir`; a missing file is an
// error naming the command.
CellCommands CaptureDirectory(std::string dir);

// Passes every command to `inner` and writes each answer to `dir` as a
// capture, so that `--from dir` replays it.
CellCommands SavingTo(CellCommands inner, std::string dir);

}  // namespace schedk::io
