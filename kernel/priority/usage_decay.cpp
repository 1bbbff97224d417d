#include "kernel/priority/usage_decay.hpp"

#include <cmath>

namespace schedk {

double DecayConstant(double halftime_minutes) {
  if (halftime_minutes < 0) return 0;
  if (halftime_minutes == 0) return 1.0;
  const double rate = -std::log(0.5) / (halftime_minutes * 60);
  return 1 - rate * kUsageInterval;
}

std::vector<UsageValue> DecayedUsage(const UsageRecord& record, Time now, const SchedulerConfig& config) {
  std::vector<UsageValue> values;
  values.reserve(record.values.size());
  for (const char* name : {"cpu", "mem", "io"}) {
    for (const UsageValue& v : record.values) {
      if (v.name == name) values.push_back(v);
    }
  }
  for (const UsageValue& v : record.values) {
    if (v.name != "cpu" && v.name != "mem" && v.name != "io") values.push_back(v);
  }
  const Time stamp = record.time_stamp;
  if (stamp <= 0 || now <= stamp) return values;
  const double exponent = static_cast<double>(static_cast<std::uint32_t>(now) - static_cast<std::uint32_t>(stamp)) /
                          kUsageInterval;
  const double default_decay = std::pow(DecayConstant(static_cast<double>(config.halftime_hours) * 60.0), exponent);
  for (UsageValue& v : values) {
    double decay = default_decay;
    if (config.halflife_decay_list.empty()) {
      if (v.name == "finished_jobs") decay = std::pow(DecayConstant(-1), exponent);
    } else {
      for (const UsageValue& d : config.halflife_decay_list) {
        if (d.name == v.name) decay = std::pow(DecayConstant(d.value), exponent);
      }
    }
    v.value *= decay;
  }
  return values;
}

}  // namespace schedk
