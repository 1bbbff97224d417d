// The resource ledger's entry versions (what a walk may keep about a diagram,
// a host's mirrored slots, is valid until the entry's version changes) and its
// breakpoint index, kept up to date through bookings and releases.
#include "kernel/dispatch/resource_ledger.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <utility>
#include <vector>

#include "kernel/dispatch/queue_instances.hpp"
#include "kernel/tuning.hpp"
#include "tests/support/test_cluster.hpp"

namespace schedk {
namespace {

TEST(ResourceLedgerTest, EveryDiagramChangeGivesTheEntryANewVersion) {
  testing::TestCluster c(1000);
  c.Queue({c.Host(4)}, 4);
  const QueueInstanceTable instances = QueueInstanceTable::Build(c.cluster());
  ResourceLedger ledger(c.cluster(), instances, true);
  const std::uint32_t host = *ledger.Find({ContainerLevel::kHost, 0}, c.cluster().complexes.slots);
  const std::uint32_t queue = *ledger.Find({ContainerLevel::kQueue, 0}, c.cluster().complexes.slots);
  const std::uint64_t host_before = ledger.version(host), queue_before = ledger.version(queue);
  ledger.Debit(host, 2, 1000, 60, true);
  const std::uint64_t host_after = ledger.version(host);
  EXPECT_NE(host_after, host_before);
  EXPECT_EQ(ledger.version(queue), queue_before);  // untouched
  ledger.Debit(queue, 2, 1000, 60, true);
  EXPECT_NE(ledger.version(queue), queue_before);
  EXPECT_NE(ledger.version(queue), host_after);  // never the same value twice
  ledger.Debit(host, -2, 1000, 60, true);  // a release changes the diagram too
  EXPECT_NE(ledger.version(host), host_after);
  const std::uint64_t released = ledger.version(host);
  ledger.Debit(host, 1, 1000, 0, true);  // no duration: the diagram stays as it is
  EXPECT_EQ(ledger.version(host), released);
}

}  // namespace
}  // namespace schedk

