// job_reader.hpp
// Reads the `job` records of a snapshot (protocol.md §1.2) into the kernel's
// sharded JobTable. Job lines are independent, so chunks of them are parsed in
// parallel, each with its own local name tables; the distinct names and
// request combinations are then merged (sequentially, they are few), and the
// rows are scattered into their shards in parallel. Errors carry file:line and
// the key; when several chunks fail, the earliest line is reported, so the
// message does not depend on the thread count. Nothing is added to the
// snapshot unless every job line is valid.
#pragma once

#include <string_view>
#include <vector>

#include "io/cluster_builder.hpp"
#include "io/snapshot.hpp"
#include "io/status.hpp"

namespace schedk::io {

// A run of consecutive job lines (comments and blank lines may be mixed in).
struct JobChunk {
  std::string_view text;
  int first_line = 0;
};

Status ReadJobs(const std::vector<JobChunk>& chunks, const ClusterBuilder& builder, Snapshot& snapshot);

}  // namespace schedk::io
