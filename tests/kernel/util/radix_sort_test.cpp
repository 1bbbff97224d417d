// The radix sort against std::sort.
#include "kernel/util/radix_sort.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
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

}  // namespace
}  // namespace schedk
