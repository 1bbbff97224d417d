#include "kernel/model/array_task_limit.hpp"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace schedk {
namespace {

// What the limit needs to know of one array job in one shard.
struct ArrayJob {
  std::uint64_t objects = 0;     // task objects: running, suspended, error and enrolled tasks
  std::uint64_t candidates = 0;  // pending tasks that are not objects yet
  std::uint32_t task_concurrency = 0;
  std::vector<std::uint32_t> candidate_rows;
};

bool IsObject(const JobShard& shard, std::size_t r) {
  const JobState state = shard.state[r];
  return state == JobState::kRunning || state == JobState::kSuspended || state == JobState::kError ||
         (shard.flags[r] & kJobEnrolled) != 0;
}

bool Waits(const JobShard& shard, std::size_t r, const std::unordered_set<JobNumber>& unfinished) {
  const JobExtras* e = shard.extras_of(r);
  if (e == nullptr) return false;
  return std::any_of(e->hold_jid.begin(), e->hold_jid.end(), [&](JobNumber p) { return unfinished.count(p) > 0; });
}

// The jobs of a shard that may pass their limit: those with a task number
// above it. A job's tasks are distinct numbers, so one whose numbers all stay
// within its limit cannot pass it. Clears the marks of an earlier call.
std::unordered_map<JobNumber, ArrayJob> ArrayJobsOf(JobShard& shard, std::uint32_t max_aj_instances) {
  std::unordered_map<JobNumber, ArrayJob> arrays;
  for (std::size_t r = 0; r < shard.size(); ++r) {
    shard.flags[r] &= static_cast<std::uint8_t>(~kJobBeyondTaskLimit);
    const std::uint32_t limit = ArrayTaskLimit(max_aj_instances, shard.task_concurrency(r));
    if (limit != 0 && shard.task_last[r] > limit) arrays.try_emplace(shard.number[r]);
  }
  if (arrays.empty()) return arrays;
  for (std::size_t r = 0; r < shard.size(); ++r) {
    auto it = arrays.find(shard.number[r]);
    if (it == arrays.end()) continue;
    ArrayJob& job = it->second;
    job.task_concurrency = std::max(job.task_concurrency, shard.task_concurrency(r));
    if (IsObject(shard, r)) {
      job.objects += shard.task_count(r);
    } else if (shard.state[r] == JobState::kPending) {
      job.candidates += shard.task_count(r);
      job.candidate_rows.push_back(static_cast<std::uint32_t>(r));
    }
  }
  return arrays;
}

// One cut: row `row` keeps its first `kept` tasks; the rest are held back
// (the whole row where kept is 0).
struct Cut {
  std::uint32_t row;
  std::uint32_t kept;
};

// Where each job's limit falls among its candidate rows, in task order; a job
// waiting for a predecessor keeps all its tasks waiting.
std::vector<Cut> CutsOf(const JobShard& shard, std::unordered_map<JobNumber, ArrayJob>& arrays,
                        std::uint32_t max_aj_instances, const std::unordered_set<JobNumber>& unfinished) {
  std::vector<Cut> cuts;
  for (auto& [number, job] : arrays) {
    const std::uint32_t limit = ArrayTaskLimit(max_aj_instances, job.task_concurrency);
    if (limit == 0 || job.objects + job.candidates <= limit) continue;
    if (std::any_of(job.candidate_rows.begin(), job.candidate_rows.end(),
                    [&](std::uint32_t r) { return Waits(shard, r, unfinished); })) {
      continue;
    }
    std::uint64_t allowed = job.objects < limit ? limit - job.objects : 0;
    std::sort(job.candidate_rows.begin(), job.candidate_rows.end(),
              [&](std::uint32_t a, std::uint32_t b) { return shard.task_first[a] < shard.task_first[b]; });
    for (std::uint32_t r : job.candidate_rows) {
      const std::uint32_t count = shard.task_count(r);
      if (allowed >= count) {
        allowed -= count;
        continue;
      }
      cuts.push_back({r, static_cast<std::uint32_t>(allowed)});
      allowed = 0;
    }
  }
  std::sort(cuts.begin(), cuts.end(), [](const Cut& a, const Cut& b) { return a.row < b.row; });
  return cuts;
}

// Rebuilds every row column from `source` (the old row of each new row).
void GatherRows(JobShard& shard, const std::vector<std::uint32_t>& source) {
  auto gather = [&](auto& column) {
    auto old = std::move(column);
    column.resize(source.size());
    for (std::size_t i = 0; i < source.size(); ++i) column[i] = old[source[i]];
  };
  gather(shard.number);
  gather(shard.task_first);
  gather(shard.task_last);
  gather(shard.task_step);
  gather(shard.state);
  gather(shard.posix_priority);
  gather(shard.flags);
  gather(shard.owner);
  gather(shard.group);
  gather(shard.project);
  gather(shard.department);
  gather(shard.name);
  gather(shard.submit);
  gather(shard.jobshare);
  gather(shard.override_tickets);
  gather(shard.requests);
  gather(shard.qos);
  gather(shard.extras_index);  // the two parts of a cut row share its extras
}

// Applies the cuts of one shard (in row order). A row held back whole is
// marked; a row cut inside its range is doubled, the kept tasks first. Returns
// the source rows, or nothing when no row was doubled.
std::vector<std::uint32_t> ApplyCuts(JobShard& shard, const std::vector<Cut>& cuts) {
  std::vector<Cut> inside;
  for (const Cut& c : cuts) {
    if (c.kept == 0) shard.flags[c.row] |= kJobBeyondTaskLimit;
    else inside.push_back(c);
  }
  std::vector<std::uint32_t> source;
  if (inside.empty()) return source;
  source.reserve(shard.size() + inside.size());
  for (std::uint32_t r = 0, next = 0; r < shard.size(); ++r) {
    source.push_back(r);
    if (next < inside.size() && inside[next].row == r) {
      source.push_back(r);
      ++next;
    }
  }
  GatherRows(shard, source);
  for (std::size_t i = 1, next = 0; i < source.size(); ++i) {
    if (source[i - 1] != source[i]) continue;
    const TaskNumber step = shard.task_step[i];
    const TaskNumber first_held = shard.task_first[i] + inside[next++].kept * step;
    shard.task_last[i - 1] = first_held - step;
    shard.task_first[i] = first_held;
    shard.flags[i] |= kJobBeyondTaskLimit;
    if (shard.task_first[i - 1] == shard.task_last[i - 1]) shard.task_step[i - 1] = 1;
    if (shard.task_first[i] == shard.task_last[i]) shard.task_step[i] = 1;
  }
  return source;
}

}  // namespace

std::vector<std::vector<std::uint32_t>> LimitArrayTasks(JobTable& jobs, std::uint32_t max_aj_instances,
                                                        ExecutionMode mode) {
  const std::size_t shards = jobs.shards().size();
  std::vector<std::unordered_map<JobNumber, ArrayJob>> arrays(shards);
  ForEachIndex(mode, shards, [&](std::size_t s) { arrays[s] = ArrayJobsOf(jobs.shards()[s], max_aj_instances); });
  std::vector<std::vector<std::uint32_t>> sources(shards);
  if (std::all_of(arrays.begin(), arrays.end(), [](const auto& a) { return a.empty(); })) return sources;
  const std::unordered_set<JobNumber> unfinished = UnfinishedPredecessors(jobs);
  ForEachIndex(mode, shards, [&](std::size_t s) {
    const std::vector<Cut> cuts = CutsOf(jobs.shards()[s], arrays[s], max_aj_instances, unfinished);
    if (!cuts.empty()) sources[s] = ApplyCuts(jobs.shards()[s], cuts);
  });
  return sources;
}

}  // namespace schedk
