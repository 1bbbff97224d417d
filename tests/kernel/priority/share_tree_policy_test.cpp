// Test vectors T3.4 and T3.5 of sge-algorithms.md §3.4 (share-tree targets,
// pending "previous jobs" ranking, pass B, compensation), plus the "default"
// leaf, project subtrees and the effective root; and Son of Grid Engine
// 8.1.9's pending rule (SHARE_TREE_PENDING=8.1), worked by hand from its
// sge_sort_job_nodes (make compat checks it against the real cell).
#include "kernel/priority/share_tree_policy.hpp"

#include <gtest/gtest.h>

#include "tests/test_support.hpp"

namespace schedk {
namespace {

using testing::Find;
using testing::Load;

const char* kHead = R"(schedk-snapshot 1
now 5000
begin queue all.q
hostlist n1
slots 8
end queue
)";

// T3.4's tree: A and B below the root, 60:40.
const char* kTreeAB = R"(begin sharetree
id=0
name=Root
type=0
shares=1
childnodes=1,2
id=1
name=A
type=0
shares=60
childnodes=NONE
id=2
name=B
type=0
shares=40
childnodes=NONE
end sharetree
)";

TEST(ShareTreePolicyTest, PendingTasksAreRankedWithinTheirNode) {  // T3.4
  const auto s = Load(std::string(kHead) + "begin sconf\nweight_tickets_share 10000\nend sconf\n" + kTreeAB + R"(
usage user A cpu=300,mem=0,io=0
usage user B cpu=100,mem=0,io=0
job 1 owner=A submit=100 state=r start=200 granted=all.q@n1:1
job 2 owner=A submit=300
job 3 owner=A submit=301
job 4 owner=B submit=302
job 5 owner=B submit=303
)");
  for (Twin twin : {Twin::kOptimised, Twin::kReference}) {
    const auto r = ComputePriorities(s.cluster, s.jobs, twin);
    const double stt_a = 12.0 / 28, stt_b = 16.0 / 28;  // shr 3600/300 and 1600/100
    EXPECT_DOUBLE_EQ(Find(s, r, 2).values.stckt, stt_a / 2 * 10000);
    EXPECT_DOUBLE_EQ(Find(s, r, 3).values.stckt, stt_a / 3 * 10000);
    EXPECT_DOUBLE_EQ(Find(s, r, 4).values.stckt, stt_b / 1 * 10000);
    EXPECT_DOUBLE_EQ(Find(s, r, 5).values.stckt, stt_b / 2 * 10000);
    EXPECT_NEAR(Find(s, r, 2).values.stckt, 2142.86, 0.01);
    EXPECT_NEAR(Find(s, r, 3).values.stckt, 1428.57, 0.01);
    EXPECT_NEAR(Find(s, r, 4).values.stckt, 5714.29, 0.01);
    EXPECT_NEAR(Find(s, r, 5).values.stckt, 2857.14, 0.01);
    // Pass B: only A is active, so the running task gets every share-tree ticket.
    EXPECT_DOUBLE_EQ(Find(s, r, 1).values.stckt, 10000);
    EXPECT_DOUBLE_EQ(r.tickets.max_tix, 10000);
  }
}

TEST(ShareTreePolicyTest, TasksOfInterleavedRowsAreRankedInTaskOrder) {
  // Job 7's odd and even tasks are two rows (all 8 within L = 9); equal keys
  // leave the ranks to the task numbers, so task t is the t-th of A's tasks.
  const auto s = Load(std::string(kHead) + R"(
begin sconf
weight_tickets_share 10000
end sconf
begin sharetree
id=0
name=Root
type=0
shares=1
childnodes=1
id=1
name=A
type=0
shares=60
childnodes=NONE
end sharetree
job 7.1-7:2 owner=A submit=300
job 7.2-8:2 owner=A submit=300
)");
  for (Twin twin : {Twin::kOptimised, Twin::kReference}) {
    const auto r = ComputePriorities(s.cluster, s.jobs, twin);
    for (TaskNumber t = 1; t <= 8; ++t) EXPECT_DOUBLE_EQ(Find(s, r, 7, t).values.stckt, 10000.0 / t) << "task " << t;
  }
}

