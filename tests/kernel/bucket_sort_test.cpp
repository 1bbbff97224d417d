// BucketSortByKey and ParallelRanksByKey against std::sort and
// std::stable_sort: random keys, doubles' images bunched around one value with
// far outliers (the priorities' shape), few distinct keys, keys apart by one
// or by powers of two, runs in order and reversed, all keys equal, and sizes
// around the insertion-sort and parallel thresholds. With a total order the
// result is std::sort's exactly; with a weak one, ranks keep index order
// among equivalent records.
#include "kernel/bucket_sort.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <tbb/task_arena.h>

#include "kernel/sort_key.hpp"

namespace schedk {
namespace {

using Keys = std::vector<SortKey128>;
// The bucket sorts key the records by their high word (64 bits, ties left to
// `less`) or by the whole key (128 bits, as the dispatch order does).
constexpr auto kHigh = [](const SortKey128& k) { return k.high; };
constexpr auto kWide = [](const SortKey128& k) { return k.wide(); };

// Every shape of input, n records each, named.
std::vector<std::pair<std::string, Keys>> Shapes(std::size_t n, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> near_half(0.49, 0.51);
  Keys random(n), bunched(n), few(n), adjacent(n), powers(n), ascending(n), descending(n), equal(n, {7, 7});
  for (std::size_t i = 0; i < n; ++i) {
    random[i] = {rng(), rng()};
    // Most priorities close together, one in twenty anywhere from 1e-300 to 1e300.
    const double prio = rng() % 20 == 0 ? std::pow(10.0, static_cast<double>(rng() % 601) - 300.0) : near_half(rng);
    bunched[i] = {DescendingBits(prio), i};
    few[i] = {rng() % 3, rng() % 2};
    adjacent[i] = {(std::uint64_t{1} << 40) + rng() % 100, rng()};
    powers[i] = {std::uint64_t{1} << (rng() % 64), i};
    ascending[i] = {i / 3, i};
    descending[i] = {n - i / 3, n - i};
  }
  return {{"random", random},     {"bunched doubles", bunched}, {"three keys", few},
          {"keys apart by one", adjacent}, {"powers of two", powers},  {"ascending", ascending},
          {"descending", descending}, {"all equal", equal}};
}

TEST(BucketSortTest, SortsEveryShapeOfInputLikeStdSort) {
  std::mt19937_64 rng(11);
  for (const std::size_t n : {0u, 1u, 2u, 15u, 16u, 17u, 63u, 64u, 65u, 1000u, 70000u}) {
    for (const auto& [what, keys] : Shapes(n, rng)) {
      Keys expected = keys;
      std::sort(expected.begin(), expected.end());
      Keys by_high = keys, by_wide = keys;
      Keys scratch(keys.size());
      BucketSortByKey(by_high.data(), by_high.data() + by_high.size(), scratch.data(), kHigh, SortKey128Before{});
      BucketSortByKey(by_wide.data(), by_wide.data() + by_wide.size(), scratch.data(), kWide, SortKey128Before{});
      EXPECT_EQ(by_high, expected) << what << ", " << n << " keys by their high words";
      EXPECT_EQ(by_wide, expected) << what << ", " << n << " keys by 128 bits";
    }
  }
}

// InsertionSortWithin sorts what needs at most its budget of moves (a range
// in order but for a few records) as std::sort does, and says when it gave up,
// leaving a permutation of its input.
TEST(BucketSortTest, InsertionSortWithinSortsNearlySortedRangesAndGivesUpOnOthers) {
  std::mt19937_64 rng(5);
  for (const std::size_t n : {0u, 1u, 2u, 17u, 64u, 1000u}) {
    Keys nearly(n);
    for (std::size_t i = 0; i < n; ++i) nearly[i] = {i, 0};
    if (n > 1) std::swap(nearly.front(), nearly.back());  // one record out of place at each end: 2n - 3 moves
    Keys expected = nearly;
    std::sort(expected.begin(), expected.end());
    Keys sorted = nearly;
    EXPECT_TRUE(bucket_sort::InsertionSortWithin(sorted.data(), sorted.data() + n, SortKey128Before{}, 2 * n))
        << n << " keys";
    EXPECT_EQ(sorted, expected) << n << " keys";
  }
  Keys reversed(1000);
  for (std::size_t i = 0; i < reversed.size(); ++i) reversed[i] = {reversed.size() - i, rng()};
  Keys attempt = reversed;
  EXPECT_FALSE(bucket_sort::InsertionSortWithin(attempt.data(), attempt.data() + attempt.size(), SortKey128Before{},
                                                8 * attempt.size()));
  std::sort(attempt.begin(), attempt.end());
  std::sort(reversed.begin(), reversed.end());
  EXPECT_EQ(attempt, reversed);  // the same records
}

// The place of each record in a stable sort of the indices.
std::vector<std::uint32_t> StableRanks(const Keys& keys, auto less) {
  std::vector<std::uint32_t> order(keys.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return less(keys[a], keys[b]); });
  std::vector<std::uint32_t> ranks(keys.size());
  for (std::size_t k = 0; k < order.size(); ++k) ranks[order[k]] = static_cast<std::uint32_t>(k);
  return ranks;
}

TEST(BucketSortTest, RanksEveryShapeOfInputOnOneAndTwoThreads) {
  std::mt19937_64 rng(12);
  for (const std::size_t n : {0u, 1u, 1000u, 65535u, 65536u, 300000u}) {
    for (const auto& [what, keys] : Shapes(n, rng)) {
      const std::vector<std::uint32_t> expected = StableRanks(keys, SortKey128Before{});
      for (const int threads : {1, 2}) {
        std::vector<std::uint32_t> by_high(keys.size(), UINT32_MAX), by_wide(keys.size(), UINT32_MAX);
        tbb::task_arena(threads).execute([&] {
          ParallelRanksByKey(keys.data(), keys.size(), kHigh, SortKey128Before{}, by_high.data());
          ParallelRanksByKey(keys.data(), keys.size(), kWide, SortKey128Before{}, by_wide.data());
        });
        EXPECT_EQ(by_high, expected) << what << ", " << n << " keys by their high words, " << threads << " threads";
        EXPECT_EQ(by_wide, expected) << what << ", " << n << " keys by 128 bits, " << threads << " threads";
      }
    }
  }
}

// A weak order (high words only): equivalent records keep their index order.
TEST(BucketSortTest, RanksEquivalentRecordsInIndexOrder) {
  std::mt19937_64 rng(13);
  auto by_high = [](const SortKey128& a, const SortKey128& b) { return a.high < b.high; };
  for (const std::uint64_t distinct : {1u, 50u, 100000u}) {
    Keys keys(200000);
    for (SortKey128& k : keys) k = {rng() % distinct, rng()};
    std::vector<std::uint32_t> ranks(keys.size());
    ParallelRanksByKey(keys.data(), keys.size(), kHigh, by_high, ranks.data());
    EXPECT_EQ(ranks, StableRanks(keys, by_high)) << distinct << " distinct high words";
  }
}

}  // namespace
}  // namespace schedk
