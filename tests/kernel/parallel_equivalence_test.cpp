// The optimised priority pass against its reference twin and against itself with
// one thread, on a generated population of 120,000 jobs with every policy
// active (functional, share tree, override, urgency with waiting time and
// deadlines, PE ranges, array jobs, running and held jobs), on one without
// array jobs, on one where only the first few tasks of a job have tickets, and
// on a snapshot whose jobs have several pending rows.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <string>

#include <tbb/task_arena.h>

#include "kernel/priority/priority.hpp"
#include "tests/support/population.hpp"
#include "tests/test_support.hpp"

namespace schedk {
namespace {

// Every output value of every row, bit for bit.
void ExpectIdentical(const Cluster& c, const JobTable& jobs, const PriorityResult& a, const PriorityResult& b) {
  ASSERT_EQ(a.order.size(), b.order.size());
  const RowIndex index(jobs);
  for (std::size_t i = 0; i < a.order.size(); ++i) {
    ASSERT_EQ(a.order[i].row, b.order[i].row) << "position " << i;
    ASSERT_EQ(a.order[i].task, b.order[i].task) << "position " << i;
    const TaskPriority va = a.Values(c, jobs, index, a.order[i]);
    const TaskPriority vb = b.Values(c, jobs, index, b.order[i]);
    ASSERT_EQ(std::memcmp(&va, &vb, sizeof va), 0) << "position " << i;
  }
}

// A generated population with every ticket input and random submission times,
// which exercise every ordering path.
io::GeneratorSpec SpecOf(std::uint64_t seed, std::uint64_t pending, std::uint64_t running, std::uint32_t users,
                         std::uint32_t projects, std::uint32_t hosts, double array_fraction) {
  return io::GeneratorSpec{.seed = seed,
                           .jobs = pending,
                           .hosts = hosts,
                           .users = users,
                           .projects = projects,
                           .array_fraction = array_fraction,
                           .running_tasks = running,
                           .policies = io::PolicyMix::kEvery,
                           .random_submit = true};
}

// Runs the parallel pass and its reference twin on a generated population,
// expects identical results and returns the parallel one.
PriorityResult ExpectTwinsAgree(const io::Snapshot& p) {
  PriorityResult parallel = ComputePriorities(p.cluster, p.jobs, Twin::kOptimised);
  const PriorityResult serial = ComputePriorities(p.cluster, p.jobs, Twin::kReference);
  ExpectIdentical(p.cluster, p.jobs, parallel, serial);
  return parallel;
}

class ParallelEquivalenceTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    population_ = new io::Snapshot(GeneratePopulation(SpecOf(7, 120000, 6000, 3000, 60, 200, 0.05)));
  }
  static void TearDownTestSuite() { delete population_; }
  static io::Snapshot* population_;
};
io::Snapshot* ParallelEquivalenceTest::population_ = nullptr;

TEST_F(ParallelEquivalenceTest, SerialTwinGivesTheSameResult) {
  const io::Snapshot& p = *population_;
  const PriorityResult parallel = ComputePriorities(p.cluster, p.jobs, Twin::kOptimised);
  const PriorityResult serial = ComputePriorities(p.cluster, p.jobs, Twin::kReference);
  EXPECT_GT(parallel.dispatchable_tasks, 100000u);
  ExpectIdentical(p.cluster, p.jobs, parallel, serial);
}

TEST_F(ParallelEquivalenceTest, OneThreadAndManyThreadsAgree) {
  const io::Snapshot& p = *population_;
  PriorityResult one;
  tbb::task_arena single(1);
  single.execute([&] { one = ComputePriorities(p.cluster, p.jobs); });
  tbb::task_arena many(4);  // more threads than cores still must not change a bit
  PriorityResult four;
  many.execute([&] { four = ComputePriorities(p.cluster, p.jobs); });
  ExpectIdentical(p.cluster, p.jobs, one, four);
}

TEST_F(ParallelEquivalenceTest, EveryPolicyContributes) {
  const io::Snapshot& p = *population_;
  const PriorityResult r = ComputePriorities(p.cluster, p.jobs);
  double f = 0, o = 0, s = 0;
  for (std::size_t i = 0; i < r.tickets.refs.size(); ++i) {
    f += r.tickets.refs.ftix[i] > 0;
    o += r.tickets.refs.otix[i] > 0;
    s += r.tickets.refs.stix[i] > 0;
  }
  EXPECT_GT(f, 100);
  EXPECT_GT(o, 100);
  EXPECT_GT(s, 10000);
}

// With the override policy ranked first (OFS), the share tree is prepared on a
// second task while the override pass runs. (Not in the ThreadSanitizer run of
// .ci/run: Debian's oneTBB is not instrumented, and ThreadSanitizer reports
// TBB's own work stealing inside any parallel_for of the pass.)
TEST(PrioritySideTaskTest, TreePreparedBesideTheOverridePassMatchesTheSerialTwin) {
  const io::Snapshot p = GeneratePopulation(SpecOf(13, 20000, 1000, 800, 20, 50, 0.05));
  ASSERT_FALSE(p.cluster.config.policy_hierarchy.empty());
  ASSERT_EQ(p.cluster.config.policy_hierarchy.front(), TicketPolicy::kOverride);
  const PriorityResult serial = ComputePriorities(p.cluster, p.jobs, Twin::kReference);
  for (int run = 0; run < 3; ++run) {  // the two tasks meet in a different order each time
    const PriorityResult parallel = ComputePriorities(p.cluster, p.jobs, Twin::kOptimised);
    ExpectIdentical(p.cluster, p.jobs, parallel, serial);
  }
  std::size_t override_tickets = 0, share_tickets = 0;
  for (std::size_t i = 0; i < serial.tickets.refs.size(); ++i) {
    override_tickets += serial.tickets.refs.otix[i] > 0;
    share_tickets += serial.tickets.refs.stix[i] > 0;
  }
  EXPECT_GT(override_tickets, 100u);
  EXPECT_GT(share_tickets, 1000u);
}

