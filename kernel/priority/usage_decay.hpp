// usage_decay.hpp
// Decay of past usage for the share tree (decay_usage and
// calculate_decay_constant in sge_support.c). Usage is multiplied by
// c^(elapsed/60) with c = 1 - 60*ln2/(halftime*60): halftime in minutes, where
// 0 means no decay and a negative halftime means c = 0 (only current usage
// counts). sched_conf's halftime is in hours; halflife_decay_list sets
// per-usage-name halftimes in minutes. Without a halflife_decay_list the
// "finished_jobs" counter decays with c = 0.
#pragma once

#include <vector>

#include "kernel/model/entities.hpp"
#include "kernel/model/scheduler_config.hpp"

namespace schedk {

// Grid Engine's sge_usage_interval: decay is applied per 60 s.
inline constexpr double kUsageInterval = 60.0;

// Returns the decay constant for a halftime in minutes.
double DecayConstant(double halftime_minutes);

// Returns the record's values decayed from its time stamp to `now`, ordered
// cpu, mem, io, then the others in the order written. A record without a time
// stamp, or stamped at or after `now`, is returned undecayed.
std::vector<UsageValue> DecayedUsage(const UsageRecord& record, Time now, const SchedulerConfig& config);

}  // namespace schedk
