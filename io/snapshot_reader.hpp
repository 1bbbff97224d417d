// snapshot_reader.hpp
// Reads a schedk snapshot (protocol.md §1): the header, comments, `\`
// continuations, object blocks, and the records now/load/usage/job. Blocks and
// records may come in any order. The structure is read in one sequential pass
// that sets aside runs of job lines; those are parsed in parallel afterwards
// (job_reader.hpp). The result is complete or an error: never half-loaded.
#pragma once

#include <string>
#include <string_view>

#include "io/snapshot.hpp"
#include "io/status.hpp"

namespace schedk::io {

// Parses snapshot text; `source` names it in messages ("-" reads as "<stdin>").
Result<Snapshot> ReadSnapshot(std::string_view text, const std::string& source);

// Reads a file, or standard input for "-".
Result<Snapshot> ReadSnapshotFile(const std::string& path);

// Reads a whole file (or standard input for "-") into memory.
Result<std::string> ReadWholeFile(const std::string& path);

}  // namespace schedk::io
