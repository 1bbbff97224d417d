// lazy_max_heap.hpp
// A max-heap of (key, category) entries for greedy loops whose keys only ever
// decrease. The pending ticket loops of Grid Engine pick, round after round,
// the category head that would get the most tickets if it ran next; after each
// pick some estimates fall. Instead of re-keying every affected category, the
// heap keeps stale keys as upper bounds and re-evaluates only the top: when the
// top's fresh key equals its stored one, no other entry can beat it.
// The first keys wait in a backlog sorted best first; an entry leaves it for a
// binary heap when it is first re-keyed or picked. The heap then holds only
// the categories that have competed (in the benchmark's functional loop, about
// 11,000 of 49,000 over 200 rounds), and a first re-key costs a step along the
// backlog and an insertion instead of a sift from the root.
// TopBatched finds the same entry as Top, re-keying in one batch every entry
// that might beat the top (which the caller may evaluate in parallel); what
// stays serial is the heap's own order.
// REQUIRES: Better(a, b) is a strict total order, and a stored key is never
// worse than the entry's current key. ReplaceTop and PopTop act on the entry
// the last Top or TopBatched returned.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace schedk {

template <class Key, class Better>
class LazyMaxHeap {
 public:
  struct Entry {
    Key key;
    std::uint32_t category;
  };

  explicit LazyMaxHeap(Better better = Better{}) : better_(better) {}

  void Reserve(std::size_t n) { backlog_.reserve(n); }
  bool empty() const { return front_ == backlog_.size() && heap_.empty(); }
  // Adds an entry in any order; Build() orders them.
  void PushUnordered(const Key& key, std::uint32_t category) { backlog_.push_back({key, category}); }
  // Takes entries already sorted best first (by a faster sort than Build's, say).
  // (The heap grows as entries leave the backlog: in the functional loop a
  // fifth of them do.)
  void AssignSorted(std::vector<Entry> best_first) {
    backlog_ = std::move(best_first);
    front_ = 0;
    heap_.clear();
  }
  // Sorts the entries given unordered best first.
  void Build() {
    std::sort(backlog_.begin(), backlog_.end(), [this](const Entry& a, const Entry& b) { return better_(a.key, b.key); });
    front_ = 0;
    heap_.clear();
  }

