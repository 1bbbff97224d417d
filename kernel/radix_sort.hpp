// radix_sort.hpp
// Stable least-significant-digit radix sort of records by a 32-bit key, in two
// 16-bit passes. Used to put millions of rows into job-number order in linear
// time; equal keys keep their input order.
#pragma once

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

}  // namespace schedk
