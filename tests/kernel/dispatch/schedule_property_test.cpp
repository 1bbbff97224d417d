// Properties of scheduling intervals on generated clusters (io's snapshot
// generator, hundreds of seeds): no resource container is ever over capacity
// at any time of the plan (running + starting + reserved, replayed from the
// MONITOR records into naive diagrams), so no backfilled job delays a
// reservation; every task gets exactly one decision and every pending one a
// reason; starts happen now; the serial and parallel runs agree exactly.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "io/snapshot_generator.hpp"
#include "kernel/dispatch/schedule.hpp"
#include "tests/plan_check.hpp"
#include "tests/test_support.hpp"

namespace schedk {
namespace {

io::Snapshot Load(const io::GeneratorSpec& spec) { return testing::Load(testing::GeneratedText(spec)); }

io::GeneratorSpec SmallCluster(std::uint64_t seed) {
  io::GeneratorSpec spec;
  spec.seed = seed;
  spec.hosts = 2 + seed % 5;
  spec.slots_per_host = 4 + seed % 5;
  spec.jobs = 30 + seed % 50;
  spec.users = 6;
  spec.projects = 3;
  spec.departments = 2;
  spec.parallel_fraction = 0.25;
  spec.array_fraction = 0.1;
  spec.reserve_fraction = 0.4;
  spec.license_fraction = 0.3;
  spec.running_fraction = 0.2 + 0.1 * static_cast<double>(seed % 7);
  spec.max_reservation = 1 + seed % 40;
  spec.reserve_in_gaps = seed % 3 == 0;
  if (seed % 4 == 1) spec.exclusive_fraction = 0.15;
  if (seed % 5 == 2) spec.scratch_fraction = 0.2;
  // Jobs that share their requests: the searches of the later ones read what
  // the earlier ones found (HostRoomCache, walk plans).
  if (seed % 3 == 0) spec.categories = 3 + seed % 5;
  return spec;
}

struct Outcomes {
  std::size_t starts = 0, reserves = 0, pending = 0;
};

// Schedules one generated cluster in both modes and checks every property.
void CheckInterval(const io::GeneratorSpec& spec, Outcomes& outcomes) {
  const std::uint64_t seed = spec.seed;
  const io::Snapshot s = Load(spec);
  ASSERT_FALSE(s.jobs.shards().empty());
  const PriorityResult priorities = ComputePriorities(s.cluster, s.jobs);
  const QueueInstanceTable instances = QueueInstanceTable::Build(s.cluster);
  const ScheduleResult parallel = ScheduleInterval(s.cluster, s.jobs, priorities, instances, Twin::kOptimised);
  const ScheduleResult serial = ScheduleInterval(s.cluster, s.jobs, priorities, instances, Twin::kReference);
  ASSERT_TRUE(testing::SameSchedule(parallel, serial)) << "seed " << seed;

  // Replay every booking of the plan (tests/plan_check.hpp).
  const std::string over = testing::CheckPlanCapacity(s.cluster, instances, parallel);
  ASSERT_TRUE(over.empty()) << "seed " << seed << ": " << over;
  // One decision per task that is neither running nor suspended; reasons for the pending.
  std::size_t tasks = 0;
  for (const DispatchEntry& e : priorities.order) {
    tasks += priorities.roles[e.row] != RowRole::kRunning && priorities.roles[e.row] != RowRole::kSuspended;
  }
  ASSERT_EQ(parallel.decisions.size(), tasks) << "seed " << seed;
  for (const Decision& d : parallel.decisions) {
    if (d.kind == DecisionKind::kPending) {
      ASSERT_NE(d.reason, PendingReason::kNone) << "seed " << seed << " job " << d.job;
      if (d.reason == PendingReason::kResource || d.reason == PendingReason::kPe) {
        ASSERT_NE(d.object, UINT32_MAX) << "seed " << seed << " job " << d.job << "." << d.task;
      }
      ++outcomes.pending;
      continue;
    }
    ASSERT_GT(d.grant_end, d.grant_begin) << "seed " << seed << " job " << d.job;
    std::uint32_t slots = 0;
    for (std::uint32_t g = d.grant_begin; g < d.grant_end; ++g) slots += parallel.grants[g].slots;
    ASSERT_EQ(slots, d.slots) << "seed " << seed << " job " << d.job;
    if (d.kind == DecisionKind::kStart) {
      ASSERT_EQ(d.at, s.cluster.now) << "seed " << seed;
      ++outcomes.starts;
    } else {
      ++outcomes.reserves;
    }
  }
}

TEST(SchedulePropertyTest, PlansStayWithinCapacityOnGeneratedClusters) {
  Outcomes outcomes;
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    CheckInterval(SmallCluster(seed), outcomes);
    if (::testing::Test::HasFatalFailure()) return;
  }
  // The seeds exercise every outcome.
  EXPECT_GT(outcomes.starts, 200u);
  EXPECT_GT(outcomes.reserves, 1000u);
  EXPECT_GT(outcomes.pending, 5000u);
}

// The same with resource quota sets (io's generator: per project on short.q,
// per user on a rack, per user): no rule instance is over its limit at any
// time of the plan either, and quotas keep some jobs pending.
TEST(SchedulePropertyTest, PlansStayWithinQuotasOnGeneratedClusters) {
  Outcomes outcomes;
  std::size_t quota_pending = 0;
  for (std::uint64_t seed = 1; seed <= 100; ++seed) {
    io::GeneratorSpec spec = SmallCluster(seed);
    spec.quota_sets = 1 + seed % 3;
    spec.users = 3;
    CheckInterval(spec, outcomes);
    if (::testing::Test::HasFatalFailure()) return;
    const io::Snapshot s = Load(spec);
    const ScheduleResult result =
        ScheduleInterval(s.cluster, s.jobs, ComputePriorities(s.cluster, s.jobs), QueueInstanceTable::Build(s.cluster));
    for (const Decision& d : result.decisions) quota_pending += d.reason == PendingReason::kQuota;
  }
  EXPECT_GT(outcomes.starts, 100u);
  EXPECT_GT(outcomes.reserves, 200u);
  EXPECT_GT(quota_pending, 100u);
}

// The same on clusters of dozens of hosts, whose reservations under quotas
// search many candidate times (QuotaStartFrom, from the ledger's breakpoint
// index in the optimised twin).
TEST(SchedulePropertyTest, PlansStayWithinQuotasOnLargerClusters) {
  Outcomes outcomes;
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    io::GeneratorSpec spec = SmallCluster(seed);
    spec.hosts = 30 + seed % 20;
    spec.jobs = 400 + 20 * seed;
    spec.quota_sets = 1 + seed % 3;
    spec.users = 4;
    spec.max_reservation = 30;
    CheckInterval(spec, outcomes);
    if (::testing::Test::HasFatalFailure()) return;
  }
  EXPECT_GT(outcomes.reserves, 200u);
}

