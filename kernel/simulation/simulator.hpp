// simulator.hpp
// Trace replay: an event-driven loop over a simulated clock (submissions,
// terminations, scheduling passes) whose passes are the kernel's own
// ComputePriorities and ScheduleInterval, so nothing of the scheduling logic is
// repeated here. The workload is a JobTable of pending jobs, one task each,
// with their actual run times (JobExtras::runtime) and their estimates as h_rt.
//
// Policies, in Grid Engine terms (under easy and conservative every job asks
// for a reservation, -R y, whatever its row says):
//   * easy: max_reservation 1, so only the first job that cannot start reserves
//     and later ones start only where they do not delay it (EASY backfilling);
//   * conservative: every waiting job reserves (RESERVE_IN_GAPS, so in order,
//     into the earliest gap), re-planned at every pass;
//   * fcfs: no reservations, and a pass's starts are taken only up to the
//     first job that does not start (no job passes an earlier one).
// Semantics:
//   * reference (docs/replay.md, Semantics): at equal times all submissions come before
//     all terminations, each in creation order; every event triggers a pass;
//     a running job whose estimated end has come counts as finished for the
//     pass, even before its termination event;
//   * native: terminations before submissions; a running job holds its
//     processors until its termination; with an interval, passes run every
//     `interval` seconds instead of after each event.
// On a one-pool machine (SimulationOptions::pool_processors), fcfs and easy
// keep their state from pass to pass in PoolBackfill, whose rules are those
// of the kernel's passes on that machine.
// Invariants: a job starts at most once, never before its submission, and
// ends start + runtime later; the result is the same with 1 and N threads.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "kernel/twin.hpp"
#include "kernel/model/cluster.hpp"
#include "kernel/model/job_table.hpp"

namespace schedk {

enum class SimPolicy : std::uint8_t { kFcfs, kEasy, kConservative };
enum class SimSemantics : std::uint8_t { kReference, kNative };

struct SimulationOptions {
  SimPolicy policy = SimPolicy::kEasy;
  SimSemantics semantics = SimSemantics::kReference;
  Duration interval = 0;  // native only: seconds between passes; 0 = a pass per event
  Twin twin = Twin::kOptimised;  // kReference: every pass's reference twin
  // > 0: the machine is one pool of this many processors (one host, one queue,
  // one parallel environment, every priority weight 0: an SWF trace's machine),
  // and fcfs and easy passes run on PoolBackfill instead of the kernel's
  // passes, with the same schedule. 0: always the kernel's passes.
  std::uint32_t pool_processors = 0;
};

struct SimulatedJob {
  JobNumber job = 0;
  Time submit = 0;
  Time start = -1;  // -1: never started
  Duration runtime = 0;
  Duration estimate = 0;  // the assumed duration the planner used
  std::uint32_t slots = 0;
  std::uint32_t bypassed = 0;  // Maui's bypass count (PRIORITY_POLICY=maui only)
};

struct SimulationResult {
  std::vector<SimulatedJob> jobs;  // in (submit, job number) order
  std::uint64_t passes = 0;
};

// Replays `workload` on `cluster` (whose configuration the policy adjusts).
// Contract: every row is one pending task with a runtime >= 0. `progress`, if
// given, is called now and then with the share of jobs finished.
SimulationResult Simulate(const Cluster& cluster, const JobTable& workload, const SimulationOptions& options,
                          const std::function<void(double)>& progress = {});

}  // namespace schedk
