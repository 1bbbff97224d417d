// row_text.hpp
// Helpers shared by the writers that print one row per job task: printf-style
// appending, qstat's state letters, and formatting rows in parallel blocks that
// are handed to a sink in order, so the text held at once stays bounded
// however many rows there are (the schedule writer's blocks too).
#pragma once

#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <tbb/parallel_for.h>

#include "io/tuning.hpp"
#include "kernel/model/job_table.hpp"
#include "kernel/priority/urgency.hpp"

namespace schedk::io {

// snprintf into `out`, growing past the stack buffer when names are long.
template <class... Args>
void AppendFormat(std::string& out, const char* format, Args... args) {
  char buffer[512];
  const int n = std::snprintf(buffer, sizeof buffer, format, args...);
  if (n < 0) return;
  if (static_cast<std::size_t>(n) < sizeof buffer) {
    out.append(buffer, static_cast<std::size_t>(n));
    return;
  }
  std::string big(static_cast<std::size_t>(n) + 1, '\0');
  std::snprintf(big.data(), big.size(), format, args...);
  out.append(big.data(), static_cast<std::size_t>(n));
}

// qstat's state letters for a row in its role: a pending row waiting for a
// predecessor shows hqw; one beyond the array task limit stays qw.
inline const char* QstatState(JobState state, std::uint8_t flags, RowRole role) {
  switch (state) {
    case JobState::kPending:
      return role == RowRole::kInactive && (flags & kJobBeyondTaskLimit) == 0 ? "hqw" : "qw";
    case JobState::kHeld: return "hqw";
    case JobState::kRunning: return "r";
    case JobState::kSuspended: return "s";
    case JobState::kError: return "Eqw";
  }
  return "qw";
}

// Formats blocks [0, blocks) with format_block(b, out) (out arrives empty),
// in parallel a batch of `per_batch` blocks at a time, and hands each block's
// non-empty text to `sink` in block order, so the text held at once is one
// batch's. Returns false as soon as the sink does.
inline bool WriteBlocks(std::size_t blocks, std::size_t per_batch,
                        const std::function<void(std::size_t, std::string&)>& format_block,
                        const std::function<bool(std::string_view)>& sink) {
  std::vector<std::string> text(std::min(blocks, per_batch));
  for (std::size_t first = 0; first < blocks; first += per_batch) {
    const std::size_t count = std::min(per_batch, blocks - first);
    tbb::parallel_for(std::size_t{0}, count, [&](std::size_t k) {
      text[k].clear();
      format_block(first + k, text[k]);
    });
    for (std::size_t k = 0; k < count; ++k) {
      if (!text[k].empty() && !sink(text[k])) return false;
    }
  }
  return true;
}

// Calls format_row(i, out) for rows [0, rows) in blocks formatted in parallel
// (rows [b * tuning::kRowBlockSize, (b + 1) * tuning::kRowBlockSize) by one
// task, in order) and hands each block's text to `sink` in order (WriteBlocks);
// returns false as soon as the sink does.
inline bool WriteRowBlocks(std::size_t rows, std::size_t bytes_per_row,
                           const std::function<void(std::size_t, std::string&)>& format_row,
                           const std::function<bool(std::string_view)>& sink) {
  constexpr std::size_t kRowsPerBlock = tuning::kRowBlockSize;
  const std::size_t blocks = (rows + kRowsPerBlock - 1) / kRowsPerBlock;
  auto format_block = [&](std::size_t b, std::string& out) {
    out.reserve(kRowsPerBlock * bytes_per_row);
    const std::size_t end = std::min(rows, (b + 1) * kRowsPerBlock);
    for (std::size_t i = b * kRowsPerBlock; i < end; ++i) format_row(i, out);
  };
  return WriteBlocks(blocks, tuning::kRowBlocksPerBatch, format_block, sink);
}

}  // namespace schedk::io
