// radix_sort.hpp
// Stable least-significant-digit radix sorts in 16-bit passes: records by a
// 32-bit key (millions of rows into job-number order in linear time; equal
// keys keep their input order), and plain 64-bit keys.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace schedk {

// Sorts `items` stably by key(item), a uint32_t.
template <class T, class Key>
void RadixSortBy32(std::vector<T>& items, Key key) {
  if (items.size() < 2) return;
  std::vector<T> buffer(items.size());
  std::vector<std::uint32_t> count(65536);
  for (int pass = 0; pass < 2; ++pass) {
    const int shift = pass * 16;
    std::fill(count.begin(), count.end(), 0);
    for (const T& item : items) ++count[(key(item) >> shift) & 0xffff];
    std::uint32_t sum = 0;
    for (std::uint32_t& c : count) {
      const std::uint32_t n = c;
      c = sum;
      sum += n;
    }
    for (const T& item : items) buffer[count[(key(item) >> shift) & 0xffff]++] = item;
    items.swap(buffer);
  }
}

// Sorts 64-bit keys ascending. Passes whose digit is the same in every key are skipped.
inline void RadixSort64(std::vector<std::uint64_t>& keys) {
  if (keys.size() < 2) return;
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
