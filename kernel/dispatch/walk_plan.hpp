// walk_plan.hpp
// A parallel job's walk plan, and the caches that keep plans between walks.
// A plan is the job's static match against every eligible host and queue
// instance, worked out once for a queue-end-time walk (or a search for room
// now): their demands on ledger entries in one flat table and the walk's
// candidate-time entries. WalkPlanCache keeps, for one interval:
// - plans by key (what a plan depends on besides the ledger's layout, the
//   alarms and the mirrored slots entries: Interval::PlanKey);
// - per host, whether its `slots` entry mirrors its single instance's
//   (MirroredHostSlots), so that a walk may leave the host's entry out;
// - per key and amounts, the least slot counts known to fit and to fail now.
// Invariants: a plan's demands are grouped per host, the host's own first,
// then each usable instance's in queue order; hosts are in host order; each
// ledger entry appears in at most one demand of a plan.
#pragma once

#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "kernel/dispatch/demand.hpp"
#include "kernel/dispatch/queue_instances.hpp"
#include "kernel/dispatch/resource_ledger.hpp"
#include "kernel/tuning.hpp"

namespace schedk::dispatch_detail {

inline constexpr std::uint32_t kUnlimited = UINT32_MAX;

struct DemandSlot {
  std::uint32_t entry;
  DemandKind kind;
};
struct InstancePlan {
  std::uint32_t instance, first, last;  // its demands: [first, last)
};
struct HostPlan {
  HostId host;
  std::uint32_t first, last;                     // the host's own demands
  std::uint32_t instances_begin, instances_end;  // its usable instances in WalkPlan::instances
};

struct WalkPlan {
  std::vector<DemandSlot> demands;
  std::vector<std::uint32_t> demand_host;   // per demand: its host's index in `hosts`
  std::vector<HostPlan> hosts;              // hosts with a usable instance, in host order
  std::vector<InstancePlan> instances;      // per host in `hosts`, in queue order
  std::vector<std::uint32_t> time_entries;  // the candidate-time entries, collected in the same pass
  std::span<const InstancePlan> InstancesOf(const HostPlan& plan) const {
    return {instances.data() + plan.instances_begin, plan.instances_end - plan.instances_begin};
  }
  // The end of the host's demands: its own, then its instances'.
  std::uint32_t DemandsEnd(const HostPlan& plan) const { return instances[plan.instances_end - 1].last; }
  // Per cluster host: its part of the plan (HostPart), or UINT32_MAX where
  // it has no statically eligible queue instance.
  std::vector<std::uint32_t> part_of;
  struct HostPart {
    std::uint32_t times_begin, times_end;  // its candidate-time entries
    std::uint32_t plan;                    // its index in `hosts`, or UINT32_MAX: no usable instance
    std::uint32_t leave_out;               // MirroredHostSlots when planned (UINT32_MAX: none)
    std::uint64_t alarm_version;           // the host's alarm version when planned
  };
  std::vector<HostPart> parts;
};

// A plan of one block of cluster hosts, planned on its own (in parallel with
// the others) and joined into the walk's plan in host order.
struct WalkPlanBlock {
  std::vector<DemandSlot> demands;
  std::vector<std::uint32_t> demand_host;  // per demand: its host's index in `hosts`
  std::vector<HostPlan> hosts;
  std::vector<InstancePlan> instances;
  std::vector<std::uint32_t> time_entries;
  std::vector<std::pair<std::uint32_t, WalkPlan::HostPart>> parts;  // cluster host, its part

  // Appends cluster host h's part of a kept plan.
  void CopyPart(const WalkPlan& kept, std::uint32_t h, const WalkPlan::HostPart& part);
  // Appends the block to `walk`, renumbering its indices.
  void JoinInto(WalkPlan& walk) const;
};

// A plan's demand's slot count with `used` in use of its entry, for the job
// whose amounts are `amounts` (one per demand): kUnlimited where it does not
// limit the count.
struct DemandCounter {
  const WalkPlan& walk;
  std::span<const double> amounts;
  const ResourceLedger& ledger;
  std::uint32_t operator()(std::uint32_t g, double used) const {
    const DemandSlot& demand = walk.demands[g];
    const double amount = amounts[g];
    const double left = ledger.entry(demand.entry).total - used;
    if (demand.kind != DemandKind::kPerSlot) return amount > left ? 0 : kUnlimited;
    const double n = std::floor(left / amount);
    return n <= 0 ? 0 : n >= kUnlimited ? kUnlimited - 1 : static_cast<std::uint32_t>(n);
  }
};

// Ignoring the plan, whether a parallel job fits depends on its PE, its plan
// key and its consumable amounts, and on what is in use now, which only starts
// change: the least slot counts known to fit and to fail since the last start
// (fits: every count up to the one that fits; fails: every count from the one
// that fails).
struct KnownNowFit {
  std::uint32_t starts = 0;  // the interval's starts when learnt
  std::uint32_t fits_up_to = 0;
  std::uint32_t fails_from = UINT32_MAX;
};

class WalkPlanCache {
 public:
  // Sets up the mirror checks: hosts with a single queue instance whose
  // `slots` entry has at least the instance's capacity (diagrams only).
  void SetUpMirrors(const QueueInstanceTable& instances, const ResourceLedger& ledger, ComplexId slots);