// Without array jobs every job is one task of the parallel pass's sort; the
// reference twin still takes the general merge.
TEST(ParallelEquivalenceSingleTaskTest, SortOfSingleTaskJobsMatchesTheMerge) {
  EXPECT_GT(ExpectTwinsAgree(GeneratePopulation(SpecOf(8, 40000, 2000, 1000, 20, 100, 0))).dispatchable_tasks, 35000u);
}

// With array jobs the parallel pass sorts all tasks by their job's running
// worst key; the reference twin merges the jobs' task sequences. L = 4
// (max_pending_tasks_per_job 4, below the free slots), so later tasks of an
// array job keep the fourth one's values.
TEST(ParallelEquivalenceArrayTest, SortOfTasksMatchesTheMergeWithFewTicketedTasks) {
  io::Snapshot p = GeneratePopulation(SpecOf(9, 30000, 97, 500, 10, 10, 0.3));
  p.cluster.config.max_pending_tasks_per_job = 4;
  const PriorityResult parallel = ExpectTwinsAgree(p);
  EXPECT_EQ(parallel.tickets.pending_task_limit, 4u);
  EXPECT_GT(parallel.dispatchable_tasks, 60000u);
}

// Jobs whose tasks are split over two or three pending rows (array ranges in
// different rows, some interleaved: 1-9:2 and 2-10:2), added to
// datasets/policies-mix.snap with its policies and jobs: the parallel pass
// groups the rows by job, the reference twin merges them.
TEST(ParallelEquivalenceRowsTest, JobsWithSeveralPendingRowsMatchTheMerge) {
  std::ifstream file(testing::SourceDir() + "/datasets/policies-mix.snap");
  ASSERT_TRUE(file) << "datasets/policies-mix.snap";
  std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  std::mt19937_64 rng(12);
  const char* owners[] = {"alice", "bob", "carol"};
  const char* projects[] = {"astro", "bio", ""};
  std::size_t several = 0;
  for (int job = 1000; job < 4000; ++job) {
    const std::string common = std::string(" owner=") + owners[rng() % 3] +
                               (rng() % 3 == 2 ? "" : std::string(" project=") + projects[rng() % 2]) +
                               " submit=2026-11-20T" + std::to_string(10 + rng() % 2) + ":" +
                               std::to_string(10 + rng() % 50) + ":00Z js=" + std::to_string(rng() % 3 * 10) +
                               " p=" + std::to_string(static_cast<int>(rng() % 5) * 100 - 200);
    const std::string id = "job " + std::to_string(job);
    switch (rng() % 4) {
      case 0:  // one task
        text += id + common + "\n";
        break;
      case 1:  // one array row
        text += id + ".1-" + std::to_string(2 + rng() % 6) + common + "\n";
        break;
      case 2:  // two consecutive ranges
        text += id + ".1-3" + common + "\n" + id + ".4-" + std::to_string(4 + rng() % 5) + common + "\n";
        ++several;
        break;
      default:  // interleaved odd and even tasks, and a third row after them
        text += id + ".1-9:2" + common + "\n" + id + ".2-10:2" + common + "\n" + id + ".11-12" + common + "\n";
        ++several;
        break;
    }
  }
  const io::Snapshot s = testing::Load(text);
  const PriorityResult parallel = ComputePriorities(s.cluster, s.jobs, Twin::kOptimised);
  const PriorityResult serial = ComputePriorities(s.cluster, s.jobs, Twin::kReference);
  ExpectIdentical(s.cluster, s.jobs, parallel, serial);
  EXPECT_GT(several, 1000u);
  EXPECT_GT(parallel.dispatchable_tasks, 10000u);
}

}  // namespace
}  // namespace schedk

namespace schedk {
namespace {

// The opt-in priority options keep the twins and the thread counts in step.
TEST(PriorityOptionsEquivalenceTest, EachOptionAgreesWithItsSerialTwinAndOneThread) {
  io::Snapshot p = GeneratePopulation(SpecOf(11, 60000, 3000, 2000, 100, 100, 0));
  const std::pair<PriorityNormalization, FunctionalSplit> options[] = {
      {PriorityNormalization::kPendingOnly, FunctionalSplit::kGridEngine},
      {PriorityNormalization::kLinear, FunctionalSplit::kGridEngine},
      {PriorityNormalization::kGridEngine, FunctionalSplit::kLinear},
      {PriorityNormalization::kLinear, FunctionalSplit::kLinear}};
  for (const auto& [normalization, split] : options) {
    p.cluster.config.normalization = normalization;
    p.cluster.config.functional_split = split;
    const PriorityResult parallel = ComputePriorities(p.cluster, p.jobs, Twin::kOptimised);
    const PriorityResult serial = ComputePriorities(p.cluster, p.jobs, Twin::kReference);
    ExpectIdentical(p.cluster, p.jobs, parallel, serial);
    PriorityResult one;
    tbb::task_arena single(1);
    single.execute([&] { one = ComputePriorities(p.cluster, p.jobs); });
    ExpectIdentical(p.cluster, p.jobs, parallel, one);
  }
}

}  // namespace
}  // namespace schedk
