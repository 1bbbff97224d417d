// tuning.hpp
// The io library's tunables and input limits, in one place: constants that
// change how the work is cut or bounded (how many lines or rows one parallel
// task takes, how much text is held before it is handed on, how large an input
// may grow before it is refused), never a result. Each says why it has its
// value. Facts of a format stay with the code that reads or writes it: a file
// format's field counts, hex digit tables, Grid Engine's own fixed values
// such as 9999999 for an open slot range.
#pragma once

#include <cstddef>
#include <cstdint>

namespace schedk::io::tuning {

// --- reading snapshots ---------------------------------------------------------------------------

// Bytes of snapshot text one task scans for its structure; a run of job lines
// is cut into a chunk of its own where a segment begins, so this is also the
// most text one task parses: about 8,000 generated job lines, enough that a
// chunk outweighs its task and its own name space.
inline constexpr std::size_t kScanSegmentBytes = std::size_t{1} << 20;
// Lines per chunk of the structure's reference scan (ReadSnapshotParts' twin).
inline constexpr int kLinesPerChunk = 8192;
// Request combinations one task parses (a snapshot of 1M generated jobs has about 100,000).
inline constexpr std::uint32_t kRequestKeysPerTask = 512;
// Bytes of a file one task reads (ReadFileText): a 100 MB snapshot
// gives every core of a 64-core host a stretch, and each pread call is long.
inline constexpr std::size_t kFileReadStretchBytes = std::size_t{1} << 21;
// Tasks one job line may name: every task becomes an output row, so this bounds
// what one line can make the passes do (Grid Engine's max_aj_tasks defaults to 75,000).
inline constexpr std::uint64_t kMaxTasksPerLine = 10000000;

// --- writing results -----------------------------------------------------------------------------

// Rows per block of WriteRowBlocks (row_text.hpp): one task formats a block.
// The Maui table's footer adds per-block sums in block order, so its figures
// do not depend on the thread count (a new block size may move a last digit).
inline constexpr std::size_t kRowBlockSize = 4096;
// Rows ahead of the one being formatted whose scattered columns the priority
// writer asks the caches for (PriorityResult::PrefetchValues).
inline constexpr std::size_t kRowsPrefetchedAhead = 8;
// Row blocks formatted before they go to the sink: about 45 MB of table text held at once.
inline constexpr std::size_t kRowBlocksPerBatch = 64;
// Monitor lines or decisions per block of the schedule writer, one block per task.
inline constexpr std::size_t kScheduleItemsPerBlock = 2048;
// Schedule blocks formatted before they go to the sink: bounds the text held at once.
inline constexpr std::size_t kScheduleBlocksPerBatch = 64;
// Pending-reason texts a schedule block keeps for reuse: most pending tasks share a few reasons.
inline constexpr std::size_t kKeptPendingTails = 16;
// Points per panel of a replay's plot (simulation_plot.hpp): the SVG stays
// small for any trace; the replay's figures do not depend on it.
inline constexpr std::size_t kPlotPoints = 2000;

// --- generating snapshots ------------------------------------------------------------------------

// Generated text is handed to the sink in pieces of about this size, so ten
// million jobs never sit in memory; the bytes written do not depend on it.
inline constexpr std::size_t kGeneratorFlushBytes = std::size_t{1} << 20;
// The most hosts, slots per host, users, projects or departments a spec may ask for.
inline constexpr std::uint64_t kMaxGeneratorCount = 1000000;
// The most quota sets `schedk generate` writes (every set applies to every job).
inline constexpr std::uint32_t kMaxGeneratorQuotaSets = 1000;
// The most jobs (running tasks and pending jobs together) a spec may ask for:
// each gets its own job number, and job numbers are 32-bit.
inline constexpr std::uint64_t kMaxGeneratorJobs = 1000000000;

// --- reading gzip traces -------------------------------------------------------------------------

// The longest line inflated data may hold: no trace line comes near it, and
// a longer one means the data is not a text trace.
inline constexpr std::size_t kMaxTraceLineBytes = std::size_t{1} << 20;
// Inflated text below this size is never taken for a decompression bomb, so
// small traces that compress very well are read.
inline constexpr std::size_t kBombFloorBytes = std::size_t{64} << 20;
// Past kBombFloorBytes, inflated text may be at most this many times the
// compressed size: no real trace reaches it, and a decompression bomb always does.
inline constexpr std::size_t kMaxInflateRatio = 200;

// --- importing a live cell -----------------------------------------------------------------------

// A Grid Engine command's output, or a capture of it, beyond this is refused
// rather than held in memory (the refusal says 1 GiB).
inline constexpr std::size_t kMaxCommandOutputBytes = std::size_t{1} << 30;
// Reads of a live cell's clock and jobs: a scheduler run that ends between
// two reads may have started jobs, so they are read again, up to this many
// times; then the import goes on with a note.
inline constexpr int kLiveAttempts = 3;

}  // namespace schedk::io::tuning
