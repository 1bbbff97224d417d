// cow_shards.hpp
// A lock-sharded, copy-on-write container: a fixed number of shards, each a
// value of type Shard behind its own mutex. An update locks one shard only;
// Snapshot() hands out every shard as it is at one instant, shared and immutable,
// so a scheduling pass reads a consistent state while updates go on: the
// first update of a shard that a view still holds copies that shard (and only
// that one) before changing it.
// Invariants: a shard a view holds never changes (each version counts the
// views holding it; a write finds the count at 0 or copies); Mutate on one
// shard runs alongside Mutate on others; Snapshot and ReplaceAll wait only for
// the updates in flight, never for a pass.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <utility>
#include <vector>

namespace schedk {

template <class Shard>
class CowShards {
 public:
  using View = std::vector<std::shared_ptr<const Shard>>;

  explicit CowShards(std::size_t shards) : slots_(shards) {
    for (Slot& slot : slots_) slot.data = std::make_shared<Node>();
  }

  std::size_t size() const { return slots_.size(); }

  // Runs f(Shard&) on shard i under its lock, copying the shard first if a view holds it.
  template <class F>
  decltype(auto) Mutate(std::size_t i, F&& f) {
    std::shared_lock<std::shared_mutex> epoch(epoch_);
    Slot& slot = slots_[i];
    std::lock_guard<std::mutex> lock(slot.mutex);
    // Views count themselves in under the exclusive epoch lock, so none can
    // appear now. Reading 0 with acquire orders every read of the views that
    // let go (each releases) before the writes below; one let go meanwhile
    // only costs a needless copy.
    if (slot.data->viewers.load(std::memory_order_acquire) > 0) {
      auto copy = std::make_shared<Node>();
      copy->data = slot.data->data;
      slot.data = std::move(copy);
    }
    return std::forward<F>(f)(slot.data->data);
  }

  // Runs f(const Shard&) on shard i under its lock.
  template <class F>
  decltype(auto) Read(std::size_t i, F&& f) const {
    std::shared_lock<std::shared_mutex> epoch(epoch_);
    const Slot& slot = slots_[i];
    std::lock_guard<std::mutex> lock(slot.mutex);
    return std::forward<F>(f)(static_cast<const Shard&>(slot.data->data));
  }

  // Every shard at one instant: no update is half-way through while it is taken.
  View Snapshot() const {
    std::unique_lock<std::shared_mutex> epoch(epoch_);
    View view;
    view.reserve(slots_.size());
    for (const Slot& slot : slots_) {
      std::shared_ptr<Node> node = slot.data;
      node->viewers.fetch_add(1, std::memory_order_relaxed);
      // The view's pointer keeps the node alive and counts itself out when the last copy goes.
      view.emplace_back(&node->data, [node](const Shard*) { node->viewers.fetch_sub(1, std::memory_order_release); });
    }
    return view;
  }

  // Replaces every shard at one instant (shards.size() must equal size()).
  void ReplaceAll(std::vector<Shard> shards) {
    std::unique_lock<std::shared_mutex> epoch(epoch_);
    for (std::size_t i = 0; i < slots_.size(); ++i) {
      auto node = std::make_shared<Node>();
      node->data = std::move(shards[i]);
      slots_[i].data = std::move(node);
    }
  }

 private:
  struct Node {
    Shard data;
    std::atomic<int> viewers{0};  // views holding this version
  };
  struct Slot {
    mutable std::mutex mutex;
    std::shared_ptr<Node> data;
  };
  std::vector<Slot> slots_;
  mutable std::shared_mutex epoch_;
};

}  // namespace schedk
