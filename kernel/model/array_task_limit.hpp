// array_task_limit.hpp
// Grid Engine's limit on the task objects of an array job (sge_conf(5)
// max_aj_instances, qsub -tc), as split_jobs applies it at the start of every
// scheduler run. A job's task objects are its running, suspended and error
// tasks and its rows marked enrolled (kJobEnrolled). Of its pending tasks that
// are not objects yet, only the first `limit - objects` in task order take
// part in the run; the others are marked kJobBeyondTaskLimit: they are not
// dispatched and get no tickets, and qstat shows them the job's template, all
// zeros once the job has no dispatchable task left. The limit is -tc where it
// is set and below max_aj_instances (or max_aj_instances is 0), else
// max_aj_instances; 0 means none. A job waiting for a predecessor is left as
// it is: all its pending tasks wait.
// Invariants kept: the rows of a job hold disjoint task sets; a row the limit
// cuts becomes two rows, next to each other in its shard, the second marked.
#pragma once

#include <cstdint>
#include <vector>

#include "kernel/execution_mode.hpp"
#include "kernel/model/job_table.hpp"

namespace schedk {

// The limit of a job with -tc `task_concurrency` (0: none) under max_aj_instances.
inline std::uint32_t ArrayTaskLimit(std::uint32_t max_aj_instances, std::uint32_t task_concurrency) {
  const bool tc_applies = task_concurrency > 0 && (task_concurrency < max_aj_instances || max_aj_instances == 0);
  return tc_applies ? task_concurrency : max_aj_instances;
}

// Marks the pending tasks beyond each job's limit, cutting rows where a limit
// falls inside a task range. Returns, per shard, the row of the table before
// the call that each row now comes from; empty where no row was cut. The
// marks of an earlier call are redone (the rows it cut stay cut).
std::vector<std::vector<std::uint32_t>> LimitArrayTasks(JobTable& jobs, std::uint32_t max_aj_instances,
                                                        ExecutionMode mode = ExecutionMode::kParallel);

}  // namespace schedk
