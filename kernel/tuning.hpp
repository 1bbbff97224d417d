// tuning.hpp
// The kernel's tuning constants, in one place: how parallel passes cut their
// work, how far ahead they fetch from memory, and where one method gives way
// to another. None changes a result, only how the work is done (the tests hold
// every output to its reference twin and to one thread). Each says why it has its
// value; measured figures live in docs/performance.md, not here.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernel/types.hpp"

namespace schedk::tuning {

// --- the priority pass ---------------------------------------------------------------------------

// Pending rows per task when pending jobs are gathered: enough rows that a task
// outweighs its scheduling, cut only at job boundaries.
inline constexpr std::size_t kPendingJobChunkRows = 16384;
// Jobs per chunk when array tasks are numbered: a chunk's counts stay in cache.
inline constexpr std::size_t kTaskNumberChunkJobs = 65536;
// Jobs ahead whose dispatch-order slots are fetched while entries are placed:
// the slots lie all over the order.
inline constexpr std::size_t kOrderPrefetchJobs = 16;
// A greedy ticket round re-keys its stale category heads (LazyMaxHeap::TopBatched)
// on one thread below this many (a parallel loop costs more than it spares),
// else in chunks of kRekeyGrain: a head's estimate takes about 0.1 us.
inline constexpr std::size_t kRekeyBatchSerialBelow = 256;
inline constexpr std::size_t kRekeyGrain = 128;
// Groups of job shards whose running tasks' slots FreeQueueSlots sums on a
// core each: one per core of a 16-core master; each holds a count per open
// queue instance.
inline constexpr std::size_t kFreeSlotGroups = 16;
// Refs per chunk when the share tree counts active jobs per node, and when
// pending refs are bucketed by node: per-chunk node tables stay a small share
// of the refs' memory.
inline constexpr std::size_t kShareCountChunkRefs = std::size_t{1} << 18;
inline constexpr std::size_t kShareLayoutChunkRefs = std::size_t{1} << 17;
// A share-tree leaf with at most this many descents is sorted by insertion,
// within this many moves per task; most leaves arrive in ref order.
inline constexpr std::size_t kLeafFewDescents = 16;
inline constexpr std::size_t kLeafMovesPerTask = 8;
// Pending tasks below a share-tree node for its subtree to get its own task.
inline constexpr std::uint32_t kShareSubtreeMinTasks = 2048;
// A chunk keeps its category members listed while they are at most 1/8 of its
// refs: most tasks of a large pass carry no override tickets.
inline constexpr std::size_t kCategoryListedShare = 8;

// --- the scheduling interval ---------------------------------------------------------------------

// Dispatchable tasks per chunk when their rows are gathered before the loop.
inline constexpr std::size_t kTaskRowChunk = 4096;
// Running tasks per chunk when their bookings are listed before the loop.
inline constexpr std::size_t kRunningTasksPerChunk = 1024;
// Decisions between two progress reports to a listener.
inline constexpr std::size_t kProgressEvery = 4096;
// h_rt or s_rt with at most this many distinct queue limits is matched by its
// matches against them (a walk plan's key stays short).
inline constexpr std::size_t kFewBuiltinLimits = 16;
// Debits of one booking below this many go in one after another: sharing them
// out costs more than it saves.
inline constexpr std::size_t kDebitAllParallelFrom = 32;
// Hosts per block when a walk plan is built and when its host coverage is
// worked out: each block's tables are built by one task, then joined in order.
inline constexpr std::uint32_t kPlanHostsPerBlock = 256;
// A room walked host by host (Interval::WalkHostsAt): the hosts taken
// one by one before the rest come in blocks probed in parallel (most walks end
// among the first), the first block's size, doubled up to the largest, and
// hosts per probing task. A block read past the walk's end is work lost.
inline constexpr std::size_t kRoomHostsOneByOne = 256;
inline constexpr std::size_t kRoomHostsFirstBlock = 256;
inline constexpr std::size_t kRoomHostsLargestBlock = 2048;
inline constexpr std::size_t kRoomHostsPerProbeTask = 64;
// Walk plans kept per interval: each is a table over the hosts, so past this
// many distinct keys all are dropped at once.
inline constexpr std::size_t kKeptWalkPlans = 64;
// Request keys whose room-now findings are kept per host (HostRoomCache):
// each is a table over the hosts and their instances.
inline constexpr std::size_t kKeptHostRoomTables = 64;
// Hosts (or queue instances) per block where a reservation search's host
// order is filtered in parallel (Interval::ReservationHostOrder).
inline constexpr std::size_t kHostsPerOrderBlock = 1024;
// Ledger entries per task where a step reads the diagrams of many entries:
// FlatDiagrams finding and copying the stale ones of a walk, the ledger
// listing the postings of its breakpoint index, a running book's ledger copied.
inline constexpr std::size_t kLedgerEntriesPerTask = 256;
// Parallel walks before the ledger builds its breakpoint index: building one
// costs about as much as the searches of a few walks save.
inline constexpr std::uint32_t kWalksBeforeIndex = 4;
// Below the monotone region, stretches at most this long are listed and swept
// exactly; longer ones are halved.
inline constexpr Duration kSweptExactly = 1024;
// Halvings a walk makes before it drops empty stretches without a lower-bound
// test (without the index; a usual walk needs a few dozen).
inline constexpr std::size_t kHalvingsBeforeEmptyCheck = 64;
// Events whose counts a sweep works out in parallel, ahead of reading them.
inline constexpr std::size_t kSweepEventsAhead = 2048;

// --- replay --------------------------------------------------------------------------------------

// Passes with fewer rows are ranked on one thread: spreading them costs more.
inline constexpr std::size_t kReplayParallelFromRows = 4096;

}  // namespace schedk::tuning
