// swf_reader.hpp
// The Parallel Workloads Archive's Standard Workload Format: `;` header
// comments (MaxProcs, MaxNodes, UnixStartTime, ...) and one job per line in 18
// whitespace-separated fields, -1 meaning unknown. Plain or gzip-compressed
// input (detected from the content). Malformed lines are errors with
// file:line, or, leniently, skipped and counted. PwaFilter is the cleaning of
// docs/replay.md, The archive filter (the SC'15 / pyss preprocessing).
// Invariants: jobs keep their file order; every kept job has 18 fields.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/status.hpp"

namespace schedk::io {

// SWF fields, 1-based in the format's documentation.
enum SwfField : int {
  kSwfJob = 0, kSwfSubmit, kSwfWait, kSwfRunTime, kSwfAllocatedProcs, kSwfAverageCpu, kSwfUsedMemory,
  kSwfRequestedProcs, kSwfRequestedTime, kSwfRequestedMemory, kSwfStatus, kSwfUser, kSwfGroup, kSwfExecutable,
  kSwfQueue, kSwfPartition, kSwfPrecedingJob, kSwfThinkTime,
};
inline constexpr int kSwfFields = 18;

struct SwfJob {
  std::array<double, kSwfFields> field{};  // as read; -1 unknown
  int line = 0;
  long long get(SwfField f) const { return static_cast<long long>(field[f]); }
};

struct SwfTrace {
  std::string source;
  std::vector<std::string> header;  // the `;` lines, without the `;`
  std::optional<long long> max_procs, max_nodes, unix_start_time;
  std::vector<SwfJob> jobs;
  std::size_t skipped = 0;  // malformed lines left out (lenient reading only)
};

struct SwfReadOptions {
  bool lenient = false;  // skip and count malformed lines instead of failing
};

Result<SwfTrace> ReadSwf(std::string_view text, const std::string& source, const SwfReadOptions& options = {});

// Reads a file (or "-" for standard input), gunzipping it when it starts with
// gzip's magic bytes.
Result<SwfTrace> ReadSwfFile(const std::string& path, const SwfReadOptions& options = {});

// Decompresses gzip data (one or more members).
Result<std::string> Gunzip(std::string_view data, const std::string& source);

// docs/replay.md, The archive filter: drop jobs with allocated or requested processors above
// MaxProcs; if one processor field is <= 0 copy the other, if both are, drop;
// drop runtime <= 0, requested time <= 0 and submit < 0; cap the runtime at
// the requested time. Returns how many jobs it dropped.
std::size_t PwaFilter(SwfTrace& trace);

}  // namespace schedk::io
