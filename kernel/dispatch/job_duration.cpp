#include "kernel/dispatch/job_duration.hpp"

#include <algorithm>

namespace schedk {

Duration AddDurationOffset(Duration duration, Duration offset) {
  if (duration >= kInfiniteDuration) return kInfiniteDuration;
  return std::min<Duration>(duration + offset, kInfiniteDuration);
}

Duration PendingJobDuration(std::optional<Duration> h_rt, std::optional<Duration> s_rt, Duration default_duration,
                            Duration offset) {
  Duration d = default_duration;
  if (h_rt && s_rt) {
    d = std::min(*h_rt, *s_rt);  // the man page says maximum; the code takes the minimum
  } else if (h_rt) {
    d = *h_rt;
  } else if (s_rt) {
    d = *s_rt;
  }
  return AddDurationOffset(d, offset);
}

Duration RunningJobDuration(Time start, std::optional<Duration> wallclock_limit, Duration default_duration,
                            Duration offset, Time now, Duration schedule_interval) {
  Duration d = AddDurationOffset(wallclock_limit ? *wallclock_limit : default_duration, offset);
  if (d < kInfiniteDuration && start + d <= now) d = (now - start) + schedule_interval;  // overran its estimate
  return d;
}

}  // namespace schedk
