// job_list_order.hpp
// The rows of a job table in job-list order (Grid Engine's job list: job
// number, then first task), as flat row indices, cut into chunks that never
// split a job so that passes over the order can run in parallel.
// Invariants: rows() is a permutation of [0, jobs.rows()); rows of one job are
// adjacent; chunk c is rows()[chunk_begin(c), chunk_begin(c + 1)), and
// chunk_begin(chunks()) == rows().size().
// Shards hold whole blocks of consecutive job numbers (JobTable::ShardOf), so
// the order is each shard's rows, sorted where they are not already, cut at
// block boundaries and laid out block by block. Twin::kReference sorts all
// rows at once: the oracle of the default, and its fallback for a table
// filled without ShardOf.
#pragma once

#include <cstdint>
#include <vector>

#include "kernel/util/column.hpp"
#include "kernel/twin.hpp"
#include "kernel/model/job_table.hpp"
#include "kernel/util/row_index.hpp"

namespace schedk {

class JobListOrder {
 public:
  JobListOrder(const JobTable& jobs, const RowIndex& index, Twin twin = Twin::kOptimised);

  const Column<std::uint32_t>& rows() const { return rows_; }
  std::size_t chunks() const { return chunk_begin_.size() - 1; }
  std::uint32_t chunk_begin(std::size_t c) const { return chunk_begin_[c]; }

 private:
  // The parallel layout; false if some block of job numbers is in two shards.
  template <class Before>
  bool LayOutBlocks(const JobTable& jobs, const RowIndex& index, Before before);

  Column<std::uint32_t> rows_;  // sized uninitialised, written in full
  std::vector<std::uint32_t> chunk_begin_;
};

}  // namespace schedk
