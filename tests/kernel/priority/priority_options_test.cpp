// schedk's opt-in priority options after seed 000's Conclusion
// (PRIORITY_NORMALIZATION=pending|linear, FUNCTIONAL_SPLIT=linear) on
// datasets/critics.snap, against numbers worked out by hand in the comments.
// Every job asks for one slot (urg 1000), so Grid Engine's nurg is 0.5; C1
// has POSIX priority -100, so its npprior is 924/2048 = 0.451171875.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/test_support.hpp"

namespace schedk {
namespace {

io::Snapshot Critics(const std::string& params) {
  auto text = io::ReadWholeFile(testing::SourceDir() + "/datasets/critics.snap");
  EXPECT_TRUE(text.ok());
  std::string s = text.value();
  if (!params.empty()) s.replace(s.find("end sconf"), 9, "params " + params + "\nend sconf");
  return testing::Load(s);
}

std::vector<JobNumber> PendingOrder(const io::Snapshot& s, const PriorityResult& r) {
  const RowIndex index(s.jobs);
  std::vector<JobNumber> jobs;
  for (std::size_t i = 0; i < r.dispatchable_tasks; ++i) {
    jobs.push_back(s.jobs.shards()[index.shard(r.order[i].row)].number[index.row(r.order[i].row)]);
  }
  return jobs;
}

constexpr JobNumber B2 = 104, B3 = 105, B4 = 106, C1 = 107, C2 = 108;
constexpr double kC1Posix = 924.0 / 2048.0;

TEST(PriorityOptionsTest, GridEngineDefault) {
  // Blog tickets: B2 83333/2, B3 83333/3, B4 83333/4, C1 83333, C2 83333/2;
  // max_tix 500000 (B1, running). prio = 0.1*0.5 + 0.5*ntckts + npprior.
  const io::Snapshot s = Critics("");
  const PriorityResult r = ComputePriorities(s.cluster, s.jobs);
  const double user_tickets = 1000000.0 / 4 / 3;
  EXPECT_NEAR(testing::Find(s, r, B2).values.prio, 0.05 + 0.5 * (user_tickets / 2 / 500000) + 0.5, 1e-12);
  EXPECT_NEAR(testing::Find(s, r, C1).values.prio, 0.05 + 0.5 * (user_tickets / 500000) + kC1Posix, 1e-12);
  EXPECT_NEAR(testing::Find(s, r, B4).values.prio, 0.05 + 0.5 * (user_tickets / 4 / 500000) + 0.5, 1e-12);
  EXPECT_EQ(PendingOrder(s, r), (std::vector<JobNumber>{B2, C2, C1, B3, B4}));
}

TEST(PriorityOptionsTest, NormalisationWithoutRunningJobs) {
  // max_tix is C1's 83333.33 instead of B1's 500000: ntckts C1 1, B2 and C2
  // 1/2, B3 1/3, B4 1/4. C1 now leads: 0.05 + 0.5 + 0.451171875.
  const io::Snapshot s = Critics("PRIORITY_NORMALIZATION=pending");
  const PriorityResult r = ComputePriorities(s.cluster, s.jobs);
  EXPECT_NEAR(r.tickets.max_tix, 1000000.0 / 12, 1e-6);
  EXPECT_NEAR(testing::Find(s, r, C1).values.prio, 0.05 + 0.5 + kC1Posix, 1e-12);
  EXPECT_NEAR(testing::Find(s, r, B2).values.ntckts, 0.5, 1e-12);
  EXPECT_NEAR(testing::Find(s, r, B3).values.ntckts, 1.0 / 3, 1e-12);
  EXPECT_NEAR(testing::Find(s, r, B4).values.prio, 0.05 + 0.125 + 0.5, 1e-12);
  EXPECT_EQ(PendingOrder(s, r), (std::vector<JobNumber>{C1, B2, C2, B3, B4}));
  // Urgency: every pending job has 1000, a flat range, so nurg stays 0.5.
  EXPECT_EQ(testing::Find(s, r, C2).values.nurg, 0.5);
}

TEST(PriorityOptionsTest, PendingNormalisationLeavesRunningUrgencyOut) {
  // A running 8-slot job no longer stretches the urgency range: the pending
  // 1- and 4-slot jobs span it alone (nurg 0 and 1 instead of 0 and 3/7).
  const std::string text =
      "schedk-snapshot 1\nnow 2024-01-01T00:00:00Z\nbegin sconf\nparams PRIORITY_NORMALIZATION=pending\nend sconf\n"
      "begin exechost n\ncomplex_values slots=16\nend exechost\n"
      "begin pe smp\nslots 16\nallocation_rule $pe_slots\nend pe\n"
      "begin queue q\nhostlist n\nslots 16\npe_list smp\nend queue\n"
      "job 1 owner=u state=r start=2023-12-31T23:00:00Z granted=q@n:8 pe_name=smp pe_min=8\n"
      "job 2 owner=u pe_name=smp pe_min=4\njob 3 owner=u\n";
  const io::Snapshot s = testing::Load(text);
  const PriorityResult r = ComputePriorities(s.cluster, s.jobs);
  EXPECT_EQ(testing::Find(s, r, 2).values.nurg, 1.0);
  EXPECT_EQ(testing::Find(s, r, 3).values.nurg, 0.0);
  EXPECT_EQ(testing::Find(s, r, 1).values.nurg, 7.0 / 3);  // shown on the pending jobs' scale
  std::string ge = text;
  ge.replace(ge.find("params PRIORITY_NORMALIZATION=pending\n"), 38, "");
  const io::Snapshot g = testing::Load(ge);
  const PriorityResult gr = ComputePriorities(g.cluster, g.jobs);
  EXPECT_EQ(testing::Find(g, gr, 2).values.nurg, 3.0 / 7);
}

TEST(PriorityOptionsTest, LinearNormalisation) {
  // nurg = 1000/1000 = 1, ntckts = tickets / 1,000,000, npprior = ppri / 1024:
  // C1 = 0.1 + 0.5 * 83333.33/1e6 - 100/1024 = 0.0440104; B4 = 0.1 + 0.5 * 20833.33/1e6.
  const io::Snapshot s = Critics("PRIORITY_NORMALIZATION=linear");
  const PriorityResult r = ComputePriorities(s.cluster, s.jobs);
  const double user_tickets = 1000000.0 / 4 / 3;
  const testing::Row c1 = testing::Find(s, r, C1);
  EXPECT_EQ(c1.values.nurg, 1.0);
  EXPECT_EQ(c1.values.npprior, -100.0 / 1024);
  EXPECT_NEAR(c1.values.prio, 0.1 + 0.5 * user_tickets / 1e6 - 100.0 / 1024, 1e-12);
  EXPECT_NEAR(testing::Find(s, r, B4).values.prio, 0.1 + 0.5 * user_tickets / 4 / 1e6, 1e-12);
  EXPECT_EQ(testing::Find(s, r, B2).values.npprior, 0.0);  // the default priority is 0, not 0.5
  EXPECT_EQ(PendingOrder(s, r), (std::vector<JobNumber>{B2, C2, B3, B4, C1}));
  // A policy that gives nothing gives 0: no tickets configured, no ticket term.
  const io::Snapshot none = testing::Load(
      "schedk-snapshot 1\nnow 2024-01-01T00:00:00Z\nbegin sconf\nparams PRIORITY_NORMALIZATION=linear,"
      "LINEAR_URGENCY_SCALE=4000\nend sconf\nbegin exechost n\ncomplex_values slots=4\nend exechost\n"
      "begin queue q\nhostlist n\nslots 4\nend queue\njob 1 owner=u\n");
  const PriorityResult nr = ComputePriorities(none.cluster, none.jobs);
  const TaskPriority v = testing::Find(none, nr, 1).values;
  EXPECT_EQ(v.ntckts, 0.0);
  EXPECT_EQ(v.nurg, 0.25);
  EXPECT_EQ(v.prio, 0.025);
}

TEST(PriorityOptionsTest, LinearFunctionalSplit) {
  // The user category's 1,000,000 tickets (the only category with shares)
  // split between the users with pending jobs, B and C, then evenly among
  // each one's jobs: C1, C2 250000; B2-B4 166666.67. The sum is the total.
  const io::Snapshot s = Critics("FUNCTIONAL_SPLIT=linear");
  const PriorityResult r = ComputePriorities(s.cluster, s.jobs);
  double pending_sum = 0;
  for (JobNumber j : {B2, B3, B4, C1, C2}) pending_sum += testing::Find(s, r, j).values.ftckt;
  EXPECT_NEAR(pending_sum, 1000000.0, 1e-6);
  EXPECT_NEAR(testing::Find(s, r, C1).values.ftckt, 250000.0, 1e-9);
  EXPECT_NEAR(testing::Find(s, r, B4).values.ftckt, 1000000.0 / 6, 1e-9);
  // Running jobs keep Grid Engine's tickets, so max_tix is still B1's 500000.
  EXPECT_NEAR(testing::Find(s, r, 103).values.ftckt, 500000.0, 1e-9);
  EXPECT_NEAR(testing::Find(s, r, C2).values.prio, 0.05 + 0.25 + 0.5, 1e-12);
  EXPECT_NEAR(testing::Find(s, r, C1).values.prio, 0.05 + 0.25 + kC1Posix, 1e-12);
  EXPECT_EQ(PendingOrder(s, r), (std::vector<JobNumber>{C2, C1, B2, B3, B4}));
  // Serial twin.
  const PriorityResult serial = ComputePriorities(s.cluster, s.jobs, Twin::kReference);
  EXPECT_EQ(PendingOrder(s, serial), PendingOrder(s, r));
}

TEST(PriorityOptionsTest, BadValuesNameTheAttribute) {
  for (const char* bad : {"PRIORITY_NORMALIZATION=sometimes", "FUNCTIONAL_SPLIT=fair", "LINEAR_URGENCY_SCALE=0",
                          "PRIORITY_POLICY=slurm"}) {
    const io::Status st = testing::LoadError(std::string("schedk-snapshot 1\nnow 0\nbegin sconf\nparams ") + bad +
                                             "\nend sconf\n");
    ASSERT_FALSE(st.ok()) << bad;
    EXPECT_EQ(st.ToString().rfind("bad.snap:4: ", 0), 0u) << st.ToString();
    EXPECT_NE(st.ToString().find("params"), std::string::npos) << st.ToString();
  }
}

}  // namespace
}  // namespace schedk
