// execution_mode.hpp
// How many threads a kernel step uses: oneTBB's (kParallel, the default) or
// this thread alone, in order (kSerial). A step gives the same result either
// way; which algorithm runs is twin.hpp's choice, not this one's.
#pragma once

#include <cstddef>
#include <cstdint>

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

}  // namespace schedk
