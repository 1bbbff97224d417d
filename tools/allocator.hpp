// allocator.hpp
// jemalloc tuning for long-running schedk processes (`schedk serve` and the
// benchmarks that measure passes as it runs them). A session repeats passes
// that allocate and free the same tens of megabytes of columns; jemalloc by
// default hands freed pages back to the kernel over its decay time (10 s for
// dirty pages), and the next pass faults many of them in again. Keeping them
// (no dirty or muzzy decay) spares those faults (docs/performance.md,
// Allocator options); the resident set then stays at the
// largest pass's working set, which the data bounds. One-shot commands keep
// the default: there the pages a pass frees are not asked for again. Without
// jemalloc (sanitizer builds) these do nothing.
#pragma once

#include <sys/types.h>

#include <cstddef>

extern "C" int mallctl(const char* name, void* oldp, std::size_t* oldlenp, void* newp, std::size_t newlen)
    __attribute__((weak));

namespace schedk::tools {

// The decay times of freed pages (milliseconds; -1: never).
struct PageDecay {
  ssize_t dirty_ms = 0;
  ssize_t muzzy_ms = 0;
};

// Sets the decay times of the existing arena and of arenas made later.
inline void SetPageDecay(PageDecay decay) {
  if (mallctl == nullptr) return;
  for (const char* name : {"arenas.dirty_decay_ms", "arena.0.dirty_decay_ms"}) {
    mallctl(name, nullptr, nullptr, &decay.dirty_ms, sizeof decay.dirty_ms);
  }
  for (const char* name : {"arenas.muzzy_decay_ms", "arena.0.muzzy_decay_ms"}) {
    mallctl(name, nullptr, nullptr, &decay.muzzy_ms, sizeof decay.muzzy_ms);
  }
}

// Keeps every freed page from now on; returns the decay times it replaced.
inline PageDecay RetainFreedPages() {
  PageDecay before;
  if (mallctl == nullptr) return before;
  std::size_t size = sizeof before.dirty_ms;
  mallctl("arena.0.dirty_decay_ms", &before.dirty_ms, &size, nullptr, 0);
  size = sizeof before.muzzy_ms;
  mallctl("arena.0.muzzy_decay_ms", &before.muzzy_ms, &size, nullptr, 0);
  SetPageDecay(PageDecay{-1, -1});
  return before;
}

// Hands every freed page back to the kernel now.
inline void PurgeFreedPages() {
  if (mallctl != nullptr) mallctl("arena.4096.purge", nullptr, nullptr, nullptr, 0);  // 4096: MALLCTL_ARENAS_ALL
}

// Hands the kept pages back to the kernel and restores the decay times
// RetainFreedPages returned.
inline void ReturnFreedPages(PageDecay decay) {
  if (mallctl == nullptr) return;
  SetPageDecay(decay);
  PurgeFreedPages();
}

}  // namespace schedk::tools
