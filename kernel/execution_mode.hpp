// execution_mode.hpp
// Whether a kernel step runs in parallel (oneTBB, the default) or as its serial
// twin, the plain single-threaded version that tests hold the parallel one to.
#pragma once

#include <cstddef>
#include <cstdint>

#include <tbb/parallel_for.h>

namespace schedk {

enum class ExecutionMode : std::uint8_t { kParallel, kSerial };

// Calls f(k) for every k in [0, n): in parallel (one task per k, for chunked
// work), or in order for the serial twin.
template <class F>
void ForEachIndex(ExecutionMode mode, std::size_t n, F&& f) {
  if (mode == ExecutionMode::kParallel) {
    tbb::parallel_for(std::size_t{0}, n, f);
  } else {
    for (std::size_t k = 0; k < n; ++k) f(k);
  }
}

}  // namespace schedk
