// flat_id_map.hpp
// FlatIdMap<Key, Hash>: a map from small, trivially copyable keys to 32-bit
// values (ids, node numbers) for the hot per-task lookups of the ticket passes.
// Open addressing with linear probing; each key sits beside its value, so a
// probe is one memory access. The caller passes the hash in.
// Invariants: the slot count is a power of two (or zero) and at most half the
// slots are used; Hash{}(key) is the hash the caller passes for key; the empty
// key given at construction is never inserted (it marks free slots, so a slot
// is no larger than a key and a value).
#pragma once

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <utility>
#include <vector>

namespace schedk {

template <class Key, class Hash>
class FlatIdMap {
 public:
  explicit FlatIdMap(const Key& empty) : empty_(empty) {}

  // The value stored for key, inserting `value_if_new` when key is new; the
  // flag says whether it was inserted. The reference is valid until the next
  // insertion.
  std::pair<std::uint32_t&, bool> TryEmplace(const Key& key, std::uint64_t hash, std::uint32_t value_if_new) {
    assert(!(key == empty_));
    if ((used_ + 1) * 2 > slots_.size()) Grow();
    for (std::size_t i = hash & mask_;; i = (i + 1) & mask_) {
      Slot& slot = slots_[i];
      if (slot.key == empty_) {
        slot = Slot{key, value_if_new};
        ++used_;
        return {slot.value, true};
      }
      if (slot.key == key) return {slot.value, false};
    }
  }

  // The value stored for key, or nullptr.
  const std::uint32_t* Find(const Key& key, std::uint64_t hash) const {
    if (used_ == 0) return nullptr;
    for (std::size_t i = hash & mask_;; i = (i + 1) & mask_) {
      const Slot& slot = slots_[i];
      if (slot.key == empty_) return nullptr;
      if (slot.key == key) return &slot.value;
    }
  }

  std::size_t size() const { return used_; }

 private:
  struct Slot {
    Key key;
    std::uint32_t value;
  };

  void Grow() {
    std::vector<Slot> old(std::max<std::size_t>(64, slots_.size() * 2), Slot{empty_, 0});
    old.swap(slots_);
    mask_ = slots_.size() - 1;
    for (const Slot& s : old) {
      if (s.key == empty_) continue;
      std::size_t i = Hash{}(s.key) & mask_;
      while (!(slots_[i].key == empty_)) i = (i + 1) & mask_;
      slots_[i] = s;
    }
  }

  Key empty_;
  std::vector<Slot> slots_;
  std::size_t mask_ = 0;
  std::size_t used_ = 0;
};

}  // namespace schedk
