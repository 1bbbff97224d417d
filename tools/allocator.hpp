// allocator.hpp
// jemalloc tuning for long-running schedk processes (`schedk serve` and its
// stress benchmark). A session repeats passes that allocate and free the same
// tens of megabytes of columns; jemalloc by default hands freed pages back to
// the kernel within seconds, and the next pass faults them in again. Keeping
// them (no dirty or muzzy decay) makes a 100k-job `schedule` about 10% faster
// (2 cores, 2026-11-22); the resident set then stays at the largest pass's
// working set, which the data bounds. Without jemalloc (sanitizer builds)
// this does nothing.
#pragma once

#include <sys/types.h>

#include <cstddef>

extern "C" int mallctl(const char* name, void* oldp, std::size_t* oldlenp, void* newp, std::size_t newlen)
    __attribute__((weak));

namespace schedk::tools {

inline void RetainFreedPages() {
  if (mallctl == nullptr) return;
  ssize_t never = -1;
  for (const char* name : {"arenas.dirty_decay_ms", "arenas.muzzy_decay_ms", "arena.0.dirty_decay_ms",
                           "arena.0.muzzy_decay_ms"}) {
    mallctl(name, nullptr, nullptr, &never, sizeof never);
  }
}

}  // namespace schedk::tools
