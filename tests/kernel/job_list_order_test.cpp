// JobListOrder against a plain sort of every row by (job number, first task):
// shards in order, shards out of order, a table filled without ShardOf, and
// chunks that never split a job.
#include "kernel/job_list_order.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <utility>
#include <vector>

namespace schedk {
namespace {

// Appends a row for (number, first task) to `shard`.
void AddRow(JobShard& shard, JobNumber number, TaskNumber first) {
  const std::size_t r = shard.size();
  shard.Resize(r + 1);
  shard.number[r] = number;
  shard.task_first[r] = first;
  shard.task_last[r] = first;
  shard.task_step[r] = 1;
}

// The (number, first task) of each row in the order.
std::vector<std::pair<JobNumber, TaskNumber>> Listed(const JobTable& jobs, const JobListOrder& order) {
  const RowIndex index(jobs);
  std::vector<std::pair<JobNumber, TaskNumber>> listed;
  for (std::uint32_t flat : order.rows()) {
    const JobShard& shard = jobs.shards()[index.shard(flat)];
    listed.emplace_back(shard.number[index.row(flat)], shard.task_first[index.row(flat)]);
  }
  return listed;
}

void ExpectJobListOrder(const JobTable& jobs, std::vector<std::pair<JobNumber, TaskNumber>> rows) {
  std::sort(rows.begin(), rows.end());
  const RowIndex index(jobs);
  const JobListOrder parallel(jobs, index);
  const JobListOrder serial(jobs, index, Twin::kReference);
  const auto listed = Listed(jobs, parallel);
  EXPECT_EQ(listed, rows);
  EXPECT_EQ(Listed(jobs, serial), rows);
  // The chunks cover the order, and each starts at a job's first row.
  ASSERT_GE(parallel.chunks(), 1u);
  EXPECT_EQ(parallel.chunk_begin(0), 0u);
  EXPECT_EQ(parallel.chunk_begin(parallel.chunks()), rows.size());
  for (std::size_t c = 1; c < parallel.chunks(); ++c) {
    const std::uint32_t b = parallel.chunk_begin(c);
    ASSERT_GT(b, parallel.chunk_begin(c - 1));
    EXPECT_NE(listed[b].first, listed[b - 1].first) << "chunk " << c << " splits job " << listed[b].first;
  }
}

TEST(JobListOrderTest, ShardsInAndOutOfOrderGiveJobNumberThenFirstTask) {
  std::mt19937_64 rng(11);
  for (const bool shuffled : {false, true}) {
    JobTable jobs;
    std::vector<std::pair<JobNumber, TaskNumber>> rows;
    for (JobNumber n = 1; n <= 200000; n += 1 + static_cast<JobNumber>(rng() % 3)) {
      // Some jobs have several rows (array task ranges in different states).
      const int parts = rng() % 50 == 0 ? 3 : 1;
      for (int p = 0; p < parts; ++p) rows.emplace_back(n, static_cast<TaskNumber>(1 + 10 * p));
    }
    std::vector<std::pair<JobNumber, TaskNumber>> input = rows;
    if (shuffled) std::shuffle(input.begin(), input.end(), rng);
    for (const auto& [number, first] : input) AddRow(jobs.shards()[jobs.ShardOf(number)], number, first);
    ExpectJobListOrder(jobs, rows);
  }
}

TEST(JobListOrderTest, TableFilledWithoutShardOfIsStillOrdered) {
  // Jobs 1..3000 dealt round-robin to two shards: every block is in both.
  JobTable jobs(1);
  std::vector<std::pair<JobNumber, TaskNumber>> rows;
  for (JobNumber n = 3000; n >= 1; --n) {
    AddRow(jobs.shards()[n % 2], n, 1);
    rows.emplace_back(n, 1);
  }
  ExpectJobListOrder(jobs, rows);
}

TEST(JobListOrderTest, EmptyTableHasOneEmptyChunk) {
  const JobTable jobs;
  const RowIndex index(jobs);
  const JobListOrder order(jobs, index);
  EXPECT_TRUE(order.rows().empty());
  ASSERT_EQ(order.chunks(), 1u);
  EXPECT_EQ(order.chunk_begin(1), 0u);
}

}  // namespace
}  // namespace schedk
