// first_occurrence.hpp
// Numbers the distinct keys of a sequence in the order they first occur, as
// one hash map filled in order numbers them (the reference, and what
// ExecutionMode::kSerial runs in effect), but in parallel and with no serial
// merge: the elements are split by their keys' hashes into parts, each part
// finds every element's first equal element (its own map, in element order),
// and a key's number is the count of first elements before its first one.
// Invariants: ids[i] < distinct.size() and distinct[ids[i]] == key_of(i) for
// every i; distinct[k] first occurs before distinct[k + 1]; the result does
// not depend on the part size or the threads.
#pragma once

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernel/execution_mode.hpp"

namespace schedk {

template <class Key>
struct FirstOccurrence {
  std::vector<std::uint32_t> ids;  // per element: its key's number
  std::vector<Key> distinct;       // the keys, in the order they first occur
};

namespace first_occurrence_detail {

// Hash's value mixed so that its high bits (the part) and low bits (the slot) both spread.
inline std::uint64_t Mix(std::uint64_t h) {
  h = (h ^ (h >> 31)) * 0x9E3779B97F4A7C15ull;
  return h ^ (h >> 29);
}

inline std::size_t PowerOfTwoAtLeast(std::size_t n) {
  std::size_t p = 1;
  while (p < n) p *= 2;
  return p;
}

}  // namespace first_occurrence_detail

// key_of(i) for i in [0, n): the sequence's keys (called from several threads
// at once, and more than once per element). About `part_size` elements per part.
template <class Key, class Hash, class KeyOf>
FirstOccurrence<Key> NumberByFirstOccurrence(std::size_t n, KeyOf key_of, ExecutionMode mode,
                                             std::size_t part_size = 4096) {
  using first_occurrence_detail::Mix;
  assert(n < UINT32_MAX);
  FirstOccurrence<Key> out;
  out.ids.resize(n);
  if (n == 0) return out;
  constexpr std::size_t kChunk = std::size_t{1} << 14;
  const std::size_t chunks = (n + kChunk - 1) / kChunk;
  auto for_each_element = [&](auto&& f) {
    ForEachIndex(mode, chunks, [&](std::size_t c) {
      for (std::size_t i = c * kChunk; i < std::min(n, (c + 1) * kChunk); ++i) f(c, i);
    });
  };
  unsigned part_bits = 0;
  while (part_bits < 12 && (n >> part_bits) > std::max<std::size_t>(part_size, 1)) ++part_bits;
  const std::size_t parts = std::size_t{1} << part_bits;
  auto part_of = [&](std::uint64_t h) { return part_bits == 0 ? 0 : static_cast<std::size_t>(h >> (64 - part_bits)); };

  // Split into parts, each in element order (a counting sort by chunk and part).
  std::vector<std::uint32_t> at(chunks * parts, 0);  // chunk c's next place in part p: at[c * parts + p]
  for_each_element([&](std::size_t c, std::size_t i) { ++at[c * parts + part_of(Mix(Hash{}(key_of(i))))]; });
  std::vector<std::uint32_t> part_first(parts + 1, 0);
  std::uint32_t placed = 0;
  for (std::size_t p = 0; p < parts; ++p) {
    part_first[p] = placed;
    for (std::size_t c = 0; c < chunks; ++c) placed += std::exchange(at[c * parts + p], placed);
  }
  part_first[parts] = placed;
  struct Placed {
    Key key;
    std::uint32_t element = UINT32_MAX;  // UINT32_MAX: a free slot of a part's map
  };
  // Left uninitialised: each element is made where the split puts it, so
  // that the threads share the first touch of its pages.
  static_assert(std::is_trivially_destructible_v<Placed>);
  std::unique_ptr<std::byte[]> storage(new std::byte[n * sizeof(Placed)]);
  Placed* const by_part = reinterpret_cast<Placed*>(storage.get());
  for_each_element([&](std::size_t c, std::size_t i) {
    Key key = key_of(i);
    std::construct_at(&by_part[at[c * parts + part_of(Mix(Hash{}(key)))]++],
                      Placed{std::move(key), static_cast<std::uint32_t>(i)});
  });

  // ids[i]: the first element equal to i, found by its part's map of first elements.
  ForEachIndex(mode, parts, [&](std::size_t p) {
    const std::size_t size = first_occurrence_detail::PowerOfTwoAtLeast(2 * (part_first[p + 1] - part_first[p]));
    std::vector<Placed> slots(size);
    for (std::uint32_t k = part_first[p]; k < part_first[p + 1]; ++k) {
      const Placed& e = by_part[k];
      for (std::size_t s = Mix(Hash{}(e.key)) & (size - 1);; s = (s + 1) & (size - 1)) {
        if (slots[s].element == UINT32_MAX) {
          slots[s] = e;
          out.ids[e.element] = e.element;
          break;
        }
        if (slots[s].key == e.key) {
          out.ids[e.element] = slots[s].element;
          break;
        }
      }
    }
  });

  storage.reset();

  // A first element's number: the first elements before it.
  std::vector<std::uint32_t> number(n);
  std::vector<std::uint32_t> chunk_firsts(chunks + 1, 0);
  for_each_element([&](std::size_t c, std::size_t i) { chunk_firsts[c + 1] += out.ids[i] == i; });
  for (std::size_t c = 0; c < chunks; ++c) chunk_firsts[c + 1] += chunk_firsts[c];
  out.distinct.resize(chunk_firsts[chunks]);
  ForEachIndex(mode, chunks, [&](std::size_t c) {
    std::uint32_t next = chunk_firsts[c];
    for (std::size_t i = c * kChunk; i < std::min(n, (c + 1) * kChunk); ++i) {
      if (out.ids[i] != i) continue;
      number[i] = next;
      out.distinct[next++] = key_of(i);
    }
  });
  for_each_element([&](std::size_t, std::size_t i) { out.ids[i] = number[out.ids[i]]; });
  return out;
}

}  // namespace schedk
