// BlockSort and ParallelBlockSort against std::sort: random keys, few distinct
// keys, runs in order and reversed, equal keys throughout, sizes around the
// block and insertion-sort thresholds, and ranges past the depth limit (which
// go to std::sort). With a total order the result is std::sort's exactly; with
// a weak one, every key with the high words in order.
#include "kernel/block_sort.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "kernel/sort_key.hpp"

namespace schedk {
namespace {

using Keys = std::vector<SortKey128>;

void ExpectSortsLikeStdSort(Keys keys, const char* what) {
  Keys expected = keys;
  std::sort(expected.begin(), expected.end());
  Keys serial = keys;
  BlockSort(serial.data(), serial.data() + serial.size(), SortKey128Before{});
  EXPECT_EQ(serial, expected) << what << ", " << keys.size() << " keys, serial";
  Keys parallel = std::move(keys);
  ParallelBlockSort(parallel.data(), parallel.data() + parallel.size(), SortKey128Before{});
  EXPECT_EQ(parallel, expected) << what << ", " << parallel.size() << " keys, parallel";
}

TEST(BlockSortTest, SortsEveryShapeOfInputLikeStdSort) {
  std::mt19937_64 rng(5);
  for (const std::size_t n : {0u, 1u, 2u, 23u, 24u, 25u, 129u, 200u, 1000u, 40000u, 300000u}) {
    Keys random(n), few(n), ascending(n), descending(n), equal(n, SortKey128{7, 7});
    for (std::size_t i = 0; i < n; ++i) {
      random[i] = {rng(), rng()};
      few[i] = {rng() % 3, rng() % 2};  // many equivalent keys
      ascending[i] = {i / 3, i};
      descending[i] = {n - i / 3, n - i};
    }
    ExpectSortsLikeStdSort(random, "random");
    ExpectSortsLikeStdSort(few, "three high words");
    ExpectSortsLikeStdSort(ascending, "ascending");
    ExpectSortsLikeStdSort(descending, "descending");
    ExpectSortsLikeStdSort(equal, "all equal");
  }
}

// Past its depth limit a range goes to std::sort: limits of 0, 1 and 3
// levels (where an adversarial input would end up) sort as well.
TEST(BlockSortTest, RangesPastTheDepthLimitStillSort) {
  std::mt19937_64 rng(7);
  Keys keys(100000);
  for (std::size_t i = 0; i < keys.size(); ++i) keys[i] = {rng() % 1000, i};
  Keys expected = keys;
  std::sort(expected.begin(), expected.end());
  for (const int depth : {0, 1, 3}) {
    Keys serial = keys, parallel = keys;
    block_sort::Sort(serial.data(), serial.data() + serial.size(), SortKey128Before{}, depth);
    block_sort::ParallelSort(parallel.data(), parallel.data() + parallel.size(), SortKey128Before{}, depth);
    EXPECT_EQ(serial, expected) << "depth " << depth;
    EXPECT_EQ(parallel, expected) << "depth " << depth;
  }
}

// A weak order (keys compared by their high word only): any permutation with
// the high words in order is right, and the high words must come out sorted
// with every key kept.
TEST(BlockSortTest, WeakOrderKeepsEveryKeyInOrderOfItsHighWord) {
  std::mt19937_64 rng(6);
  Keys keys(70000);
  for (std::size_t i = 0; i < keys.size(); ++i) keys[i] = {rng() % 50, i};
  Keys sorted = keys;
  auto by_high = [](const SortKey128& a, const SortKey128& b) { return a.high < b.high; };
  ParallelBlockSort(sorted.data(), sorted.data() + sorted.size(), by_high);
  EXPECT_TRUE(std::is_sorted(sorted.begin(), sorted.end(), by_high));
  std::sort(sorted.begin(), sorted.end());
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(sorted, keys);
}

}  // namespace
}  // namespace schedk