TEST(ShareTreePolicyTest, CompensationFactorLimitsUnderusedNodes) {  // T3.5
  const auto s = Load(std::string(kHead) + R"(
begin sconf
weight_tickets_share 1000000
compensation_factor 5
end sconf
begin sharetree
id=0
name=Root
shares=1
childnodes=1,2,3
id=1
name=X
shares=10
id=2
name=Y
shares=10
id=3
name=Z
shares=80
end sharetree
usage user Y cpu=1000
usage user Z cpu=1000
job 1 owner=X submit=100 state=r start=200 granted=all.q@n1:1
job 2 owner=Y submit=100 state=r start=200 granted=all.q@n1:1
job 3 owner=Z submit=100 state=r start=200 granted=all.q@n1:1
)");
  const auto r = ComputePriorities(s.cluster, s.jobs);
  EXPECT_NEAR(Find(s, r, 1).values.stckt / 1e6, 0.98725, 1e-5);
  EXPECT_NEAR(Find(s, r, 2).values.stckt / 1e6, 0.000196, 1e-6);
  EXPECT_NEAR(Find(s, r, 3).values.stckt / 1e6, 0.012555, 1e-6);
  // Exactly: X's shr becomes 100 / (0.1 * (stt_x / (5 * 0.1))).
  const double stt_x = 1000 / (1000 + 0.1 + 6.4);
  const double shr_x = 100 / (0.1 * (stt_x / (5 * 0.1)));
  EXPECT_DOUBLE_EQ(Find(s, r, 1).values.stckt, shr_x / (shr_x + 0.1 + 6.4) * 1e6);
}

TEST(ShareTreePolicyTest, UsersWithoutNodesGetTheirOwnCopyOfDefault) {
  const auto s = Load(std::string(kHead) + R"(
begin sconf
weight_tickets_share 3000
end sconf
begin sharetree
id=0
name=Root
shares=1
childnodes=1,2
id=1
name=A
shares=10
id=2
name=default
shares=10
end sharetree
job 1 owner=A submit=100
job 2 owner=B submit=100
job 3 owner=C submit=100
)");
  const auto r = ComputePriorities(s.cluster, s.jobs);
  for (JobNumber j : {1u, 2u, 3u}) EXPECT_DOUBLE_EQ(Find(s, r, j).values.stckt, 1.0 / 3 * 3000);
}

std::string ProjectTree(const std::string& jobs) {
  return std::string(kHead) + R"(
begin sconf
weight_tickets_share 1000
end sconf
begin project P1
end project
begin project P2
end project
begin sharetree
id=0
name=Root
shares=1
childnodes=1,2
id=1
name=P1
shares=50
childnodes=3,4
id=2
name=P2
shares=50
id=3
name=alice
shares=10
id=4
name=default
shares=10
end sharetree
)" + jobs;
}

// Bob has jobs in six projects, more than the parallel node lookup keeps per
// user (four pairs); the pairs beyond its table go through NodeFor's cache.
// Six equally shared projects, no usage: each has stt 1/6 and ranks its own
// tasks. In P5 bob's jobs 5 and 9 share his copy of "default"; in P6 his
// copy (jobs 6, 7) and carol's (job 8) have stt 1/2 each, so P6 ranks
// 6 (key 500), 8 (500, later in job order), then 7 (250).
TEST(ShareTreePolicyTest, UsersInMoreProjectsThanTheLookupTableHolds) {
  std::string text = std::string(kHead) + R"(
begin sconf
weight_tickets_share 1000
end sconf
)";
  std::string tree = "begin sharetree\nid=0\nname=Root\nshares=1\nchildnodes=1,2,3,4,5,6\n";
  for (int p = 1; p <= 6; ++p) {
    text += "begin project P" + std::to_string(p) + "\nend project\n";
    tree += "id=" + std::to_string(p) + "\nname=P" + std::to_string(p) + "\nshares=10\nchildnodes=" +
            std::to_string(6 + p) + "\n";
  }
  for (int p = 1; p <= 6; ++p) tree += "id=" + std::to_string(6 + p) + "\nname=default\nshares=10\n";
  const auto s = Load(text + tree + R"(end sharetree
job 1 owner=bob project=P1 submit=100
job 2 owner=bob project=P2 submit=100
job 3 owner=bob project=P3 submit=100
job 4 owner=bob project=P4 submit=100
job 5 owner=bob project=P5 submit=100
job 6 owner=bob project=P6 submit=100
job 7 owner=bob project=P6 submit=100
job 8 owner=carol project=P6 submit=100
job 9 owner=bob project=P5 submit=100
)");
  for (Twin twin : {Twin::kOptimised, Twin::kReference}) {
    const auto r = ComputePriorities(s.cluster, s.jobs, twin);
    for (JobNumber j : {1u, 2u, 3u, 4u, 5u, 6u}) EXPECT_DOUBLE_EQ(Find(s, r, j).values.stckt, 1.0 / 6 / 1 * 1000);
    EXPECT_DOUBLE_EQ(Find(s, r, 9).values.stckt, 1.0 / 6 / 2 * 1000);
    EXPECT_DOUBLE_EQ(Find(s, r, 8).values.stckt, 1.0 / 6 / 2 * 1000);
    EXPECT_DOUBLE_EQ(Find(s, r, 7).values.stckt, 1.0 / 6 / 3 * 1000);
  }
}

