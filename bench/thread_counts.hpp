// thread_counts.hpp
// The thread counts a benchmark that takes one measures: 1, 2, 4, 8, 16 and
// on, doubling, up to the host's cores (1 and 2 always, so that
// bench/scaling.py's Amdahl prediction has its two points on any host).
#pragma once

#include <cstdint>
#include <thread>
#include <vector>

namespace schedk::bench {

inline std::vector<std::int64_t> ThreadCounts() {
  const auto cores = static_cast<std::int64_t>(std::thread::hardware_concurrency());
  std::vector<std::int64_t> counts = {1, 2};
  for (std::int64_t n = 4; n <= cores; n *= 2) counts.push_back(n);
  if (cores > counts.back()) counts.push_back(cores);
  return counts;
}

}  // namespace schedk::bench
