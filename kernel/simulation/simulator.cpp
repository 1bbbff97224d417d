#include "kernel/simulation/simulator.hpp"

#include <algorithm>
#include <cassert>
#include <limits>
#include <optional>
#include <queue>
#include <tuple>
#include <unordered_map>

#include "kernel/dispatch/job_duration.hpp"
#include "kernel/dispatch/queue_instances.hpp"
#include "kernel/dispatch/schedule.hpp"
#include "kernel/priority/priority.hpp"
#include "kernel/simulation/pool_backfill.hpp"
#include "kernel/tuning.hpp"

namespace schedk {
namespace {

enum class Phase : std::uint8_t { kUnsubmitted, kPending, kRunning, kDone };

struct Job {
  RowRef row;  // in the workload
  SimulatedJob out;
  Phase phase = Phase::kUnsubmitted;
  std::vector<GrantedSlots> granted;
  PeId pe;
};

enum class EventKind : std::uint8_t { kSubmission, kTermination };

struct Event {
  Time time;
  std::uint8_t rank;  // order of the kinds at equal times (semantics)
  std::uint64_t sequence;  // creation order within a kind
  std::uint32_t job;
  EventKind kind;
  bool operator>(const Event& o) const {
    return std::tie(time, rank, sequence) > std::tie(o.time, o.rank, o.sequence);
  }
};

class Replay {
 public:
  Replay(const Cluster& cluster, const JobTable& workload, const SimulationOptions& options)
      : cluster_(cluster), workload_(workload), options_(options) {
    SchedulerConfig& c = cluster_.config;
    switch (options.policy) {
      case SimPolicy::kFcfs: c.max_reservation = 0; break;
      case SimPolicy::kEasy: c.max_reservation = 1; break;
      case SimPolicy::kConservative:
        c.max_reservation = std::numeric_limits<std::uint32_t>::max();
        c.reserve_in_gaps = true;
        break;
    }
    instances_ = QueueInstanceTable::Build(cluster_);
    for (std::uint32_t s = 0; s < workload.shards().size(); ++s) {
      const JobShard& shard = workload.shards()[s];
      for (std::uint32_t r = 0; r < shard.size(); ++r) {
        Job job;
        job.row = {s, r};
        job.out.job = shard.number[r];
        job.out.submit = shard.submit[r];
        const JobExtras* e = shard.extras_of(r);
        job.out.runtime = e != nullptr && e->runtime >= 0 ? e->runtime : 0;
        const RequestSet& rs = workload.requests(shard.requests[r]);
        std::optional<Duration> h_rt, s_rt;
        for (const ComplexValue& v : rs.hard) {
          if (v.complex == cluster.complexes.h_rt) h_rt = static_cast<Duration>(v.number);
          if (v.complex == cluster.complexes.s_rt) s_rt = static_cast<Duration>(v.number);
        }
        job.out.estimate = PendingJobDuration(h_rt, s_rt, c.default_duration, c.duration_offset);
        job.out.slots = rs.has_pe ? rs.pe.min : 1;
        jobs_.push_back(std::move(job));
      }
    }
    std::sort(jobs_.begin(), jobs_.end(), [](const Job& a, const Job& b) {
      return std::tie(a.out.submit, a.out.job) < std::tie(b.out.submit, b.out.job);
    });
    for (std::uint32_t j = 0; j < jobs_.size(); ++j) Push(jobs_[j].out.submit, EventKind::kSubmission, j);
    request_slot_.assign(workload.request_sets().size(), kNoSlot);
    if (PoolApplies(cluster_, options)) {
      PoolRules rules;
      rules.policy = options.policy == SimPolicy::kFcfs ? PoolPolicy::kFcfs : PoolPolicy::kEasy;
      rules.estimated_end_frees = options.semantics == SimSemantics::kReference;
      rules.schedule_interval = c.schedule_interval;
      pool_.emplace(options.pool_processors, rules);
    }
  }

