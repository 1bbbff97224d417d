// sorts.hpp
// The kernel's sorts, and which to use when. Every one of them is
// deterministic: the same input gives the same order at any thread count.
// - std::sort / std::stable_sort: small or occasional sorts (a host's queue
//   instances, a job's grants, a few thousand full queue instances) and any
//   order given by a comparison alone; std::stable_sort where equal keys must
//   keep their order (Grid Engine's list sorts are stable).
// - RadixSort64 (radix_sort.hpp): many plain 64-bit keys with no payload
//   (the candidate times and events of the queue-end-time walk).
// - BucketSortByKey, ParallelSortByKey (bucket_sort.hpp): many records by an
//   unsigned 64- or 128-bit key spread over its range, with a comparison for
//   equal keys (the dispatch order's task keys, the share tree's ranking);
//   doubles become keys through sort_key.hpp's order-preserving images.
//   ParallelSortByKey above kParallelRecords records.
// - InsertionSortWithin (bucket_sort.hpp): a range that is in order but for a
//   few records; it gives up past a budget of moves.
// - StableChunkStarts (chunk_starts.hpp): the placing step of a stable counting
//   sort by a small bucket number, done by chunks in parallel (ticket
//   categories, the share tree's node buckets).
// - LazyMaxHeap (lazy_max_heap.hpp): not a sort but a greedy order: the best
//   entry, again and again, where keys only ever fall.
#pragma once

#include "kernel/util/bucket_sort.hpp"
#include "kernel/util/chunk_starts.hpp"
#include "kernel/util/lazy_max_heap.hpp"
#include "kernel/util/radix_sort.hpp"
#include "kernel/util/sort_key.hpp"