  // Returns the category whose current key is the best of all, re-keying stale
  // tops with `fresh(category)` until the top is current. The entry stays.
  template <class Fresh>
  Entry& Top(Fresh&& fresh) {
    for (;;) {
      top_in_backlog_ = front_ < backlog_.size() && (heap_.empty() || better_(backlog_[front_].key, heap_.front().key));
      Entry& top = top_in_backlog_ ? backlog_[front_] : heap_.front();
      const Key now = fresh(top.category);
      if (!better_(top.key, now) && !better_(now, top.key)) return top;
      ReplaceTop(now);
    }
  }
  // Top, by batches: once the top's fresh key is known, only entries whose
  // stored key beats it can beat it, and they form a subtree at the heap's
  // root and a prefix of the backlog. `fresh_batch(categories, keys)` writes
  // the fresh key of each of those (distinct) categories; the heap is then put
  // in order from the subtree's deepest entry up, and the backlog's move into
  // it. The best of the batch is then on top, fresh, which `fresh` confirms.
  template <class Fresh, class FreshBatch>
  Entry& TopBatched(Fresh&& fresh, FreshBatch&& fresh_batch) {
    top_in_backlog_ = front_ < backlog_.size() && (heap_.empty() || better_(backlog_[front_].key, heap_.front().key));
    const Entry& top = top_in_backlog_ ? backlog_[front_] : heap_.front();
    const Key now = fresh(top.category);
    if (!better_(top.key, now) && !better_(now, top.key)) return top_in_backlog_ ? backlog_[front_] : heap_.front();
    // The heap's entries that beat `now`, breadth first (ascending positions).
    positions_.clear();
    if (!heap_.empty() && better_(heap_.front().key, now)) positions_.push_back(0);
    for (std::size_t k = 0; k < positions_.size(); ++k) {
      for (std::size_t child = 2 * positions_[k] + 1; child <= 2 * positions_[k] + 2 && child < heap_.size(); ++child) {
        if (better_(heap_[child].key, now)) positions_.push_back(child);
      }
    }
    std::size_t backlog_end = front_;
    while (backlog_end < backlog_.size() && better_(backlog_[backlog_end].key, now)) ++backlog_end;
    categories_.clear();
    for (std::size_t p : positions_) categories_.push_back(heap_[p].category);
    for (std::size_t b = front_; b < backlog_end; ++b) categories_.push_back(backlog_[b].category);
    keys_.resize(categories_.size());
    fresh_batch(std::span<const std::uint32_t>(categories_), std::span<Key>(keys_));
    for (std::size_t k = 0; k < positions_.size(); ++k) heap_[positions_[k]].key = keys_[k];
    for (std::size_t k = positions_.size(); k-- > 0;) SiftDown(positions_[k]);
    for (std::size_t k = positions_.size(); k < categories_.size(); ++k) {
      heap_.push_back({keys_[k], categories_[k]});
      std::push_heap(heap_.begin(), heap_.end(), Worse{better_});
    }
    front_ = backlog_end;
    return Top(fresh);
  }
  // Replaces the top's key (after its category advanced to a new head). From
  // the backlog the entry moves into the heap; in the heap it sinks from the
  // root to its place, one pass down. (Which entry is on top depends only on
  // the keys, Better being a total order, so the layout never changes a result.)
  void ReplaceTop(const Key& key) {
    if (top_in_backlog_) {
      heap_.push_back({key, backlog_[front_++].category});
      std::push_heap(heap_.begin(), heap_.end(), Worse{better_});
      top_in_backlog_ = false;  // the entry is in the heap now, not necessarily on top
      return;
    }
    heap_.front().key = key;
    SiftDown(0);
  }
  void PopTop() {
    if (top_in_backlog_) {
      ++front_;
      top_in_backlog_ = false;
      return;
    }
    std::pop_heap(heap_.begin(), heap_.end(), Worse{better_});
    heap_.pop_back();
  }
  // The entries still in play: those waiting in the backlog and those in the heap.
  std::span<const Entry> backlog() const { return std::span<const Entry>(backlog_).subspan(front_); }
  const std::vector<Entry>& heap() const { return heap_; }

 private:
  struct Worse {
    Better better;
    bool operator()(const Entry& a, const Entry& b) const { return better(b.key, a.key); }
  };
  // Moves the entry at `hole` down to its place, its subtrees being heaps.
  void SiftDown(std::size_t hole) {
    const Entry moving = heap_[hole];
    const std::size_t n = heap_.size();
    // The better of two children is chosen by arithmetic, not a branch: which
    // one wins is as good as random.
    for (std::size_t child = 2 * hole + 1; child + 1 < n; child = 2 * hole + 1) {
      child += static_cast<std::size_t>(better_(heap_[child + 1].key, heap_[child].key));
      if (!better_(heap_[child].key, moving.key)) break;
      heap_[hole] = heap_[child];
      hole = child;
    }
    if (const std::size_t child = 2 * hole + 1; child + 1 == n && better_(heap_[child].key, moving.key)) {
      heap_[hole] = heap_[child];  // an only child, at the end
      hole = child;
    }
    heap_[hole] = moving;
  }

  Better better_;
  std::vector<Entry> backlog_;  // [front_, end): best first, keys never re-keyed
  std::size_t front_ = 0;
  std::vector<Entry> heap_;     // a binary max-heap of the entries re-keyed or picked once
  bool top_in_backlog_ = false;  // where the entry Top returned lies
  // TopBatched's batch: the heap positions, then the categories and their fresh keys.
  std::vector<std::size_t> positions_;
  std::vector<std::uint32_t> categories_;
  std::vector<Key> keys_;
};

}  // namespace schedk