  SimulationResult Run(const std::function<void(double)>& progress) {
    const bool per_event = options_.semantics == SimSemantics::kReference || options_.interval <= 0;
    const Duration step = options_.interval;
    std::optional<Time> tick;  // interval passes: the next one
    std::size_t done = 0, reported = 0;
    while (!events_.empty() || (!per_event && Waiting())) {
      if (!per_event) {
        if (!tick) tick = events_.top().time;
        if (events_.empty() || events_.top().time > *tick) {
          // The pass due at this tick, after every event up to it.
          if (Waiting()) {
            Pass(*tick);
            if (events_.empty()) break;  // nothing started and nothing will end: no pass can change anything
          }
          *tick += step;
          if (!Waiting() && events_.top().time > *tick) {  // idle: on to the first tick at the next event
            *tick += (events_.top().time - *tick + step - 1) / step * step;
          }
          continue;
        }
      }
      const Event e = events_.top();
      events_.pop();
      Job& job = jobs_[e.job];
      if (e.kind == EventKind::kSubmission) {
        job.phase = Phase::kPending;
        if (pool_) {
          pool_->Submit(e.job, job.out.slots, job.out.estimate);
        } else {
          pending_.push_back(e.job);
        }
      } else {
        job.phase = Phase::kDone;
        if (pool_) {
          pool_->Terminate(e.job, job.out.start + job.out.estimate);
        } else {
          running_.erase(std::find(running_.begin(), running_.end(), e.job));
        }
        ++done;
      }
      if (per_event && Waiting()) Pass(e.time);
      if (progress && done * 100 / std::max<std::size_t>(1, jobs_.size()) > reported) {
        reported = done * 100 / jobs_.size();
        progress(static_cast<double>(done) / static_cast<double>(jobs_.size()));
      }
    }
    SimulationResult result;
    result.passes = passes_;
    result.jobs.reserve(jobs_.size());
    for (const Job& job : jobs_) result.jobs.push_back(job.out);
    return result;
  }

 private:
  static constexpr std::uint32_t kNoSlot = std::numeric_limits<std::uint32_t>::max();

  void Push(Time time, EventKind kind, std::uint32_t job) {
    const bool submissions_first = options_.semantics == SimSemantics::kReference;
    const std::uint8_t rank = (kind == EventKind::kSubmission) == submissions_first ? 0 : 1;
    events_.push({time, rank, sequence_++, job, kind});
  }

  static bool PoolApplies(const Cluster& cluster, const SimulationOptions& options) {
    if (options.pool_processors == 0 || options.policy == SimPolicy::kConservative ||
        cluster.config.priority_policy != PriorityPolicy::kGridEngine) {
      return false;
    }
    // The contract of pool_processors, as far as it is cheap to check.
    assert(cluster.hosts.size() == 1 && cluster.queues.size() == 1 && cluster.pes.size() <= 1);
    assert(cluster.config.weight_priority == 0 && cluster.config.weight_urgency == 0 &&
           cluster.config.weight_ticket == 0);
    return true;
  }

  bool Waiting() const { return pool_ ? pool_->waiting() > 0 : !pending_.empty(); }

