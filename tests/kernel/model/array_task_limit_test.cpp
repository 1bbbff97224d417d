// The array task limit (max_aj_instances, -tc) as Grid Engine 8.1.9's
// split_jobs applies it, with the cases seen on the real cell: max_aj_instances
// 3, a job -t 1-6 with task 1 running keeps tasks 2 and 3 for the run; with
// -tc 2 it keeps task 2; with max_aj_instances 1 it keeps none. Then what the
// priority pass makes of the tasks held back (the interval's part is in
// ScheduleTest.ArrayTasksBeyondTheirLimitWaitWithTheirReason).
#include "kernel/model/array_task_limit.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/test_support.hpp"

namespace schedk {
namespace {

using testing::Find;
using testing::Load;

// One host, 2 slots, the functional policy on; max_aj_instances as given.
std::string Cluster(const std::string& max_aj_instances) {
  return R"(schedk-snapshot 1
now 1795674100
begin sconf
weight_tickets_functional 1000
weight_urgency 0.5
weight_ticket 0.5
weight_priority 0
end sconf
begin conf
max_aj_instances )" + max_aj_instances + R"(
end conf
begin exechost h1
complex_values slots=2
end exechost
begin queue all.q
hostlist h1
slots 2
end queue
begin user u1
fshare 100
end user
begin user u2
fshare 100
end user
)";
}

// Each row of `job` as "first-last:step state[ limited]", in shard order.
std::vector<std::string> Rows(const JobTable& jobs, JobNumber job) {
  std::vector<std::string> out;
  for (const JobShard& shard : jobs.shards()) {
    for (std::size_t r = 0; r < shard.size(); ++r) {
      if (shard.number[r] != job) continue;
      std::string row = std::to_string(shard.task_first[r]) + "-" + std::to_string(shard.task_last[r]) + ":" +
                        std::to_string(shard.task_step[r]) + " " + std::to_string(static_cast<int>(shard.state[r]));
      if (shard.flags[r] & kJobBeyondTaskLimit) row += " limited";
      out.push_back(row);
    }
  }
  return out;
}

// Loads under `max_aj_instances` (the reader applies the limit in parallel);
// on one thread, applied again to what was loaded, must mark the same rows.
JobTable Limited(const std::string& jobs, std::uint32_t max_aj_instances) {
  const io::Snapshot s = Load(Cluster(std::to_string(max_aj_instances)) + jobs);
  JobTable serial = s.jobs;
  LimitArrayTasks(serial, max_aj_instances, ExecutionMode::kSerial);
  for (const JobNumber n : {1u, 2u, 3u}) EXPECT_EQ(Rows(s.jobs, n), Rows(serial, n)) << "job " << n;
  return s.jobs;
}

const char* kRunningTask1 = "job 1.1 owner=u1 submit=1795674000 state=r start=1795674050 granted=all.q@h1:1\n";

TEST(ArrayTaskLimitTest, TheLimitLessTheTaskObjectsStaysPending) {
  const JobTable jobs = Limited(std::string(kRunningTask1) + "job 1.2-6 owner=u1 submit=1795674000\n", 3);
  EXPECT_EQ(Rows(jobs, 1), (std::vector<std::string>{"1-1:1 2", "2-3:1 0", "4-6:1 0 limited"}));
}

TEST(ArrayTaskLimitTest, TcBelowTheLimitWins) {
  const std::string job1 = "job 1.1 owner=u1 submit=1795674000 tc=2 state=r start=1795674050 granted=all.q@h1:1\n"
                           "job 1.2-6 owner=u1 submit=1795674000 tc=2\n";
  EXPECT_EQ(Rows(Limited(job1, 3), 1), (std::vector<std::string>{"1-1:1 2", "2-2:1 0", "3-6:1 0 limited"}));
  // Above max_aj_instances, -tc does not apply; with max_aj_instances 0 it does.
  const std::string job2 = "job 2.1-6 owner=u2 submit=1795674000 tc=5\n";
  EXPECT_EQ(Rows(Limited(job2, 3), 2), (std::vector<std::string>{"1-3:1 0", "4-6:1 0 limited"}));
  EXPECT_EQ(Rows(Limited(job2, 0), 2), (std::vector<std::string>{"1-5:1 0", "6-6:1 0 limited"}));
  EXPECT_EQ(ArrayTaskLimit(0, 0), 0u);
  EXPECT_EQ(ArrayTaskLimit(2000, 0), 2000u);
  EXPECT_EQ(ArrayTaskLimit(2000, 2000), 2000u);
}

TEST(ArrayTaskLimitTest, NoRoomLeftHoldsBackEveryPendingTask) {
  const JobTable jobs = Limited(std::string(kRunningTask1) + "job 1.2-6 owner=u1 submit=1795674000\n", 1);
  EXPECT_EQ(Rows(jobs, 1), (std::vector<std::string>{"1-1:1 2", "2-6:1 0 limited"}));
}

TEST(ArrayTaskLimitTest, EnrolledTasksCountAndStayDispatchable) {
  // Task 2 exists as an object (rescheduled): 1 and 2 are objects, so one more of 3..6.
  const JobTable jobs = Limited(std::string(kRunningTask1) +
                                    "job 1.2 owner=u1 submit=1795674000 enrolled=y\n"
                                    "job 1.3-6 owner=u1 submit=1795674000\n",
                                3);
  EXPECT_EQ(Rows(jobs, 1), (std::vector<std::string>{"1-1:1 2", "2-2:1 0", "3-3:1 0", "4-6:1 0 limited"}));
}

TEST(ArrayTaskLimitTest, HeldTasksAreSkippedAndStepsKept) {
  // Tasks 1..9 step 2 around a held 5; the first 3 pending tasks in task order are 1, 3 and 7.
  const JobTable jobs = Limited(
      "job 1.5 owner=u1 submit=1795674000 state=hqw\n"
      "job 1.7-11:2 owner=u1 submit=1795674000\n"
      "job 1.1-3:2 owner=u1 submit=1795674000\n",
      3);
  EXPECT_EQ(Rows(jobs, 1), (std::vector<std::string>{"5-5:1 1", "7-7:1 0", "9-11:2 0 limited", "1-3:2 0"}));
}

TEST(ArrayTaskLimitTest, AJobWaitingForAPredecessorIsLeftAsItIs) {
  const JobTable jobs = Limited(
      "job 1 owner=u1 submit=1795674000\n"
      "job 2.1-6 owner=u2 submit=1795674000 hold_jid=1\n",
      2);
  EXPECT_EQ(Rows(jobs, 2), (std::vector<std::string>{"1-6:1 0"}));
}

// The cell, max_aj_instances 1: u1's 1-6 runs task 1, the rest held back; qstat
// shows the pending tasks all zeros and the running task's job columns zero.
TEST(ArrayTaskLimitTest, AJobWithNothingDispatchableShowsNoPriorityInformation) {
  const io::Snapshot s = Load(Cluster("1") + kRunningTask1 +
                              "job 1.2-6 owner=u1 submit=1795674000\n"
                              "job 2 owner=u2 submit=1795674010\n");
  const PriorityResult r = ComputePriorities(s.cluster, s.jobs);
  EXPECT_EQ(r.dispatchable_tasks, 1u);
  const TaskPriority running = Find(s, r, 1, 1).values;
  EXPECT_EQ(running.nurg, 0);
  EXPECT_EQ(running.npprior, 0);
  EXPECT_EQ(running.urg, 0);
  EXPECT_EQ(running.rrcontr, 0);
  EXPECT_EQ(running.wtcontr, 0);
  EXPECT_GT(running.tckts, 0);
  EXPECT_GT(running.prio, 0);
  for (TaskNumber t = 2; t <= 6; ++t) {
    const TaskPriority v = Find(s, r, 1, t).values;
    EXPECT_EQ(v.prio, 0) << t;
    EXPECT_EQ(v.urg, 0) << t;
    EXPECT_EQ(v.tckts, 0) << t;
  }
  EXPECT_GT(Find(s, r, 2).values.urg, 0);
}

// The same on a job whose other tasks are held (seen on the cell with qhold).
TEST(ArrayTaskLimitTest, RunningTasksOfAHeldJobShowNoJobColumns) {
  const io::Snapshot s = Load(Cluster("2000") + kRunningTask1 + "job 1.2-3 owner=u1 submit=1795674000 state=hqw\n");
  const PriorityResult r = ComputePriorities(s.cluster, s.jobs);
  EXPECT_EQ(r.cleared_jobs, std::vector<JobNumber>{1});
  EXPECT_EQ(Find(s, r, 1, 1).values.npprior, 0);
  // With a dispatchable task the job keeps its columns.
  const io::Snapshot t = Load(Cluster("2000") + kRunningTask1 + "job 1.2 owner=u1 submit=1795674000 state=hqw\n" +
                              "job 1.3 owner=u1 submit=1795674000\n");
  const PriorityResult q = ComputePriorities(t.cluster, t.jobs);
  EXPECT_TRUE(q.cleared_jobs.empty());
  EXPECT_EQ(Find(t, q, 1, 1).values.npprior, 0.5);
}

}  // namespace
}  // namespace schedk
