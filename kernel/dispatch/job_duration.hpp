// job_duration.hpp
// The durations the reservation planner assumes: a
// pending job runs min(h_rt, s_rt) of what it hard-requests, else the
// scheduler's default_duration, plus DURATION_OFFSET; a running job keeps its
// start and runs its wallclock limit (requested, else the queue's h_rt, else
// default_duration) plus the offset, and a job already past that end is
// assumed to need (now - start) + schedule_interval. All saturate at
// kInfiniteDuration (Grid Engine's U32MAX).
#pragma once

#include <optional>

#include "kernel/types.hpp"

namespace schedk {

// duration_add_offset: d + offset, saturated.
Duration AddDurationOffset(Duration duration, Duration offset);

// job_get_duration plus the offset. Limits are the hard-requested h_rt and s_rt.
Duration PendingJobDuration(std::optional<Duration> h_rt, std::optional<Duration> s_rt, Duration default_duration,
                            Duration offset);

// add_job_list_to_schedule for one running or suspended task. `wallclock_limit`
// is the task's effective h_rt (its request, else its queue's), if any.
Duration RunningJobDuration(Time start, std::optional<Duration> wallclock_limit, Duration default_duration,
                            Duration offset, Time now, Duration schedule_interval);

}  // namespace schedk
