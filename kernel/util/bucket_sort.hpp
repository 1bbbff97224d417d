// bucket_sort.hpp
// Sorting records by an integer key whose values spread over their range:
// the integer images of doubles (sort_key.hpp) in the share tree's ranking,
// and the dispatch order's 128-bit task keys.
// - BucketSortByKey: the range [min, max] of the keys is cut into about one
//   bucket per record, the records are placed by bucket in one stable pass,
//   and each bucket is then sorted on its own: by insertion when small, by the
//   same bucketing over its own range when large. A bucket whose keys are all
//   equal is ordered by `less` (std::sort). Each bucketing narrows the range
//   by the bucket count, so the recursion ends after at most
//   bits(key) / log2(buckets) levels, whatever the distribution.
// - ParallelSortByKey: the same order, computed in parallel and handed over
//   in runs (a sample sort whose buckets are sorted by BucketSortByKey).
// - InsertionSortWithin: an insertion sort that gives up past a budget of
//   moves, for ranges in order but for a few records.
// Contract: `less` is a strict weak order that orders by key(x), an unsigned
// 64-bit or 128-bit integer, ascending first. BucketSortByKey's result is a
// sorted permutation, exactly std::sort's when `less` is a total order, and so
// is ParallelSortByKey's, whatever the thread count.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "kernel/util/chunk_starts.hpp"
#include "kernel/util/column.hpp"

namespace schedk {
namespace bucket_sort {

inline constexpr std::size_t kInsertionSort = 16;
inline constexpr int kMaxBucketBits = 16;     // BucketSortByKey: at most 64K buckets
inline constexpr int kSampleBucketBits = 12;  // ParallelSortByKey: 4096 buckets
inline constexpr std::size_t kSamplePieces = 16;  // ParallelSortByKey: its records in 16 allocations
inline constexpr std::size_t kParallelRecords = std::size_t{1} << 16;

// Insertion sort that gives up after `max_moves` moves, for ranges that are
// nearly in order: returns whether [first, last) is sorted. Given up, the
// range is a permutation of what it held, partly sorted.
template <class T, class Less>
bool InsertionSortWithin(T* first, T* last, Less less, std::size_t max_moves) {
  if (last - first < 2) return true;
  std::size_t moves = 0;
  for (T* i = first + 1; i < last; ++i) {
    T value = *i;
    T* j = i;
    for (; j != first && less(value, j[-1]); --j) *j = j[-1];
    *j = value;
    moves += static_cast<std::size_t>(i - j);
    if (moves > max_moves) return false;
  }
  return true;
}

// Insertion sort without a budget (the count of moves is compiled away).
template <class T, class Less>
void InsertionSort(T* first, T* last, Less less) {
  InsertionSortWithin(first, last, less, SIZE_MAX);
}

// The bits needed to write v: an unsigned 64-bit or 128-bit key.
template <class K>
int BitWidth(K v) {
  if constexpr (sizeof(K) > sizeof(std::uint64_t)) {
    const auto high = static_cast<std::uint64_t>(v >> 64);
    return high != 0 ? 64 + static_cast<int>(std::bit_width(high))
                     : static_cast<int>(std::bit_width(static_cast<std::uint64_t>(v)));
  } else {
    return static_cast<int>(std::bit_width(v));
  }
}

// Keys in [min, max] cut into count() buckets of 2^shift consecutive keys,
// count() <= 2^bits.
template <class K>
class Buckets {
 public:
  Buckets(K min, K max, int bits) : min_(min) {
    const int width = BitWidth(static_cast<K>(max - min));
    shift_ = width > bits ? width - bits : 0;
    count_ = static_cast<std::size_t>(static_cast<K>(max - min) >> shift_) + 1;
  }
  std::size_t count() const { return count_; }
  std::size_t of(K key) const { return static_cast<std::size_t>(static_cast<K>(key - min_) >> shift_); }

