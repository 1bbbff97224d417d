// pool_backfill.hpp
// FCFS and EASY backfilling on one pool of identical processors: the replay's
// passes for a machine that is one host, one queue and one parallel
// environment with every priority weight 0 (the machine of an SWF trace),
// kept from pass to pass so that a pass costs what changed since the last
// one rather than the length of the queue.
//
// The rules are the kernel's passes on that machine (ComputePriorities and
// ScheduleInterval with max_reservation 1 or 0), which stay its test oracle:
//   * the dispatch order is the order of submission;
//   * in that order, a job starts where its processors are free now;
//   * easy: the first job that cannot start reserves its processors from the
//     shadow time S, the earliest assumed end by which they are free; a later
//     job starts where its processors are free now and it either ends by S or
//     fits beside the reservation (in the extra processors free at S);
//   * fcfs: no job passes the first one that cannot start;
//   * a running job is assumed to end at its estimated end; under reference
//     semantics (docs/replay.md, Semantics) it holds its processors until its
//     termination or that end, whichever comes first; under native semantics
//     until its termination, and once past its estimated end it is assumed to
//     end schedule_interval after now (RunningJobDuration).
// Invariants: `waiting_` keeps the submission order, with started jobs left as
// holes (size 0) until the next compaction; `holding_` is sorted by (estimated
// end, job) and holds exactly the started jobs whose termination has not come
// (under reference semantics, also whose estimated end was after the last
// pass); `held_` is the sum of their sizes.
#pragma once

#include <cstdint>
#include <vector>

#include "kernel/types.hpp"

namespace schedk {

enum class PoolPolicy : std::uint8_t { kFcfs, kEasy };

struct PoolRules {
  PoolPolicy policy = PoolPolicy::kEasy;
  bool estimated_end_frees = true;  // reference semantics; false: native
  Duration schedule_interval = 15;  // native: what an overrunning job is assumed to need beyond now
};

class PoolBackfill {
 public:
  PoolBackfill(std::uint32_t processors, PoolRules rules) : processors_(processors), rules_(rules) {}

  // A submission, after every earlier one. Contract: size >= 1, estimate >= 0.
  void Submit(std::uint32_t job, std::uint32_t size, Duration estimate);

  // The termination of a started job whose estimated end is `estimated_end`.
  void Terminate(std::uint32_t job, Time estimated_end);

  // One pass at `now` (never earlier than the last): appends the jobs that
  // start, in dispatch order, to `started`.
  void Pass(Time now, std::vector<std::uint32_t>& started);

  std::size_t waiting() const { return waiting_count_; }

 private:
  struct Waiting {
    std::uint32_t job;
    std::uint32_t size;  // 0: started (a hole)
    Duration estimate;
  };
  struct Holding {
    Time end;
    std::uint32_t job;
    std::uint32_t size;
  };

  void Start(Waiting& w, Time now, std::vector<std::uint32_t>& started);
  // The shadow time at `now` of a job of `size` processors when `free` are
  // free, and the processors free beside it then (extra). Contract: size <= processors_.
  std::pair<Time, std::uint64_t> Shadow(std::uint64_t size, std::uint64_t free, Time now) const;
  void Compact();

  std::uint32_t processors_;
  PoolRules rules_;
  std::vector<Waiting> waiting_;
  std::size_t head_ = 0;  // waiting_[0, head_) are holes
  std::size_t holes_ = 0;  // holes in waiting_[head_, end)
  std::size_t waiting_count_ = 0;
  std::vector<Holding> holding_;
  std::uint64_t held_ = 0;
};

}  // namespace schedk
