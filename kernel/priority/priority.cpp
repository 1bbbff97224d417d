#include "kernel/priority/priority.hpp"

#include <algorithm>
#include <cmath>
#include <queue>
#include <tuple>
#include <unordered_set>

#include <tbb/parallel_for.h>
#include <tbb/parallel_sort.h>

#include "kernel/priority/normalize.hpp"

namespace schedk {
namespace {

struct RowLocation {
  std::uint32_t shard;
  std::uint32_t row;
};

RowLocation Locate(const std::vector<std::uint32_t>& offsets, std::uint32_t flat) {
  const auto it = std::upper_bound(offsets.begin(), offsets.end(), flat);
  const auto shard = static_cast<std::uint32_t>(it - offsets.begin() - 1);
  return {shard, flat - offsets[shard]};
}

// The three-term sum in sgeee_priority's order (first task of a job, running tasks)...
double PrioFirst(const SchedulerConfig& c, double nurg, double ntix, double npri) {
  return c.weight_urgency * nurg + c.weight_ticket * ntix + c.weight_priority * npri;
}
// ... and in recompute_prio's order (later tasks of an array job).
double PrioLater(const SchedulerConfig& c, double nurg, double ntix, double npri) {
  return c.weight_urgency * nurg + c.weight_priority * npri + c.weight_ticket * ntix;
}

// A dispatchable job in the merge: its pending tasks in order and their refs.
struct PendingJob {
  std::uint32_t first_row_index;  // into TicketResult::pending_rows
  std::uint32_t row_count;
  std::uint32_t ref_begin;
  std::uint32_t ref_end;
  std::uint64_t task_count;
};

struct MergeKey {
  double prio;
  Time submit;
  JobNumber job;
  std::uint32_t pending_job;  // index into the PendingJob list
};
bool MergeBefore(const MergeKey& a, const MergeKey& b) {
  if (a.prio != b.prio) return a.prio > b.prio;
  if (a.submit != b.submit) return a.submit < b.submit;
  return a.job < b.job;
}

}  // namespace

std::vector<RowRole> ClassifyRows(const JobTable& jobs) {
  std::vector<RowRole> roles(jobs.rows(), RowRole::kInactive);
  // Predecessors still in the table keep their successors waiting.
  std::unordered_set<JobNumber> referenced;
  for (const JobShard& shard : jobs.shards()) {
    for (const JobExtras& e : shard.extras) referenced.insert(e.hold_jid.begin(), e.hold_jid.end());
  }
  std::unordered_set<JobNumber> unfinished;
  if (!referenced.empty()) {
    for (const JobShard& shard : jobs.shards()) {
      for (JobNumber n : shard.number) {
        if (referenced.count(n)) unfinished.insert(n);
      }
    }
  }
  const auto offsets = jobs.Offsets();
  for (std::size_t s = 0; s < jobs.shards().size(); ++s) {
    const JobShard& shard = jobs.shards()[s];
    for (std::size_t r = 0; r < shard.size(); ++r) {
      RowRole role = RowRole::kInactive;
      switch (shard.state[r]) {
        case JobState::kRunning:
          role = RowRole::kRunning;
          break;
        case JobState::kSuspended:
          role = RowRole::kSuspended;
          break;
        case JobState::kPending: {
          role = RowRole::kDispatchable;
          if (const JobExtras* e = shard.extras_of(r)) {
            for (JobNumber p : e->hold_jid) {
              if (unfinished.count(p)) role = RowRole::kInactive;
            }
          }
          break;
        }
        case JobState::kHeld:
        case JobState::kError:
          break;
      }
      roles[offsets[s] + r] = role;
    }
  }
  return roles;
}

TaskPriority PriorityResult::Values(const Cluster& cluster, const JobTable& jobs,
                                    const std::vector<std::uint32_t>& offsets, const DispatchEntry& entry) const {
  TaskPriority v;
  const RowLocation at = Locate(offsets, entry.row);
  const JobShard& shard = jobs.shards()[at.shard];
  v.ovrts = shard.override_tickets[at.row];
  const RowRole role = roles[entry.row];
  if (role == RowRole::kInactive) return v;  // Grid Engine clears priority info of such jobs
  const SchedulerConfig& c = cluster.config;
  v.urg = urgency.urg[entry.row];
  v.nurg = urgency.nurg[entry.row];
  if (urgency.computed) {
    const double rrc = urgency.rrcontr[shard.requests[at.row].index()];
    if (!std::isnan(rrc)) {
      v.rrcontr = rrc;
      v.wtcontr = WaitingTimeContribution(c.weight_waiting_time, cluster.now, shard.submit[at.row]);
      v.dlcontr = DeadlineContribution(c.weight_deadline, cluster.now, shard.deadline(at.row));
    }
  }
  const bool do_nprio = c.weight_priority != 0 || c.report_pjob_tickets;
  v.npprior = do_nprio ? NormalizePosixPriority(shard.posix_priority[at.row]) : 0.5;
  if (entry.ref != kNoRef) {
    const TicketRefs& refs = tickets.refs;
    v.otckt = refs.otix[entry.ref];
    v.ftckt = refs.ftix[entry.ref];
    v.stckt = refs.stix[entry.ref];
    v.tckts = refs.Total(entry.ref);
    v.share = refs.share[entry.ref];
  }
  v.ntckts = NormalizeValue(v.tckts, 0, tickets.max_tix);
  v.prio = entry.first_of_job ? PrioFirst(c, v.nurg, v.ntckts, v.npprior) : PrioLater(c, v.nurg, v.ntckts, v.npprior);
  return v;
}

PriorityResult ComputePriorities(const Cluster& cluster, const JobTable& jobs, ExecutionMode mode) {
  PriorityResult result;
  result.roles = ClassifyRows(jobs);
  result.urgency = mode == ExecutionMode::kParallel ? ComputeUrgency(cluster, jobs, result.roles)
                                                    : ComputeUrgencySerial(cluster, jobs, result.roles);
  result.tickets = ComputeTickets(cluster, jobs, result.roles, mode);
  const auto offsets = jobs.Offsets();
  const TicketResult& tickets = result.tickets;
  const std::vector<std::uint32_t>& pending_rows = tickets.pending_rows;

  // Group the dispatchable rows by job.
  std::vector<PendingJob> pending_jobs;
  for (std::uint32_t p = 0; p < pending_rows.size(); ++p) {
    const RowLocation at = Locate(offsets, pending_rows[p]);
    const JobShard& shard = jobs.shards()[at.shard];
    const bool new_job = p == 0 || shard.number[at.row] != [&] {
      const RowLocation prev = Locate(offsets, pending_rows[p - 1]);
      return jobs.shards()[prev.shard].number[prev.row];
    }();
    if (new_job) pending_jobs.push_back({p, 0, kNoRef, kNoRef, 0});
    PendingJob& job = pending_jobs.back();
    ++job.row_count;
    job.task_count += shard.task_count(at.row);
    const std::uint32_t flat = pending_rows[p];
    if (tickets.ref_count[flat] > 0) {
      if (job.ref_begin == kNoRef) job.ref_begin = tickets.first_ref[flat];
      job.ref_end = tickets.first_ref[flat] + tickets.ref_count[flat];
    }
  }
  auto entry_for = [&](const PendingJob& job, std::uint64_t k, std::uint32_t flat, TaskNumber task) {
    DispatchEntry e;
    e.row = flat;
    e.task = task;
    if (job.ref_begin != kNoRef) {
      const std::uint64_t available = job.ref_end - job.ref_begin;
      e.ref = job.ref_begin + static_cast<std::uint32_t>(std::min<std::uint64_t>(k, available - 1));
    }
    // Tasks past the ticketed ones keep the last computed values, prio included.
    const std::uint64_t last_computed = job.ref_begin == kNoRef ? 0 : job.ref_end - job.ref_begin - 1;
    e.first_of_job = std::min(k, last_computed) == 0;
    return e;
  };
  auto key_for = [&](std::uint32_t j, const DispatchEntry& e) {
    const RowLocation at = Locate(offsets, e.row);
    const JobShard& shard = jobs.shards()[at.shard];
    return MergeKey{result.Values(cluster, jobs, offsets, e).prio, shard.submit[at.row], shard.number[at.row], j};
  };

  // Initial ranking of every pending job by its first task.
  std::vector<MergeKey> ranked(pending_jobs.size());
  auto rank_job = [&](std::size_t j) {
    const PendingJob& job = pending_jobs[j];
    const std::uint32_t flat = pending_rows[job.first_row_index];
    const RowLocation at = Locate(offsets, flat);
    ranked[j] = key_for(static_cast<std::uint32_t>(j), entry_for(job, 0, flat, jobs.shards()[at.shard].task_first[at.row]));
  };
  if (mode == ExecutionMode::kParallel) {
    tbb::parallel_for(std::size_t{0}, ranked.size(), rank_job);
    tbb::parallel_sort(ranked.begin(), ranked.end(), MergeBefore);
  } else {
    for (std::size_t j = 0; j < ranked.size(); ++j) rank_job(j);
    std::sort(ranked.begin(), ranked.end(), MergeBefore);
  }

  // Merge: a job whose task was taken comes back ranked by its next task.
  struct Cursor {
    std::uint32_t row_index;  // into pending_rows
    TaskNumber task;
    std::uint64_t k;
  };
  std::vector<Cursor> cursor(pending_jobs.size());
  for (std::size_t j = 0; j < pending_jobs.size(); ++j) {
    const std::uint32_t flat = pending_rows[pending_jobs[j].first_row_index];
    const RowLocation at = Locate(offsets, flat);
    cursor[j] = {pending_jobs[j].first_row_index, jobs.shards()[at.shard].task_first[at.row], 0};
  }
  auto worse = [](const MergeKey& a, const MergeKey& b) { return MergeBefore(b, a); };
  std::priority_queue<MergeKey, std::vector<MergeKey>, decltype(worse)> again(worse);
  std::size_t next = 0;
  while (next < ranked.size() || !again.empty()) {
    MergeKey key;
    if (again.empty() || (next < ranked.size() && MergeBefore(ranked[next], again.top()))) {
      key = ranked[next++];
    } else {
      key = again.top();
      again.pop();
    }
    const PendingJob& job = pending_jobs[key.pending_job];
    Cursor& c = cursor[key.pending_job];
    const std::uint32_t flat = pending_rows[c.row_index];
    result.order.push_back(entry_for(job, c.k, flat, c.task));
    // Advance to the job's next pending task.
    const RowLocation at = Locate(offsets, flat);
    const JobShard& shard = jobs.shards()[at.shard];
    ++c.k;
    if (c.k == job.task_count) continue;
    if (shard.task_last[at.row] - c.task >= shard.task_step[at.row]) {
      c.task += shard.task_step[at.row];
    } else {
      ++c.row_index;
      const RowLocation nat = Locate(offsets, pending_rows[c.row_index]);
      c.task = jobs.shards()[nat.shard].task_first[nat.row];
    }
    again.push(key_for(key.pending_job, entry_for(job, c.k, pending_rows[c.row_index], c.task)));
  }
  result.dispatchable_tasks = result.order.size();

  // Running and suspended tasks by prio; then the tasks without priority information.
  std::vector<std::pair<MergeKey, DispatchEntry>> running;
  std::vector<DispatchEntry> rest;
  for (std::size_t s = 0; s < jobs.shards().size(); ++s) {
    const JobShard& shard = jobs.shards()[s];
    for (std::size_t r = 0; r < shard.size(); ++r) {
      const std::uint32_t flat = offsets[s] + static_cast<std::uint32_t>(r);
      const RowRole role = result.roles[flat];
      if (role == RowRole::kRunning || role == RowRole::kSuspended) {
        DispatchEntry e{flat, shard.task_first[r], tickets.first_ref[flat], true};
        running.emplace_back(key_for(0, e), e);
      } else if (role == RowRole::kInactive) {
        for (TaskNumber t = shard.task_first[r];; t += shard.task_step[r]) {
          rest.push_back(DispatchEntry{flat, t, kNoRef, true});
          if (shard.task_last[r] - t < shard.task_step[r]) break;
        }
      }
    }
  }
  std::sort(running.begin(), running.end(), [](const auto& a, const auto& b) {
    if (MergeBefore(a.first, b.first)) return true;
    if (MergeBefore(b.first, a.first)) return false;
    return a.second.task < b.second.task;
  });
  for (const auto& [key, e] : running) result.order.push_back(e);
  auto job_of = [&](const DispatchEntry& e) {
    const RowLocation at = Locate(offsets, e.row);
    return jobs.shards()[at.shard].number[at.row];
  };
  std::sort(rest.begin(), rest.end(), [&](const DispatchEntry& a, const DispatchEntry& b) {
    return std::make_tuple(job_of(a), a.task) < std::make_tuple(job_of(b), b.task);
  });
  result.order.insert(result.order.end(), rest.begin(), rest.end());
  return result;
}

}  // namespace schedk
