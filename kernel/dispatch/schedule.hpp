// schedule.hpp
// One scheduling interval as Grid Engine's dispatch_jobs runs it
// (8.1.9's dispatch_jobs): the running and suspended tasks are booked into
// the resource containers (and, with max_reservation > 0, into utilisation
// diagrams), then the dispatchable tasks are taken in dispatch order; each
// starts now if every container it needs has room over its whole assumed
// duration (which protects reservations made earlier in the interval: lower
// priority jobs can only backfill in front of them), else may get a
// reservation (-R y, max_reservation, not immediate), else stays pending
// with a reason. Job categories short-cut repeated failures, and the loop
// ends once no queue instance has a free slot.
// Invariant: the result depends on the inputs only, not on the thread count.
#pragma once

#include <cstddef>
#include <functional>

#include "kernel/dispatch/queue_instances.hpp"
#include "kernel/dispatch/running_book.hpp"
#include "kernel/dispatch/schedule_result.hpp"
#include "kernel/twin.hpp"
#include "kernel/model/cluster.hpp"
#include "kernel/model/job_table.hpp"
#include "kernel/priority/priority.hpp"
#include "kernel/stage_profile.hpp"

namespace schedk {

// Hears of an interval's records as they become final, for a caller that
// writes them while the interval goes on: once the running tasks are booked
// (their monitor lines), then every few thousand decisions, and at the end.
// It is called on the interval's thread with the result so far, whose vectors
// may grow and move once it returns: ScheduleSlice copies what a listener keeps.
using ScheduleProgress = std::function<void(const ScheduleResult& so_far)>;

// Decisions [from, to) of `result` with their grants and monitor lines (and the
// running tasks' lines first when `with_running`) as a result of their own,
// indices rebased: consecutive slices, written in order, give the records of
// the whole result.
ScheduleResult ScheduleSlice(const ScheduleResult& result, std::size_t from, std::size_t to, bool with_running);

// `instances` is QueueInstanceTable::Build(cluster); `priorities` is
// ComputePriorities(cluster, jobs). Twin::kReference runs every step's
// reference twin (the descending queue-end walk among them), on one thread.
// `book`, if given, holds the running tasks' bookings from the caller's
// previous interval and is brought up to date (running_book.hpp); the result
// is the same without it. `progress`, if given, hears of the records as they
// become final; `stages`, where each stage begins (stage_profile.hpp).
ScheduleResult ScheduleInterval(const Cluster& cluster, const JobTable& jobs, const PriorityResult& priorities,
                                const QueueInstanceTable& instances, Twin twin = Twin::kOptimised,
                                RunningBook* book = nullptr, const ScheduleProgress* progress = nullptr,
                                const StageListener* stages = nullptr);

// The jobs a lower-priority job was started ahead of in this interval: every
// job with a task that did not start before the interval's last start in
// decision order, once each, in job-number order. Maui adds one to such a
// job's bypass count per interval (the simulator and the session do, under
// PRIORITY_POLICY=maui).
std::vector<JobNumber> BypassedJobs(const ScheduleResult& result);

}  // namespace schedk