  // One scheduling pass at `now` over the running and pending jobs.
  void Pass(Time now) {
    ++passes_;
    if (pool_) {
      pool_started_.clear();
      pool_->Pass(now, pool_started_);
      for (std::uint32_t j : pool_started_) {
        Job& job = jobs_[j];
        job.phase = Phase::kRunning;
        job.out.start = now;
        Push(now + job.out.runtime, EventKind::kTermination, j);
      }
      return;
    }
    cluster_.now = now;
    JobTable table(0);  // one shard: the pass's jobs are few
    JobShard& shard = table.shards()[0];
    std::vector<RequestSet>& sets = table.request_sets();
    std::vector<std::uint32_t> used_slots;  // request sets copied into this pass's table
    std::vector<std::uint32_t> row_job;
    // The pass's rows: the running jobs that still hold processors, then the pending ones.
    std::vector<std::uint32_t> members;
    members.reserve(running_.size() + pending_.size());
    for (std::uint32_t j : running_) {
      const Job& job = jobs_[j];
      // docs/replay.md, Semantics: an estimated end that has come frees the processors now.
      if (options_.semantics == SimSemantics::kReference && job.out.start + job.out.estimate <= now) continue;
      members.push_back(j);
    }
    members.insert(members.end(), pending_.begin(), pending_.end());
    shard.Resize(members.size());
    shard.extras.reserve(members.size());
    row_job.reserve(members.size());
    auto add_row = [&](std::uint32_t j) {
      const Job& job = jobs_[j];
      const JobShard& from = workload_.shards()[job.row.shard];
      const std::uint32_t r = job.row.row;
      const auto k = static_cast<std::uint32_t>(row_job.size());
      shard.number[k] = from.number[r];
      shard.task_first[k] = from.task_first[r];
      shard.task_last[k] = from.task_last[r];
      shard.task_step[k] = from.task_step[r];
      shard.posix_priority[k] = from.posix_priority[r];
      // Under easy and conservative every job asks for a reservation (-R y).
      shard.flags[k] = from.flags[r] | (options_.policy == SimPolicy::kFcfs ? 0 : kJobReserve);
      shard.owner[k] = from.owner[r];
      shard.group[k] = from.group[r];
      shard.project[k] = from.project[r];
      shard.department[k] = from.department[r];
      shard.name[k] = from.name[r];
      shard.submit[k] = from.submit[r];
      shard.jobshare[k] = from.jobshare[r];
      shard.override_tickets[k] = from.override_tickets[r];
      shard.qos[k] = from.qos[r];
      const std::uint32_t set = from.requests[r].value;
      if (request_slot_[set] == kNoSlot) {
        request_slot_[set] = static_cast<std::uint32_t>(sets.size());
        sets.push_back(workload_.request_sets()[set]);
        used_slots.push_back(set);
      }
      shard.requests[k] = RequestSetId(request_slot_[set]);
      JobExtras extras;
      if (const JobExtras* e = from.extras_of(r)) extras = *e;
      extras.bypass += job.out.bypassed;
      if (job.phase == Phase::kRunning) {
        shard.state[k] = JobState::kRunning;
        extras.start = job.out.start;
        extras.granted = job.granted;
        extras.granted_pe = job.pe;
      } else {
        shard.state[k] = JobState::kPending;
      }
      shard.extras_index[k] = static_cast<std::uint32_t>(shard.extras.size());
      shard.extras.push_back(std::move(extras));
      row_job.push_back(j);
    };
    for (std::uint32_t j : members) add_row(j);
    for (std::uint32_t set : used_slots) request_slot_[set] = kNoSlot;

    // A few thousand rows or fewer are ranked quicker by the reference twin,
    // on one thread, than split into tasks; both give the same bits.
    const Twin ranking = table.rows() < tuning::kReplayParallelFromRows ? Twin::kReference : options_.twin;
    const PriorityResult priorities = ComputePriorities(cluster_, table, ranking);
    // The running tasks' bookings carry over from the previous pass (the
    // reference books them all again, as the oracle of that).
    RunningBook* book = options_.twin == Twin::kOptimised ? &running_book_ : nullptr;
    const ScheduleResult result = ScheduleInterval(cluster_, table, priorities, instances_, options_.twin, book);
    std::vector<std::uint32_t> started;
    for (const Decision& d : result.decisions) {
      if (d.kind == DecisionKind::kStart) {
        const std::uint32_t j = JobOfNumber(row_job, shard, d.job);
        Job& job = jobs_[j];
        job.phase = Phase::kRunning;
        job.out.start = now;
        job.pe = d.pe;
        job.granted.clear();
        for (std::uint32_t g = d.grant_begin; g < d.grant_end; ++g) {
          const Grant& grant = result.grants[g];
          job.granted.push_back({instances_.queue[grant.instance], instances_.host[grant.instance], grant.slots});
        }
        running_.push_back(j);
        started.push_back(j);
        Push(now + job.out.runtime, EventKind::kTermination, j);
      } else if (d.kind == DecisionKind::kPending && options_.policy == SimPolicy::kFcfs) {
        break;  // no job passes an earlier one
      }
    }
    if (!started.empty()) {
      std::erase_if(pending_, [&](std::uint32_t j) { return jobs_[j].phase != Phase::kPending; });
    }
    if (cluster_.config.priority_policy == PriorityPolicy::kMaui) {
      const std::vector<JobNumber> bypassed = BypassedJobs(result);
      if (!bypassed.empty()) {
        std::unordered_map<JobNumber, std::uint32_t> job_of;
        for (std::size_t k = 0; k < shard.size(); ++k) job_of.emplace(shard.number[k], row_job[k]);
        for (JobNumber number : bypassed) ++jobs_[job_of.at(number)].out.bypassed;
      }
    }
  }

  static std::uint32_t JobOfNumber(const std::vector<std::uint32_t>& row_job, const JobShard& shard, JobNumber number) {
    for (std::size_t k = 0; k < shard.size(); ++k) {
      if (shard.number[k] == number) return row_job[k];
    }
    return 0;  // unreachable: a decision names a row of the pass
  }

  Cluster cluster_;
  const JobTable& workload_;
  SimulationOptions options_;
  QueueInstanceTable instances_;
  std::vector<Job> jobs_;
  std::vector<std::uint32_t> pending_;  // in submission order
  std::vector<std::uint32_t> running_;
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events_;
  std::uint64_t sequence_ = 0;
  std::uint64_t passes_ = 0;
  std::vector<std::uint32_t> request_slot_;  // workload request set -> this pass's, or kNoSlot
  RunningBook running_book_;
  std::optional<PoolBackfill> pool_;  // the one-pool passes, where they apply
  std::vector<std::uint32_t> pool_started_;
};

}  // namespace

SimulationResult Simulate(const Cluster& cluster, const JobTable& workload, const SimulationOptions& options,
                          const std::function<void(double)>& progress) {
  Replay replay(cluster, workload, options);
  return replay.Run(progress);
}

}  // namespace schedk
