#include "kernel/job_list_order.hpp"

#include <algorithm>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

namespace schedk {
namespace {

// A shard's rows of one block of job numbers: rows_[begin, end) once the shard is in order.
struct BlockRun {
  std::uint32_t block;
  std::uint32_t begin;
  std::uint32_t end;
};

// Chunks of about this many rows; a job is never split.
constexpr std::uint32_t kChunkRows = 16384;

}  // namespace

JobListOrder::JobListOrder(const JobTable& jobs, const RowIndex& index, Twin twin) {
  const std::vector<JobShard>& shards = jobs.shards();
  auto before = [&](std::uint32_t a, std::uint32_t b) {
    const JobShard& sa = shards[index.shard(a)];
    const JobShard& sb = shards[index.shard(b)];
    const std::uint32_t ra = index.row(a), rb = index.row(b);
    if (sa.number[ra] != sb.number[rb]) return sa.number[ra] < sb.number[rb];
    return sa.task_first[ra] < sb.task_first[rb];
  };
  rows_.resize(index.size());
  if (twin == Twin::kReference || !LayOutBlocks(jobs, index, before)) {
    for (std::uint32_t f = 0; f < rows_.size(); ++f) rows_[f] = f;
    std::sort(rows_.begin(), rows_.end(), before);
  }
  // Chunks of about kChunkRows rows, each moved on to the start of a job.
  chunk_begin_ = {0};
  auto number = [&](std::uint32_t flat) { return shards[index.shard(flat)].number[index.row(flat)]; };
  for (std::size_t b = kChunkRows; b < rows_.size(); b += kChunkRows) {
    while (b < rows_.size() && number(rows_[b]) == number(rows_[b - 1])) ++b;
    if (b < rows_.size()) chunk_begin_.push_back(static_cast<std::uint32_t>(b));
  }
  chunk_begin_.push_back(static_cast<std::uint32_t>(rows_.size()));
}

template <class Before>
bool JobListOrder::LayOutBlocks(const JobTable& jobs, const RowIndex& index, Before before) {
  const std::vector<JobShard>& shards = jobs.shards();
  // Each shard's rows in order (already so, unless the input was out of order),
  // then cut into runs of one block each.
  std::vector<std::vector<BlockRun>> runs(shards.size());
  tbb::parallel_for(std::size_t{0}, shards.size(), [&](std::size_t s) {
    const JobShard& shard = shards[s];
    const std::uint32_t base = index.offsets()[s];
    const auto first = rows_.begin() + base, last = first + static_cast<std::ptrdiff_t>(shard.size());
    for (std::uint32_t r = 0; r < shard.size(); ++r) first[r] = base + r;
    if (!std::is_sorted(first, last, before)) std::sort(first, last, before);
    for (std::uint32_t r = 0; r < shard.size();) {
      const std::uint32_t block = shard.number[index.row(first[r])] >> JobTable::kBlockBits;
      std::uint32_t end = r + 1;
      while (end < shard.size() && shard.number[index.row(first[end])] >> JobTable::kBlockBits == block) ++end;
      runs[s].push_back({block, base + r, base + end});
      r = end;
    }
  });
  std::vector<BlockRun> all;
  for (const auto& shard_runs : runs) all.insert(all.end(), shard_runs.begin(), shard_runs.end());
  std::sort(all.begin(), all.end(), [](const BlockRun& a, const BlockRun& b) { return a.block < b.block; });
  // A table filled without ShardOf may hold one block in two shards.
  for (std::size_t k = 1; k < all.size(); ++k) {
    if (all[k].block == all[k - 1].block) return false;
  }
  std::vector<std::uint32_t> run_start(all.size() + 1, 0);
  for (std::size_t k = 0; k < all.size(); ++k) run_start[k + 1] = run_start[k] + (all[k].end - all[k].begin);
  Column<std::uint32_t> laid_out(rows_.size());  // the runs cover every row
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, all.size(), 16), [&](const auto& range) {
    for (std::size_t k = range.begin(); k != range.end(); ++k) {
      std::copy(rows_.begin() + all[k].begin, rows_.begin() + all[k].end, laid_out.begin() + run_start[k]);
    }
  });
  rows_.swap(laid_out);
  return true;
}

}  // namespace schedk
