// SortRuns against std::sort: runs in order, out of order, empty and single,
// serial and parallel, with a total order and with equivalent elements.
#include "kernel/sorted_runs.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

namespace schedk {
namespace {

// Random data cut into random runs, each sorted unless `disorder` picks it.
struct Workload {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> values;  // (key, unique tag)
  std::vector<std::size_t> cuts;
};

Workload MakeWorkload(std::mt19937_64& rng, std::size_t n, std::size_t runs, double disorder, std::uint32_t keys) {
  Workload w;
  for (std::size_t i = 0; i < n; ++i) w.values.emplace_back(static_cast<std::uint32_t>(rng() % keys), i);
  w.cuts = {0};
  for (std::size_t r = 1; r < runs; ++r) w.cuts.push_back(rng() % (n + 1));
  w.cuts.push_back(n);
  std::sort(w.cuts.begin(), w.cuts.end());  // repeated cuts make empty runs
  std::uniform_real_distribution<double> coin(0, 1);
  for (std::size_t r = 0; r + 1 < w.cuts.size(); ++r) {
    if (coin(rng) >= disorder) std::sort(w.values.begin() + w.cuts[r], w.values.begin() + w.cuts[r + 1]);
  }
  return w;
}

TEST(SortedRunsTest, TotalOrderGivesExactlyStdSortsResult) {
  std::mt19937_64 rng(11);
  for (const bool parallel : {false, true}) {
    for (const std::size_t n : {0u, 1u, 7u, 1000u, 70000u, 200000u}) {
      for (const std::size_t runs : {1u, 2u, 3u, 17u, 300u}) {
        for (const double disorder : {0.0, 0.05, 1.0}) {
          Workload w = MakeWorkload(rng, n, runs, disorder, 50);
          std::vector<std::pair<std::uint32_t, std::uint32_t>> expected = w.values;
          std::sort(expected.begin(), expected.end());  // (key, tag) pairs: a total order
          SortRuns(w.values.data(), w.cuts, std::less<>{}, parallel);
          ASSERT_EQ(w.values, expected) << n << " values, " << runs << " runs, disorder " << disorder
                                        << (parallel ? ", parallel" : ", serial");
        }
      }
    }
  }
}

TEST(SortedRunsTest, EquivalentElementsEndSortedAndPermuted) {
  std::mt19937_64 rng(12);
  Workload w = MakeWorkload(rng, 5000, 40, 0.3, 8);  // many equal keys
  std::vector<std::pair<std::uint32_t, std::uint32_t>> before = w.values;
  auto by_key = [](const auto& a, const auto& b) { return a.first < b.first; };
  SortRuns(w.values.data(), w.cuts, by_key, false);
  EXPECT_TRUE(std::is_sorted(w.values.begin(), w.values.end(), by_key));
  std::sort(before.begin(), before.end());
  std::vector<std::pair<std::uint32_t, std::uint32_t>> after = w.values;
  std::sort(after.begin(), after.end());
  EXPECT_EQ(after, before);
}

}  // namespace
}  // namespace schedk
