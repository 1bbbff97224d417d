// ge_accounting.hpp
// Grid Engine's accounting file (accounting(5)): one colon-separated record
// per finished job task, as qmaster appends it ($SGE_ROOT/$SGE_CELL/common/
// accounting). Read two ways:
//   - as share-tree usage: each task's cpu, mem and io, added at its end time
//     and decayed to `now` with the scheduler's halftime as Grid Engine
//     decays usage (halved every `halftime` hours; 0: kept undecayed), summed
//     into the snapshot's `usage` records for the owner, the owner within the
//     job's project, and the project;
//   - as a replay trace for `schedk simulate`: each task that ran becomes an
//     SWF job (submit, wait, run time, slots, requested time from the job's
//     `-l h_rt` where the record's category holds it).
// Invariants: records of Son of Grid Engine 8.1 (45 fields, seconds) and of
// Univa 8.2 (52 fields, milliseconds, `# Version: 8.2` header) both read;
// anything else is an error naming the line. Tasks that never started
// (start time 0) carry no usage and are no replay jobs.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "io/status.hpp"
#include "io/swf_reader.hpp"
#include "kernel/types.hpp"

namespace schedk::io {

struct AccountingRecord {
  int line = 0;
  std::string queue, host, group, owner, job_name, project;  // project empty for NONE
  std::uint64_t job = 0;
  std::uint32_t task = 0, slots = 1;
  Time submit = 0, start = 0, end = 0;  // seconds
  int failed = 0;
  double cpu = 0, mem = 0, io = 0;
  Duration h_rt = -1;  // from the category's -l h_rt=, -1 when not there
};

Result<std::vector<AccountingRecord>> ReadAccounting(std::string_view text, const std::string& source);

// The usage records (`usage user|project ...` lines, snapshot syntax) of the
// tasks that ended at or before `now`, decayed to `now`.
std::string AccountingUsageRecords(const std::vector<AccountingRecord>& records, Time now, double halftime_hours);

// The tasks that ran, as an SWF trace whose MaxProcs is the most slots the
// cell had in use at once.
SwfTrace AccountingAsSwf(const std::vector<AccountingRecord>& records, const std::string& source);

}  // namespace schedk::io