namespace schedk {
namespace {

// Every posting of an index, in order.
std::vector<std::pair<Time, std::uint32_t>> Postings(const BreakpointIndex& index) {
  std::vector<std::pair<Time, std::uint32_t>> out;
  index.ForEachIn(0, BreakpointIndex::kMaxTime + 1, [&](Time t, std::uint32_t k) {
    out.emplace_back(t, k);
    return true;
  });
  return out;
}

// Bookings and releases kept up to date in the index are the index built
// afresh; a rounding that merges two steps inside a booking's window drops it.
TEST(ResourceLedgerTest, TheBreakpointIndexFollowsEveryDebit) {
  testing::TestCluster c(1000);
  c.Queue(c.Hosts(2, 64), 64);
  const QueueInstanceTable instances = QueueInstanceTable::Build(c.cluster());
  ResourceLedger ledger(c.cluster(), instances, true);
  ledger.Debit(0, 3, 1000, 500, true);
  ASSERT_TRUE(ledger.IndexBreakpoints());
  std::mt19937_64 rng(11);
  struct Booking {
    std::uint32_t entry;
    double amount;
    Time start;
    Duration duration;
  };
  std::vector<Booking> booked;
  for (int step = 0; step < 3000; ++step) {
    if (rng() % 3 == 0 && !booked.empty()) {  // a release, exactly undoing a booking
      const std::size_t b = rng() % booked.size();
      const Booking x = booked[b];
      ledger.Debit(x.entry, -x.amount, x.start, x.duration, false);
      booked.erase(booked.begin() + static_cast<long>(b));
    } else {
      const Booking x{static_cast<std::uint32_t>(rng() % ledger.size()), static_cast<double>(1 + rng() % 4),
                      static_cast<Time>(1000 + rng() % 400), static_cast<Duration>(1 + rng() % 300)};
      ledger.Debit(x.entry, x.amount, x.start, x.duration, false);
      booked.push_back(x);
    }
    ASSERT_NE(ledger.breakpoint_index(), nullptr) << "step " << step;
  }
  const auto kept = Postings(*ledger.breakpoint_index());
  EXPECT_GT(kept.size(), 500u);
  ResourceLedger fresh = ledger;
  ASSERT_TRUE(fresh.IndexBreakpoints());
  EXPECT_EQ(kept, Postings(*fresh.breakpoint_index()));

  // 0.1 and the next double above it step apart at 50; with 1 added over
  // both they round to the same 1.1, and the step at 50 is gone.
  ResourceLedger rounding(c.cluster(), instances, true);
  ASSERT_TRUE(rounding.IndexBreakpoints());
  rounding.Debit(1, 0.1, 0, 100, false);
  rounding.Debit(1, std::nextafter(0.1, 1.0) - 0.1, 50, 50, false);
  ASSERT_NE(rounding.breakpoint_index(), nullptr);
  EXPECT_EQ(Postings(*rounding.breakpoint_index()), (std::vector<std::pair<Time, std::uint32_t>>{{0, 1}, {50, 1}, {100, 1}}));
  rounding.Debit(1, 1.0, 0, 200, false);
  EXPECT_EQ(rounding.diagram(1).size(), 3u);  // 0, 100 and 200: the step at 50 merged
  EXPECT_EQ(rounding.breakpoint_index(), nullptr);
  ASSERT_TRUE(rounding.IndexBreakpoints());
  EXPECT_EQ(Postings(*rounding.breakpoint_index()), (std::vector<std::pair<Time, std::uint32_t>>{{0, 1}, {100, 1}, {200, 1}}));
}

// A ledger of many blocks of entries (tuning::kLedgerEntriesPerTask), whose
// index lists them block by block in parallel: every breakpoint of every
// diagram is one posting, in (time, entry) order.
TEST(ResourceLedgerTest, TheBreakpointIndexOfManyEntriesHoldsEveryBreakpoint) {
  testing::TestCluster c(1000);
  c.Queue(c.Hosts(400, 8), 8);
  const QueueInstanceTable instances = QueueInstanceTable::Build(c.cluster());
  ResourceLedger ledger(c.cluster(), instances, true);
  ASSERT_GT(ledger.size(), 3 * tuning::kLedgerEntriesPerTask);
  std::mt19937_64 rng(3);
  for (int step = 0; step < 3000; ++step) {
    const auto k = static_cast<std::uint32_t>(rng() % ledger.size());
    ledger.Debit(k, 1, static_cast<Time>(1000 + rng() % 5000), static_cast<Duration>(1 + rng() % 3000), false);
  }
  std::vector<std::pair<Time, std::uint32_t>> expected;
  for (std::uint32_t k = 0; k < ledger.size(); ++k) {
    for (const Breakpoint& b : ledger.diagram(k).Breakpoints()) expected.emplace_back(b.time, k);
  }
  std::sort(expected.begin(), expected.end());
  ASSERT_TRUE(ledger.IndexBreakpoints());
  EXPECT_GT(expected.size(), 5000u);
  EXPECT_EQ(Postings(*ledger.breakpoint_index()), expected);
}

// DebitAll applies a batch of debits in parallel by entry; the result is
// Debit's, one after another, to the bit: amounts in use now, diagrams (with
// amounts like 0.1, whose sums depend on their order), versions and the index.
TEST(ResourceLedgerTest, DebitAllIsEveryDebitInTurn) {
  testing::TestCluster c(1000);
  const ComplexId mem = c.Consumable(ValueType::kMemory, 0, 0);
  c.Queue(c.Hosts(40, 64, {{mem, 100, {}}}), 64);
  const QueueInstanceTable instances = QueueInstanceTable::Build(c.cluster());
  ResourceLedger serial(c.cluster(), instances, true), parallel(c.cluster(), instances, true);
  ASSERT_TRUE(serial.IndexBreakpoints());
  ASSERT_TRUE(parallel.IndexBreakpoints());
  std::mt19937_64 rng(5);
  for (int batch = 0; batch < 200; ++batch) {
    std::vector<BookedDebit> debits;
    const std::size_t n = rng() % 300;
    for (std::size_t k = 0; k < n; ++k) {
      // Few entries, so that many debits share one; amounts in tenths.
      const auto entry = static_cast<std::uint32_t>(rng() % 12);
      const double amount = static_cast<double>(static_cast<int>(rng() % 41) - 10) / 10.0;
      debits.push_back({entry, amount, static_cast<Time>(1000 + rng() % 500), static_cast<Duration>(rng() % 200),
                        rng() % 2 == 0});
    }
    for (const BookedDebit& d : debits) serial.Debit(d.entry, d.amount, d.start, d.duration, d.now);
    parallel.DebitAll(debits, ExecutionMode::kParallel);
    for (std::uint32_t k = 0; k < serial.size(); ++k) {
      ASSERT_EQ(parallel.entry(k).used_now, serial.entry(k).used_now) << "batch " << batch << " entry " << k;
      ASSERT_EQ(parallel.version(k), serial.version(k)) << "batch " << batch << " entry " << k;
      ASSERT_EQ(parallel.diagram(k).Breakpoints(), serial.diagram(k).Breakpoints()) << "batch " << batch;
    }
    ASSERT_EQ(parallel.breakpoint_index() == nullptr, serial.breakpoint_index() == nullptr) << "batch " << batch;
    if (serial.breakpoint_index() != nullptr) {
      ASSERT_EQ(Postings(*parallel.breakpoint_index()), Postings(*serial.breakpoint_index())) << "batch " << batch;
    } else {  // a rounding merged two steps: both dropped the index; build it again
      ASSERT_TRUE(serial.IndexBreakpoints());
      ASSERT_TRUE(parallel.IndexBreakpoints());
    }
  }
}

// CopyFrom under kParallel (the diagrams copied in blocks of entries) gives
// the ledger that copy assignment gives: amounts, versions, diagrams and the
// index, and a copy that goes on as the original does.
TEST(ResourceLedgerTest, AParallelCopyIsTheCopy) {
  testing::TestCluster c(1000);
  c.Queue(c.Hosts(400, 8), 8);
  const QueueInstanceTable instances = QueueInstanceTable::Build(c.cluster());
  ResourceLedger original(c.cluster(), instances, true);
  ASSERT_GT(original.size(), 3 * tuning::kLedgerEntriesPerTask);
  ASSERT_TRUE(original.IndexBreakpoints());
  std::mt19937_64 rng(7);
  for (int step = 0; step < 3000; ++step) {
    const auto k = static_cast<std::uint32_t>(rng() % original.size());
    original.Debit(k, 1, static_cast<Time>(1000 + rng() % 5000), static_cast<Duration>(1 + rng() % 3000), step % 2 == 0);
  }
  ResourceLedger assigned(c.cluster(), instances, true), copied(c.cluster(), instances, true);
  assigned = original;
  copied.CopyFrom(original, ExecutionMode::kParallel);
  for (ResourceLedger* ledger : {&assigned, &copied}) ledger->Debit(5, 2, 1500, 100, true);  // both go on alike
  for (std::uint32_t k = 0; k < assigned.size(); ++k) {
    ASSERT_EQ(copied.entry(k).used_now, assigned.entry(k).used_now) << "entry " << k;
    ASSERT_EQ(copied.version(k), assigned.version(k)) << "entry " << k;
    ASSERT_EQ(copied.diagram(k).Breakpoints(), assigned.diagram(k).Breakpoints()) << "entry " << k;
  }
  ASSERT_NE(copied.breakpoint_index(), nullptr);
  EXPECT_EQ(Postings(*copied.breakpoint_index()), Postings(*assigned.breakpoint_index()));
  EXPECT_GT(copied.version(5), copied.version(4));  // the copy's versions go on from the original's last
}

}  // namespace
}  // namespace schedk
