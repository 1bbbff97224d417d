// job_templates.hpp
// What qstat shows for a job's tasks that are not objects (Grid Engine's job
// template): the values of its first dispatchable task that is not enrolled.
// Enrolled tasks (a rescheduled one, say) show their own values; where only
// they are dispatchable, the template keeps the job's own columns from the
// first of them and no prio or tickets (ORT_clear_pri_info, then the orders of
// the enrolled tasks). The priority writers look a row's job up here.
// Invariants: for every job with a dispatchable task of the kind (enrolled or
// not), Find gives the smallest position in the priority order of such a task,
// and nullptr for every other job; the optimised build and its reference twin
// (one walk of the order, as Grid Engine's) give the same positions.
#pragma once

#include <cstdint>
#include <vector>

#include "kernel/model/job_table.hpp"
#include "kernel/priority/priority.hpp"
#include "kernel/twin.hpp"
#include "kernel/util/flat_id_map.hpp"
#include "kernel/util/row_index.hpp"

namespace schedk::io {

class JobTemplates {
 public:
  enum class Kind : std::uint8_t { kUnenrolled, kEnrolled };

  // Twin::kOptimised finds each row's first position in parallel chunks of the
  // order, then fills each shard's maps on a core of its own;
  // Twin::kReference walks the order once, keeping the first position seen.
  JobTemplates(const JobTable& jobs, const PriorityResult& result, const RowIndex& index, Twin twin = Twin::kOptimised);

  // The position in result.order of the first dispatchable task of `kind` of
  // `job`, whose rows lie in `shard`; nullptr: it has none.
  const std::uint32_t* Find(Kind kind, std::uint32_t shard, JobNumber job) const {
    return maps_[2 * shard + static_cast<std::uint32_t>(kind)].Find(job, Hash{}(job));
  }

 private:
  struct Hash {
    std::uint64_t operator()(JobNumber job) const {
      std::uint64_t key = job;  // murmur3's 64-bit finaliser
      key ^= key >> 33;
      key *= 0xff51afd7ed558ccdull;
      key ^= key >> 33;
      return key;
    }
  };
  using Positions = FlatIdMap<JobNumber, Hash>;  // job -> position in the order

  void BuildReference(const JobTable& jobs, const PriorityResult& result, const RowIndex& index);
  void BuildParallel(const JobTable& jobs, const PriorityResult& result, const RowIndex& index);
  Positions& MapOf(Kind kind, std::uint32_t shard) { return maps_[2 * shard + static_cast<std::uint32_t>(kind)]; }

  std::vector<Positions> maps_;  // per shard (a job's rows share one), per kind
};

}  // namespace schedk::io
