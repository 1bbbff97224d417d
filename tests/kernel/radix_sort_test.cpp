// The radix sorts against std::sort and std::stable_sort.
#include "kernel/radix_sort.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <utility>
#include <vector>

namespace schedk {
namespace {

TEST(RadixSortTest, SixtyFourBitKeysMatchStdSort) {
  std::mt19937_64 rng(3);
  for (std::size_t n : {0u, 1u, 2u, 1000u, 100000u}) {
    for (const std::uint64_t mask : {~std::uint64_t{0}, std::uint64_t{0xffff}, std::uint64_t{0xffff00000000}}) {
      std::vector<std::uint64_t> keys(n);
      for (auto& k : keys) k = rng() & mask;  // some masks leave whole 16-bit digits constant
      std::vector<std::uint64_t> expected = keys;
      std::sort(expected.begin(), expected.end());
      RadixSort64(keys);
      ASSERT_EQ(keys, expected) << n << " keys, mask " << mask;
    }
  }
}

TEST(RadixSortTest, RecordsByThirtyTwoBitKeyKeepTheirOrder) {
  std::mt19937_64 rng(4);
  std::vector<std::pair<std::uint32_t, std::uint32_t>> records(50000);
  for (std::uint32_t i = 0; i < records.size(); ++i) records[i] = {static_cast<std::uint32_t>(rng() % 5000), i};
  auto expected = records;
  std::stable_sort(expected.begin(), expected.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  RadixSortBy32(records, [](const auto& r) { return r.first; });
  EXPECT_EQ(records, expected);
}

}  // namespace
}  // namespace schedk
