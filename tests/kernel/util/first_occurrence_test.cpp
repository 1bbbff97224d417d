// NumberByFirstOccurrence against its reference: one hash map filled in order.
#include "kernel/util/first_occurrence.hpp"

#include <gtest/gtest.h>

#include <random>
#include <unordered_map>
#include <vector>

namespace schedk {
namespace {

FirstOccurrence<int> InOrder(const std::vector<int>& keys) {
  FirstOccurrence<int> out;
  std::unordered_map<int, std::uint32_t> seen;
  for (int key : keys) {
    const auto [it, added] = seen.try_emplace(key, static_cast<std::uint32_t>(out.distinct.size()));
    if (added) out.distinct.push_back(key);
    out.ids.push_back(it->second);
  }
  return out;
}

TEST(FirstOccurrenceTest, EveryPartSizeAndModeNumbersAsOneMapInOrder) {
  std::mt19937 rng(7);
  for (const std::size_t n : {0u, 1u, 5u, 1000u, 40000u}) {
    for (const int range : {1, 30, 100000}) {
      std::vector<int> keys(n);
      for (int& k : keys) k = std::uniform_int_distribution<int>(0, range - 1)(rng);
      const FirstOccurrence<int> expected = InOrder(keys);
      for (const std::size_t part_size : {1u, 3u, 64u, 65536u}) {
        for (const ExecutionMode mode : {ExecutionMode::kSerial, ExecutionMode::kParallel}) {
          const FirstOccurrence<int> got = NumberByFirstOccurrence<int, std::hash<int>>(
              n, [&](std::size_t i) { return keys[i]; }, mode, part_size);
          EXPECT_EQ(got.distinct, expected.distinct) << n << " " << range << " " << part_size;
          EXPECT_EQ(got.ids, expected.ids) << n << " " << range << " " << part_size;
        }
      }
    }
  }
}

// A hand-worked case: 5 7 5 9 7 -> keys 5 7 9, numbers 0 1 0 2 1.
TEST(FirstOccurrenceTest, AHandWorkedSequence) {
  const std::vector<int> keys = {5, 7, 5, 9, 7};
  const FirstOccurrence<int> got = NumberByFirstOccurrence<int, std::hash<int>>(
      keys.size(), [&](std::size_t i) { return keys[i]; }, ExecutionMode::kParallel, 2);
  EXPECT_EQ(got.distinct, (std::vector<int>{5, 7, 9}));
  EXPECT_EQ(got.ids, (std::vector<std::uint32_t>{0, 1, 0, 2, 1}));
}

}  // namespace
}  // namespace schedk
