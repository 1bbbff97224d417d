// The flat copy of ledger diagrams: after each refresh, every entry named
// holds exactly its diagram's breakpoints, through bookings, releases, entries
// refreshed in different orders and the rebuild once most of the copy is stale.
#include "kernel/dispatch/flat_diagrams.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "kernel/dispatch/queue_instances.hpp"
#include "kernel/dispatch/resource_ledger.hpp"
#include "tests/support/test_cluster.hpp"

namespace schedk {
namespace {

TEST(FlatDiagramsTest, EveryEntryNamedHoldsItsDiagramAfterEachRefresh) {
  testing::TestCluster c(1000);
  c.Queue(c.Hosts(6, 8), 8);
  const QueueInstanceTable instances = QueueInstanceTable::Build(c.cluster());
  ResourceLedger ledger(c.cluster(), instances, true);
  std::vector<std::uint32_t> all(ledger.size());
  for (std::uint32_t k = 0; k < all.size(); ++k) all[k] = k;
  FlatDiagrams flat;
  std::mt19937_64 rng(7);
  std::size_t compared = 0;
  for (int round = 0; round < 3000; ++round) {
    // A few bookings and releases, then a refresh of some entries in a shuffled order.
    for (int b = 0; b < 1 + static_cast<int>(rng() % 4); ++b) {
      const auto k = static_cast<std::uint32_t>(rng() % ledger.size());
      const auto start = static_cast<Time>(1000 + rng() % 5000);
      const auto duration = static_cast<Duration>(1 + rng() % 3000);
      const double amount = rng() % 5 == 0 ? -1.0 : static_cast<double>(1 + rng() % 3);
      ledger.Debit(k, amount, start, duration, false);
    }
    std::vector<std::uint32_t> named = all;
    std::shuffle(named.begin(), named.end(), rng);
    named.resize(1 + rng() % named.size());
    flat.Refresh(ledger, named);
    for (std::uint32_t k : named) {
      const std::vector<Breakpoint> expected = ledger.diagram(k).Breakpoints();
      const auto steps = flat.Steps(k);
      ASSERT_EQ(std::vector<Breakpoint>(steps.begin(), steps.end()), expected) << "round " << round << " entry " << k;
      compared += expected.size();
    }
  }
  EXPECT_GT(compared, 100000u);  // the diagrams held many breakpoints, and the copy was rebuilt
}

}  // namespace
}  // namespace schedk
