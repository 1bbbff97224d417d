// job_table.hpp
// The jobs of a snapshot as a struct of arrays, partitioned into shards by job
// number. One row is one job line: a job (or a range of its array tasks) in
// one state. Rarely set fields (deadline, running placement, dependencies,
// runtime, eligibility, Maui bypass counts) live in a per-shard side table so
// the hot columns stay dense.
// Invariants:
//   * every column of a shard has the shard's size();
//   * all rows of one job number sit in the same shard (ShardOf), their task
//     sets are disjoint, and they agree on owner, project, submit time,
//     requests and POSIX priority;
//   * running and suspended rows hold exactly one task;
//   * task_first <= task_last, task_step >= 1.
#pragma once

#include <cstdint>
#include <limits>
#include <unordered_set>
#include <vector>

#include "kernel/model/request_set.hpp"
#include "kernel/types.hpp"

namespace schedk {

enum class JobState : std::uint8_t {
  kPending,    // qw: waiting to be dispatched
  kHeld,       // hqw: a user, operator or system hold
  kRunning,    // r
  kSuspended,  // s
  kError,      // Eqw
};

enum JobFlags : std::uint8_t {
  kJobReserve = 1,    // -R y
  kJobImmediate = 2,  // -now y
  kJobEnrolled = 4,   // pending, held or error tasks that exist as task objects (key enrolled=y)
  kJobBeyondTaskLimit = 8,  // pending tasks the array task limit keeps out of this run (array_task_limit.hpp)
};

struct GrantedSlots {
  QueueId queue;
  HostId host;
  std::uint32_t slots = 0;
};

struct JobExtras {
  Time deadline = 0;                    // -dl; 0 means none
  Time start = 0;                       // running and suspended rows
  std::vector<GrantedSlots> granted;    // master first
  PeId granted_pe;
  Duration runtime = -1;                // trace replay: actual run time; -1 unknown
  std::vector<JobNumber> hold_jid;      // predecessors (ids, names already resolved)
  Time eligible = 0;                    // since when the job is eligible (job key eligible=); 0: its submission
  std::uint32_t bypass = 0;             // Maui: passes in which a lower-priority job started ahead of it
  std::uint32_t task_concurrency = 0;   // qsub -tc: at most this many task objects at once; 0: none
};

// QOS ids are stored in 16 bits (Maui sites define a few dozen QOS at most).
inline constexpr std::uint32_t kMaxQos = 0xFFFE;
inline constexpr std::uint16_t kNoQos = 0xFFFF;

inline constexpr std::uint32_t kNoExtras = std::numeric_limits<std::uint32_t>::max();

struct JobShard {
  std::vector<JobNumber> number;
  std::vector<TaskNumber> task_first;
  std::vector<TaskNumber> task_last;
  std::vector<TaskNumber> task_step;
  std::vector<JobState> state;
  std::vector<std::int16_t> posix_priority;  // -p, -1023..1024
  std::vector<std::uint8_t> flags;           // JobFlags
  std::vector<UserId> owner;
  std::vector<GroupId> group;
  std::vector<ProjectId> project;
  std::vector<UsersetId> department;
  std::vector<JobNameId> name;
  std::vector<Time> submit;
  std::vector<std::uint32_t> jobshare;          // -js
  std::vector<std::uint32_t> override_tickets;  // -ot
  std::vector<RequestSetId> requests;
  std::vector<std::uint16_t> qos;               // Maui quality of service: a QosId, or kNoQos (the default QOS)
  std::vector<std::uint32_t> extras_index;      // into extras, or kNoExtras
  std::vector<JobExtras> extras;

