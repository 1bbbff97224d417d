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

// `rounds` rounds of up to `bookings` bookings and releases, each followed
// by a refresh of some entries in a shuffled order; returns the breakpoints
// compared.
std::size_t CheckRefreshes(std::uint32_t hosts, int rounds, int bookings) {
  testing::TestCluster c(1000);
  c.Queue(c.Hosts(hosts, 8), 8);
  const QueueInstanceTable instances = QueueInstanceTable::Build(c.cluster());
  ResourceLedger ledger(c.cluster(), instances, true);
  std::vector<std::uint32_t> all(ledger.size());
  for (std::uint32_t k = 0; k < all.size(); ++k) all[k] = k;
  FlatDiagrams flat;
  std::mt19937_64 rng(7);
  std::size_t compared = 0;
  for (int round = 0; round < rounds; ++round) {
    for (int b = 0; b < 1 + static_cast<int>(rng() % bookings); ++b) {
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
      const std::vector<Breakpoint> copied(steps.begin(), steps.end());
      EXPECT_EQ(copied, expected) << "round " << round << " entry " << k;
      if (copied != expected) return 0;
      compared += expected.size();
    }
  }
  return compared;
}

TEST(FlatDiagramsTest, EveryEntryNamedHoldsItsDiagramAfterEachRefresh) {
  // The diagrams held many breakpoints, and the copy was rebuilt.
  EXPECT_GT(CheckRefreshes(6, 3000, 4), 100000u);
}

// Entries enough for many blocks (tuning::kLedgerEntriesPerTask), whose
// copies are found and placed block by block in parallel.
TEST(FlatDiagramsTest, ManyBlocksOfEntriesHoldTheirDiagrams) { EXPECT_GT(CheckRefreshes(400, 150, 400), 100000u); }

}  // namespace
}  // namespace schedk
