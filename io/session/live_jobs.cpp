#include "io/session/live_jobs.hpp"

#include <algorithm>
#include <tuple>

#include <tbb/parallel_for.h>
#include <tbb/parallel_sort.h>

namespace schedk::io {
namespace {

bool RowBefore(const ParsedJob& a, const ParsedJob& b) {
  return std::tie(a.number, a.first) < std::tie(b.number, b.first);
}

// An arithmetic run of tasks; step 0 while it holds a single task.
struct Run {
  TaskNumber first = 0, last = 0, step = 0;
};

// The greedy runs of the union of disjoint progressions sorted by first task.
std::vector<Run> GreedyRuns(const std::vector<const ParsedJob*>& parts) {
  std::vector<Run> runs;
  std::optional<Run> cur;
  for (const ParsedJob* p : parts) {
    Run rest{p->first, p->last, p->first == p->last ? TaskNumber{0} : p->step};
    bool empty = false;
    auto drop_first = [&] {  // rest without its first task
      if (rest.first == rest.last) {
        empty = true;
      } else {
        rest.first += rest.step;
        if (rest.first == rest.last) rest.step = 0;
      }
    };
    while (!empty) {
      if (!cur) {
        cur = rest;
        empty = true;
      } else if (cur->step == 0) {
        const TaskNumber s = rest.first - cur->first;
        if (rest.step == 0 || rest.step == s) {
          *cur = {cur->first, rest.last, s};
          empty = true;
        } else {
          *cur = {cur->first, rest.first, s};
          drop_first();
        }
      } else if (rest.first == cur->last + cur->step) {
        if (rest.step == 0 || rest.step == cur->step) {
          cur->last = rest.last;
          empty = true;
        } else {
          cur->last = rest.first;
          drop_first();
        }
      } else {
        runs.push_back(*cur);
        cur.reset();
      }
    }
  }
  if (cur) runs.push_back(*cur);
  return runs;
}

// Sorts one shard's rows and canonicalises each job with more than one row.
void CanonicalShard(std::vector<ParsedJob>& rows) {
  std::sort(rows.begin(), rows.end(), RowBefore);
  std::vector<ParsedJob> out;
  std::vector<ParsedJob> job;
  out.reserve(rows.size());
  for (std::size_t begin = 0; begin < rows.size();) {
    std::size_t end = begin + 1;
    while (end < rows.size() && rows[end].number == rows[begin].number) ++end;
    if (end - begin == 1) {
      out.push_back(rows[begin]);
    } else {
      job.assign(rows.begin() + static_cast<std::ptrdiff_t>(begin), rows.begin() + static_cast<std::ptrdiff_t>(end));
      CanonicalRows(job);
      out.insert(out.end(), job.begin(), job.end());
    }
    begin = end;
  }
  rows = std::move(out);
}

}  // namespace

void CanonicalRows(std::vector<ParsedJob>& rows) {
  if (rows.size() <= 1) return;  // one progression is its own greedy run (ParseJobId normalises it)
  std::sort(rows.begin(), rows.end(), RowBefore);
  std::vector<ParsedJob> out;
  for (JobState state : {JobState::kPending, JobState::kHeld, JobState::kError}) {
    for (const bool enrolled : {false, true}) {  // task objects keep rows of their own
      std::vector<const ParsedJob*> parts;
      for (const ParsedJob& r : rows) {
        if (r.state == state && ((r.flags & kJobEnrolled) != 0) == enrolled) parts.push_back(&r);
      }
      if (parts.empty()) continue;
      const ParsedJob model = *parts.front();
      for (const Run& run : GreedyRuns(parts)) {
        ParsedJob row = model;
        row.first = run.first;
        row.last = run.last;
        row.step = run.step == 0 ? 1 : run.step;
        out.push_back(row);
      }
    }
  }
  for (const ParsedJob& r : rows) {
    if (r.running()) out.push_back(r);
  }
  std::sort(out.begin(), out.end(), RowBefore);
  rows = std::move(out);
}

LiveJobs::LiveJobs(std::vector<ParsedJob> rows, JobNameSpace names) : LiveJobs() {
  names_ = std::move(names);
  std::vector<LiveShard> shards(shards_.size());
  std::vector<std::vector<ParsedJob>> parts(shards_.size());
  for (const ParsedJob& r : rows) parts[ShardOf(r.number)].push_back(r);
  rows.clear();
  rows.shrink_to_fit();
  tbb::parallel_for(std::size_t{0}, parts.size(), [&](std::size_t i) {
    CanonicalShard(parts[i]);
    shards[i].rows = std::move(parts[i]);
  });
  shards_.ReplaceAll(std::move(shards));
}

std::vector<ParsedJob> LiveJobs::Rows(JobNumber number) const {
  return shards_.Read(ShardOf(number), [&](const LiveShard& shard) {
    auto lo = std::lower_bound(shard.rows.begin(), shard.rows.end(), number,
                               [](const ParsedJob& r, JobNumber n) { return r.number < n; });
    auto hi = lo;
    while (hi != shard.rows.end() && hi->number == number) ++hi;
    return std::vector<ParsedJob>(lo, hi);
  });
}

Reason LiveJobs::Apply(JobNumber number, const Update& update) {
  return shards_.Mutate(ShardOf(number), [&](LiveShard& shard) -> Reason {
    auto lo = std::lower_bound(shard.rows.begin(), shard.rows.end(), number,
                               [](const ParsedJob& r, JobNumber n) { return r.number < n; });
    auto hi = lo;
    while (hi != shard.rows.end() && hi->number == number) ++hi;
    const std::vector<ParsedJob> current(lo, hi);
    std::vector<ParsedJob> next;
    if (auto refused = update(current, next)) return refused;
    CanonicalRows(next);
    // Replace [lo, hi) with next, moving the tail once at most.
    const auto at = static_cast<std::size_t>(lo - shard.rows.begin());
    const std::size_t old_count = current.size();
    if (next.size() == old_count) {
      std::copy(next.begin(), next.end(), shard.rows.begin() + static_cast<std::ptrdiff_t>(at));
    } else {
      shard.rows.erase(lo, hi);
      shard.rows.insert(shard.rows.begin() + static_cast<std::ptrdiff_t>(at), next.begin(), next.end());
    }
    return std::nullopt;
  });
}

namespace {

// Puts a job of one row into `shard` unless its number is there already.
bool InsertInto(LiveShard& shard, const ParsedJob& row) {
  // Job numbers mostly come in increasing order: try the end first.
  auto at = shard.rows.end();
  if (!shard.rows.empty() && shard.rows.back().number >= row.number) {
    at = std::lower_bound(shard.rows.begin(), shard.rows.end(), row.number,
                          [](const ParsedJob& r, JobNumber n) { return r.number < n; });
    if (at != shard.rows.end() && at->number == row.number) return false;
  }
  shard.rows.insert(at, row);
  return true;
}

}  // namespace

bool LiveJobs::Insert(const ParsedJob& row) {
  return shards_.Mutate(ShardOf(row.number), [&](LiveShard& shard) { return InsertInto(shard, row); });
}

void LiveJobs::InsertAll(std::uint32_t shard, std::span<const ParsedJob* const> rows, std::span<bool> added) {
  shards_.Mutate(shard, [&](LiveShard& s) {
    for (std::size_t i = 0; i < rows.size(); ++i) added[i] = InsertInto(s, *rows[i]);
  });
}

std::size_t LiveJobs::job_count() const {
  const View view = Snapshot();
  std::size_t n = 0;
  for (const auto& shard : view) {
    for (std::size_t i = 0; i < shard->rows.size(); ++i) n += i == 0 || shard->rows[i].number != shard->rows[i - 1].number;
  }
  return n;
}

std::size_t LiveJobs::row_count() const {
  const View view = Snapshot();
  std::size_t n = 0;
  for (const auto& shard : view) n += shard->rows.size();
  return n;
}

}  // namespace schedk::io
