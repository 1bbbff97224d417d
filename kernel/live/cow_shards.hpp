// cow_shards.hpp
// A lock-sharded, copy-on-write container: a fixed number of shards, each a
// value of type Shard behind its own mutex. An update locks one shard only;
// View() hands out every shard as it is at one instant, shared and immutable,
// so a scheduling pass reads a consistent state while updates go on: the
// first update of a shard that a view still holds copies that shard (and only
// that one) before changing it.
// Invariants: a shard a view holds never changes; Mutate on one shard runs
// alongside Mutate on others; View and ReplaceAll wait only for the updates in
// flight, never for a pass.
#pragma once

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
    for (Slot& slot : slots_) slot.data = std::make_shared<Shard>();
  }

  std::size_t size() const { return slots_.size(); }

  // Runs f(Shard&) on shard i under its lock, copying the shard first if a view holds it.
  template <class F>
  decltype(auto) Mutate(std::size_t i, F&& f) {
    std::shared_lock<std::shared_mutex> epoch(epoch_);
    Slot& slot = slots_[i];
    std::lock_guard<std::mutex> lock(slot.mutex);
    // A view takes its references under the exclusive epoch lock, so none can
    // appear now; one dropped meanwhile only costs a needless copy.
    if (slot.data.use_count() > 1) slot.data = std::make_shared<Shard>(*slot.data);
    return std::forward<F>(f)(*slot.data);
  }

  // Runs f(const Shard&) on shard i under its lock.
  template <class F>
  decltype(auto) Read(std::size_t i, F&& f) const {
    std::shared_lock<std::shared_mutex> epoch(epoch_);
    const Slot& slot = slots_[i];
    std::lock_guard<std::mutex> lock(slot.mutex);
    return std::forward<F>(f)(static_cast<const Shard&>(*slot.data));
  }

  // Every shard at one instant: no update is half-way through while it is taken.
  View Snapshot() const {
    std::unique_lock<std::shared_mutex> epoch(epoch_);
    View view;
    view.reserve(slots_.size());
    for (const Slot& slot : slots_) view.push_back(slot.data);
    return view;
  }

  // Replaces every shard at one instant (shards.size() must equal size()).
  void ReplaceAll(std::vector<std::shared_ptr<Shard>> shards) {
    std::unique_lock<std::shared_mutex> epoch(epoch_);
    for (std::size_t i = 0; i < slots_.size(); ++i) slots_[i].data = std::move(shards[i]);
  }

 private:
  struct Slot {
    mutable std::mutex mutex;
    std::shared_ptr<Shard> data;
  };
  std::vector<Slot> slots_;
  mutable std::shared_mutex epoch_;
};

}  // namespace schedk
