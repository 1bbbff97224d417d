// snapshot_reader.hpp
// Reads a schedk snapshot (docs/protocol.md §1): the header, comments, `\`
// continuations, object blocks, and the records now/load/usage/job. Blocks and
// records may come in any order. The structure is read in segments of lines
// scanned in parallel, then one walk in file order over the lines that are not
// job records (so errors name the first bad line); it sets aside runs of job
// lines, which are parsed in parallel afterwards (job_reader.hpp). The result
// is complete or an error: never half-loaded.
#pragma once

#include <string>
#include <string_view>

#include "io/cluster_builder.hpp"
#include "io/file_text.hpp"
#include "io/job_reader.hpp"
#include "io/snapshot.hpp"
#include "io/status.hpp"
#include "io/tuning.hpp"
#include "kernel/twin.hpp"

namespace schedk::io {

// A snapshot read up to its jobs: the cluster built from the blocks with the
// load and hoststate records applied, the job lines set aside (views into the
// text), and the usage records (applied once the job owners are known).
struct SnapshotParts {
  Snapshot snapshot;
  std::vector<JobChunk> job_chunks;
  std::vector<UsageLine> usage;
  std::vector<LoadLine> loads;              // as read (already applied)
  std::vector<HostStateLine> host_states;  // as read (already applied)
};
// Twin::kReference reads the structure line by line on one thread, its runs of
// job lines cut every tuning::kLinesPerChunk lines; the default cuts them
// where a segment of about `segment_bytes` begins instead. Apart from the
// cuts, the two give the same parts, or the same error.
Result<SnapshotParts> ReadSnapshotParts(std::string_view text, const std::string& source, Twin twin = Twin::kOptimised,
                                        std::size_t segment_bytes = tuning::kScanSegmentBytes);

// Reads the attribute lines of one object block (what comes between its
// begin and end lines), checking the kind and its name as a snapshot does.
Result<ObjectBlock> ReadObjectBlock(const std::string& kind, const std::string& name, std::string_view body,
                                    const std::string& source);

// Adds parsed job rows to a snapshot built by ReadSnapshotParts (or a copy of
// one), marks the pending tasks beyond the array task limit (rows cut in two
// keep their line), then adds the users they name, the usage records and the
// share tree.
Status CompleteSnapshot(Snapshot& snapshot, const std::vector<JobSource>& jobs, const std::vector<UsageLine>& usage,
                        bool check_rows, RequestCache* cache = nullptr);

// Parses snapshot text; `source` names it in messages ("-" reads as "<stdin>").
// ReadSnapshotParts, ParseJobChunks, then CompleteSnapshot with every check.
Result<Snapshot> ReadSnapshot(std::string_view text, const std::string& source);

// Reads a file, or standard input for "-".
Result<Snapshot> ReadSnapshotFile(const std::string& path);

}  // namespace schedk::io
