// execution_mode.hpp
// How many threads a kernel step uses: oneTBB's (kParallel, the default) or
// this thread alone, in order (kSerial). A step gives the same result either
// way; which algorithm runs is twin.hpp's choice, not this one's.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

namespace schedk {

enum class ExecutionMode : std::uint8_t { kParallel, kSerial };

// Calls f(k) for every k in [0, n): in parallel (one task per k, for chunked
// work), or in order on this thread.
template <class F>
void ForEachIndex(ExecutionMode mode, std::size_t n, F&& f) {
  if (mode == ExecutionMode::kParallel) {
    tbb::parallel_for(std::size_t{0}, n, f);
  } else {
    for (std::size_t k = 0; k < n; ++k) f(k);
  }
}

// Calls f(begin, end) over [first, last): in parallel ranges of at least
// `grain` items (the range split as oneTBB sees fit), or once over the whole
// on this thread.
template <class F>
void ForEachRange(ExecutionMode mode, std::size_t first, std::size_t last, std::size_t grain, F&& f) {
  if (mode == ExecutionMode::kParallel) {
    tbb::parallel_for(tbb::blocked_range<std::size_t>(first, last, grain),
                      [&](const tbb::blocked_range<std::size_t>& r) { f(r.begin(), r.end()); });
  } else {
    f(first, last);
  }
}

// The items for which keep(item) holds, in their order: tested in parallel
// blocks of `block` items (each block's kept ones joined in block order), or
// in one pass on this thread. keep must only read.
template <class T, class Keep>
std::vector<T> KeepInOrder(ExecutionMode mode, std::span<const T> items, std::size_t block, Keep&& keep) {
  std::vector<T> kept;
  if (mode == ExecutionMode::kSerial || items.size() <= block) {
    for (const T& item : items) {
      if (keep(item)) kept.push_back(item);
    }
    return kept;
  }
  std::vector<std::vector<T>> parts((items.size() + block - 1) / block);
  tbb::parallel_for(std::size_t{0}, parts.size(), [&](std::size_t b) {
    const std::size_t end = std::min(items.size(), (b + 1) * block);
    for (std::size_t k = b * block; k < end; ++k) {
      if (keep(items[k])) parts[b].push_back(items[k]);
    }
  });
  for (const std::vector<T>& part : parts) kept.insert(kept.end(), part.begin(), part.end());
  return kept;
}

}  // namespace schedk
