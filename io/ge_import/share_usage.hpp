// share_usage.hpp
// A Grid Engine cell's share-tree usage, as `sge_share_mon` prints it, turned
// into the snapshot's `usage` records. The qmaster keeps each user's and
// project's decayed usage (cpu, mem, io) with the time it was last decayed;
// the scheduler decays it to its own time at every run, adds what running
// jobs used since, and stores it back, so after a run the stored usage is the
// one that run's share-tree tickets were computed from.
// sge_share_mon prints, per share-tree node, the usage of the user, the user
// within its project, or the project the node names (undecayed, as stored,
// with `-c 1` and without `-u`), to six decimals:
//   user leaf          -> usage user U cpu=..,mem=..,io=.. at=<usage_time>
//   user under project -> usage user U project=P ... at=<usage_time>
//   project node       -> usage project P ... at=<the latest user usage_time>
// (sge_share_mon prints no time for a project; the scheduler stamps users and
// projects in the same run.) Nodes that name neither print nothing of use.
// Invariants: every line is checked (fields, names, finite non-negative
// numbers) or the result is an error naming the command and the line; a
// record the tree lists twice is written once.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "io/ge_import/cell_commands.hpp"
#include "io/status.hpp"

namespace schedk::io {

// The command that prints the usage, for `sge_share_mon` at `program` (the
// capture file is named after `sge_share_mon` wherever the program lies).
CellCommand ShareUsageCommand(const std::string& program);

struct ShareUsage {
  std::string records;             // `usage ...` lines, one per user, user in project, or project
  std::vector<std::string> notes;  // what the usage cannot say (users under `default` nodes)
};

// The records from the command's output; `source` names it in errors.
Result<ShareUsage> ParseShareUsage(std::string_view output, const std::string& source);

// Where the live cell's sge_share_mon lies: on PATH, else in
// $SGE_ROOT/utilbin/<arch>/, else Debian's /usr/lib/gridengine/; "" if none.
std::string ShareMonitorPath();

}  // namespace schedk::io
