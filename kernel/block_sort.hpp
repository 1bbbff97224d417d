// block_sort.hpp
// A quicksort whose partitioning does not branch on comparisons (the block
// partitioning of Edelkamp and Weiss's BlockQuicksort), and its parallel
// driver. For keys in random order, such as the dispatch order's 128-bit task
// keys, half of std::sort's partitioning branches are mispredicted; here a
// block of comparisons only records offsets, and the swaps follow them.
// Contract: `less` is a strict weak order that does not branch itself (for the
// speed, not the result). The result is a sorted permutation; when `less` is
// a total order it is exactly std::sort's result, whatever the thread count.
// Bad pivots are bounded: past 2 log2(n) levels a range goes to std::sort.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <utility>

#include <tbb/parallel_invoke.h>

namespace schedk {
namespace block_sort {

inline constexpr std::ptrdiff_t kBlock = 64;
inline constexpr std::ptrdiff_t kInsertionSort = 24;

// Puts the elements x with less(x, pivot) first and returns the end of them.
// Blocks of kBlock elements are classified from both ends without branching
// on the outcome; misplaced pairs are swapped; the rest is std::partition.
template <class T, class Less>
T* Partition(T* first, T* last, const T& pivot, Less less) {
  std::uint8_t left_offsets[kBlock], right_offsets[kBlock];
  std::ptrdiff_t left_count = 0, right_count = 0, left_start = 0, right_start = 0;
  T* left = first;  // [left, right) is not yet known to be in place
  T* right = last;
  while (right - left > 2 * kBlock) {
    if (left_count == 0) {
      left_start = 0;
      for (std::ptrdiff_t i = 0; i < kBlock; ++i) {
        left_offsets[left_count] = static_cast<std::uint8_t>(i);
        left_count += !less(left[i], pivot);  // belongs to the right
      }
    }
    if (right_count == 0) {
      right_start = 0;
      for (std::ptrdiff_t i = 0; i < kBlock; ++i) {
        right_offsets[right_count] = static_cast<std::uint8_t>(i);
        right_count += less(*(right - 1 - i), pivot);  // belongs to the left
      }
    }
    const std::ptrdiff_t swaps = std::min(left_count, right_count);
    for (std::ptrdiff_t k = 0; k < swaps; ++k) {
      std::swap(left[left_offsets[left_start + k]], *(right - 1 - right_offsets[right_start + k]));
    }
    left_count -= swaps;
    right_count -= swaps;
    left_start += swaps;
    right_start += swaps;
    if (left_count == 0) left += kBlock;  // the whole block is in place
    if (right_count == 0) right -= kBlock;
  }
  // What is left, including a block whose misplaced elements were not all
  // swapped, is partitioned afresh: its other elements are in place already.
  return std::partition(left, right, [&](const T& x) { return less(x, pivot); });
}

template <class T, class Less>
void InsertionSort(T* first, T* last, Less less) {
  for (T* i = first + 1; i < last; ++i) {
    T moving = *i;
    T* j = i;
    for (; j > first && less(moving, *(j - 1)); --j) *j = *(j - 1);
    *j = moving;
  }
}

// The median of nine elements spread over the range (a copy).
template <class T, class Less>
T Pivot(const T* first, const T* last, Less less) {
  const std::ptrdiff_t n = last - first;
  T sample[9];
  for (std::ptrdiff_t k = 0; k < 9; ++k) sample[k] = first[(n - 1) * k / 8];
  InsertionSort(sample, sample + 9, less);
  return sample[4];
}

template <class T, class Less>
void Sort(T* first, T* last, Less less, int depth) {
  while (last - first > kInsertionSort) {
    if (depth-- == 0) {
      std::sort(first, last, less);
      return;
    }
    const T pivot = Pivot(first, last, less);
    T* mid = Partition(first, last, pivot, less);
    if (mid == first) {
      // Nothing is below the pivot: skip the elements equivalent to it.
      first = std::partition(first, last, [&](const T& x) { return !less(pivot, x); });
      continue;
    }
    // The smaller side recursively, the larger one in this loop.
    if (mid - first < last - mid) {
      Sort(first, mid, less, depth);
      first = mid;
    } else {
      Sort(mid, last, less, depth);
      last = mid;
    }
  }
  InsertionSort(first, last, less);
}

inline int DepthLimit(std::ptrdiff_t n) { return 2 * std::bit_width(static_cast<std::size_t>(n)); }

template <class T, class Less>
void ParallelSort(T* first, T* last, Less less, int depth) {
  constexpr std::ptrdiff_t kSerial = std::ptrdiff_t{1} << 15;
  if (last - first <= kSerial || depth == 0) {
    Sort(first, last, less, depth);
    return;
  }
  const T pivot = Pivot(first, last, less);
  T* mid = Partition(first, last, pivot, less);
  if (mid == first) {
    first = std::partition(first, last, [&](const T& x) { return !less(pivot, x); });
    ParallelSort(first, last, less, depth - 1);
    return;
  }
  tbb::parallel_invoke([&] { ParallelSort(first, mid, less, depth - 1); },
                       [&] { ParallelSort(mid, last, less, depth - 1); });
}

}  // namespace block_sort

// Sorts [first, last) ascending by `less` on the calling thread.
template <class T, class Less>
void BlockSort(T* first, T* last, Less less) {
  block_sort::Sort(first, last, less, block_sort::DepthLimit(last - first));
}

// The same, with ranges above 32K elements split around a pivot and the two
// sides sorted in parallel (oneTBB).
template <class T, class Less>
void ParallelBlockSort(T* first, T* last, Less less) {
  block_sort::ParallelSort(first, last, less, block_sort::DepthLimit(last - first));
}

}  // namespace schedk
