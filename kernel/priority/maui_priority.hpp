// maui_priority.hpp
// Maui's multi-factor job priority (MJobGetStartPriority in Maui 3.3):
//   priority = sum over components c of CWEIGHT_c * min(CAP_c, sum over its
//              subcomponents s of SWEIGHT_s * min(CAP_s, factor_s))
// with the factors
//   CRED    the PRIORITY of the job's user, group, account, QOS and class
//           (each credential's own, else its kind's DEFAULT);
//   FS      FSTARGET - usage percent per credential kind, floors (x+) counting
//           only below the target and ceilings (x-) only above it; nothing
//           without FSPOLICY or without a target;
//   SERV    queue time in minutes, XFACTOR = 1 + queue time / max(XFMINWCLIMIT,
//           wallclock limit), and the bypass count;
//   TARGET  max(0.0001, QTTARGET - queue time)^-2 (minutes) and
//           max(0.0001, XFTARGET - XFACTOR)^-2 of the job's QOS;
//   RES     nodes, processors, memory, swap and disk (MB), processor-seconds,
//           processor equivalents (the largest share of the cluster's
//           processors, memory, swap or disk, times its processors; a host
//           counts its queue slots up to its own slots value) and wallclock
//           seconds requested;
//   USAGE   running jobs only: processor-seconds consumed and remaining,
//           percent of the wallclock limit used, seconds since start.
// The QOS's QTWEIGHT and XFWEIGHT add to QUEUETIMEWEIGHT and XFACTORWEIGHT.
// Unless ENABLENEGJOBPRIORITY or REJECTNEGPRIOJOBS, a priority below 1 becomes
// 1; every priority is capped at 10^9 and truncated to a whole number, as Maui
// stores it. Pending jobs are dispatched by that number (descending), then by
// submission time and job number (Maui leaves ties to qsort).
// Thread-safety: pure functions; ComputeMauiPriorities(..., kSerial) runs the
// same steps on one thread, with the same result.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "kernel/execution_mode.hpp"
#include "kernel/model/cluster.hpp"
#include "kernel/model/job_table.hpp"
#include "kernel/priority/priority.hpp"

namespace schedk {

// Maui's decayed fair-share usage (MFSCalcFactor): window 0 (the current
// one) plus each older window i < depth times decay^i.
double FairShareUsage(std::span<const double> windows, double decay, std::uint32_t depth);

// XFACTOR = 1 + queue_time / max(min_wclimit, wclimit); 1 when both are 0 (no limit).
double ExpansionFactor(double queue_seconds, Duration wclimit, Duration min_wclimit);

// Every number behind one job's priority.
struct MauiFactors {
  std::array<double, kMauiSubs> factor{};          // subcomponent values after their caps
  std::array<double, kMauiSubs> weight{};          // subcomponent weights (QOS-adjusted)
  std::array<double, kMauiComponents> component{};  // sum of weight * factor, after the component caps
  double total = 0;      // sum of CWEIGHT * component, before clipping
  double abs_total = 0;  // sum of |CWEIGHT * component|: the base of the percentages
  double priority = 0;   // clipped, capped and truncated: what orders the jobs

  // CWEIGHT * SWEIGHT * factor: the subcomponent's part of `total`.
  double Contribution(const MauiConfig& config, MauiSub s) const;
  // CWEIGHT * component: the component's part of `total`.
  double Contribution(const MauiConfig& config, MauiComponent c) const;
  // |part| / abs_total * 100, or 0 when abs_total is 0 (diagnose -p's percentages).
  double Percent(double part) const { return abs_total != 0 ? (part < 0 ? -part : part) / abs_total * 100.0 : 0.0; }
};

// Per-cluster data the factors read: per request set and per credential, computed once.
class MauiPriorityContext {
 public:
  MauiPriorityContext(const Cluster& cluster, const JobTable& jobs);

  // The factors of one row in its role (running jobs add USAGE; queue time stops at start).
  MauiFactors Factors(const JobShard& shard, std::size_t row, RowRole role) const;

 private:
  struct RequestValues {
    double nodes = 0, procs = 0, mem = 0, swap = 0, disk = 0;
    Duration wclimit = 0;  // 0: none
    QueueId job_class;     // the first hard -q entry naming a cluster queue
  };
  const Cluster& cluster_;
  const MauiConfig& config_;
  std::vector<RequestValues> requests_;
  // Per credential kind and id (plus DEFAULT at the end): PRIORITY and the FS factor, both capped.
  std::array<std::vector<double>, kMauiCredentials> cred_factor_;
  std::array<std::vector<double>, kMauiCredentials> fs_factor_;
  double total_procs_ = 0, total_mem_ = 0, total_swap_ = 0, total_disk_ = 0;

  double CredentialValue(const std::array<std::vector<double>, kMauiCredentials>& table, MauiCredential kind,
                         std::uint32_t id) const;
};

// The Maui pass: roles, every row's factors as needed, and the dispatch order
// (dispatchable tasks by priority, then running and suspended ones, then the rest).
PriorityResult ComputeMauiPriorities(const Cluster& cluster, const JobTable& jobs,
                                     ExecutionMode mode = ExecutionMode::kParallel);

}  // namespace schedk
