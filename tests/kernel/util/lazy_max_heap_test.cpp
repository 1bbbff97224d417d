// The lazy heap against a plain scan: a greedy loop whose keys only fall must
// pick the same category, round after round, whatever the heap's layout.
#include "kernel/util/lazy_max_heap.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <span>
#include <vector>

namespace schedk {
namespace {

struct Key {
  std::uint64_t value;
  std::uint32_t tie;  // distinct per category: the order is total
};
struct KeyBetter {
  bool operator()(const Key& a, const Key& b) const {
    if (a.value != b.value) return a.value > b.value;
    return a.tie < b.tie;
  }
};

// How the greedy loop finds its winner: by a scan of every category, or by the
// heap given its first keys unordered (Build) or sorted (AssignSorted), found
// by Top or by TopBatched (kHeapBatched: sorted first keys).
enum class Finder { kScan, kHeapBuilt, kHeapSorted, kHeapBatched };

// Runs a greedy loop over n categories with `members` picks each: the winner's
// key drops by a random amount, and so does every key sharing its group (the
// stale entries the heap must not trust). Returns the winners in order.
std::vector<std::uint32_t> Greedy(std::size_t n, std::size_t groups, int members, Finder finder, std::uint64_t seed) {
  const bool with_heap = finder != Finder::kScan;
  std::mt19937_64 rng(seed);
  std::vector<std::uint64_t> value(n);
  std::vector<int> left(n, members);
  for (auto& v : value) v = 1000000 + rng() % 1000000;
  auto key = [&](std::uint32_t c) { return Key{value[c], c}; };
  LazyMaxHeap<Key, KeyBetter> heap;
  if (finder == Finder::kHeapBuilt) {
    for (std::uint32_t c = 0; c < n; ++c) heap.PushUnordered(key(c), c);
    heap.Build();
  } else if (finder == Finder::kHeapSorted || finder == Finder::kHeapBatched) {
    using Entry = LazyMaxHeap<Key, KeyBetter>::Entry;
    std::vector<Entry> entries;
    for (std::uint32_t c = 0; c < n; ++c) entries.push_back({key(c), c});
    std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return KeyBetter{}(a.key, b.key); });
    heap.AssignSorted(std::move(entries));
  }
  std::vector<std::uint32_t> winners;
  for (std::size_t round = 0; round < n * static_cast<std::size_t>(members); ++round) {
    std::uint32_t winner = 0;
    if (finder == Finder::kHeapBatched) {
      std::vector<std::uint32_t> seen(n, 0);
      auto batch = [&](std::span<const std::uint32_t> categories, std::span<Key> keys) {
        ASSERT_EQ(categories.size(), keys.size());
        for (std::size_t k = 0; k < categories.size(); ++k) {
          ASSERT_EQ(seen[categories[k]]++, 0u) << "a category twice in one batch";
          keys[k] = key(categories[k]);
        }
      };
      winner = heap.TopBatched(key, batch).category;
    } else if (with_heap) {
      winner = heap.Top(key).category;
    } else {
      bool found = false;
      for (std::uint32_t c = 0; c < n; ++c) {
        if (left[c] > 0 && (!found || KeyBetter{}(key(c), key(winner)))) {
          winner = c;
          found = true;
        }
      }
    }
    winners.push_back(winner);
    const std::uint64_t drop = rng() % 50000;  // the same draws in both runs
    for (std::uint32_t c = 0; c < n; ++c) {
      if (c % groups == winner % groups) value[c] -= std::min(value[c], drop / (c == winner ? 1 : 4));
    }
    if (--left[winner] == 0) {
      if (with_heap) heap.PopTop();
    } else if (with_heap) {
      heap.ReplaceTop(key(winner));
    }
  }
  return winners;
}

TEST(LazyMaxHeapTest, PicksWhatAScanPicksAsKeysFall) {
  for (std::uint64_t seed : {1, 2, 3}) {
    for (std::size_t n : {1, 2, 3, 4, 5, 17, 64, 301}) {
      const std::vector<std::uint32_t> scan = Greedy(n, 7, 3, Finder::kScan, seed);
      EXPECT_EQ(Greedy(n, 7, 3, Finder::kHeapBuilt, seed), scan) << "n " << n << " seed " << seed;
      EXPECT_EQ(Greedy(n, 7, 3, Finder::kHeapSorted, seed), scan) << "n " << n << " seed " << seed;
      EXPECT_EQ(Greedy(n, 7, 3, Finder::kHeapBatched, seed), scan) << "n " << n << " seed " << seed;
      EXPECT_EQ(scan.size(), n * 3);
    }
  }
}

TEST(LazyMaxHeapTest, BuildOrdersEntriesGivenInAnyOrder) {
  LazyMaxHeap<Key, KeyBetter> heap;
  const std::vector<std::uint64_t> values = {5, 9, 1, 9, 7, 3, 8, 2, 6, 4, 0, 9};
  for (std::uint32_t c = 0; c < values.size(); ++c) heap.PushUnordered(Key{values[c], c}, c);
  heap.Build();
  std::vector<std::uint32_t> order;
  auto same = [&](std::uint32_t c) { return Key{values[c], c}; };
  while (!heap.empty()) {
    order.push_back(heap.Top(same).category);
    heap.PopTop();
  }
  EXPECT_EQ(order, (std::vector<std::uint32_t>{1, 3, 11, 6, 4, 8, 0, 9, 5, 7, 2, 10}));
}

}  // namespace
}  // namespace schedk
