// FlatIdMap against std::unordered_map as the oracle, with a hash that makes
// many keys collide so that probing and growth are exercised.
#include "kernel/util/flat_id_map.hpp"

#include <cstdint>
#include <unordered_map>

#include <gtest/gtest.h>

namespace schedk {
namespace {

struct FewBuckets {
  std::uint64_t operator()(std::uint64_t key) const { return key % 7; }
};

TEST(FlatIdMapTest, KeepsTheFirstValueOfEveryKeyAcrossGrowth) {
  FlatIdMap<std::uint64_t, FewBuckets> map(UINT64_MAX);
  std::unordered_map<std::uint64_t, std::uint32_t> oracle;
  std::uint64_t x = 12345;
  for (std::uint32_t i = 0; i < 5000; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    const std::uint64_t key = (x >> 40) % 3000;  // many repeats
    const auto [value, fresh] = map.TryEmplace(key, FewBuckets{}(key), i);
    const auto [it, oracle_fresh] = oracle.try_emplace(key, i);
    ASSERT_EQ(fresh, oracle_fresh) << "key " << key;
    ASSERT_EQ(value, it->second) << "key " << key;
  }
  EXPECT_EQ(map.size(), oracle.size());
  for (const auto& [key, expected] : oracle) {
    const std::uint32_t* found = map.Find(key, FewBuckets{}(key));
    ASSERT_NE(found, nullptr) << "key " << key;
    EXPECT_EQ(*found, expected);
    EXPECT_EQ(map.TryEmplace(key, FewBuckets{}(key), 0).first, expected);
  }
  EXPECT_EQ(map.size(), oracle.size());
  for (std::uint64_t key = 3000; key < 3100; ++key) EXPECT_EQ(map.Find(key, FewBuckets{}(key)), nullptr);
}

TEST(FlatIdMapTest, AnEmptyMapFindsNothing) {
  const FlatIdMap<std::uint64_t, FewBuckets> map(UINT64_MAX);
  EXPECT_EQ(map.Find(5, FewBuckets{}(5)), nullptr);
}

TEST(FlatIdMapTest, ValuesCanBeUpdatedThroughTheReference) {
  FlatIdMap<std::uint64_t, FewBuckets> map(UINT64_MAX);
  auto [value, fresh] = map.TryEmplace(42, FewBuckets{}(42), 0);
  EXPECT_TRUE(fresh);
  value = 9;
  EXPECT_EQ(map.TryEmplace(42, FewBuckets{}(42), 0).first, 9u);
  EXPECT_FALSE(map.TryEmplace(42, FewBuckets{}(42), 0).second);
}

}  // namespace
}  // namespace schedk
