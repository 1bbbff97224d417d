// Test vectors T1.2, T1.3 and T1.5 of sge-algorithms.md §1, and the seeds'
// priority examples (000: all policies off and the POSIX priority table;
// 002: the site urgency policy; 004: the reservation example under 6.2 rules).
#include "kernel/priority/priority.hpp"

#include <gtest/gtest.h>

#include "kernel/priority/tickets.hpp"

#include "tests/test_support.hpp"

namespace schedk {
namespace {

using testing::Find;
using testing::Load;

const char* kLicenseCluster = R"(schedk-snapshot 1
now 1077903416
begin complex
slots     s    INT   <=  YES  YES  1  1000
license   lic  INT   <=  YES  YES  0  100
end complex
begin pe mpi
slots 64
end pe
begin exechost h1
complex_values slots=8
end exechost
begin queue all.q
hostlist h1
slots 8
pe_list mpi
end queue
)";

TEST(PriorityTest, CombinedPrioWithoutTickets) {  // T1.2
  const auto s = Load(std::string(kLicenseCluster) + R"(
job 1 owner=u submit=1077903000 p=100 l_hard=license=4
job 2 owner=u submit=1077903001 l_hard=license=5
job 3 owner=u submit=1077903002 l_hard=license=1
)");
  const auto r = ComputePriorities(s.cluster, s.jobs);
  const auto j1 = Find(s, r, 1), j2 = Find(s, r, 2), j3 = Find(s, r, 3);
  EXPECT_DOUBLE_EQ(j1.values.urg, 1400);
  EXPECT_DOUBLE_EQ(j2.values.urg, 1500);
  EXPECT_DOUBLE_EQ(j3.values.urg, 1100);
  EXPECT_DOUBLE_EQ(j1.values.nurg, 0.75);
  EXPECT_DOUBLE_EQ(j2.values.nurg, 1.0);
  EXPECT_DOUBLE_EQ(j3.values.nurg, 0.0);
  EXPECT_DOUBLE_EQ(j1.values.ntckts, 0.5);
  EXPECT_DOUBLE_EQ(j1.values.prio, 0.628828125);
  EXPECT_DOUBLE_EQ(j2.values.prio, 0.605);
  EXPECT_DOUBLE_EQ(j3.values.prio, 0.505);
  EXPECT_EQ(j1.position, 0u);
  EXPECT_EQ(j2.position, 1u);
  EXPECT_EQ(j3.position, 2u);
}

TEST(PriorityTest, RunningJobsWidenTheUrgencyRange) {  // T1.3
  const auto s = Load(std::string(kLicenseCluster) + R"(
job 1 owner=u submit=1077903000 p=100 l_hard=license=4
job 2 owner=u submit=1077903001 l_hard=license=5
job 3 owner=u submit=1077903002 l_hard=license=1
job 9 owner=u submit=1077903000 pe_name=mpi pe_min=4 pe_max=4 state=r start=1077903100 granted=all.q@h1:4
)");
  const auto r = ComputePriorities(s.cluster, s.jobs);
  EXPECT_DOUBLE_EQ(Find(s, r, 9).values.urg, 4000);
  EXPECT_NEAR(Find(s, r, 1).values.nurg, 300.0 / 2900, 1e-15);
  EXPECT_NEAR(Find(s, r, 2).values.nurg, 400.0 / 2900, 1e-15);
  EXPECT_DOUBLE_EQ(Find(s, r, 3).values.nurg, 0.0);
  EXPECT_DOUBLE_EQ(Find(s, r, 9).values.nurg, 1.0);
}

TEST(PriorityTest, TieBreaksSubmissionTimeThenJobNumber) {  // T1.5
  const auto s = Load(std::string(kLicenseCluster) + R"(
job 10 owner=u submit=500
job 7 owner=u submit=600
)");
  const auto r = ComputePriorities(s.cluster, s.jobs);
  EXPECT_DOUBLE_EQ(Find(s, r, 10).values.prio, Find(s, r, 7).values.prio);
  EXPECT_LT(Find(s, r, 10).position, Find(s, r, 7).position);
  const auto same = Load(std::string(kLicenseCluster) + R"(
job 10 owner=u submit=500
job 7 owner=u submit=500
)");
  const auto r2 = ComputePriorities(same.cluster, same.jobs);
  EXPECT_LT(Find(same, r2, 7).position, Find(same, r2, 10).position);
}

TEST(PriorityTest, HeldJobsAreOutsideTheRangeAndCleared) {
  const auto s = Load(std::string(kLicenseCluster) + R"(
job 1 owner=u submit=1077903000 l_hard=license=4
job 2 owner=u submit=1077903001 l_hard=license=1
job 3 owner=u submit=1077903002 state=hqw l_hard=license=50
job 4 owner=u submit=1077903003 hold_jid=1
)");
  const auto r = ComputePriorities(s.cluster, s.jobs);
  EXPECT_DOUBLE_EQ(Find(s, r, 1).values.nurg, 1.0);  // the held job's 6000 does not count
  EXPECT_DOUBLE_EQ(Find(s, r, 2).values.nurg, 0.0);
  EXPECT_DOUBLE_EQ(Find(s, r, 3).values.prio, 0.0);
  EXPECT_DOUBLE_EQ(Find(s, r, 3).values.urg, 0.0);
  EXPECT_DOUBLE_EQ(Find(s, r, 4).values.prio, 0.0);  // waits for job 1
  EXPECT_EQ(r.dispatchable_tasks, 2u);
}

// The free slots that bound L (max_pending_tasks_per_job): per open queue
// instance its slots less its running tasks' (never below 0); a disabled
// instance is out of the queue list, whatever runs there. By hand: all.q@h1
// 4 - 3 = 1, all.q@h2 max(0, 2 - 3) = 0, all.q@h3 disabled, big.q@h1 2 - 1 =
// 1: 2 free slots, so L = 3. The running jobs lie in blocks of numbers of
// their own, so in shards summed apart (serially and in parallel).
TEST(PriorityTest, FreeQueueSlotsBoundThePendingTaskLimit) {
  const auto s = Load(R"(schedk-snapshot 1
now 1077903416
begin complex
slots     s    INT   <=  YES  YES  1  1000
end complex
begin queue all.q
hostlist h1 h2 h3
slots 0,[h1=4],[h2=2],[h3=8]
states NONE,[h3=d]
end queue
begin queue big.q
hostlist h1
slots 2
end queue
begin sconf
max_pending_tasks_per_job 50
end sconf
job 1 owner=u submit=1077903000 state=r start=1077903100 granted=all.q@h1:3
job 1025 owner=u submit=1077903000 state=r start=1077903100 granted=all.q@h2:2
job 2049 owner=u submit=1077903000 state=r start=1077903100 granted=all.q@h2:1
job 3073 owner=u submit=1077903000 state=r start=1077903100 granted=all.q@h3:5
job 4097 owner=u submit=1077903000 state=r start=1077903100 granted=big.q@h1:1
job 6.1-10 owner=u submit=1077903001
)");
  ASSERT_NE(s.jobs.ShardOf(1025), s.jobs.ShardOf(2049));
  EXPECT_EQ(FreeQueueSlots(s.cluster, s.jobs, ExecutionMode::kSerial), 2u);
  EXPECT_EQ(FreeQueueSlots(s.cluster, s.jobs, ExecutionMode::kParallel), 2u);
  EXPECT_EQ(ComputePriorities(s.cluster, s.jobs).tickets.pending_task_limit, 3u);
}

TEST(PriorityTest, AllPoliciesOffGiveEveryJob0555) {  // seed 000
  const auto s = Load(R"(schedk-snapshot 1
now 1302091200
begin complex
slots  s  INT  <=  YES  YES  1  0
end complex
job 1 owner=a submit=1302000000
job 2 owner=b submit=1302000100
job 3 owner=c submit=1302000200
)");
  const auto r = ComputePriorities(s.cluster, s.jobs);
  for (JobNumber j : {1u, 2u, 3u}) {
    const auto row = Find(s, r, j);
    EXPECT_DOUBLE_EQ(row.values.nurg, 0.5);
    EXPECT_DOUBLE_EQ(row.values.npprior, 0.5);
    EXPECT_DOUBLE_EQ(row.values.ntckts, 0.5);
    EXPECT_NEAR(row.values.prio, 0.555, 1e-15);
  }
}

TEST(PriorityTest, PosixPriorityTableOfSeed000) {
  std::string text = std::string(kLicenseCluster) +
                     "job 63299 owner=u submit=1077900000 state=r start=1077900100 granted=all.q@h1:1\n";
  for (int k = 0; k < 32; ++k) {
    text += "job " + std::to_string(63300 + k) + " owner=u submit=1077901000 pe_name=mpi pe_min=2 pe_max=2 p=" +
            std::to_string(1024 - 64 * k) + "\n";
  }
  const auto s = Load(text);
  const auto r = ComputePriorities(s.cluster, s.jobs);
  for (int k = 0; k < 32; ++k) {
    const auto row = Find(s, r, static_cast<JobNumber>(63300 + k));
    const double npprior = (1024 - 64 * k + 1024) / 2048.0;
    EXPECT_DOUBLE_EQ(row.values.nurg, 1.0);
    EXPECT_DOUBLE_EQ(row.values.npprior, npprior);
    EXPECT_DOUBLE_EQ(row.values.ntckts, 0.5);
    EXPECT_NEAR(row.values.prio, npprior + 0.105, 1e-15);
    EXPECT_EQ(row.position, static_cast<std::size_t>(k));
  }
  EXPECT_NEAR(Find(s, r, 63300).values.prio, 1.105, 1e-15);
  EXPECT_NEAR(Find(s, r, 63331).values.prio, 0.13625, 1e-15);
}

TEST(PriorityTest, ReservationExampleUnderGridEngine62Rules) {  // seed 004, sge-algorithms.md §5.9
  const auto s = Load(R"(schedk-snapshot 1
now 1077903416
begin complex
slots     s        INT    <=    YES         YES        1       1000
h_rt      h_rt     TIME   <=    YES         NO         0:0:0   0
license   lic      INT    <=    YES         YES        0       100
end complex
job 3127 owner=andreas submit=1077903386 p=100 R=y l_hard=h_rt=30,license=4
job 3128 owner=andreas submit=1077903387 R=y l_hard=h_rt=30,license=5
job 3129 owner=andreas submit=1077903388 R=y l_hard=h_rt=31,license=1
)");
  const auto r = ComputePriorities(s.cluster, s.jobs);
  // The 6.0 spec printed 1.08000 / 0.10500 / 0.00500 under the old min-max npprior.
  EXPECT_NEAR(Find(s, r, 3127).values.prio, 0.628828125, 1e-15);
  EXPECT_NEAR(Find(s, r, 3128).values.prio, 0.605, 1e-15);
  EXPECT_NEAR(Find(s, r, 3129).values.prio, 0.505, 1e-15);
  EXPECT_EQ(Find(s, r, 3127).position, 0u);
  EXPECT_EQ(Find(s, r, 3128).position, 1u);
  EXPECT_EQ(Find(s, r, 3129).position, 2u);
}

// Seed 002's site: rrcontr = 100 per slot + 40000 for a t queue + 80000 for a u
// queue, wtcontr = 0.278 per second waited, prio = 0.5 nurg + 0.5 ntckts. A
// 64-slot job overtakes a fresh 2-slot t-queue job after 34 h and a fresh
// 2-slot u-queue job after 74 h.
TEST(PriorityTest, SiteUrgencyPolicyOfSeed002) {
  const auto s = Load(R"(schedk-snapshot 1
now 1400000000
begin complex
slots   s   INT     <=  YES  YES  1     100
tqueue  tq  STRING  ==  YES  NO   NONE  40000
uqueue  uq  STRING  ==  YES  NO   NONE  80000
end complex
begin sconf
weight_urgency       0.5
weight_ticket        0.5
weight_priority      0
weight_waiting_time  0.278
end sconf
begin pe mpi
slots 1024
end pe
job 1 owner=a submit=1400000000 pe_name=mpi pe_min=2 pe_max=2 l_hard=tqueue=yes
job 2 owner=a submit=1400000000 pe_name=mpi pe_min=2 pe_max=2 l_hard=uqueue=yes
job 33 owner=b submit=1399881200 pe_name=mpi pe_min=64 pe_max=64
job 34 owner=b submit=1399877600 pe_name=mpi pe_min=64 pe_max=64
job 73 owner=b submit=1399737200 pe_name=mpi pe_min=64 pe_max=64
job 74 owner=b submit=1399733600 pe_name=mpi pe_min=64 pe_max=64
)");
  const auto r = ComputePriorities(s.cluster, s.jobs);
  EXPECT_DOUBLE_EQ(Find(s, r, 1).values.rrcontr, 40200);
  EXPECT_DOUBLE_EQ(Find(s, r, 2).values.rrcontr, 80200);
  EXPECT_DOUBLE_EQ(Find(s, r, 34).values.rrcontr, 6400);
  EXPECT_DOUBLE_EQ(Find(s, r, 34).values.wtcontr, 0.278 * 34 * 3600);
  // Dispatch order: 74h > u2 > 73h > 34h > t2 > 33h.
  EXPECT_LT(Find(s, r, 34).position, Find(s, r, 1).position);
  EXPECT_LT(Find(s, r, 1).position, Find(s, r, 33).position);
  EXPECT_LT(Find(s, r, 74).position, Find(s, r, 2).position);
  EXPECT_LT(Find(s, r, 2).position, Find(s, r, 73).position);
  EXPECT_EQ(Find(s, r, 74).position, 0u);
  EXPECT_EQ(Find(s, r, 33).position, 5u);
}

TEST(PriorityTest, WeightUrgencyZeroWithoutReportingForcesOneHalf) {
  const auto s = Load(std::string(kLicenseCluster) + R"(
begin sconf
weight_urgency 0
weight_priority 0
report_pjob_tickets false
end sconf
job 1 owner=u p=500 l_hard=license=4
job 2 owner=u l_hard=license=1
)");
  const auto r = ComputePriorities(s.cluster, s.jobs);
  EXPECT_DOUBLE_EQ(Find(s, r, 1).values.nurg, 0.5);
  EXPECT_DOUBLE_EQ(Find(s, r, 1).values.npprior, 0.5);
  EXPECT_DOUBLE_EQ(Find(s, r, 1).values.urg, 0.0);
}

}  // namespace
}  // namespace schedk
