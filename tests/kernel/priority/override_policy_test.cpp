// Test vector T3.3 of sge-algorithms.md §3.3 (override tickets) and T1.4's
// "equal non-zero totals normalise to 1.0".
#include "kernel/priority/override_policy.hpp"

#include <gtest/gtest.h>

#include "tests/test_support.hpp"

namespace schedk {
namespace {

using testing::Find;
using testing::Load;

std::string Snapshot(const std::string& sconf, const std::string& p2_extra) {
  return R"(schedk-snapshot 1
now 2000
begin sconf
)" + sconf + R"(
end sconf
begin user U
oticket 1000
end user
begin queue all.q
hostlist n1
slots 8
end queue
job 1 owner=U submit=1000 state=r start=1100 granted=all.q@n1:1
job 2 owner=U submit=1001 state=r start=1100 granted=all.q@n1:1
job 5 owner=U submit=1500
job 6 owner=U submit=1501 )" + p2_extra + "\n";
}

TEST(OverridePolicyTest, SharedTicketsAreDividedAmongActiveJobs) {
  for (Twin twin : {Twin::kOptimised, Twin::kReference}) {
    const auto s = Load(Snapshot("", ""));
    const auto r = ComputePriorities(s.cluster, s.jobs, twin);
    EXPECT_DOUBLE_EQ(Find(s, r, 1).values.otckt, 500);
    EXPECT_DOUBLE_EQ(Find(s, r, 2).values.otckt, 500);
    EXPECT_DOUBLE_EQ(Find(s, r, 5).values.otckt, 1000.0 / 3);
    EXPECT_DOUBLE_EQ(Find(s, r, 6).values.otckt, 250);
  }
}

TEST(OverridePolicyTest, UnsharedTicketsGoWholeToEveryJob) {
  const auto s = Load(Snapshot("share_override_tickets false", ""));
  const auto r = ComputePriorities(s.cluster, s.jobs);
  for (JobNumber j : {1u, 2u, 5u, 6u}) {
    EXPECT_DOUBLE_EQ(Find(s, r, j).values.otckt, 1000);
    EXPECT_DOUBLE_EQ(Find(s, r, j).values.ntckts, 1.0);  // equal non-zero totals: 1.0, not 0.5
  }
}

TEST(OverridePolicyTest, JobTicketsCanWinTheFirstRound) {
  for (Twin twin : {Twin::kOptimised, Twin::kReference}) {
    const auto s = Load(Snapshot("", "oticket=50"));
    const auto r = ComputePriorities(s.cluster, s.jobs, twin);
    EXPECT_DOUBLE_EQ(Find(s, r, 6).values.otckt, 1000.0 / 3 + 50);
    EXPECT_DOUBLE_EQ(Find(s, r, 5).values.otckt, 250);
    EXPECT_DOUBLE_EQ(Find(s, r, 6).values.ovrts, 50);
  }
}

}  // namespace
}  // namespace schedk

namespace schedk {
namespace {

// Without override tickets on any user, project, department or pending task
// the pending pass is skipped; a pending task's own -ot, or an entity's
// tickets, must still be seen.
TEST(OverridePolicyTest, ThePendingPassRunsWheneverAnyTicketsExist) {
  auto snapshot = [](const std::string& user_tickets, const std::string& running_extra,
                     const std::string& pending_extra) {
    return "schedk-snapshot 1\nnow 2000\nbegin user U\n" + user_tickets +
           "end user\nbegin queue all.q\nhostlist n1\nslots 8\nend queue\n"
           "job 1 owner=U submit=1000 state=r start=1100 granted=all.q@n1:1 " + running_extra + "\n"
           "job 5 owner=U submit=1500\njob 6 owner=U submit=1501 " + pending_extra + "\n";
  };
  for (Twin twin : {Twin::kOptimised, Twin::kReference}) {
    {
      const auto s = Load(snapshot("", "", ""));
      const auto r = ComputePriorities(s.cluster, s.jobs, twin);
      for (JobNumber j : {1u, 5u, 6u}) EXPECT_DOUBLE_EQ(Find(s, r, j).values.otckt, 0);
    }
    {  // a running job's own tickets do not reach the pending ones
      const auto s = Load(snapshot("", "oticket=70", ""));
      const auto r = ComputePriorities(s.cluster, s.jobs, twin);
      EXPECT_DOUBLE_EQ(Find(s, r, 1).values.otckt, 70);
      EXPECT_DOUBLE_EQ(Find(s, r, 5).values.otckt, 0);
      EXPECT_DOUBLE_EQ(Find(s, r, 6).values.otckt, 0);
    }
    {  // a pending job's own tickets
      const auto s = Load(snapshot("", "", "oticket=50"));
      const auto r = ComputePriorities(s.cluster, s.jobs, twin);
      EXPECT_DOUBLE_EQ(Find(s, r, 6).values.otckt, 50);
      EXPECT_DOUBLE_EQ(Find(s, r, 5).values.otckt, 0);
    }
    {  // the owner's tickets, shared by the running job and the two pending ones in turn
      const auto s = Load(snapshot("oticket 600\n", "", ""));
      const auto r = ComputePriorities(s.cluster, s.jobs, twin);
      EXPECT_DOUBLE_EQ(Find(s, r, 1).values.otckt, 600);
      EXPECT_DOUBLE_EQ(Find(s, r, 5).values.otckt, 300);
      EXPECT_DOUBLE_EQ(Find(s, r, 6).values.otckt, 200);
    }
  }
}

}  // namespace
}  // namespace schedk
