// The resource ledger's entry versions: what a walk may keep about a diagram
// (a host's mirrored slots) is valid until the entry's version changes.
#include "kernel/dispatch/resource_ledger.hpp"

#include <gtest/gtest.h>

#include "tests/test_support.hpp"

namespace schedk {
namespace {

TEST(ResourceLedgerTest, EveryDiagramChangeGivesTheEntryANewVersion) {
  const io::Snapshot s = testing::Load(
      "schedk-snapshot 1\nnow 1000\n"
      "begin exechost h1\ncomplex_values slots=4\nend exechost\n"
      "begin queue all.q\nhostlist h1\nslots 4\nend queue\n");
  const QueueInstanceTable instances = QueueInstanceTable::Build(s.cluster);
  ResourceLedger ledger(s.cluster, instances, true);
  const std::uint32_t host = *ledger.Find({ContainerLevel::kHost, 0}, s.cluster.complexes.slots);
  const std::uint32_t queue = *ledger.Find({ContainerLevel::kQueue, 0}, s.cluster.complexes.slots);
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
