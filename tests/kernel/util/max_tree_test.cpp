// MaxTree against a multiset of the values as the oracle: random point
// updates over few distinct values (ties at the maximum), odd sizes and one.
#include "kernel/util/max_tree.hpp"

#include <cstdint>
#include <set>
#include <vector>

#include <gtest/gtest.h>

namespace schedk {
namespace {

TEST(MaxTreeTest, FollowsTheLargestValueThroughPointUpdates) {
  for (const std::size_t n : {std::size_t{1}, std::size_t{3}, std::size_t{1000}}) {
    std::uint64_t x = 42 + n;
    auto next = [&x]() {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      return x >> 33;
    };
    std::vector<double> values(n);
    for (double& v : values) v = static_cast<double>(next() % 8);
    MaxTree tree(values);
    std::multiset<double> oracle(values.begin(), values.end());
    ASSERT_EQ(tree.size(), n);
    ASSERT_EQ(tree.Max(), *oracle.rbegin());
    for (int step = 0; step < 20000; ++step) {
      const std::size_t i = next() % n;
      const double value = static_cast<double>(next() % 8) - 2;  // negative values too
      oracle.erase(oracle.find(values[i]));
      oracle.insert(value);
      values[i] = value;
      tree.Set(i, value);
      ASSERT_EQ(tree[i], value);
      ASSERT_EQ(tree.Max(), *oracle.rbegin()) << "n " << n << " step " << step;
    }
  }
}

TEST(MaxTreeTest, AnEmptyTreeSaysSo) {
  EXPECT_TRUE(MaxTree().empty());
  EXPECT_TRUE(MaxTree(std::vector<double>{}).empty());
  EXPECT_FALSE(MaxTree(std::vector<double>{0.0}).empty());
}

}  // namespace
}  // namespace schedk
