// Test vectors T3.1 and T3.2 of sge-algorithms.md §3.2 (the blog's functional
// example), the cap max_functional_jobs_to_schedule, dependent ordering, the
// lazy heap against the straightforward loop, and the running tasks' chunks
// against the serial twin.
#include "kernel/priority/functional_policy.hpp"

#include <gtest/gtest.h>

#include <tbb/task_arena.h>

#include "tests/support/population.hpp"
#include "tests/test_support.hpp"

namespace schedk {
namespace {

using testing::Find;
using testing::Load;

std::string BlogSnapshot(const std::string& sconf_extra) {
  return R"(schedk-snapshot 1
now 1302091200
begin sconf
weight_tickets_functional 1000000
auto_user_fshare 100
)" + sconf_extra + R"(
end sconf
begin queue all.q
hostlist n1
slots 8
end queue
job 1 owner=A submit=1302080000 state=r start=1302080100 granted=all.q@n1:1
job 2 owner=A submit=1302080010 state=r start=1302080100 granted=all.q@n1:1
job 3 owner=B submit=1302080020 state=r start=1302080100 granted=all.q@n1:1
job 4 owner=B submit=1302085000
job 5 owner=B submit=1302085010
job 6 owner=B submit=1302085020
job 7 owner=C submit=1302085030
job 8 owner=C submit=1302085040
)";
}

TEST(FunctionalPolicyTest, SharedSharesBlogExample) {  // T3.1
  for (Twin twin : {Twin::kOptimised, Twin::kReference}) {
    const auto s = Load(BlogSnapshot(""));
    const auto r = ComputePriorities(s.cluster, s.jobs, twin);
    EXPECT_DOUBLE_EQ(Find(s, r, 1).values.ftckt, 250000);
    EXPECT_DOUBLE_EQ(Find(s, r, 2).values.ftckt, 250000);
    EXPECT_DOUBLE_EQ(Find(s, r, 3).values.ftckt, 500000);
    // Pending tasks get 0.25e6 * user share / (sum of shares once the task runs).
    EXPECT_DOUBLE_EQ(Find(s, r, 7).values.ftckt, 0.25 * (100.0 * 1e6 / 300));     // C1
    EXPECT_DOUBLE_EQ(Find(s, r, 4).values.ftckt, 0.25 * (50.0 * 1e6 / 300));      // B2
    EXPECT_DOUBLE_EQ(Find(s, r, 8).values.ftckt, 0.25 * (50.0 * 1e6 / 300));      // C2
    EXPECT_DOUBLE_EQ(Find(s, r, 5).values.ftckt, 0.25 * (100.0 / 3 * 1e6 / 300));  // B3
    EXPECT_DOUBLE_EQ(Find(s, r, 6).values.ftckt, 0.25 * (25.0 * 1e6 / 300));      // B4
    EXPECT_NEAR(Find(s, r, 7).values.ftckt, 83333.33, 0.01);
    EXPECT_NEAR(Find(s, r, 4).values.ftckt, 41666.67, 0.01);
    EXPECT_NEAR(Find(s, r, 5).values.ftckt, 27777.78, 0.01);
    EXPECT_NEAR(Find(s, r, 6).values.ftckt, 20833.33, 0.01);
    EXPECT_NEAR(Find(s, r, 7).values.ntckts, 0.16667, 1e-5);
    EXPECT_NEAR(Find(s, r, 4).values.ntckts, 0.08333, 1e-5);
  }
}

TEST(FunctionalPolicyTest, UnsharedSharesBlogExample) {  // T3.2
  for (Twin twin : {Twin::kOptimised, Twin::kReference}) {
    const auto s = Load(BlogSnapshot("share_functional_shares false"));
    const auto r = ComputePriorities(s.cluster, s.jobs, twin);
    for (JobNumber j : {1u, 2u, 3u}) EXPECT_DOUBLE_EQ(Find(s, r, j).values.ftckt, 100 * 1e6 / 300);
    EXPECT_DOUBLE_EQ(Find(s, r, 4).values.ftckt, 62500);
    EXPECT_DOUBLE_EQ(Find(s, r, 5).values.ftckt, 50000);
    EXPECT_DOUBLE_EQ(Find(s, r, 6).values.ftckt, 0.25 * (100 * 1e6 / 600));
    EXPECT_DOUBLE_EQ(Find(s, r, 7).values.ftckt, 0.25 * (100 * 1e6 / 700));
    EXPECT_DOUBLE_EQ(Find(s, r, 8).values.ftckt, 31250);
  }
}

// With a cap of 2 rounds, C1 and B2 are picked; the other tasks keep their
// category head's estimate from the last round: 0.25e6 * 50 / 300.001.
TEST(FunctionalPolicyTest, TasksBeyondTheCapKeepTheLastEstimate) {
  for (Twin twin : {Twin::kOptimised, Twin::kReference}) {
    const auto s = Load(BlogSnapshot("max_functional_jobs_to_schedule 2"));
    const auto r = ComputePriorities(s.cluster, s.jobs, twin);
    const double estimate = 0.25 * (50.0 * 1e6 / (300 + 0.001));
    EXPECT_DOUBLE_EQ(Find(s, r, 7).values.ftckt, 0.25 * (100.0 * 1e6 / 300));
    EXPECT_DOUBLE_EQ(Find(s, r, 4).values.ftckt, 0.25 * (50.0 * 1e6 / 300));
    EXPECT_DOUBLE_EQ(Find(s, r, 5).values.ftckt, estimate);
    EXPECT_DOUBLE_EQ(Find(s, r, 6).values.ftckt, estimate);
    EXPECT_DOUBLE_EQ(Find(s, r, 8).values.ftckt, estimate);
  }
}

TEST(FunctionalPolicyTest, CapZeroGivesPendingTasksNoTickets) {
  const auto s = Load(BlogSnapshot("max_functional_jobs_to_schedule 0"));
  const auto r = ComputePriorities(s.cluster, s.jobs);
  for (JobNumber j = 4; j <= 8; ++j) EXPECT_DOUBLE_EQ(Find(s, r, j).values.ftckt, 0);
  EXPECT_DOUBLE_EQ(Find(s, r, 3).values.ftckt, 500000);
}

TEST(FunctionalPolicyTest, WeightsOverCategoriesWithShares) {
  SchedulerConfig c;
  FunctionalSums only_users{200, 0, 0, 0};
  const FunctionalWeights w = FunctionalWeighting(c, only_users);
  EXPECT_DOUBLE_EQ(w.user, 1.0);
  EXPECT_DOUBLE_EQ(w.project, 0.0);
  const FunctionalWeights all = FunctionalWeighting(c, FunctionalSums{1, 1, 1, 1});
  EXPECT_DOUBLE_EQ(all.user, 0.25);
  EXPECT_DOUBLE_EQ(all.job, 0.25);
}

// The lazy heap must pick exactly what the all-categories loop picks, in every
// configuration, with the cap raised so that every pending task is ranked.
class FunctionalHeapTest : public ::testing::TestWithParam<int> {};

TEST_P(FunctionalHeapTest, MatchesTheStraightforwardLoop) {
  io::Snapshot p = GeneratePopulation({.seed = 100 + static_cast<std::uint64_t>(GetParam()),
                                       .jobs = 3000,
                                       .hosts = 20,
                                       .users = 200,
                                       .projects = 12,
                                       .departments = 5,
                                       .array_fraction = 0.1,
                                       .running_tasks = 300,
                                       .policies = io::PolicyMix::kEvery,
                                       .random_submit = GetParam() >= 4});
  SchedulerConfig& c = p.cluster.config;
  c.max_functional_jobs_to_schedule = GetParam() % 2 == 0 ? 100000 : 700;
  c.share_functional_shares = GetParam() % 3 != 0;
  c.share_override_tickets = GetParam() % 4 != 1;
  static const std::vector<std::vector<TicketPolicy>> kHierarchies = {
      {TicketPolicy::kOverride, TicketPolicy::kFunctional, TicketPolicy::kShareTree},
      {TicketPolicy::kFunctional, TicketPolicy::kShareTree},
      {TicketPolicy::kShareTree, TicketPolicy::kOverride, TicketPolicy::kFunctional},
      {}};
  c.policy_hierarchy = kHierarchies[static_cast<std::size_t>(GetParam()) % kHierarchies.size()];
  const PriorityResult fast = ComputePriorities(p.cluster, p.jobs, Twin::kOptimised);
  const PriorityResult naive = ComputePriorities(p.cluster, p.jobs, Twin::kReference);
  ASSERT_EQ(fast.tickets.refs.size(), naive.tickets.refs.size());
  std::size_t with_tickets = 0;
  for (std::size_t i = 0; i < fast.tickets.refs.size(); ++i) {
    ASSERT_EQ(fast.tickets.refs.ftix[i], naive.tickets.refs.ftix[i]) << "ref " << i;
    ASSERT_EQ(fast.tickets.refs.otix[i], naive.tickets.refs.otix[i]) << "ref " << i;
    ASSERT_EQ(fast.tickets.refs.stix[i], naive.tickets.refs.stix[i]) << "ref " << i;
    with_tickets += fast.tickets.refs.ftix[i] > 0;
  }
  EXPECT_GT(with_tickets, 1000u);
}

// The running tasks' passes 1 and 2 work each task's shares out in parallel
// chunks and sum them in ref order: with tens of thousands of running tasks
// (several chunks), their tickets and the pending ones' equal the serial
// twin's to the bit, shared and unshared.
TEST(FunctionalPolicyTest, RunningTasksInChunksMatchTheSerialTwin) {
  for (const bool shared : {true, false}) {
    io::Snapshot p = GeneratePopulation({.seed = 7,
                                         .jobs = 60000,
                                         .hosts = 1000,
                                         .users = 300,
                                         .projects = 20,
                                         .departments = 6,
                                         .running_tasks = 50000,
                                         .policies = io::PolicyMix::kEvery});
    p.cluster.config.share_functional_shares = shared;
    tbb::task_arena arena(3);
    const PriorityResult fast = arena.execute([&] { return ComputePriorities(p.cluster, p.jobs); });
    const PriorityResult naive = ComputePriorities(p.cluster, p.jobs, Twin::kReference);
    const TicketRefs& a = fast.tickets.refs;
    ASSERT_EQ(a.size(), naive.tickets.refs.size());
    ASSERT_GT(a.running, 40000u);
    for (std::size_t i = 0; i < a.size(); ++i) {
      ASSERT_EQ(a.ftix[i], naive.tickets.refs.ftix[i]) << "ref " << i << (shared ? ", shared" : ", unshared");
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Configurations, FunctionalHeapTest, ::testing::Range(0, 8));

}  // namespace
}  // namespace schedk
