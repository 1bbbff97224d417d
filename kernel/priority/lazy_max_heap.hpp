// lazy_max_heap.hpp
// A binary max-heap of (key, category) entries for greedy loops whose keys only
// ever decrease. The pending ticket loops of Grid Engine pick, round after round,
// the category head that would get the most tickets if it ran next; after each
// pick some estimates fall. Instead of re-keying every affected category, the
// heap keeps stale keys as upper bounds and re-evaluates only the top: when the
// top's fresh key equals its stored one, no other entry can beat it.
// REQUIRES: Better(a, b) is a strict total order, and a stored key is never
// worse than the entry's current key.
#pragma once

#include <algorithm>
#include <cstdint>
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

  void Reserve(std::size_t n) { heap_.reserve(n); }
  bool empty() const { return heap_.empty(); }
  void Push(const Key& key, std::uint32_t category) {
    heap_.push_back({key, category});
    std::push_heap(heap_.begin(), heap_.end(), Worse{better_});
  }
  void Build() { std::make_heap(heap_.begin(), heap_.end(), Worse{better_}); }
  void PushUnordered(const Key& key, std::uint32_t category) { heap_.push_back({key, category}); }
  // Takes entries filled elsewhere (in parallel, say); Build() orders them.
  void AssignUnordered(std::vector<Entry> entries) { heap_ = std::move(entries); }

  // Returns the category whose current key is the best of all, re-keying stale
  // tops with `fresh(category)` until the top is current. The entry stays in the heap.
  template <class Fresh>
  Entry& Top(Fresh&& fresh) {
    for (;;) {
      Entry& top = heap_.front();
      const Key now = fresh(top.category);
      if (!better_(top.key, now) && !better_(now, top.key)) return top;
      ReplaceTop(now);
    }
  }
  // Replaces the top's key (after its category advanced to a new head): the
  // entry sinks from the root to its place, one pass down the heap. (Which
  // entry is on top depends only on the keys, Better being a total order, so
  // the heap's layout never changes a result.)
  void ReplaceTop(const Key& key) {
    Entry moving{key, heap_.front().category};
    const std::size_t n = heap_.size();
    std::size_t hole = 0;
    for (;;) {
      std::size_t child = 2 * hole + 1;
      if (child >= n) break;
      if (child + 1 < n && better_(heap_[child + 1].key, heap_[child].key)) ++child;
      if (!better_(heap_[child].key, moving.key)) break;
      heap_[hole] = heap_[child];
      hole = child;
    }
    heap_[hole] = moving;
  }
  void PopTop() {
    std::pop_heap(heap_.begin(), heap_.end(), Worse{better_});
    heap_.pop_back();
  }
  const std::vector<Entry>& entries() const { return heap_; }

 private:
  struct Worse {
    Better better;
    bool operator()(const Entry& a, const Entry& b) const { return better(b.key, a.key); }
  };
  Better better_;
  std::vector<Entry> heap_;
};

}  // namespace schedk
