// radix_sort.hpp
// A least-significant-digit radix sort of plain 64-bit keys in 16-bit passes
// (the candidate times and events of the queue-end-time walk).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace schedk {

// Sorts 64-bit keys ascending. Passes whose digit is the same in every key are
// skipped. Below a few hundred keys, clearing the 64K counters would cost more
// than the sort: std::sort does it.
inline void RadixSort64(std::vector<std::uint64_t>& keys) {
  if (keys.size() < 2) return;
  if (keys.size() < 512) {
    std::sort(keys.begin(), keys.end());
    return;
  }
  std::vector<std::uint64_t> buffer(keys.size());
  std::vector<std::uint32_t> count(65536);
  for (int shift = 0; shift < 64; shift += 16) {
    std::fill(count.begin(), count.end(), 0);
    for (std::uint64_t k : keys) ++count[(k >> shift) & 0xffff];
    if (count[(keys.front() >> shift) & 0xffff] == keys.size()) continue;  // one digit everywhere
    std::uint32_t sum = 0;
    for (std::uint32_t& c : count) {
      const std::uint32_t n = c;
      c = sum;
      sum += n;
    }
    for (std::uint64_t k : keys) buffer[count[(k >> shift) & 0xffff]++] = k;
    keys.swap(buffer);
  }
}

}  // namespace schedk
