// plan_check.hpp
// A replay checker for one scheduling interval's plan, shared by the property
// tests (tests/kernel/dispatch/schedule_property_test.cpp) and the fuzzers
// (tests/fuzz/fuzz_snapshot.cpp). Header-only, no GoogleTest.
//
// Every booking of the plan (the MONITOR records: running and suspended tasks,
// starts and reservations) is replayed into a NaiveUtilizationDiagram per
// (container, resource) and compared with the container's capacity from a
// ResourceLedger, and per resource quota rule instance (the L records) with
// its static limit. Since reservations are in the replay, a backfilled start
// that delayed a reservation (overlapped it on a container without room for
// both) shows up here as an over-capacity point too.
//
// Running tasks are facts, not decisions: a snapshot may show them holding a
// container above its capacity (a host shrunk under them, a consumable
// lowered). A point is flagged only where the plan's amount exceeds
// max(capacity, what the running and suspended tasks alone book then), i.e.
// where the scheduler itself added to a container with no room.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "kernel/dispatch/queue_instances.hpp"
#include "kernel/dispatch/resource_ledger.hpp"
#include "kernel/dispatch/schedule_result.hpp"
#include "kernel/model/cluster.hpp"
#include "kernel/reservation/utilization_diagram.hpp"

namespace schedk::testing {

// The first over-capacity point of `result`'s plan, or a booking of a resource
// the container does not have, as a sentence; empty when the plan fits.
inline std::string CheckPlanCapacity(const Cluster& cluster, const QueueInstanceTable& instances,
                                     const ScheduleResult& result, double tolerance = 1e-9) {
  const ResourceLedger capacity(cluster, instances, false);
  struct Booked {
    NaiveUtilizationDiagram all;      // every booking
    NaiveUtilizationDiagram running;  // running and suspended tasks only
  };
  std::map<std::pair<std::uint64_t, std::uint32_t>, Booked> plan;
  for (std::size_t i = 0; i < result.monitor.size(); ++i) {
    const MonitorRecord& m = result.monitor[i];
    const std::uint64_t level = static_cast<std::uint8_t>(m.container.level);
    const std::uint64_t container = (level << 32) | m.container.index;
    Booked& b = plan[{container, m.resource.value}];
    if (m.duration <= 0) continue;  // books nothing in time, as ResourceLedger::Debit
    b.all.Add(m.start, m.duration, m.amount);
    if (m.state == UsageState::kRunning || m.state == UsageState::kSuspended) {
      b.running.Add(m.start, m.duration, m.amount);
    }
  }
  for (const auto& [key, booked] : plan) {
    const ContainerRef c{static_cast<ContainerLevel>(key.first >> 32), static_cast<std::uint32_t>(key.first)};
    const std::string where = "container " + std::to_string(key.first) + " (level " +
                              std::to_string(key.first >> 32) + ", index " +
                              std::to_string(static_cast<std::uint32_t>(key.first)) + ") resource " +
                              std::to_string(key.second);
    double total = 0;
    if (c.level == ContainerLevel::kQuota) {  // a rule instance: its limit of that attribute
      const QuotaInstance& q = result.quota_keys[c.index];
      const std::vector<QuotaLimit>& limits = cluster.quota_sets[q.set].rules[q.rule].limits;
      const auto limit = std::find_if(limits.begin(), limits.end(),
                                      [&](const QuotaLimit& l) { return l.attribute.value == key.second; });
      if (limit == limits.end()) return "booked a limit the rule does not have: " + where;
      if (limit->dynamic) continue;  // its value follows the host's load (the hand-worked tests check it)
      total = limit->value;
    } else {
      const auto k = capacity.Find(c, ComplexId(key.second));
      if (!k.has_value()) return "booked a resource the container does not have: " + where;
      total = capacity.entry(*k).total;
    }
    // Both diagrams are step functions; walk the union of their breakpoints.
    const auto& all = booked.all.Breakpoints();
    const auto& running = booked.running.Breakpoints();
    std::size_t i = 0, j = 0;
    double at_all = 0, at_running = 0;
    while (i < all.size() || j < running.size()) {
      const Time t = j == running.size() || (i < all.size() && all[i].time <= running[j].time) ? all[i].time
                                                                                                : running[j].time;
      while (i < all.size() && all[i].time == t) at_all = all[i++].amount;
      while (j < running.size() && running[j].time == t) at_running = running[j++].amount;
      if (at_all > std::max(total, at_running) + tolerance) {
        return "over capacity at " + std::to_string(t) + " in " + where + ": " + std::to_string(at_all) +
               " booked, capacity " + std::to_string(total) + ", running tasks alone " + std::to_string(at_running);
      }
    }
  }
  return {};
}

}  // namespace schedk::testing
