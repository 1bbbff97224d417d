// RowIndex and its Cursor: every flat row maps back to the shard and row it
// was counted from, whether a walk visits the rows in order, shard by shard,
// or jumping between shards (empty shards included), and a job's task count
// as its array range gives it.
#include "kernel/util/row_index.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

namespace schedk {
namespace {

// Four shards of 3, 0, 5 and 1 rows; row r of shard s holds job number 100 * s + r.
JobTable FourShards() {
  JobTable jobs(2);
  const std::vector<std::size_t> sizes = {3, 0, 5, 1};
  for (std::size_t s = 0; s < sizes.size(); ++s) {
    JobShard& shard = jobs.shards()[s];
    shard.Resize(sizes[s]);
    for (std::size_t r = 0; r < sizes[s]; ++r) shard.number[r] = static_cast<JobNumber>(100 * s + r);
  }
  return jobs;
}

TEST(RowIndexTest, CursorFindsEveryRowInAnyOrder) {
  const JobTable jobs = FourShards();
  const RowIndex index(jobs);
  ASSERT_EQ(index.size(), 9u);
  // Flat rows 0-2 are shard 0, 3-7 shard 2, 8 shard 3.
  const std::vector<std::uint32_t> expected_shard = {0, 0, 0, 2, 2, 2, 2, 2, 3};
  const std::vector<std::uint32_t> expected_row = {0, 1, 2, 0, 1, 2, 3, 4, 0};
  std::vector<std::uint32_t> walk = {0, 1, 2, 3, 4, 5, 6, 7, 8};
  std::mt19937 rng(3);
  for (int round = 0; round < 4; ++round) {
    RowIndex::Cursor cursor(jobs, index);
    for (std::uint32_t flat : walk) {
      const RowIndex::Row at = cursor.At(flat);
      EXPECT_EQ(at.shard, &jobs.shards()[expected_shard[flat]]) << "flat " << flat;
      EXPECT_EQ(at.row, expected_row[flat]) << "flat " << flat;
      EXPECT_EQ(at.shard->number[at.row], 100 * expected_shard[flat] + expected_row[flat]);
      EXPECT_EQ(index.shard(flat), expected_shard[flat]);
      EXPECT_EQ(index.row(flat), expected_row[flat]);
    }
    std::shuffle(walk.begin(), walk.end(), rng);  // the next rounds jump between shards
  }
}

TEST(RowIndexTest, TaskCountOfOneTaskAndArrayRows) {
  JobShard shard;
  shard.Resize(4);
  const std::vector<std::vector<TaskNumber>> ranges = {{7, 7, 1}, {1, 10, 1}, {1, 9, 2}, {2, 10, 4}};
  for (std::size_t r = 0; r < ranges.size(); ++r) {
    shard.task_first[r] = ranges[r][0];
    shard.task_last[r] = ranges[r][1];
    shard.task_step[r] = ranges[r][2];
  }
  EXPECT_EQ(shard.task_count(0), 1u);   // 7
  EXPECT_EQ(shard.task_count(1), 10u);  // 1-10
  EXPECT_EQ(shard.task_count(2), 5u);   // 1, 3, 5, 7, 9
  EXPECT_EQ(shard.task_count(3), 3u);   // 2, 6, 10
}

}  // namespace
}  // namespace schedk
