// live_jobs.hpp
// The jobs of a session (schedk serve): parsed job rows (job_line.hpp) in
// lock-sharded, copy-on-write shards (kernel/live/cow_shards.hpp), sharded by
// job number exactly as the kernel's JobTable is, so a pass turns each live
// shard into the JobTable shard of the same index. One name space serves the
// whole session; it only grows.
// Invariants:
//   * a shard's rows are sorted by (job number, first task), the rows of one
//     job are contiguous and in canonical form (CanonicalRows): a job's state
//     has one representation however it was reached;
//   * every id in a row indexes names(); names are never removed;
//   * an update of one job locks that job's shard only.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <shared_mutex>
#include <span>
#include <string>
#include <vector>

#include "io/job_line.hpp"
#include "io/status.hpp"
#include "kernel/live/cow_shards.hpp"
#include "kernel/model/job_table.hpp"

namespace schedk::io {

struct LiveShard {
  std::vector<ParsedJob> rows;
};

// Puts one job's rows into canonical form: sorted by first task; the tasks of
// each state that is not running (pending, held, error), task objects
// (enrolled) and the others apart, as the greedy
// arithmetic runs of their sorted task set (start at the smallest task, the
// next one fixes the step, extend while the step holds), so the same task set
// is always written the same way.
void CanonicalRows(std::vector<ParsedJob>& rows);

class LiveJobs {
 public:
  using View = CowShards<LiveShard>::View;

  LiveJobs() : shards_(std::size_t{1} << JobTable::kDefaultShardBits) {}
  // A store holding `rows` (any order; each job's rows need not be canonical)
  // over `names`: sorted and canonicalised in parallel. A session replaces its
  // whole store this way, so a pass still reading the old one keeps it.
  LiveJobs(std::vector<ParsedJob> rows, JobNameSpace names);

  std::size_t shard_count() const { return shards_.size(); }
  std::uint32_t ShardOf(JobNumber number) const { return layout_.ShardOf(number); }

  // The name space, under its own lock: exclusive to intern, shared to read.
  template <class F>
  decltype(auto) WithNames(F&& f) {
    std::unique_lock<std::shared_mutex> lock(names_mutex_);
    return std::forward<F>(f)(names_);
  }
  template <class F>
  decltype(auto) ReadNames(F&& f) const {
    std::shared_lock<std::shared_mutex> lock(names_mutex_);
    return std::forward<F>(f)(static_cast<const JobNameSpace&>(names_));
  }

  // The rows of job `number` (empty when there is no such job).
  std::vector<ParsedJob> Rows(JobNumber number) const;

  // Replaces job `number`'s rows under its shard's lock: update(current, next)
  // fills `next` from `current` and returns an error text to refuse; on
  // success the rows become CanonicalRows(next) (none: the job is gone).
  // Returns the refusal, if any.
  using Update = std::function<Reason(const std::vector<ParsedJob>& current,
                                                          std::vector<ParsedJob>& next)>;
  Reason Apply(JobNumber number, const Update& update);
  // Adds a job of one row that must not exist yet; false (and nothing done) if it does.
  bool Insert(const ParsedJob& row);
  // Inserts `rows`, all of shard `shard`, one after the other under one lock:
  // added[i] is what Insert(*rows[i]) would have returned at its turn.
  void InsertAll(std::uint32_t shard, std::span<const ParsedJob* const> rows, std::span<bool> added);

  // Every shard at one instant, for a pass.
  View Snapshot() const { return shards_.Snapshot(); }

  // Jobs and rows now.
  std::size_t job_count() const;
  std::size_t row_count() const;

 private:
  JobTable layout_{JobTable::kDefaultShardBits};  // its ShardOf only
  CowShards<LiveShard> shards_;
  mutable std::shared_mutex names_mutex_;
  JobNameSpace names_;
};

}  // namespace schedk::io
