// first_occurrence.hpp
// Numbers the distinct keys of a sequence in the order they first occur, as
// one hash map filled in order numbers them (the reference, and what
// ExecutionMode::kSerial runs in effect), but in parallel: each block of the
// sequence numbers its own keys, the blocks' keys are then joined in block
// order, and each element's number is rewritten from its block's.
// Invariants: ids[i] < distinct.size() and distinct[ids[i]] == key_of(i) for
// every i; distinct[k] first occurs before distinct[k + 1]; the result does
// not depend on the block size or the threads.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "kernel/execution_mode.hpp"

namespace schedk {

template <class Key>
struct FirstOccurrence {
  std::vector<std::uint32_t> ids;  // per element: its key's number
  std::vector<Key> distinct;       // the keys, in the order they first occur
};

// key_of(i) for i in [0, n): the sequence's keys (called from several threads at once).
template <class Key, class Hash, class KeyOf>
FirstOccurrence<Key> NumberByFirstOccurrence(std::size_t n, KeyOf key_of, ExecutionMode mode,
                                             std::size_t block = std::size_t{1} << 16) {
  FirstOccurrence<Key> out;
  out.ids.resize(n);
  const std::size_t blocks = (n + block - 1) / block;
  std::vector<std::vector<Key>> block_keys(blocks);  // per block: its keys in the order they first occur there
  ForEachIndex(mode, blocks, [&](std::size_t b) {
    std::unordered_map<Key, std::uint32_t, Hash> local;
    for (std::size_t i = b * block; i < std::min(n, (b + 1) * block); ++i) {
      const auto [it, added] = local.try_emplace(key_of(i), static_cast<std::uint32_t>(block_keys[b].size()));
      if (added) block_keys[b].push_back(it->first);
      out.ids[i] = it->second;
    }
  });
  std::unordered_map<Key, std::uint32_t, Hash> global;
  std::vector<std::vector<std::uint32_t>> to_global(blocks);
  for (std::size_t b = 0; b < blocks; ++b) {
    for (const Key& key : block_keys[b]) {
      const auto [it, added] = global.try_emplace(key, static_cast<std::uint32_t>(out.distinct.size()));
      if (added) out.distinct.push_back(key);
      to_global[b].push_back(it->second);
    }
  }
  ForEachIndex(mode, blocks, [&](std::size_t b) {
    for (std::size_t i = b * block; i < std::min(n, (b + 1) * block); ++i) out.ids[i] = to_global[b][out.ids[i]];
  });
  return out;
}

}  // namespace schedk
