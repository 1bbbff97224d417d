// sorted_runs.hpp
// Sorting a range that is a sequence of runs most of which are in order
// already (the share tree's ranking: each child's tasks come back from the
// child's own ranking nearly always still in order under the parent's keys).
// Each run that is out of order is sorted on its own, then the runs are merged
// pairwise, level by level, through a scratch buffer: about log2(runs) linear
// passes instead of a full sort.
// REQUIRES: `less` is a strict weak order; the result is then a sorted
// permutation of the range, and exactly std::sort's result when `less` is a
// total order (no two elements equivalent).
#pragma once

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "kernel/column.hpp"

namespace schedk {

// Sorts [first, first + cuts.back()). `cuts` are the runs' bounds as offsets
// from `first`: cuts.front() == 0, non-decreasing (empty runs are allowed).
// With `parallel`, large ranges sort their runs and merge each level's pairs
// in parallel (oneTBB).
template <class T, class Less>
void SortRuns(T* first, std::vector<std::size_t> cuts, Less less, bool parallel) {
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());  // drops empty runs
  if (cuts.size() < 2) return;
  const std::size_t runs = cuts.size() - 1, total = cuts.back();
  constexpr std::size_t kParallelElements = std::size_t{1} << 16;
  const bool split = parallel && total >= kParallelElements;
  auto for_each = [&](std::size_t n, auto&& f) {
    if (split) {
      tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n, 1), [&](const auto& r) {
        for (std::size_t k = r.begin(); k != r.end(); ++k) f(k);
      });
    } else {
      for (std::size_t k = 0; k < n; ++k) f(k);
    }
  };
  for_each(runs, [&](std::size_t r) {
    T* begin = first + cuts[r];
    T* end = first + cuts[r + 1];
    if (!std::is_sorted(begin, end, less)) std::sort(begin, end, less);
  });
  if (runs == 1) return;
  Column<T> scratch(total);  // every level writes it in full
  T* from = first;
  T* to = scratch.data();
  while (cuts.size() > 2) {
    const std::size_t pairs = cuts.size() / 2;  // ceil(runs / 2)
    for_each(pairs, [&](std::size_t p) {
      const std::size_t a = cuts[2 * p], b = cuts[2 * p + 1];
      if (2 * p + 2 < cuts.size()) {
        std::merge(from + a, from + b, from + b, from + cuts[2 * p + 2], to + a, less);
      } else {
        std::copy(from + a, from + b, to + a);  // an odd run out passes to the next level
      }
    });
    std::vector<std::size_t> next;
    next.reserve(pairs + 1);
    for (std::size_t k = 0; k < cuts.size(); k += 2) next.push_back(cuts[k]);
    if (next.back() != total) next.push_back(total);
    cuts.swap(next);
    std::swap(from, to);
  }
  if (from != first) std::copy(from, from + total, first);
}

}  // namespace schedk
