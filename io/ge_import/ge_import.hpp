// ge_import.hpp
// `schedk import ge`: a live Grid Engine cell (or a capture of one) as a
// snapshot. Configuration objects are pasted as qconf prints them
// (docs/protocol.md §1.1); jobs come from qstat's XML (qstat_xml.hpp) as job records; queue
// instance states become each queue's `states` attribute.
// Invariants: the result is whole or an error. Every command's output is
// checked, every object the cell has is in the snapshot or the import fails
// naming what schedk cannot represent yet, and the text is read back with
// ReadSnapshot before it is returned. Read live, a scheduler run that ends
// while the jobs are being read makes the importer read them again (at most
// 3 times), so that jobs and clock come from between the same two runs.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "io/ge_import/cell_commands.hpp"
#include "io/status.hpp"
#include "kernel/types.hpp"

namespace schedk::io {

// One scheduler run of the cell, from the stamps of its lines in the
// qmaster's messages (params PROFILE=1; local time, to the second). A run
// reads the clock once for urgency (sgeee_scheduler) and logs `PROF: static
// urgency took` just after; it may end a second later, so the two differ.
struct SchedulerRun {
  Time urgency = 0;  // its `static urgency took` line; `end` where it has none
  Time end = 0;      // its `schedd run took` line, which names the run
  bool operator==(const SchedulerRun&) const = default;
};

struct GeImportOptions {
  // The scheduler's clock for the snapshot. Without it: the time the cell's
  // last scheduler run weighed urgency, where sconf's params has PROFILE=1
  // (SchedulerRun::urgency), else the time of the capture, with a note.
  std::optional<Time> now;
  // The qmaster's messages file; empty: from $SGE_ROOT/$SGE_CELL/common/bootstrap.
  std::string messages_file;
  // The live cell's sge_share_mon (ShareMonitorPath()), run where the cell has
  // a share tree; empty: none found, and such a cell cannot be imported.
  std::string share_monitor;
  bool live = false;  // the commands reach a running cell (retry on a run boundary)
};

struct GeImport {
  std::string snapshot;            // schedk-snapshot 1 text
  std::vector<std::string> notes;  // what the user should know (how `now` was found, ...)
  std::size_t jobs = 0, hosts = 0, queues = 0;
  std::optional<SchedulerRun> run;  // the run `now` is taken from, where it came from the messages
};

Result<GeImport> ImportGeCell(const CellCommands& cell, const GeImportOptions& options);

// The cell's recent scheduler runs, oldest first, from the last 400 lines of
// the qmaster's messages; empty without the file.
std::vector<SchedulerRun> SchedulerRuns(const CellCommands& cell, const std::string& messages_file);
// The last of them; nullopt without one.
std::optional<SchedulerRun> LastSchedulerRun(const CellCommands& cell, const std::string& messages_file);

// The live cell's qmaster messages file: qmaster_spool_dir of
// $SGE_ROOT/$SGE_CELL/common/bootstrap (SGE_CELL: default), plus /messages;
// empty where the environment or the bootstrap file does not say.
std::string QmasterMessagesFile();

// The options for the live cell of $SGE_ROOT/$SGE_CELL: live, its messages
// file and its sge_share_mon.
GeImportOptions LiveCellOptions();

}  // namespace schedk::io