  // The `slots` entry of host h that a parallel walk may leave out, if any: the
  // host has a single queue instance, whose `slots` entry has the same diagram
  // (every booking debits both alike) and at most the host's capacity, so the
  // host's count never limits the instance's and their breakpoints coincide.
  // The diagrams' comparison is kept until either of them changes; each host's
  // check is written only by the one task that plans or probes that host.
  std::optional<std::uint32_t> MirroredHostSlots(const ResourceLedger& ledger, std::uint32_t h);

  // The plan kept for `key`, or null.
  std::shared_ptr<const WalkPlan> Find(const std::string& key) const {
    const auto it = plans_.find(key);
    return it == plans_.end() ? nullptr : it->second;
  }
  // Keeps `plan` for `key`; past tuning::kKeptWalkPlans distinct keys all are dropped at once.
  void Keep(const std::string& key, std::shared_ptr<const WalkPlan> plan) {
    if (plans_.size() >= tuning::kKeptWalkPlans && !plans_.contains(key)) plans_.clear();
    plans_[key] = std::move(plan);
  }

  // What is known now for `key` (a plan key with the job's amounts), reset
  // where a start came since it was learnt.
  KnownNowFit& KnownNow(const std::string& key, std::uint32_t starts) {
    KnownNowFit& known = known_now_[key];
    if (known.starts != starts) known = KnownNowFit{starts};
    return known;
  }

 private:
  struct MirrorCheck {
    // The host's and its instance's `slots` entries (UINT32_MAX: the layout does not allow it).
    std::uint32_t host_entry = UINT32_MAX, instance_entry = UINT32_MAX;
    std::uint64_t host_version = UINT64_MAX, instance_version = UINT64_MAX;
    bool same = false;
  };
  std::vector<MirrorCheck> mirror_checks_;  // per host
  std::unordered_map<std::string, std::shared_ptr<const WalkPlan>> plans_;
  std::unordered_map<std::string, KnownNowFit> known_now_;
};

inline void WalkPlanCache::SetUpMirrors(const QueueInstanceTable& instances, const ResourceLedger& ledger,
                                        ComplexId slots) {
  const std::size_t hosts = instances.host_first.size() - 1;
  mirror_checks_.assign(hosts, MirrorCheck{});
  for (std::uint32_t h = 0; h < hosts; ++h) {
    if (instances.host_first[h + 1] - instances.host_first[h] != 1) continue;
    const std::uint32_t i = instances.on_host[instances.host_first[h]];
    const std::optional<std::uint32_t> host = ledger.Find({ContainerLevel::kHost, h}, slots);
    const std::optional<std::uint32_t> instance = ledger.Find({ContainerLevel::kQueue, i}, slots);
    if (!host || !instance || ledger.entry(*host).total < ledger.entry(*instance).total) continue;
    mirror_checks_[h].host_entry = *host;
    mirror_checks_[h].instance_entry = *instance;
  }
}

inline std::optional<std::uint32_t> WalkPlanCache::MirroredHostSlots(const ResourceLedger& ledger, std::uint32_t h) {
  if (mirror_checks_.empty()) return std::nullopt;  // set up with diagrams only
  MirrorCheck& check = mirror_checks_[h];
  if (check.host_entry == UINT32_MAX) return std::nullopt;
  const std::uint64_t host_version = ledger.version(check.host_entry);
  const std::uint64_t instance_version = ledger.version(check.instance_entry);
  if (check.host_version != host_version || check.instance_version != instance_version) {
    check.host_version = host_version;
    check.instance_version = instance_version;
    check.same = ledger.diagram(check.host_entry).SameSteps(ledger.diagram(check.instance_entry));
  }
  return check.same ? std::optional<std::uint32_t>(check.host_entry) : std::nullopt;
}

}  // namespace schedk::dispatch_detail