  std::size_t size() const { return number.size(); }
  // Sizes every row column to n rows; rows added have no extras.
  void Resize(std::size_t n) {
    number.resize(n);
    task_first.resize(n);
    task_last.resize(n);
    task_step.resize(n);
    state.resize(n);
    posix_priority.resize(n);
    flags.resize(n);
    owner.resize(n);
    group.resize(n);
    project.resize(n);
    department.resize(n);
    name.resize(n);
    submit.resize(n);
    jobshare.resize(n);
    override_tickets.resize(n);
    requests.resize(n);
    qos.resize(n, kNoQos);
    extras_index.resize(n, kNoExtras);
  }
  // Most rows hold one task, whose count needs no division.
  std::uint32_t task_count(std::size_t row) const {
    const TaskNumber first = task_first[row], last = task_last[row];
    return first == last ? 1 : (last - first) / task_step[row] + 1;
  }
  const JobExtras* extras_of(std::size_t row) const {
    return extras_index[row] == kNoExtras ? nullptr : &extras[extras_index[row]];
  }
  Time deadline(std::size_t row) const {
    const JobExtras* e = extras_of(row);
    return e ? e->deadline : 0;
  }
  QosId qos_of(std::size_t row) const { return qos[row] == kNoQos ? QosId::None() : QosId(qos[row]); }
  std::uint32_t bypass(std::size_t row) const {
    const JobExtras* e = extras_of(row);
    return e ? e->bypass : 0;
  }
  // When the job started to accrue queue time: eligible= if given, else its submission.
  std::uint32_t task_concurrency(std::size_t row) const {
    const JobExtras* e = extras_of(row);
    return e ? e->task_concurrency : 0;
  }
  Time eligible_since(std::size_t row) const {
    const JobExtras* e = extras_of(row);
    return e && e->eligible != 0 ? e->eligible : submit[row];
  }
};

// A row's address: its shard and its index inside the shard.
struct RowRef {
  std::uint32_t shard = 0;
  std::uint32_t row = 0;
};

class JobTable {
 public:
  // Shard count: a power of two, so ShardOf is a multiply and a shift.
  static constexpr std::uint32_t kDefaultShardBits = 6;

  JobTable() : JobTable(kDefaultShardBits) {}
  explicit JobTable(std::uint32_t shard_bits) : shard_bits_(shard_bits), shards_(std::size_t{1} << shard_bits) {}

  // Job numbers are spread over shards in blocks of this many consecutive numbers,
  // so that walking jobs in job-number order reads each shard's columns in runs.
  static constexpr std::uint32_t kBlockBits = 10;

  // Returns the shard that holds every row of job `number`: Fibonacci hashing of
  // the number's block, so blocks spread evenly over the shards.
  std::uint32_t ShardOf(JobNumber number) const {
    if (shard_bits_ == 0) return 0;
    return static_cast<std::uint32_t>(((number >> kBlockBits) * 2654435769u) >> (32 - shard_bits_));
  }

  std::vector<JobShard>& shards() { return shards_; }
  const std::vector<JobShard>& shards() const { return shards_; }
  std::vector<RequestSet>& request_sets() { return request_sets_; }
  const std::vector<RequestSet>& request_sets() const { return request_sets_; }
  const RequestSet& requests(RequestSetId id) const { return request_sets_[id.index()]; }

  std::size_t rows() const {
    std::size_t n = 0;
    for (const JobShard& s : shards_) n += s.size();
    return n;
  }
  // Returns the flat index of each shard's first row: a row's global index is
  // offsets[shard] + row. The last element is rows().
  std::vector<std::uint32_t> Offsets() const {
    std::vector<std::uint32_t> offsets(shards_.size() + 1, 0);
    for (std::size_t s = 0; s < shards_.size(); ++s) {
      offsets[s + 1] = offsets[s] + static_cast<std::uint32_t>(shards_[s].size());
    }
    return offsets;
  }

 private:
  std::uint32_t shard_bits_;
  std::vector<JobShard> shards_;
  std::vector<RequestSet> request_sets_;
};

// The predecessors (hold_jid) still in the table: a job naming one of them waits.
inline std::unordered_set<JobNumber> UnfinishedPredecessors(const JobTable& jobs) {
  std::unordered_set<JobNumber> referenced;
  for (const JobShard& shard : jobs.shards()) {
    for (const JobExtras& e : shard.extras) referenced.insert(e.hold_jid.begin(), e.hold_jid.end());
  }
  std::unordered_set<JobNumber> unfinished;
  if (referenced.empty()) return unfinished;
  for (const JobShard& shard : jobs.shards()) {
    for (JobNumber n : shard.number) {
      if (referenced.count(n)) unfinished.insert(n);
    }
  }
  return unfinished;
}

}  // namespace schedk