// A leaf ranks its tasks by tickets + 0.01 * jobshare (dependent) and re-keys
// them for the level above from their earlier tickets alone. Groups G1 and G2
// share the root; in G1, ann's job 2 has a share and bob's job 1 none, and
// neither has earlier tickets, so both re-key to the same value and G1 ranks
// job 1 first by job number: 0.5 / 1 and 0.5 / 2 of the tickets. Re-keyed
// from tickets + 0.5, job 2 would come first.
TEST(ShareTreePolicyTest, LeavesReKeyFromEarlierTicketsWithoutTheJobShare) {
  const auto s = Load(std::string(kHead) + R"(
begin sconf
weight_tickets_share 1000
policy_hierarchy S
end sconf
begin sharetree
id=0
name=Root
shares=1
childnodes=1,2
id=1
name=G1
shares=10
childnodes=3,4
id=2
name=G2
shares=10
childnodes=5
id=3
name=ann
shares=10
id=4
name=bob
shares=10
id=5
name=cid
shares=10
end sharetree
job 1 owner=bob submit=100
job 2 owner=ann submit=100 js=50
job 3 owner=cid submit=100
)");
  for (Twin twin : {Twin::kOptimised, Twin::kReference}) {
    const auto r = ComputePriorities(s.cluster, s.jobs, twin);
    EXPECT_DOUBLE_EQ(Find(s, r, 1).values.stckt, 0.5 / 1 * 1000);
    EXPECT_DOUBLE_EQ(Find(s, r, 2).values.stckt, 0.5 / 2 * 1000);
    EXPECT_DOUBLE_EQ(Find(s, r, 3).values.stckt, 0.5 / 1 * 1000);
  }
}

