// BucketSortByKey and ParallelSortByKey against std::sort: random keys,
// doubles' images bunched around one value with far outliers (the
// priorities' shape), few distinct keys, keys apart by one or by powers of
// two, runs in order and reversed, all keys equal, and sizes around the
// insertion-sort and parallel thresholds. With a total order the result is
// std::sort's exactly; with a weak one, the parallel sort's does not depend on
// the thread count. Also: doubles' descending images map back to the values.
#include "kernel/util/bucket_sort.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <tbb/task_arena.h>

#include "kernel/util/sort_key.hpp"

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

// ParallelSortByKey on 1 or 2 threads, its runs copied to their ranks in
// `out`. Each rank must be handed over once: `final[i]` counts the runs that
// held rank i, each checked against `expected` as it was handed over.
struct ParallelSorted {
  Keys out;
  std::vector<int> final;
};
template <class Key, class Less>
ParallelSorted SortInParallel(const Keys& keys, Key key, Less less, const Keys& expected, int threads) {
  ParallelSorted r{Keys(keys.size()), std::vector<int>(keys.size(), 0)};
  tbb::task_arena(threads).execute([&] {
    ParallelSortByKey(keys.data(), keys.size(), key, less,
                      [&](const SortKey128* sorted, std::size_t count, std::size_t rank) {
                        for (std::size_t k = 0; k < count; ++k) {
                          r.out[rank + k] = sorted[k];
                          r.final[rank + k] += sorted[k] == expected[rank + k] ? 1 : 100;
                        }
                      });
  });
  return r;
}

TEST(BucketSortTest, SortsInParallelEveryShapeOfInputLikeStdSortOnOneAndTwoThreads) {
  std::mt19937_64 rng(12);
  for (const std::size_t n : {0u, 1u, 1000u, 65535u, 65536u, 300000u}) {
    for (const auto& [what, keys] : Shapes(n, rng)) {
      Keys expected = keys;
      std::sort(expected.begin(), expected.end());
      const std::vector<int> once(n, 1);
      for (const int threads : {1, 2}) {
        const ParallelSorted by_high = SortInParallel(keys, kHigh, SortKey128Before{}, expected, threads);
        const ParallelSorted by_wide = SortInParallel(keys, kWide, SortKey128Before{}, expected, threads);
        const std::string where = what + ", " + std::to_string(n) + " keys, " + std::to_string(threads) + " threads";
        EXPECT_EQ(by_high.out, expected) << where << ", by their high words";
        EXPECT_EQ(by_wide.out, expected) << where << ", by 128 bits";
        EXPECT_EQ(by_high.final, once) << where << ", by their high words: runs handed over";
        EXPECT_EQ(by_wide.final, once) << where << ", by 128 bits: runs handed over";
      }
    }
  }
}

// A weak order (high words only): the records come out ordered by it, the
// same records, and in the same order on one thread and on two.
TEST(BucketSortTest, SortsEquivalentRecordsInParallelAlikeOnOneAndTwoThreads) {
  std::mt19937_64 rng(13);
  auto by_high = [](const SortKey128& a, const SortKey128& b) { return a.high < b.high; };
  for (const std::uint64_t distinct : {1u, 50u, 100000u}) {
    Keys keys(200000);
    for (SortKey128& k : keys) k = {rng() % distinct, rng()};
    Keys one(keys.size()), two(keys.size());
    auto sort_into = [&](Keys& out) {
      ParallelSortByKey(keys.data(), keys.size(), kHigh, by_high,
                        [&](const SortKey128* sorted, std::size_t count, std::size_t rank) {
                          std::copy(sorted, sorted + count, out.begin() + static_cast<std::ptrdiff_t>(rank));
                        });
    };
    tbb::task_arena(1).execute([&] { sort_into(one); });
    tbb::task_arena(2).execute([&] { sort_into(two); });
    EXPECT_TRUE(std::is_sorted(one.begin(), one.end(), by_high)) << distinct << " distinct high words";
    EXPECT_EQ(one, two) << distinct << " distinct high words";
    Keys records = keys, sorted = one;
    std::sort(records.begin(), records.end());
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(sorted, records) << distinct << " distinct high words";
  }
}

TEST(SortKeyTest, DescendingImagesComeBackAsTheirValues) {
  for (const double v : {0.0, 1.0, -1.0, 0.5, 1e-300, -1e-300, 4.9e-324, 1e300, -1e300, 123456.789, -0.01}) {
    EXPECT_EQ(std::bit_cast<std::uint64_t>(FromDescendingBits(DescendingBits(v))), std::bit_cast<std::uint64_t>(v))
        << v;
  }
  EXPECT_EQ(std::bit_cast<std::uint64_t>(FromDescendingBits(DescendingBits(-0.0))), std::bit_cast<std::uint64_t>(0.0));
}

}  // namespace
}  // namespace schedk
