// The host coverage of a queue-end-time walk, worked by hand: three hosts of
// 8 slots, each busy for one stretch; a host is denied the rule's per-host
// count for the start times whose window of d seconds meets its busy stretch,
// [busy from - d + 1, busy to - 1]. Under $pe_slots the hosts fail where all
// three are denied; under a fixed rule needing two hosts, where two are.
// Also the reservation rule (is_reserve) and the allocation rules' verdicts.
#include "kernel/reservation/host_coverage.hpp"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "kernel/dispatch/queue_instances.hpp"
#include "kernel/reservation/reserve_rule.hpp"
#include "tests/support/test_cluster.hpp"

namespace schedk::dispatch_detail {
namespace {

using Ranges = std::vector<std::pair<Time, Time>>;

struct ThreeHosts {
  Cluster cluster;
  QueueInstanceTable instances;
  ResourceLedger ledger;
  WalkPlan walk;
  std::vector<double> amounts;

  static Cluster Build() {
    testing::TestCluster c(1000);
    c.config().max_reservation = 10;
    c.Queue(c.Hosts(3, 8), 8);
    return c.cluster();
  }

  ThreeHosts() : cluster(Build()), instances(QueueInstanceTable::Build(cluster)), ledger(cluster, instances, true) {
    // Busy: h1 6 slots over [2000, 3000), h2 5 over [2500, 4000), h3 8 over [1000, 2200).
    const std::pair<Time, Time> busy[] = {{2000, 3000}, {2500, 4000}, {1000, 2200}};
    const double used[] = {6, 5, 8};
    for (std::uint32_t h = 0; h < 3; ++h) {
      const std::uint32_t k = *ledger.Find({ContainerLevel::kHost, h}, cluster.complexes.slots);
      ledger.Debit(k, used[h], busy[h].first, static_cast<Duration>(busy[h].second - busy[h].first), false);
      // The host's slots entry is its one demand; its instance draws on nothing else here.
      walk.demands.push_back({k, DemandKind::kPerSlot});
      walk.demand_host.push_back(h);
      walk.instances.push_back({instances.Find(QueueId(0), HostId(h)), h + 1, h + 1});
      walk.hosts.push_back({HostId(h), h, h + 1, h, h + 1});
      amounts.push_back(1);
    }
  }

  HostCoverage Cover(const RuleVerdict& verdict, Duration d) {
    FlatDiagrams flat;
    return HostCoverage::Build(walk, DemandCounter{walk, amounts, ledger}, verdict, d, ledger, flat);
  }
};

TEST(HostCoverageTest, EachHostIsDeniedWhereItsWindowMeetsItsBusyStretch) {
  ThreeHosts cluster;
  const HostCoverage coverage = cluster.Cover(RuleVerdict{AllocationRule::kPeSlots, 4, 4}, 500);
  // h1: 8 - 6 = 2 < 4 over [2000, 3000): denied for t in [1501, 2999].
  EXPECT_FALSE(coverage.Denies(0, 1500));
  EXPECT_TRUE(coverage.Denies(0, 1501));
  EXPECT_TRUE(coverage.Denies(0, 2999));
  EXPECT_FALSE(coverage.Denies(0, 3000));
  // h2: 8 - 5 = 3 < 4 over [2500, 4000): [2001, 3999].
  EXPECT_FALSE(coverage.Denies(1, 2000));
  EXPECT_TRUE(coverage.Denies(1, 3999));
  EXPECT_FALSE(coverage.Denies(1, 4000));
  // h3: fully busy over [1000, 2200): [501, 2199].
  EXPECT_TRUE(coverage.Denies(2, 501));
  EXPECT_FALSE(coverage.Denies(2, 2200));
  EXPECT_EQ(coverage.denied, (Ranges{{1501, 2999}, {2001, 3999}, {501, 2199}}));
}

TEST(HostCoverageTest, PeSlotsFailsWhereEveryHostIsDenied) {
  ThreeHosts cluster;
  const HostCoverage coverage = cluster.Cover(RuleVerdict{AllocationRule::kPeSlots, 4, 4}, 500);
  // [1501, 2999] ∩ [2001, 3999] ∩ [501, 2199]
  EXPECT_EQ(coverage.failures, (Ranges{{2001, 2199}}));
  EXPECT_FALSE(coverage.FailsAt(2000));
  EXPECT_TRUE(coverage.FailsAt(2100));
  EXPECT_FALSE(coverage.FailsAt(2200));
  EXPECT_TRUE(coverage.FailsIn(1000, 2001));
  EXPECT_FALSE(coverage.FailsIn(2200, 5000));
}

TEST(HostCoverageTest, FixedRuleFailsWhereTooFewHostsAreLeft) {
  ThreeHosts cluster;
  // 8 slots at 4 per host: two hosts with room are needed.
  const HostCoverage coverage = cluster.Cover(RuleVerdict{AllocationRule::kFixed, 8, 4}, 500);
  // Two or more denied: [1501, 2199] (h1, h3), [2001, 2999] (h1, h2), [2001, 2199] (all).
  EXPECT_EQ(coverage.failures, (Ranges{{1501, 2999}}));
  // Three hosts needed: any denial fails.
  const HostCoverage three = cluster.Cover(RuleVerdict{AllocationRule::kFixed, 12, 4}, 500);
  EXPECT_EQ(three.failures, (Ranges{{501, 3999}}));
}

TEST(RuleVerdictTest, EachAllocationRuleCountsWhatItNeeds) {
  // $fill_up and $round_robin: the slots summed over the hosts.
  EXPECT_TRUE((RuleVerdict{AllocationRule::kFillUp, 6, 1}.Allows(6, 0)));
  EXPECT_FALSE((RuleVerdict{AllocationRule::kRoundRobin, 6, 1}.Allows(5, 5)));
  // $pe_slots: one host with room for all of them.
  EXPECT_TRUE((RuleVerdict{AllocationRule::kPeSlots, 6, 6}.Allows(0, 1)));
  EXPECT_FALSE((RuleVerdict{AllocationRule::kPeSlots, 6, 6}.Allows(100, 0)));
  // A fixed count per host: enough hosts with room for it.
  EXPECT_TRUE((RuleVerdict{AllocationRule::kFixed, 8, 4}.Allows(0, 2)));
  EXPECT_FALSE((RuleVerdict{AllocationRule::kFixed, 8, 4}.Allows(100, 1)));
}

TEST(ReserveRuleTest, OnlyRequestedNonImmediateTasksBelowTheLimitReserve) {
  SchedulerConfig config;
  config.max_reservation = 2;
  EXPECT_TRUE(MayReserve(config, 0, true, false, false));
  EXPECT_TRUE(MayReserve(config, 1, true, false, false));
  EXPECT_FALSE(MayReserve(config, 2, true, false, false));  // max_reservation reached
  EXPECT_FALSE(MayReserve(config, 0, false, false, false));  // no -R y
  EXPECT_FALSE(MayReserve(config, 0, true, true, false));    // -now y
  EXPECT_FALSE(MayReserve(config, 0, true, false, true));    // its category failed to reserve
  config.max_reservation = 0;
  EXPECT_FALSE(MayReserve(config, 0, true, false, false));  // reservation off
}

}  // namespace
}  // namespace schedk::dispatch_detail