 private:
  K min_;
  int shift_;
  std::size_t count_;
};

}  // namespace bucket_sort

// Sorts [first, last) into the order of `less`; `scratch` has room for
// last - first records.
template <class T, class Key, class Less>
void BucketSortByKey(T* first, T* last, T* scratch, Key key, Less less) {
  using namespace bucket_sort;
  const std::size_t n = static_cast<std::size_t>(last - first);
  if (n <= kInsertionSort) return InsertionSort(first, last, less);
  using K = decltype(key(*first));
  K min = key(*first), max = min;
  for (const T* p = first; p != last; ++p) {
    min = std::min(min, key(*p));
    max = std::max(max, key(*p));
  }
  if (min == max) return std::sort(first, last, less);
  const Buckets<K> buckets(min, max, std::min(static_cast<int>(std::bit_width(n - 1)), kMaxBucketBits));
  std::vector<std::uint32_t> start(buckets.count() + 1, 0);
  for (const T* p = first; p != last; ++p) ++start[buckets.of(key(*p)) + 1];
  for (std::size_t b = 1; b < start.size(); ++b) start[b] += start[b - 1];
  // Records go from the scratch copy to their buckets; start[b] then ends bucket b.
  std::copy(first, last, scratch);
  for (const T* p = scratch; p != scratch + n; ++p) first[start[buckets.of(key(*p))]++] = *p;
  std::uint32_t begin = 0;
  for (std::size_t b = 0; b < buckets.count(); ++b) {
    const std::uint32_t end = start[b];
    if (end - begin > kInsertionSort) {
      BucketSortByKey(first + begin, first + end, scratch + begin, key, less);
    } else if (end - begin > 1) {
      InsertionSort(first + begin, first + end, less);
    }
    begin = end;
  }
}

// Sorts records[0, n) in the order of `less` and hands the result over in
// runs: done(first, count, rank) for each run of `count` sorted records, the
// records of ranks [rank, rank + count), once each run is final (on the thread
// that sorted it, while it is in cache); the runs cover every rank once. A
// sample sort: splitters taken from a sorted sample cut the records into
// 2^kSampleBucketBits buckets of about equal size whatever the keys'
// distribution (a search tree classifies the records eight at a time, without
// branches), the records are moved to their buckets in parallel chunks, and
// each bucket is sorted where it lies (BucketSortByKey). Equivalent records
// share a bucket, which is sorted on one thread. The result does not depend on
// the thread count. The moved records are held in kSamplePieces pieces of
// consecutive buckets, each allocated on its own, so that an allocator that
// keeps freed pages finds room for them among what earlier steps freed; they
// and 2 bytes per record are freed on return.
// REQUIRES: n < 2^32.
template <class T, class Key, class Less, class Done>
void ParallelSortByKey(const T* records, std::size_t n, Key key, Less less, Done done) {
  using namespace bucket_sort;
  if (n < kParallelRecords) {
    std::vector<T> sorted(records, records + n), scratch(n);
    BucketSortByKey(sorted.data(), sorted.data() + n, scratch.data(), key, less);
    if (n > 0) done(static_cast<const T*>(sorted.data()), n, std::size_t{0});
    return;
  }
  // Splitters: every kOversampling-th record of an evenly spaced sample, as an
  // implicit search tree (node j's children are 2j and 2j + 1).
  constexpr std::size_t kBuckets = std::size_t{1} << kSampleBucketBits;
  static_assert(kBuckets <= std::size_t{1} << 16, "bucket numbers are 16-bit");
  constexpr std::size_t kOversampling = 4;
  std::vector<T> sample(kBuckets * kOversampling), sample_scratch(sample.size());
  for (std::size_t k = 0; k < sample.size(); ++k) sample[k] = records[(2 * k + 1) * n / (2 * sample.size())];
  BucketSortByKey(sample.data(), sample.data() + sample.size(), sample_scratch.data(), key, less);
  std::vector<T> tree(kBuckets);
  {
    std::size_t next = 0;
    auto fill = [&](auto&& self, std::size_t j) -> void {
      if (j >= kBuckets) return;
      self(self, 2 * j);
      tree[j] = sample[(++next) * kOversampling - 1];
      self(self, 2 * j + 1);
    };
    fill(fill, 1);
  }
  // Descends the tree for kWays records at once, so that their searches overlap.
  auto classify = [&]<std::size_t kWays>(const T* group, std::uint16_t* buckets) {
    std::size_t j[kWays];
    std::fill(j, j + kWays, std::size_t{1});
    for (int level = 0; level < kSampleBucketBits; ++level) {
      for (std::size_t k = 0; k < kWays; ++k) j[k] = 2 * j[k] + less(tree[j[k]], group[k]);
    }
    for (std::size_t k = 0; k < kWays; ++k) buckets[k] = static_cast<std::uint16_t>(j[k] - kBuckets);
  };
  // Fixed chunks, so that the placement does not depend on the thread count.
  constexpr std::size_t kChunks = 16;
  auto chunk_begin = [&](std::size_t c) { return n * c / kChunks; };
  Column<std::uint16_t> bucket(n);  // every record's, written by its chunk
  std::vector<std::vector<std::uint32_t>> at(kChunks, std::vector<std::uint32_t>(kBuckets, 0));
  tbb::parallel_for(std::size_t{0}, kChunks, [&](std::size_t c) {
    constexpr std::size_t kWays = 8;
    std::size_t i = chunk_begin(c);
    for (; i + kWays <= chunk_begin(c + 1); i += kWays) classify.template operator()<kWays>(records + i, &bucket[i]);
    for (; i < chunk_begin(c + 1); ++i) classify.template operator()<1>(records + i, &bucket[i]);
    for (i = chunk_begin(c); i < chunk_begin(c + 1); ++i) ++at[c][bucket[i]];
  });
  // start[b]: bucket b's first rank; each chunk's next place in its bucket then.
  const std::vector<std::uint32_t> start =
      StableChunkStarts(kChunks, kBuckets, [&](std::size_t c) -> std::vector<std::uint32_t>& { return at[c]; });
  static_assert(kBuckets % kSamplePieces == 0, "every piece holds as many buckets");
  constexpr std::size_t kBucketsPerPiece = kBuckets / kSamplePieces;
  auto piece_start = [&](std::size_t b) { return start[b / kBucketsPerPiece * kBucketsPerPiece]; };
  std::vector<Column<T>> pieces(kSamplePieces);  // every moved record is written once
  for (std::size_t p = 0; p < kSamplePieces; ++p) {
    pieces[p].resize(start[(p + 1) * kBucketsPerPiece] - start[p * kBucketsPerPiece]);
  }
  tbb::parallel_for(std::size_t{0}, kChunks, [&](std::size_t c) {
    std::vector<std::uint32_t>& next = at[c];
    for (std::size_t b = 0; b < kBuckets; ++b) next[b] -= piece_start(b);  // counted from the bucket's piece
    for (std::size_t i = chunk_begin(c); i < chunk_begin(c + 1); ++i) {
      const std::size_t b = bucket[i];
      pieces[b / kBucketsPerPiece][next[b]++] = records[i];
    }
  });
  Column<std::uint16_t>().swap(bucket);
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, kBuckets, 16), [&](const auto& r) {
    std::vector<T> scratch;
    for (std::size_t b = r.begin(); b != r.end(); ++b) {
      const std::size_t count = start[b + 1] - start[b];
      if (count == 0) continue;
      T* const first = pieces[b / kBucketsPerPiece].data() + (start[b] - piece_start(b));
      scratch.resize(count);
      BucketSortByKey(first, first + count, scratch.data(), key, less);
      done(static_cast<const T*>(first), count, std::size_t{start[b]});
    }
  });
}

}  // namespace schedk
