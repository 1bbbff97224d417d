// row_index.hpp
// Maps a row's flat index (JobTable::Offsets()[shard] + row) back to its shard
// and row in O(1), for passes that work on flat-indexed columns. A Cursor does
// the same for a walk that visits rows shard by shard in runs (job-list order,
// the dispatch order's jobs): it keeps the shard of the last row it was asked
// for and looks up only when the walk leaves it.
// Invariant: built from one JobTable and valid while that table is unchanged.
#pragma once

#include <cstdint>
#include <vector>

#include "kernel/model/job_table.hpp"

namespace schedk {

class RowIndex {
 public:
  explicit RowIndex(const JobTable& jobs) : offsets_(jobs.Offsets()), shard_of_(offsets_.back()) {
    for (std::size_t s = 0; s + 1 < offsets_.size(); ++s) {
      for (std::uint32_t f = offsets_[s]; f < offsets_[s + 1]; ++f) shard_of_[f] = static_cast<std::uint16_t>(s);
    }
  }
  std::uint32_t shard(std::uint32_t flat) const { return shard_of_[flat]; }
  std::uint32_t row(std::uint32_t flat) const { return flat - offsets_[shard_of_[flat]]; }
  const std::vector<std::uint32_t>& offsets() const { return offsets_; }
  std::size_t size() const { return shard_of_.size(); }

  // A row as its shard and its index there.
  struct Row {
    const JobShard* shard;
    std::uint32_t row;
  };
  // One walk's view of the rows; a walk per thread.
  class Cursor {
   public:
    Cursor(const JobTable& jobs, const RowIndex& index) : jobs_(jobs), index_(index) {}
    Row At(std::uint32_t flat) {
      if (flat - begin_ >= end_ - begin_) {
        const std::uint32_t s = index_.shard(flat);
        shard_ = &jobs_.shards()[s];
        begin_ = index_.offsets_[s];
        end_ = index_.offsets_[s + 1];
      }
      return Row{shard_, flat - begin_};
    }

   private:
    const JobTable& jobs_;
    const RowIndex& index_;
    const JobShard* shard_ = nullptr;
    std::uint32_t begin_ = 0, end_ = 0;  // the flat rows of shard_
  };

 private:
  std::vector<std::uint32_t> offsets_;
  std::vector<std::uint16_t> shard_of_;  // JobTable shard counts stay far below 65536
};

}  // namespace schedk