TEST(ShareTreePolicyTest, ProjectSubtreesAndJobsOutsideThem) {
  const auto s = Load(ProjectTree(R"(
job 1 owner=alice project=P1 submit=100
job 2 owner=bob project=P1 submit=100
job 3 owner=carol project=P2 submit=100
job 4 owner=dave submit=100
)"));
  const auto r = ComputePriorities(s.cluster, s.jobs);
  // P1 and P2 share the root 50:50; alice and bob (a copy of default) share P1.
  EXPECT_DOUBLE_EQ(Find(s, r, 3).values.stckt, 0.5 * 1000);
  EXPECT_DOUBLE_EQ(Find(s, r, 1).values.stckt, 0.5 / 1 * 1000);  // ranked at P1: first of two
  EXPECT_DOUBLE_EQ(Find(s, r, 2).values.stckt, 0.5 / 2 * 1000);  // second of two
  EXPECT_DOUBLE_EQ(Find(s, r, 4).values.stckt, 0);               // no node for a job outside every project
}

TEST(ShareTreePolicyTest, RankingStartsBelowTheEffectiveRoot) {
  const auto s = Load(ProjectTree(R"(
job 1 owner=alice project=P1 submit=100
job 2 owner=bob project=P1 submit=100
)"));
  const auto r = ComputePriorities(s.cluster, s.jobs);
  // Only P1 has pending jobs, so P1 is the effective root and the ranking
  // happens at the user nodes: each is the first job of its own node.
  EXPECT_DOUBLE_EQ(Find(s, r, 1).values.stckt, 0.5 * 1000);
  EXPECT_DOUBLE_EQ(Find(s, r, 2).values.stckt, 0.5 * 1000);
}

TEST(ShareTreePolicyTest, ProjectUsageAndFinishedJobs) {
  const auto s = Load(std::string(kHead) + R"(
begin sconf
weight_tickets_share 1000
end sconf
begin sharetree
id=0
name=Root
shares=1
childnodes=1,2
id=1
name=A
shares=50
id=2
name=B
shares=50
end sharetree
usage user A cpu=0,finished_jobs=2
job 1 owner=A submit=100
job 2 owner=B submit=100
)");
  const auto r = ComputePriorities(s.cluster, s.jobs);
  // Each node has stt 0.5; A's two recently finished jobs count as running ones.
  EXPECT_DOUBLE_EQ(Find(s, r, 1).values.stckt, 0.5 / 3 * 1000);
  EXPECT_DOUBLE_EQ(Find(s, r, 2).values.stckt, 0.5 / 1 * 1000);
}

// Policy hierarchy (sge-algorithms.md §3.5): a dependent policy orders its
// tasks by the tickets of the dependent policies before it. Alice's two jobs
// share one functional category and one share-tree leaf; job 2 was submitted
// first. Share tree first: equal keys rank job 1 first (10000 and 10000 / 2),
// and those tickets make job 1 the functional category's head (1000, then
// 1000 / 2 once alice has one job more). Functional first: submission time
// makes job 2 the head, and its functional tickets rank it first in the leaf.
TEST(ShareTreePolicyTest, TicketsOfEarlierDependentPoliciesOrderLaterOnes) {
  const auto snapshot = [](const char* hierarchy) {
    return std::string(kHead) + R"(
begin sconf
weight_tickets_share 10000
weight_tickets_functional 1000
weight_user 1
weight_project 0
weight_department 0
weight_job 0
auto_user_fshare 100
policy_hierarchy )" + hierarchy + R"(
end sconf
begin sharetree
id=0
name=Root
shares=1
childnodes=1
id=1
name=alice
shares=10
end sharetree
job 1 owner=alice submit=300
job 2 owner=alice submit=200
)";
  };
  for (Twin twin : {Twin::kOptimised, Twin::kReference}) {
    const auto share_first = Load(snapshot("SF"));
    const auto r = ComputePriorities(share_first.cluster, share_first.jobs, twin);
    EXPECT_DOUBLE_EQ(Find(share_first, r, 1).values.stckt, 10000);
    EXPECT_DOUBLE_EQ(Find(share_first, r, 2).values.stckt, 5000);
    EXPECT_DOUBLE_EQ(Find(share_first, r, 1).values.ftckt, 1000);
    EXPECT_DOUBLE_EQ(Find(share_first, r, 2).values.ftckt, 500);
    const auto functional_first = Load(snapshot("FS"));
    const auto q = ComputePriorities(functional_first.cluster, functional_first.jobs, twin);
    EXPECT_DOUBLE_EQ(Find(functional_first, q, 2).values.ftckt, 1000);
    EXPECT_DOUBLE_EQ(Find(functional_first, q, 1).values.ftckt, 500);
    EXPECT_DOUBLE_EQ(Find(functional_first, q, 2).values.stckt, 10000);
    EXPECT_DOUBLE_EQ(Find(functional_first, q, 1).values.stckt, 5000);
  }
}

// T3.4's tree and usage with parallel jobs. 6.2 counts jobs: A's pending jobs
// get stt/2, stt/3 behind the running one, B's stt/1, stt/2. 8.1.9 ranks the
// running job first and dilutes by minimum slot counts: A starts at 1 + 2 (the
// running job's 2 slots), then + 3 (job 2's); B at 1, then + 2 (job 4's 2-4).
TEST(ShareTreePolicyTest, By81sRuleJobsDiluteByTheirMinimumSlots) {
  const std::string jobs = R"(
begin pe mpi
slots 16
allocation_rule $pe_slots
end pe
usage user A cpu=300,mem=0,io=0
usage user B cpu=100,mem=0,io=0
job 1 owner=A submit=100 state=r start=200 pe_name=mpi pe_min=2 pe_max=2 granted=all.q@n1:2
job 2 owner=A submit=300 pe_name=mpi pe_min=3 pe_max=3
job 3 owner=A submit=301
job 4 owner=B submit=302 pe_name=mpi pe_min=2 pe_max=4
job 5 owner=B submit=303
)";
  auto snapshot = [&](const char* params) {
    return Load(std::string(kHead) + "begin sconf\nweight_tickets_share 10000\nparams " + params + "\nend sconf\n" +
                kTreeAB + jobs);
  };
  const double stt_a = 12.0 / 28, stt_b = 16.0 / 28;
  const auto v62 = snapshot("NONE");
  const auto v81 = snapshot("SHARE_TREE_PENDING=8.1");
  for (Twin twin : {Twin::kOptimised, Twin::kReference}) {
    const auto r62 = ComputePriorities(v62.cluster, v62.jobs, twin);
    EXPECT_DOUBLE_EQ(Find(v62, r62, 2).values.stckt, stt_a / 2 * 10000);
    EXPECT_DOUBLE_EQ(Find(v62, r62, 3).values.stckt, stt_a / 3 * 10000);
    EXPECT_DOUBLE_EQ(Find(v62, r62, 4).values.stckt, stt_b / 1 * 10000);
    EXPECT_DOUBLE_EQ(Find(v62, r62, 5).values.stckt, stt_b / 2 * 10000);
    const auto r81 = ComputePriorities(v81.cluster, v81.jobs, twin);
    EXPECT_DOUBLE_EQ(Find(v81, r81, 2).values.stckt, stt_a / 3 * 10000);
    EXPECT_DOUBLE_EQ(Find(v81, r81, 3).values.stckt, stt_a / 6 * 10000);
    EXPECT_DOUBLE_EQ(Find(v81, r81, 4).values.stckt, stt_b / 1 * 10000);
    EXPECT_DOUBLE_EQ(Find(v81, r81, 5).values.stckt, stt_b / 3 * 10000);
    EXPECT_NEAR(Find(v81, r81, 3).values.stckt, 714.29, 0.01);
    // Running tasks' tickets (pass B) do not depend on the rule.
    EXPECT_DOUBLE_EQ(Find(v81, r81, 1).values.stckt, Find(v62, r62, 1).values.stckt);
  }
}