// Thousands of running tasks under quotas: their bookings are listed in
// chunks on all threads and applied in job order (BookRunningJobs), as the
// reference twin does on one thread; the running tasks' `L` lines number the
// rule instances in the order they first name them, as Grid Engine writes
// them one booking after another.
TEST(SchedulePropertyTest, RunningTasksListedInChunksBookInJobOrder) {
  io::GeneratorSpec spec = SmallCluster(5);
  spec.hosts = 100;
  spec.slots_per_host = 64;
  spec.jobs = 6000;
  spec.running_fraction = 0.6;
  spec.quota_sets = 2;
  spec.users = 40;
  spec.max_reservation = 10;
  const io::Snapshot s = Load(spec);
  const PriorityResult priorities = ComputePriorities(s.cluster, s.jobs);
  const QueueInstanceTable instances = QueueInstanceTable::Build(s.cluster);
  const ScheduleResult parallel = ScheduleInterval(s.cluster, s.jobs, priorities, instances, Twin::kOptimised);
  const ScheduleResult serial = ScheduleInterval(s.cluster, s.jobs, priorities, instances, Twin::kReference);
  ASSERT_TRUE(testing::SameSchedule(parallel, serial));
  std::size_t running = 0;
  for (RowRole role : priorities.roles) running += role == RowRole::kRunning || role == RowRole::kSuspended;
  EXPECT_GT(running, 3000u);  // several chunks of tuning::kRunningTasksPerChunk
  std::uint32_t named = 0, quota_lines = 0;
  for (std::uint32_t k = 0; k < parallel.running_monitor; ++k) {
    const MonitorRecord& line = parallel.monitor[k];
    if (line.container.level != ContainerLevel::kQuota) continue;
    ++quota_lines;
    ASSERT_LE(line.container.index, named) << "line " << k;
    if (line.container.index == named) ++named;
  }
  EXPECT_GT(quota_lines, running);
  EXPECT_LE(named, parallel.quota_keys.size());
  EXPECT_GT(named, 40u);  // per user, per set
  EXPECT_EQ(testing::CheckPlanCapacity(s.cluster, instances, parallel), "");
}

