// first_occurrence.hpp
// Numbers the distinct keys of a sequence in the order they first occur, as
// one hash map filled in order numbers them (the reference, and what
// ExecutionMode::kSerial runs in effect), but in parallel: each block of the
// sequence numbers its own keys, the blocks' keys are then joined in block
// order, and each element's number is rewritten from its block's. Given a
// key that never occurs, the maps are open-addressing ones (FlatIdMap).
// Invariants: ids[i] < distinct.size() and distinct[ids[i]] == key_of(i) for
// every i; distinct[k] first occurs before distinct[k + 1]; the result does
// not depend on the block size or the threads.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "kernel/execution_mode.hpp"
#include "kernel/util/flat_id_map.hpp"

namespace schedk {

template <class Key>
struct FirstOccurrence {
  std::vector<std::uint32_t> ids;  // per element: its key's number
  std::vector<Key> distinct;       // the keys, in the order they first occur
};

namespace first_occurrence_detail {

// The map NumberByFirstOccurrence fills per block and for the join: a hash
// map, or with an `empty` key no key takes, an open-addressing one.
template <class Key, class Hash>
class Ids {
 public:
  explicit Ids(const std::optional<Key>& empty) {
    if (empty) flat_.emplace(*empty);
  }
  // The id kept for key, keeping `id` where it is new; whether it was.
  std::pair<std::uint32_t, bool> TryEmplace(const Key& key, std::uint32_t id) {
    if (flat_) {
      const auto [kept, added] = flat_->TryEmplace(key, Hash{}(key), id);
      return {kept, added};
    }
    const auto [it, added] = map_.try_emplace(key, id);
    return {it->second, added};
  }

 private:
  std::optional<FlatIdMap<Key, Hash>> flat_;
  std::unordered_map<Key, std::uint32_t, Hash> map_;
};

}  // namespace first_occurrence_detail

// key_of(i) for i in [0, n): the sequence's keys (called from several threads
// at once). `empty`: a key the sequence never holds, for the faster map.
template <class Key, class Hash, class KeyOf>
FirstOccurrence<Key> NumberByFirstOccurrence(std::size_t n, KeyOf key_of, ExecutionMode mode,
                                             std::size_t block = std::size_t{1} << 16,
                                             const std::optional<Key>& empty = std::nullopt) {
  using Ids = first_occurrence_detail::Ids<Key, Hash>;
  FirstOccurrence<Key> out;
  out.ids.resize(n);
  const std::size_t blocks = (n + block - 1) / block;
  std::vector<std::vector<Key>> block_keys(blocks);  // per block: its keys in the order they first occur there
  ForEachIndex(mode, blocks, [&](std::size_t b) {
    Ids local(empty);
    for (std::size_t i = b * block; i < std::min(n, (b + 1) * block); ++i) {
      const Key key = key_of(i);
      const auto [id, added] = local.TryEmplace(key, static_cast<std::uint32_t>(block_keys[b].size()));
      if (added) block_keys[b].push_back(key);
      out.ids[i] = id;
    }
  });
  Ids global(empty);
  std::vector<std::vector<std::uint32_t>> to_global(blocks);
  for (std::size_t b = 0; b < blocks; ++b) {
    for (const Key& key : block_keys[b]) {
      const auto [id, added] = global.TryEmplace(key, static_cast<std::uint32_t>(out.distinct.size()));
      if (added) out.distinct.push_back(key);
      to_global[b].push_back(id);
    }
  }
  ForEachIndex(mode, blocks, [&](std::size_t b) {
    for (std::size_t i = b * block; i < std::min(n, (b + 1) * block); ++i) out.ids[i] = to_global[b][out.ids[i]];
  });
  return out;
}

}  // namespace schedk
