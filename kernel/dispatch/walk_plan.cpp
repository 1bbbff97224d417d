#include "kernel/dispatch/interval.hpp"

#include <atomic>
#include <cassert>
#include <functional>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>

#include "kernel/complex/complex_compare.hpp"
#include "kernel/tuning.hpp"

namespace schedk::dispatch_detail {

// --- walk plans (walk_plan.hpp) ------------------------------------------------------------------

void Interval::AppendTimeEntries(const JobView& job, ContainerRef c, std::vector<std::uint32_t>& entries,
                                 std::optional<std::uint32_t> leave_out) const {
  for (std::uint32_t k = ledger_.Begin(c); k < ledger_.End(c); ++k) {
    if (k == leave_out) continue;
    const ComplexId complex = ledger_.entry(k).complex;
    if (complex == complexes_.slots || FindValue(job.requests->hard, complex) != nullptr) entries.push_back(k);
  }
}

std::vector<std::uint32_t> Interval::TimeEntries(const JobView& job, PeId pe) const {
  std::vector<std::uint32_t> entries;
  AppendTimeEntries(job, {ContainerLevel::kPe, pe.index()}, entries);
  AppendTimeEntries(job, {ContainerLevel::kGlobal, 0}, entries);
  std::vector<std::uint8_t> host_seen(cluster_.hosts.size(), 0);
  for (std::uint32_t i = 0; i < instances_.size(); ++i) {
    const HostId host = instances_.host[i];
    if (!QueueStatic(job, i, pe) || !HostStatic(job, host)) continue;
    AppendTimeEntries(job, {ContainerLevel::kQueue, i}, entries);
    if (!host_seen[host.index()]) {
      host_seen[host.index()] = 1;
      AppendTimeEntries(job, {ContainerLevel::kHost, host.index()}, entries);
    }
  }
  return entries;
}

std::optional<std::string> Interval::PlanKey(const JobView& job, PeId pe) const {
  std::string key;
  auto put = [&](const auto& value) { key.append(reinterpret_cast<const char*>(&value), sizeof value); };
  put(pe.value);
  if (access_lists_) {
    put(job.owner.value);
    put(job.group.value);
    put(job.project.value);
  }
  const RequestSet& requests = *job.requests;
  for (const std::vector<QueueSelector>* list : {&requests.queue_hard, &requests.queue_master}) {
    put(list->size());
    for (const QueueSelector& s : *list) {
      put(s.queue.value);
      put(s.host.value);
      put(s.group.value);
    }
  }
  for (const ComplexValue& v : requests.hard) {
    if (load_reported_[v.complex.index()]) return std::nullopt;
    put(v.complex.value);
    const ComplexAttribute& a = complexes_[v.complex];
    if (a.consumable != Consumable::kNo) {  // the plan's amounts are the job's own (DemandOn)
      put(v.number != 0);
      continue;
    }
    if (const std::vector<double>& limits = builtin_limits_[v.complex.index()]; !limits.empty()) {
      for (double limit : limits) {
        NumericOffer offer;
        offer.per_slot = limit;
        put(MatchesNumericOffer(a.relop, v.number, 1, offer));
      }
      continue;
    }
    put(v.number);
    put(v.text.size());
    key += v.text;
  }
  return key;
}

// Blocks of hosts in parallel, each with its own tables, joined in host order.
std::shared_ptr<const WalkPlan> Interval::PlanWalk(const JobView& job, PeId pe, std::uint64_t global_found) const {
  const std::optional<std::string> key = PlanKey(job, pe);
  const std::shared_ptr<const WalkPlan> kept = key ? plan_cache_.Find(*key) : nullptr;
  const auto host_count = static_cast<std::uint32_t>(cluster_.hosts.size());
  if (kept) {
    std::atomic<bool> all_hold{true};
    tbb::parallel_for(
        tbb::blocked_range<std::uint32_t>(0, host_count, 256), [&](const tbb::blocked_range<std::uint32_t>& r) {
          for (std::uint32_t h = r.begin(); h != r.end() && all_hold.load(std::memory_order_relaxed); ++h) {
            if (!PartHolds(*kept, h)) all_hold.store(false, std::memory_order_relaxed);
          }
        });
    if (all_hold.load()) return kept;
  }
  auto walk = std::make_shared<WalkPlan>();
  AppendTimeEntries(job, {ContainerLevel::kPe, pe.index()}, walk->time_entries);
  AppendTimeEntries(job, {ContainerLevel::kGlobal, 0}, walk->time_entries);
  std::vector<WalkPlanBlock> blocks((host_count + tuning::kPlanHostsPerBlock - 1) / tuning::kPlanHostsPerBlock);
  tbb::parallel_for(std::size_t{0}, blocks.size(), [&](std::size_t b) {
    const auto end = std::min(host_count, static_cast<std::uint32_t>((b + 1) * tuning::kPlanHostsPerBlock));
    PlanHosts(job, pe, global_found, kept.get(), static_cast<std::uint32_t>(b * tuning::kPlanHostsPerBlock), end,
              blocks[b]);
  });
  walk->part_of.assign(host_count, UINT32_MAX);
  for (const WalkPlanBlock& block : blocks) block.JoinInto(*walk);
  if (key) plan_cache_.Keep(*key, walk);
  return walk;
}

void Interval::PlanHosts(const JobView& job, PeId pe, std::uint64_t global_found, const WalkPlan* kept,
                         std::uint32_t first, std::uint32_t end, WalkPlanBlock& block) const {
  std::vector<Demand> scratch;
  std::optional<std::uint32_t> leave_out;  // the host's mirrored slots entry
  auto append = [&](std::uint32_t host_index) {
    for (const Demand& demand : scratch) {
      if (demand.entry == leave_out) continue;
      block.demands.push_back({demand.entry, demand.kind});
      block.demand_host.push_back(host_index);
    }
  };
  for (std::uint32_t h = first; h < end; ++h) {
    if (kept && PartHolds(*kept, h)) {
      if (kept->part_of[h] != UINT32_MAX) block.CopyPart(*kept, h, kept->parts[kept->part_of[h]]);
      continue;
    }
    const HostId host(h);
    if (!HostStatic(job, host)) continue;
    leave_out.reset();
    HostPlan plan{host, 0, 0, 0, 0};
    plan.instances_begin = plan.instances_end = static_cast<std::uint32_t>(block.instances.size());
    const std::size_t mark = block.demands.size();
    const auto host_index = static_cast<std::uint32_t>(block.hosts.size());
    const auto times_begin = static_cast<std::uint32_t>(block.time_entries.size());
    bool host_fit_known = false, host_usable = false, host_timed = false;
    std::uint64_t found_host = 0;
    for (std::uint32_t k = instances_.host_first[h]; k < instances_.host_first[h + 1]; ++k) {
      const std::uint32_t i = host_queues_[k];
      if (!QueueStatic(job, i, pe)) continue;
      // The candidate times come from every statically eligible instance, alarms included.
      AppendTimeEntries(job, {ContainerLevel::kQueue, i}, block.time_entries);
      if (!host_timed) {
        host_timed = true;
        leave_out = plan_cache_.MirroredHostSlots(ledger_, h);
        AppendTimeEntries(job, {ContainerLevel::kHost, h}, block.time_entries, leave_out);
      }
      if (alarm_[i]) continue;
      if (!host_fit_known) {
        host_fit_known = true;
        scratch.clear();
        host_usable = !MatchStatic({ContainerLevel::kHost, h}, job, found_host).static_mismatch;
        ForEachDemand({ContainerLevel::kHost, h}, job, [&](const Demand& demand) { scratch.push_back(demand); });
        plan.first = static_cast<std::uint32_t>(block.demands.size());
        if (host_usable) append(host_index);
        plan.last = static_cast<std::uint32_t>(block.demands.size());
      }
      if (!host_usable) continue;
      std::uint64_t found = global_found | found_host;
      scratch.clear();
      if (MatchStatic({ContainerLevel::kQueue, i}, job, found).static_mismatch || !AllFound(job, found)) continue;
      ForEachDemand({ContainerLevel::kQueue, i}, job, [&](const Demand& demand) { scratch.push_back(demand); });
      const auto instance_first = static_cast<std::uint32_t>(block.demands.size());
      append(host_index);
      block.instances.push_back({i, instance_first, static_cast<std::uint32_t>(block.demands.size())});
      plan.instances_end = static_cast<std::uint32_t>(block.instances.size());
    }
    if (!host_timed) continue;  // no statically eligible instance
    WalkPlan::HostPart part{times_begin, static_cast<std::uint32_t>(block.time_entries.size()), UINT32_MAX,
                            leave_out.value_or(UINT32_MAX), host_alarm_version_[h]};
    if (plan.instances_end == plan.instances_begin) {  // nothing usable: drop what it appended
      block.demands.resize(mark);
      block.demand_host.resize(mark);
    } else {
      part.plan = host_index;
      block.hosts.push_back(plan);
    }
    block.parts.emplace_back(h, part);
  }
}

void WalkPlanBlock::CopyPart(const WalkPlan& kept, std::uint32_t h, const WalkPlan::HostPart& part) {
  WalkPlan::HostPart copied = part;
  copied.times_begin = static_cast<std::uint32_t>(time_entries.size());
  time_entries.insert(time_entries.end(), kept.time_entries.begin() + part.times_begin,
                      kept.time_entries.begin() + part.times_end);
  copied.times_end = static_cast<std::uint32_t>(time_entries.size());
  if (part.plan != UINT32_MAX) {
    const HostPlan& from = kept.hosts[part.plan];
    const auto host_index = static_cast<std::uint32_t>(hosts.size());
    const auto base = static_cast<std::uint32_t>(demands.size());
    demands.insert(demands.end(), kept.demands.begin() + from.first, kept.demands.begin() + kept.DemandsEnd(from));
    demand_host.resize(demands.size(), host_index);
    HostPlan plan = from;
    plan.first = base;
    plan.last = from.last - from.first + base;
    plan.instances_begin = static_cast<std::uint32_t>(instances.size());
    for (InstancePlan instance : kept.InstancesOf(from)) {
      instance.first = instance.first - from.first + base;
      instance.last = instance.last - from.first + base;
      instances.push_back(instance);
    }
    plan.instances_end = static_cast<std::uint32_t>(instances.size());
    hosts.push_back(plan);
    copied.plan = host_index;
  }
  parts.emplace_back(h, copied);
}

void WalkPlanBlock::JoinInto(WalkPlan& walk) const {
  const auto demand_base = static_cast<std::uint32_t>(walk.demands.size());
  const auto host_base = static_cast<std::uint32_t>(walk.hosts.size());
  const auto time_base = static_cast<std::uint32_t>(walk.time_entries.size());
  walk.demands.insert(walk.demands.end(), demands.begin(), demands.end());
  walk.time_entries.insert(walk.time_entries.end(), time_entries.begin(), time_entries.end());
  for (std::uint32_t h : demand_host) walk.demand_host.push_back(host_base + h);
  const auto instance_base = static_cast<std::uint32_t>(walk.instances.size());
  for (InstancePlan instance : instances) {
    instance.first += demand_base;
    instance.last += demand_base;
    walk.instances.push_back(instance);
  }
  for (HostPlan plan : hosts) {
    plan.first += demand_base;
    plan.last += demand_base;
    plan.instances_begin += instance_base;
    plan.instances_end += instance_base;
    walk.hosts.push_back(plan);
  }
  for (auto [h, part] : parts) {
    part.times_begin += time_base;
    part.times_end += time_base;
    if (part.plan != UINT32_MAX) part.plan += host_base;
    walk.part_of[h] = static_cast<std::uint32_t>(walk.parts.size());
    walk.parts.push_back(part);
  }
}

bool Interval::PartHolds(const WalkPlan& walk, std::uint32_t h) const {
  const std::uint32_t p = walk.part_of[h];
  if (p == UINT32_MAX) return true;  // statically nothing: the key has not changed
  const WalkPlan::HostPart& part = walk.parts[p];
  return part.alarm_version == host_alarm_version_[h] &&
         part.leave_out == plan_cache_.MirroredHostSlots(ledger_, h).value_or(UINT32_MAX);
}

double Interval::DemandAmount(std::uint32_t k, const JobView& job, std::vector<double>& by_complex) const {
  // Outside EXCL, an amount depends on the entry's complex only: one DemandOn per complex.
  const ComplexId complex = ledger_.entry(k).complex;
  if (complexes_[complex].relop == Relop::kExcl) return DemandOn(k, job)->amount;
  if (by_complex.empty()) by_complex.assign(complexes_.size(), std::numeric_limits<double>::quiet_NaN());
  double& amount = by_complex[complex.index()];
  if (std::isnan(amount)) amount = DemandOn(k, job)->amount;  // the key says the job has this demand
  return amount;
}

std::vector<double> Interval::DemandAmounts(const WalkPlan& walk, const JobView& job) const {
  std::vector<double> amounts(walk.demands.size());
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, amounts.size(), 2048),
                    [&](const tbb::blocked_range<std::size_t>& r) {
                      std::vector<double> by_complex;
                      for (std::size_t g = r.begin(); g != r.end(); ++g) {
                        amounts[g] = DemandAmount(walk.demands[g].entry, job, by_complex);
                      }
                    });
  return amounts;
}

}  // namespace schedk::dispatch_detail