// Root{A, G{B, C}}, equal shares, no usage: every stt is 1/2. A's only job
// runs. 6.2 descends to G, the highest node with pending jobs in more than one
// child, and ranks at B and C: b1 1/2, b2 1/4, c1 1/2. 8.1.9 descends only
// while one child has jobs of any state: it ranks at A and G, where B's and
// C's jobs meet in the order of their B and C keys (b1 and c1 tie, job number
// first): b1 1/2, c1 1/4, b2 1/6.
TEST(ShareTreePolicyTest, By81sRuleRunningJobsKeepTheRankingHigh) {
  auto snapshot = [](const char* params) {
    return Load(std::string(kHead) + "begin sconf\nweight_tickets_share 10000\nparams " + params + R"(
end sconf
begin sharetree
id=0
name=Root
type=0
shares=1
childnodes=1,2
id=1
name=a
type=0
shares=1
childnodes=NONE
id=2
name=G
type=0
shares=1
childnodes=3,4
id=3
name=b
type=0
shares=1
childnodes=NONE
id=4
name=c
type=0
shares=1
childnodes=NONE
end sharetree
job 1 owner=a submit=100 state=r start=200 granted=all.q@n1:1
job 2 owner=b submit=300
job 3 owner=b submit=301
job 4 owner=c submit=302
)");
  };
  const auto v62 = snapshot("NONE");
  const auto v81 = snapshot("SHARE_TREE_PENDING=8.1");
  for (Twin twin : {Twin::kOptimised, Twin::kReference}) {
    const auto r62 = ComputePriorities(v62.cluster, v62.jobs, twin);
    EXPECT_DOUBLE_EQ(Find(v62, r62, 2).values.stckt, 5000);
    EXPECT_DOUBLE_EQ(Find(v62, r62, 3).values.stckt, 2500);
    EXPECT_DOUBLE_EQ(Find(v62, r62, 4).values.stckt, 5000);
    const auto r81 = ComputePriorities(v81.cluster, v81.jobs, twin);
    EXPECT_DOUBLE_EQ(Find(v81, r81, 2).values.stckt, 5000);
    EXPECT_DOUBLE_EQ(Find(v81, r81, 4).values.stckt, 2500);
    EXPECT_DOUBLE_EQ(Find(v81, r81, 3).values.stckt, 10000.0 / 6);
  }
}

}  // namespace
}  // namespace schedk