// Running jobs listed against job order, in blocks of job numbers that fall
// in different shards: their MONITOR lines still come in job order (each
// shard's rows sorted, the shards' runs merged: Interval::RunningTasks).
TEST(SchedulePropertyTest, RunningTasksListedOutOfOrderBookInJobOrder) {
  std::string text =
      "schedk-snapshot 1\nnow 100000\nbegin sconf\nmax_reservation 10\nend sconf\n"
      "begin exechost h1\nend exechost\nbegin queue all.q\nhostlist h1\nslots 64\nend queue\n";
  constexpr int kJobs = 40;
  for (int k = kJobs; k >= 1; --k) {  // 40 blocks of 1,024 numbers, last first; two jobs of a block swapped
    for (int job : {k * 1024 + 9, k * 1024 + 3}) {
      text += "job " + std::to_string(job) + " owner=u submit=10 state=r start=" + std::to_string(1000 + job) +
              " granted=all.q@h1:1 l_hard=h_rt=90000\n";
    }
  }
  const io::Snapshot s = testing::Load(text);
  ASSERT_GT(s.jobs.shards().size(), 1u);
  const PriorityResult priorities = ComputePriorities(s.cluster, s.jobs);
  const QueueInstanceTable instances = QueueInstanceTable::Build(s.cluster);
  const ScheduleResult result = ScheduleInterval(s.cluster, s.jobs, priorities, instances);
  std::vector<JobNumber> order;
  for (std::uint32_t k = 0; k < result.running_monitor; ++k) {
    if (order.empty() || order.back() != result.monitor[k].job) order.push_back(result.monitor[k].job);
  }
  std::vector<JobNumber> expected;
  for (int k = 1; k <= kJobs; ++k) expected.insert(expected.end(), {JobNumber(k * 1024 + 3), JobNumber(k * 1024 + 9)});
  EXPECT_EQ(order, expected);
}

// A zero-length booking (h_rt=0, reserved) books nothing in time: the
// ledger leaves it out of its diagrams, and so does the plan replay (found by
// fuzz_snapshot, where the replay's naive diagram refused the empty window).
TEST(SchedulePropertyTest, ZeroLengthReservationsBookNothing) {
  for (const char* gaps : {"0", "1"}) {
    const io::Snapshot s = testing::Load(std::string("schedk-snapshot 1\nnow 1000\nbegin sconf\nmax_reservation 10\n"
                                                     "params DURATION_OFFSET=0,RESERVE_IN_GAPS=") +
                                         gaps +
                                         "\nend sconf\nbegin exechost h1\nend exechost\n"
                                         "begin queue all.q\nhostlist h1\nslots 1\nend queue\n"
                                         "job 1 owner=u submit=800 state=r start=900 granted=all.q@h1:1 l_hard=h_rt=200\n"
                                         "job 11 owner=u submit=950 R=y l_hard=h_rt=0\n");
    const PriorityResult priorities = ComputePriorities(s.cluster, s.jobs);
    const QueueInstanceTable instances = QueueInstanceTable::Build(s.cluster);
    const ScheduleResult result = ScheduleInterval(s.cluster, s.jobs, priorities, instances);
    ASSERT_EQ(result.decisions.size(), 1u);
    EXPECT_EQ(result.decisions[0].kind, DecisionKind::kReserve) << "RESERVE_IN_GAPS=" << gaps;
    EXPECT_EQ(result.decisions[0].at, 1100) << "RESERVE_IN_GAPS=" << gaps;
    EXPECT_EQ(testing::CheckPlanCapacity(s.cluster, instances, result), "") << "RESERVE_IN_GAPS=" << gaps;
  }
}

// A busy cluster: most slots run jobs with many distinct end times, and most
// pending jobs are parallel and reserve.
io::GeneratorSpec BusyCluster(std::uint64_t seed, std::uint32_t hosts, std::uint32_t slots_per_host,
                              double parallel_fraction, double reserve_fraction, double running_fraction,
                              std::uint32_t max_reservation) {
  io::GeneratorSpec spec;
  spec.seed = seed;
  spec.hosts = hosts;
  spec.slots_per_host = slots_per_host;
  spec.jobs = 60;
  spec.users = 8;
  spec.projects = 3;
  spec.parallel_fraction = parallel_fraction;
  spec.reserve_fraction = reserve_fraction;
  spec.running_fraction = running_fraction;
  spec.max_reservation = max_reservation;
  return spec;
}

// Clusters with thousands of breakpoints, so the parallel queue-end-time walk
// goes through several chunks of candidate times.
TEST(SchedulePropertyTest, ParallelSweepAcrossChunksMatchesTheWalk) {
  Outcomes outcomes;
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    CheckInterval(BusyCluster(seed, 24, 16, 0.5, 0.8, 0.9, 20), outcomes);
    if (::testing::Test::HasFatalFailure()) return;
  }
  EXPECT_GT(outcomes.reserves, 20u);
}

// Clusters with thousands of candidate times below the last rise, so the
// parallel walk skips stretches by their lower bounds and sweeps only the
// stretches that need it (more than 64 candidates each).
TEST(SchedulePropertyTest, LowerBoundSkipsMatchTheWalk) {
  Outcomes outcomes;
  for (std::uint64_t seed = 1; seed <= 2; ++seed) {
    CheckInterval(BusyCluster(seed, 100, 32, 0.6, 0.9, 0.95, 25), outcomes);
    if (::testing::Test::HasFatalFailure()) return;
  }
  EXPECT_GT(outcomes.reserves, 25u);
}

}  // namespace
}  // namespace schedk
