#include "kernel/dispatch/interval.hpp"

#include <atomic>
#include <cassert>
#include <functional>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>

#include "kernel/complex/complex_compare.hpp"
#include "kernel/util/radix_sort.hpp"

namespace schedk::dispatch_detail {

// --- the queue-end-time iteration for parallel jobs (§5.5) ---------------------------------------

// The diagrams whose breakpoints are the queue-end-time iterator's candidate
// start times for one PE: the PE's and the global host's, and those of every
// statically eligible queue instance and its host, for the consumables the
// job requests (slots always).
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

std::optional<std::uint32_t> Interval::MirroredHostSlots(std::uint32_t h) const {
  if (mirror_checks_.empty()) return std::nullopt;  // sized in Run, with diagrams only
  MirrorCheck& check = mirror_checks_[h];
  if (check.host_entry == UINT32_MAX) return std::nullopt;
  const std::uint64_t host_version = ledger_.version(check.host_entry);
  const std::uint64_t instance_version = ledger_.version(check.instance_entry);
  if (check.host_version != host_version || check.instance_version != instance_version) {
    check.host_version = host_version;
    check.instance_version = instance_version;
    check.same = ledger_.diagram(check.host_entry).SameSteps(ledger_.diagram(check.instance_entry));
  }
  return check.same ? std::optional<std::uint32_t>(check.host_entry) : std::nullopt;
}

namespace {

// The distinct breakpoint times in [from, to) of the entries' diagrams, latest first.
std::vector<Time> TimesIn(const ResourceLedger& ledger, const std::vector<std::uint32_t>& entries, Time from, Time to) {
  std::vector<std::vector<Time>> parts((entries.size() + 255) / 256);
  tbb::parallel_for(std::size_t{0}, parts.size(), [&](std::size_t part) {
    const std::size_t end = std::min(entries.size(), (part + 1) * 256);
    for (std::size_t e = part * 256; e < end; ++e) ledger.diagram(entries[e]).AppendTimesIn(from, to, parts[part]);
  });
  // Breakpoint times are never negative: sort them as unsigned integers.
  std::vector<std::uint64_t> keys;
  for (const std::vector<Time>& part : parts) keys.insert(keys.end(), part.begin(), part.end());
  RadixSort64(keys);
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return std::vector<Time>(keys.rbegin(), keys.rend());
}

}  // namespace

std::vector<Time> Interval::QueueEndTimes(const JobView& job, PeId pe) const {
  return TimesIn(ledger_, TimeEntries(job, pe), 0, kDiagramForever + 1);
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
std::shared_ptr<const Interval::WalkPlan> Interval::PlanWalk(const JobView& job, PeId pe,
                                                             std::uint64_t global_found) const {
  const std::optional<std::string> key = PlanKey(job, pe);
  std::shared_ptr<const WalkPlan> kept;
  if (key) {
    if (const auto it = kept_plans_.find(*key); it != kept_plans_.end()) kept = it->second;
  }
  auto holds = [&](std::uint32_t h) { return PartHolds(*kept, h); };
  const auto host_count = static_cast<std::uint32_t>(cluster_.hosts.size());
  if (kept) {
    std::atomic<bool> all_hold{true};
    tbb::parallel_for(
        tbb::blocked_range<std::uint32_t>(0, host_count, 256), [&](const tbb::blocked_range<std::uint32_t>& r) {
          for (std::uint32_t h = r.begin(); h != r.end() && all_hold.load(std::memory_order_relaxed); ++h) {
            if (!holds(h)) all_hold.store(false, std::memory_order_relaxed);
          }
        });
    if (all_hold.load()) return kept;
  }
  auto walk = std::make_shared<WalkPlan>();
  AppendTimeEntries(job, {ContainerLevel::kPe, pe.index()}, walk->time_entries);
  AppendTimeEntries(job, {ContainerLevel::kGlobal, 0}, walk->time_entries);
  struct Block {
    std::vector<DemandSlot> demands;
    std::vector<std::uint32_t> demand_host;
    std::vector<HostPlan> hosts;
    std::vector<InstancePlan> instances;
    std::vector<std::uint32_t> time_entries;
    std::vector<std::pair<std::uint32_t, WalkPlan::HostPart>> parts;  // cluster host, its part
  };
  constexpr std::uint32_t kHostsPerBlock = 256;
  std::vector<Block> blocks((host_count + kHostsPerBlock - 1) / kHostsPerBlock);
  tbb::parallel_for(std::size_t{0}, blocks.size(), [&](std::size_t b) {
    Block& block = blocks[b];
    std::vector<Demand> scratch;
    std::optional<std::uint32_t> leave_out;  // the host's mirrored slots entry
    auto append = [&](std::uint32_t host_index) {
      for (const Demand& demand : scratch) {
        if (demand.entry == leave_out) continue;
        block.demands.push_back({demand.entry, demand.kind});
        block.demand_host.push_back(host_index);
      }
    };
    // The kept plan's part of host h.
    auto copy_part = [&](std::uint32_t h, const WalkPlan::HostPart& part) {
      WalkPlan::HostPart copied = part;
      copied.times_begin = static_cast<std::uint32_t>(block.time_entries.size());
      block.time_entries.insert(block.time_entries.end(), kept->time_entries.begin() + part.times_begin,
                                kept->time_entries.begin() + part.times_end);
      copied.times_end = static_cast<std::uint32_t>(block.time_entries.size());
      if (part.plan != UINT32_MAX) {
        const HostPlan& from = kept->hosts[part.plan];
        const auto host_index = static_cast<std::uint32_t>(block.hosts.size());
        const auto base = static_cast<std::uint32_t>(block.demands.size());
        block.demands.insert(block.demands.end(), kept->demands.begin() + from.first,
                             kept->demands.begin() + kept->DemandsEnd(from));
        block.demand_host.resize(block.demands.size(), host_index);
        HostPlan plan = from;
        plan.first = base;
        plan.last = from.last - from.first + base;
        plan.instances_begin = static_cast<std::uint32_t>(block.instances.size());
        for (InstancePlan instance : kept->InstancesOf(from)) {
          instance.first = instance.first - from.first + base;
          instance.last = instance.last - from.first + base;
          block.instances.push_back(instance);
        }
        plan.instances_end = static_cast<std::uint32_t>(block.instances.size());
        block.hosts.push_back(plan);
        copied.plan = host_index;
      }
      block.parts.emplace_back(h, copied);
    };
    const auto end = std::min(host_count, static_cast<std::uint32_t>((b + 1) * kHostsPerBlock));
    for (auto h = static_cast<std::uint32_t>(b * kHostsPerBlock); h < end; ++h) {
      if (kept && holds(h)) {
        if (kept->part_of[h] != UINT32_MAX) copy_part(h, kept->parts[kept->part_of[h]]);
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
          leave_out = MirroredHostSlots(h);
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
        const auto first = static_cast<std::uint32_t>(block.demands.size());
        append(host_index);
        block.instances.push_back({i, first, static_cast<std::uint32_t>(block.demands.size())});
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
  });
  walk->part_of.assign(host_count, UINT32_MAX);
  for (Block& block : blocks) {
    const auto demand_base = static_cast<std::uint32_t>(walk->demands.size());
    const auto host_base = static_cast<std::uint32_t>(walk->hosts.size());
    const auto time_base = static_cast<std::uint32_t>(walk->time_entries.size());
    walk->demands.insert(walk->demands.end(), block.demands.begin(), block.demands.end());
    walk->time_entries.insert(walk->time_entries.end(), block.time_entries.begin(), block.time_entries.end());
    for (std::uint32_t h : block.demand_host) walk->demand_host.push_back(host_base + h);
    const auto instance_base = static_cast<std::uint32_t>(walk->instances.size());
    for (InstancePlan instance : block.instances) {
      instance.first += demand_base;
      instance.last += demand_base;
      walk->instances.push_back(instance);
    }
    for (HostPlan plan : block.hosts) {
      plan.first += demand_base;
      plan.last += demand_base;
      plan.instances_begin += instance_base;
      plan.instances_end += instance_base;
      walk->hosts.push_back(plan);
    }
    for (auto [h, part] : block.parts) {
      part.times_begin += time_base;
      part.times_end += time_base;
      if (part.plan != UINT32_MAX) part.plan += host_base;
      walk->part_of[h] = static_cast<std::uint32_t>(walk->parts.size());
      walk->parts.push_back(part);
    }
  }
  if (key) {
    if (kept_plans_.size() >= kKeptPlans && !kept) kept_plans_.clear();
    kept_plans_[*key] = walk;
  }
  return walk;
}

bool Interval::PartHolds(const WalkPlan& walk, std::uint32_t h) const {
  const std::uint32_t p = walk.part_of[h];
  if (p == UINT32_MAX) return true;  // statically nothing: the key has not changed
  const WalkPlan::HostPart& part = walk.parts[p];
  return part.alarm_version == host_alarm_version_[h] && part.leave_out == MirroredHostSlots(h).value_or(UINT32_MAX);
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

namespace {

using TimeRanges = std::span<const std::pair<Time, Time>>;  // sorted, disjoint [from, to], bounds included

// Whether some time of [low, high] lies in `ranges`: the first range that
// ends at or after `low` begins by `high`.
bool Meets(TimeRanges ranges, Time low, Time high) {
  const auto it = std::lower_bound(ranges.begin(), ranges.end(), low,
                                   [](const std::pair<Time, Time>& range, Time t) { return range.second < t; });
  return it != ranges.end() && it->first <= high;
}

// The intersection of two sets of times given as ranges.
std::vector<std::pair<Time, Time>> Intersect(TimeRanges a, TimeRanges b) {
  std::vector<std::pair<Time, Time>> both;
  for (std::size_t i = 0, j = 0; i < a.size() && j < b.size();) {
    const Time from = std::max(a[i].first, b[j].first), to = std::min(a[i].second, b[j].second);
    if (from <= to) both.emplace_back(from, to);
    (a[i].second < b[j].second ? i : j) += 1;
  }
  return both;
}

}  // namespace

bool Interval::HostCoverage::Denies(std::uint32_t h, Time t) const {
  return Meets(TimeRanges(denied).subspan(host_first[h], host_first[h + 1] - host_first[h]), t, t);
}
bool Interval::HostCoverage::FailsAt(Time t) const { return Meets(failures, t, t); }
bool Interval::HostCoverage::FailsIn(Time low, Time high) const { return Meets(failures, low, high); }

template <class Count, class Allow>
Interval::HostCoverage Interval::CoverHosts(const WalkPlan& walk, Duration d, std::uint32_t per_host, Count count,
                                            Allow allow) const {
  constexpr Time kBefore = std::numeric_limits<Time>::min(), kAfter = std::numeric_limits<Time>::max();
  // Where one host suffices ($pe_slots), the hosts fail where all of them
  // are denied: the intersection of their ranges. Otherwise the hosts denied
  // are counted over events, +1 where a range begins, -1 after it ends.
  const bool one_suffices = allow(1);
  // Per block of hosts: each host's denied ranges, and their intersection or events.
  struct Block {
    std::vector<std::pair<Time, Time>> denied;
    std::vector<std::uint32_t> host_end;  // per host of the block: the end of its ranges in `denied`
    std::vector<std::pair<Time, Time>> all_denied;  // of its hosts so far
    std::vector<std::pair<Time, std::int32_t>> events;
  };
  std::vector<std::uint32_t> entries(walk.demands.size());
  for (std::size_t g = 0; g < entries.size(); ++g) entries[g] = walk.demands[g].entry;
  flat_diagrams_.Refresh(ledger_, entries);
  constexpr std::uint32_t kHostsPerBlock = 256;
  constexpr std::uint32_t kPrefetchAhead = 2;
  const auto host_count = static_cast<std::uint32_t>(walk.hosts.size());
  std::vector<Block> blocks((host_count + kHostsPerBlock - 1) / kHostsPerBlock);
  tbb::parallel_for(std::size_t{0}, blocks.size(), [&](std::size_t b) {
    Block& block = blocks[b];
    block.all_denied = {{kBefore, kAfter}};
    std::vector<std::pair<Time, Time>> ranges;
    const auto end = std::min(host_count, static_cast<std::uint32_t>((b + 1) * kHostsPerBlock));
    for (auto h = static_cast<std::uint32_t>(b * kHostsPerBlock); h < end; ++h) {
      const HostPlan& plan = walk.hosts[h];
      // The breakpoints of a host a few ahead, asked for from memory now.
      if (h + kPrefetchAhead < end) {
        const HostPlan& ahead = walk.hosts[h + kPrefetchAhead];
        for (std::uint32_t g = ahead.first; g < walk.DemandsEnd(ahead); ++g) {
          const std::span<const Breakpoint> steps = flat_diagrams_.Steps(walk.demands[g].entry);
          const char* bytes = reinterpret_cast<const char*>(steps.data());
          for (std::size_t offset = 0; offset < steps.size_bytes(); offset += 64) __builtin_prefetch(bytes + offset);
        }
      }
      ranges.clear();
      for (std::uint32_t g = plan.first; g < walk.DemandsEnd(plan); ++g) {
        // Whether a step at `amount` denies the host: counts fall as amounts
        // rise, so amounts up to one that allows allow, from one that denies deny.
        double allows_up_to = -std::numeric_limits<double>::infinity();
        double denies_from = std::numeric_limits<double>::infinity();
        auto denies = [&](double amount) {
          if (amount <= allows_up_to) return false;
          if (amount >= denies_from) return true;
          if (count(g, amount) >= per_host) {
            allows_up_to = amount;
            return false;
          }
          denies_from = amount;
          return true;
        };
        // The step [from, to) at `amount` meets the window [t, t + d) for t in
        // [from - d + 1, to - 1] (to: the next breakpoint, or never); a run of
        // denying steps gives one range. A start at kDiagramForever weighs the
        // queue end, the amount before a last breakpoint there: that step
        // reaches it.
        Time from = kBefore;
        double amount = 0;
        std::optional<Time> run_from;  // the first step of the current run of denying steps
        auto step = [&]() {
          if (from < kDiagramForever && denies(amount)) {
            if (!run_from) run_from = from;
          } else if (run_from) {  // the run ended at `from`
            ranges.emplace_back(*run_from == kBefore ? kBefore : *run_from - d + 1,
                                from == kDiagramForever ? kDiagramForever : from - 1);
            run_from.reset();
          }
        };
        for (const Breakpoint& point : flat_diagrams_.Steps(walk.demands[g].entry)) {
          step();
          from = point.time;
          amount = point.amount;
        }
        step();
        if (run_from) ranges.emplace_back(*run_from == kBefore ? kBefore : *run_from - d + 1, kAfter);
      }
      // The host's ranges merged (several demands), with their events.
      std::sort(ranges.begin(), ranges.end());
      for (const auto& [from, to] : ranges) {
        auto& last = block.denied;
        const bool joins = last.size() > (block.host_end.empty() ? 0 : block.host_end.back()) &&
                           (last.back().second == kAfter || from <= last.back().second + 1);
        if (joins) {
          last.back().second = std::max(last.back().second, to);
        } else {
          last.emplace_back(from, to);
        }
      }
      const std::size_t host_begin = block.host_end.empty() ? 0 : block.host_end.back();
      if (one_suffices) {
        if (!block.all_denied.empty()) {
          block.all_denied = Intersect(block.all_denied, TimeRanges(block.denied).subspan(host_begin));
        }
      } else {
        for (std::size_t r = host_begin; r < block.denied.size(); ++r) {
          block.events.emplace_back(block.denied[r].first, 1);
          if (block.denied[r].second != kAfter) block.events.emplace_back(block.denied[r].second + 1, -1);
        }
      }
      block.host_end.push_back(static_cast<std::uint32_t>(block.denied.size()));
    }
  });
  HostCoverage coverage;
  coverage.host_first.reserve(host_count + 1);
  coverage.host_first.push_back(0);
  std::vector<std::pair<Time, std::int32_t>> events;
  std::vector<std::pair<Time, Time>> all_denied = {{kBefore, kAfter}};
  for (const Block& block : blocks) {
    const auto base = static_cast<std::uint32_t>(coverage.denied.size());
    coverage.denied.insert(coverage.denied.end(), block.denied.begin(), block.denied.end());
    for (std::uint32_t e : block.host_end) coverage.host_first.push_back(base + e);
    if (one_suffices) {
      all_denied = Intersect(all_denied, block.all_denied);
    } else {
      events.insert(events.end(), block.events.begin(), block.events.end());
    }
  }
  if (one_suffices) {
    coverage.failures = std::move(all_denied);
    return coverage;
  }
  std::sort(events.begin(), events.end());
  // Count the hosts denied from each event on; the hosts fail where the rule
  // does not allow the others.
  std::vector<std::pair<Time, Time>>& failures = coverage.failures;
  auto fail = [&](Time from, Time to) {
    if (!failures.empty() && failures.back().second != kAfter && failures.back().second + 1 == from) {
      failures.back().second = to;
    } else {
      failures.emplace_back(from, to);
    }
  };
  std::int64_t denied_hosts = 0;
  if (!allow(host_count) && (events.empty() || events.front().first != kBefore)) {
    fail(kBefore, events.empty() ? kAfter : events.front().first - 1);
  }
  for (std::size_t e = 0; e < events.size();) {
    const Time at = events[e].first;
    for (; e < events.size() && events[e].first == at; ++e) denied_hosts += events[e].second;
    if (!allow(static_cast<std::uint64_t>(host_count - denied_hosts))) {
      fail(at, e < events.size() ? events[e].first - 1 : kAfter);
    }
  }
  return coverage;
}

// The queue-end-time walk without listing every candidate time. Above the
// last time any diagram the job draws on rises, every window's peak is the
// amount at its start, which only falls: feasibility is monotone there, and a
// binary search over those candidates finds the first failure. Below, stretches
// of time are settled latest first: one whose lower bounds hold is feasible
// throughout; the others are halved down to short stretches, whose candidates
// are listed and swept downwards from a full evaluation at the first. A host's
// slot availability over [t, t + d) can only change where one of its
// breakpoints b stops being in effect (t < b) or leaves the window (t <= b - d),
// so only demands with such an event since the previous candidate are
// re-counted, and feasibility is read off aggregates per allocation rule (the
// sum of available slots for $fill_up and $round_robin, the hosts with room for
// the whole job for $pe_slots, the hosts with room for n slots for a fixed n),
// which is exactly when AssignParallel succeeds.
std::optional<Time> Interval::QueueEndStart(const JobView& job, PeId pe, std::uint32_t least, std::uint32_t most,
                                            ParallelRoom& room_at_start) const {
  const Duration d = job.duration;
  const ParallelEnvironment& p = cluster_.pes[pe.index()];
  if (!HasAccess(cluster_.entities, p.user_lists, p.xuser_lists, {}, {}, job.owner, job.group, job.project) ||
      !GlobalStatic(job)) {
    return std::nullopt;
  }
  std::uint64_t global_found = 0;
  if (Fit({ContainerLevel::kGlobal, 0}, job, cluster_.now, d, global_found, nullptr).static_mismatch) {
    return std::nullopt;
  }
  const std::shared_ptr<const WalkPlan> planned = PlanWalk(job, pe, global_found);
  const WalkPlan& walk = *planned;
  const std::vector<double> amounts = DemandAmounts(walk, job);
  const std::vector<DemandSlot>& demands = walk.demands;
  const std::vector<std::uint32_t>& demand_host = walk.demand_host;
  const std::vector<HostPlan>& hosts = walk.hosts;
  const std::optional<std::uint32_t> pe_entry = ledger_.Find({ContainerLevel::kPe, pe.index()}, complexes_.slots);
  const AllocationRule rule = p.allocation_rule;
  const std::uint32_t per_host = rule == AllocationRule::kPeSlots ? least
                                 : rule == AllocationRule::kFixed ? p.slots_per_host
                                                                  : 1;
  // One demand's slot count over [t, t + window) (kUnlimited when it does not
  // limit the count). In the monotone region the peak is the amount at t.
  std::vector<std::uint32_t> fits(demands.size(), kUnlimited);
  // Each demand's diagram is asked at nearby times again and again: each
  // search starts where the demand's previous one ended.
  std::vector<std::uint32_t> hints(demands.size(), 0);
  // A demand's slot count with `used` in use.
  auto count_of = [&](std::uint32_t g, double used) -> std::uint32_t {
    const DemandSlot& demand = demands[g];
    const double amount = amounts[g];
    const double left = ledger_.entry(demand.entry).total - used;
    if (demand.kind != DemandKind::kPerSlot) return amount > left ? 0 : kUnlimited;
    const double n = std::floor(left / amount);
    return n <= 0 ? 0 : n >= kUnlimited ? kUnlimited - 1 : static_cast<std::uint32_t>(n);
  };
  auto fits_at = [&](std::uint32_t g, Time t, Duration window, bool monotone) -> std::uint32_t {
    const UtilizationDiagram& diagram = ledger_.diagram(demands[g].entry);
    const double used = monotone && t < kDiagramForever ? diagram.AmountAt(t, hints[g])
                        : ledger_.with_diagrams()          ? diagram.Max(t, window, hints[g])
                                                           : ledger_.entry(demands[g].entry).used_now;
    return count_of(g, used);
  };
  auto slots_of = [&](std::uint32_t first, std::uint32_t last) {
    std::uint32_t n = kUnlimited;
    for (std::uint32_t g = first; g < last; ++g) n = std::min(n, fits[g]);
    return n;
  };
  // AssignParallel's per-host availability from the counts kept: the host's own
  // slots, at most the sum of its instances'.
  auto availability = [&](std::uint32_t h) -> std::uint64_t {
    const HostPlan& plan = hosts[h];
    const std::uint64_t host_slots = slots_of(plan.first, plan.last);
    if (host_slots == 0) return 0;
    std::uint64_t sum = 0;
    for (const InstancePlan& instance : walk.InstancesOf(plan)) sum += slots_of(instance.first, instance.last);
    return std::min(host_slots, sum);
  };
  auto refresh = [&](std::uint32_t h, Time t, Duration window, bool monotone) {
    const HostPlan& plan = hosts[h];
    const std::uint32_t last = walk.DemandsEnd(plan);
    for (std::uint32_t g = plan.first; g < last; ++g) fits[g] = fits_at(g, t, window, monotone);
    return availability(h);
  };
  // What the PE and the global host allow over [t, t + window), and the rule's
  // verdict on the hosts' aggregates.
  auto pe_and_global_allow = [&](Time t, Duration window) {
    if (pe_entry && ledger_.entry(*pe_entry).total - ledger_.Used(*pe_entry, t, window) < least) return false;
    std::uint64_t unused = 0;
    return Fit({ContainerLevel::kGlobal, 0}, job, t, window, unused, nullptr).slots >= least;
  };
  auto hosts_allow = [&](std::uint64_t total, std::uint64_t roomy) {
    switch (rule) {
      case AllocationRule::kFillUp:
      case AllocationRule::kRoundRobin:
        return total >= least;
      case AllocationRule::kPeSlots:
        return roomy >= 1;
      case AllocationRule::kFixed:
        return roomy * per_host >= least;
    }
    return false;
  };
  // $pe_slots and a fixed rule count the hosts with room for the rule's
  // per-host count. Where every host has a single queue instance, that room
  // is every one of the host's demands allowing per_host slots; a demand
  // denies it for the start times whose window [t, t + d) meets a step of its
  // diagram that does not, [step start - d + 1, step end - 1]. Those times,
  // gathered per host and counted over the hosts, give the hosts' verdict at
  // every start time at once (CoverHosts).
  const bool by_coverage =
      (rule == AllocationRule::kPeSlots || rule == AllocationRule::kFixed) && per_host >= 1 &&
      ledger_.with_diagrams() &&
      std::all_of(hosts.begin(), hosts.end(),
                  [](const HostPlan& plan) { return plan.instances_end - plan.instances_begin == 1; });
  HostCoverage coverage;
  if (by_coverage) coverage = CoverHosts(walk, d, per_host, count_of, [&](std::uint64_t roomy) {
    return hosts_allow(0, roomy);
  });
  // Every host at t: the counts kept are refreshed, availability summed.
  std::vector<std::uint64_t> available(hosts.size(), 0);
  auto evaluate_hosts = [&](Time t, Duration window, bool monotone) {
    tbb::parallel_for(tbb::blocked_range<std::uint32_t>(0, static_cast<std::uint32_t>(hosts.size()), 64),
                      [&](const tbb::blocked_range<std::uint32_t>& r) {
                        for (std::uint32_t h = r.begin(); h != r.end(); ++h) {
                          available[h] = refresh(h, t, window, monotone);
                        }
                      });
    std::uint64_t total = 0, roomy = 0;
    for (std::uint64_t a : available) {
      total += a;
      roomy += a >= per_host;
    }
    return std::make_pair(total, roomy);
  };
  auto feasible_at = [&](Time t) {
    if (!pe_and_global_allow(t, d)) return false;
    if (by_coverage) return !coverage.FailsAt(t);
    const auto [total, roomy] = evaluate_hosts(t, d, false);
    return hosts_allow(total, roomy);
  };
  // Whether the hosts allow the job over [t, t + window), their counts
  // refreshed there. Availabilities are never negative, so the hosts' counts
  // may stop adding up once they are enough: the verdict is the same whichever
  // hosts came first. Leaves the counts kept of the hosts it looked at.
  auto hosts_suffice = [&](Time t, Duration window, bool monotone) {
    std::atomic<std::uint64_t> total{0}, roomy{0};
    std::atomic<bool> enough{false};
    tbb::parallel_for(tbb::blocked_range<std::uint32_t>(0, static_cast<std::uint32_t>(hosts.size()), 64),
                      [&](const tbb::blocked_range<std::uint32_t>& r) {
                        if (enough.load(std::memory_order_relaxed)) return;
                        std::uint64_t block_total = 0, block_roomy = 0;
                        for (std::uint32_t h = r.begin(); h != r.end(); ++h) {
                          const std::uint64_t a = refresh(h, t, window, monotone);
                          block_total += a;
                          block_roomy += a >= per_host;
                        }
                        const std::uint64_t sum = total.fetch_add(block_total) + block_total;
                        const std::uint64_t n = roomy.fetch_add(block_roomy) + block_roomy;
                        if (hosts_allow(sum, n)) enough.store(true, std::memory_order_relaxed);
                      });
    return enough.load() || hosts_allow(total.load(), roomy.load());
  };
  // Whether every candidate in [low, high] is feasible, by lower bounds: each
  // window [t, t + d) lies within [low, high + d), over which no count is
  // higher.
  auto feasible_throughout = [&](Time low, Time high) {
    const Duration span = (high - low) + d;
    if (!pe_and_global_allow(low, span)) return false;
    if (by_coverage) return !coverage.FailsIn(low, high);
    return hosts_suffice(low, span, false);
  };
  // A time at which `available` holds every host's availability exactly (the
  // sweep's last feasible candidate, where it failed at the next one).
  std::optional<Time> available_at;
  // The room at the start found: hosts in the order parallel jobs take them
  // (load, then host; where the queue list is not sorted, its order:
  // ReservationHostOrder), instances with their slots. Hosts are weighed in
  // growing batches of that order and only until they suffice: the room never
  // holds a host past that point.
  auto room_at = [&](Time start) {
    std::uint64_t unused = 0;
    ParallelRoom room = RoomBase(job, pe, start, unused);
    if (!room.usable) return room;
    std::vector<std::uint32_t> plan_of_host(cluster_.hosts.size(), UINT32_MAX);
    for (std::uint32_t h = 0; h < hosts.size(); ++h) plan_of_host[hosts[h].host.index()] = h;
    const bool listed = !list_order_.unsorted().empty();
    const std::vector<std::uint32_t>& by_load = listed ? ReservationHostOrder(job, pe) : HostsByLoad();
    std::vector<std::uint32_t> batch;  // plan indices
    std::uint64_t room_sum = 0, room_roomy = 0;  // as RoomFor counts them, to stop where the hosts suffice
    std::size_t next = 0, batch_size = 64;
    while (next < by_load.size()) {
      batch.clear();
      for (; next < by_load.size() && batch.size() < batch_size; ++next) {
        const std::uint32_t h = plan_of_host[by_load[next]];
        // With the coverage, hosts without room for per_host slots are left
        // out: under $pe_slots and a fixed rule, Distribute never takes slots
        // from them (it asks for at least per_host slots on a host).
        // Where every host's availability at the start is known, those
        // without any are left out too.
        if (h != UINT32_MAX && !(by_coverage && coverage.Denies(h, start)) &&
            !(available_at == start && available[h] == 0)) {
          batch.push_back(h);
        }
      }
      batch_size = std::min<std::size_t>(2 * batch_size, 4096);
      tbb::parallel_for(tbb::blocked_range<std::size_t>(0, batch.size(), 32),
                        [&](const tbb::blocked_range<std::size_t>& r) {
                          for (std::size_t b = r.begin(); b != r.end(); ++b) {
                            available[batch[b]] = refresh(batch[b], start, d, false);
                          }
                        });
      for (std::uint32_t h : batch) {
        if (available[h] == 0) continue;
        const HostPlan& plan = hosts[h];
        const std::uint32_t host_slots = slots_of(plan.first, plan.last);
        if (host_slots == 0) continue;
        HostSlots slots{plan.host, host_slots, {}};
        std::uint64_t sum = 0;
        for (const InstancePlan& instance : walk.InstancesOf(plan)) {
          const std::uint32_t n = slots_of(instance.first, instance.last);
          if (n == 0) continue;
          slots.queues.emplace_back(instance.instance, n);
          sum += n;
        }
        if (slots.queues.empty()) continue;
        if (listed) {
          std::sort(slots.queues.begin(), slots.queues.end(),
                    [&](const auto& a, const auto& b) { return ListOrderLess(a.first, b.first); });
        }
        slots.available = static_cast<std::uint32_t>(std::min<std::uint64_t>(host_slots, sum));
        room.hosts.push_back(std::move(slots));
        const HostSlots& last = room.hosts.back();
        room_sum += last.available;
        room_roomy += last.available >= per_host;
        if (RoomSuffices(p, room_sum, room_roomy, room.hosts.size(), last, most)) return room;
      }
    }
    return room;
  };
  auto found = [&](std::optional<Time> start) {
    if (start) room_at_start = room_at(std::max(*start, Time{0}));
    return start;
  };
  const std::vector<std::uint32_t>& time_entries = walk.time_entries;
  // With the ledger's breakpoint index, the candidate times of a stretch are
  // read from its postings of the walk's entries, not searched for in every
  // one of their diagrams.
  const BreakpointIndex* index = ledger_.breakpoint_index();
  std::vector<std::uint8_t> weighed;  // per ledger entry: one of time_entries
  if (index != nullptr) {
    weighed.assign(ledger_.size(), 0);
    for (std::uint32_t k : time_entries) weighed[k] = 1;
  }
  // TimesIn over time_entries: the distinct candidate times in [from, to), latest first.
  auto times_in = [&](Time from, Time to) {
    if (index == nullptr) return TimesIn(ledger_, time_entries, from, to);
    std::vector<Time> times;
    index->ForEachIn(from, to, [&](Time t, std::uint32_t k) {
      if (weighed[k] && (times.empty() || times.back() != t)) times.push_back(t);
      return true;
    });
    std::reverse(times.begin(), times.end());
    return times;
  };
  // The earliest candidate time in [low, high).
  auto earliest_candidate_in = [&](Time low, Time high) -> std::optional<Time> {
    std::optional<Time> earliest;
    if (index != nullptr) {
      index->ForEachIn(low, high, [&](Time t, std::uint32_t k) {
        if (weighed[k]) earliest = t;
        return !earliest;
      });
      return earliest;
    }
    for (std::uint32_t k : time_entries) {
      const std::optional<Time> t = ledger_.diagram(k).NextBreakpoint(low);
      if (t && *t < high) earliest = earliest ? std::min(*earliest, *t) : *t;
    }
    return earliest;
  };
  const std::optional<Time> first_time = earliest_candidate_in(0, kDiagramForever + 1);
  if (!first_time) {  // no breakpoint at all: the walk's only candidate is now
    return found(feasible_at(cluster_.now) ? std::optional<Time>(cluster_.now) : std::nullopt);
  }
  // The monotone region above the last rise.
  Time rises = std::numeric_limits<Time>::min();
  auto note_rises = [&](std::uint32_t k) {
    if (const std::optional<Time> t = LastIncreaseOf(k)) rises = std::max(rises, *t);
  };
  if (pe_entry) note_rises(*pe_entry);
  ForEachDemand({ContainerLevel::kGlobal, 0}, job, [&](const Demand& demand) { note_rises(demand.entry); });
  // The plan's demands, in parallel (each names its own entry).
  rises = tbb::parallel_reduce(
      tbb::blocked_range<std::size_t>(0, demands.size(), 1024), rises,
      [&](const tbb::blocked_range<std::size_t>& r, Time latest) {
        for (std::size_t g = r.begin(); g != r.end(); ++g) {
          if (const std::optional<Time> t = LastIncreaseOf(demands[g].entry)) latest = std::max(latest, *t);
        }
        return latest;
      },
      [](Time a, Time b) { return std::max(a, b); });
  // Feasibility is monotone above the last rise (availability only rises): a
  // walk feasible at the earliest candidate there is feasible throughout, and
  // the region's candidates need not be listed. Otherwise, a binary search over
  // them, from evaluations at both ends. A host's availability is monotone
  // there too, so a host equal at both ends of the bracket stays so inside it:
  // only the others are looked at.
  const std::optional<Time> upper_bottom = earliest_candidate_in(rises, kDiagramForever + 1);
  const bool bottom_feasible =
      upper_bottom && (by_coverage ? feasible_at(*upper_bottom)
                                   : pe_and_global_allow(*upper_bottom, d) && hosts_suffice(*upper_bottom, d, true));
  std::vector<Time> upper;  // listed where the bottom fails
  if (upper_bottom && !bottom_feasible) upper = times_in(rises, kDiagramForever + 1);
  std::size_t lo = 0;  // the first failure in `upper`
  if (upper.empty()) {
    // Nothing above the last rise, or feasible throughout.
  } else if (by_coverage) {
    // Feasibility is monotone there: the first failure by bisection.
    std::size_t hi = upper.size();
    while (lo < hi) {
      const std::size_t mid = lo + (hi - lo) / 2;
      if (feasible_at(upper[mid])) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
  } else {
    const std::size_t bottom_index = upper.size() - 1;
    // Both ends with every host evaluated, whatever the PE and global host say.
    auto end_ok = [&](Time t) {
      const auto [total, roomy] = evaluate_hosts(t, d, true);
      return pe_and_global_allow(t, d) && hosts_allow(total, roomy);
    };
    const bool top_ok = end_ok(upper.front());
    std::vector<std::uint64_t> at_top = available;
    const bool bottom_ok = bottom_index == 0 ? top_ok : end_ok(upper[bottom_index]);
    std::vector<std::uint64_t>& at_bottom = available;
    if (bottom_ok) {
      lo = upper.size();
    } else if (top_ok) {
      std::size_t top = 0, bottom = bottom_index;  // feasible at top, not at bottom
      std::vector<std::uint32_t> varying;
      std::uint64_t fixed_total = 0, fixed_roomy = 0;
      for (std::uint32_t h = 0; h < hosts.size(); ++h) {
        if (at_top[h] != at_bottom[h]) {
          varying.push_back(h);
        } else {
          fixed_total += at_top[h];
          fixed_roomy += at_top[h] >= per_host;
        }
      }
      std::vector<std::uint64_t> at_mid(hosts.size(), 0);
      while (bottom - top > 1) {
        const std::size_t mid = top + (bottom - top) / 2;
        const Time t = upper[mid];
        tbb::parallel_for(tbb::blocked_range<std::size_t>(0, varying.size(), 64),
                          [&](const tbb::blocked_range<std::size_t>& r) {
                            for (std::size_t v = r.begin(); v != r.end(); ++v) {
                              at_mid[varying[v]] = refresh(varying[v], t, d, true);
                            }
                          });
        std::uint64_t total = fixed_total, roomy = fixed_roomy;
        for (std::uint32_t h : varying) {
          total += at_mid[h];
          roomy += at_mid[h] >= per_host;
        }
        const bool ok = pe_and_global_allow(t, d) && hosts_allow(total, roomy);
        std::vector<std::uint64_t>& moved = ok ? at_top : at_bottom;
        (ok ? top : bottom) = mid;
        std::size_t kept = 0;
        for (std::uint32_t h : varying) {
          moved[h] = at_mid[h];
          if (at_top[h] != at_bottom[h]) {
            varying[kept++] = h;
          } else {
            fixed_total += at_top[h];
            fixed_roomy += at_top[h] >= per_host;
          }
        }
        varying.resize(kept);
      }
      lo = bottom;
    }
  }
  std::optional<Time> last_feasible =
      bottom_feasible ? upper_bottom : lo == 0 ? std::nullopt : std::optional<Time>(upper[lo - 1]);
  if (lo < upper.size() || rises <= *first_time) return found(last_feasible);
  // Events where a demand's count may change, packed as (time, demand) in one
  // integer: times lie in [-2^33, 2^33), demands below 2^24 (else: one at a time).
  constexpr std::uint64_t kTimeBias = std::uint64_t{1} << 33;
  constexpr int kDemandBits = 24;
  const bool packable = demands.size() < (std::size_t{1} << kDemandBits);
  auto event_time = [&](std::uint64_t e) { return static_cast<Time>(e >> kDemandBits) - static_cast<Time>(kTimeBias); };
  auto event_demand = [&](std::uint64_t e) { return static_cast<std::uint32_t>(e & ((1u << kDemandBits) - 1)); };
  auto pack = [](Time t, std::uint32_t g) {
    return (static_cast<std::uint64_t>(t + static_cast<Time>(kTimeBias)) << kDemandBits) | g;
  };
  std::vector<std::uint32_t> demand_of;  // per ledger entry: its demand, with the index (each entry has at most one)
  // The events in [low, high), latest first.
  auto events_of = [&](Time low, Time high) {
    if (index != nullptr) {
      if (demand_of.empty()) {
        demand_of.assign(ledger_.size(), UINT32_MAX);
        for (std::uint32_t g = 0; g < demands.size(); ++g) {
          assert(demand_of[demands[g].entry] == UINT32_MAX);  // a container is planned once
          demand_of[demands[g].entry] = g;
        }
      }
      std::vector<std::uint64_t> events;
      auto collect = [&](Time from, Time to, Duration shift) {
        index->ForEachIn(from, to, [&](Time b, std::uint32_t k) {
          if (demand_of[k] != UINT32_MAX) events.push_back(pack(b - shift, demand_of[k]));
          return true;
        });
      };
      collect(low + 1, high + 1, 1);  // below b, the amount before b is in effect
      if (d < kInfiniteDuration) collect(low + d, high + d, d);  // from b - d down, b is past the window
      RadixSort64(events);
      std::reverse(events.begin(), events.end());
      return events;
    }
    std::vector<std::vector<std::uint64_t>> parts((demands.size() + 255) / 256);
    tbb::parallel_for(std::size_t{0}, parts.size(), [&](std::size_t part) {
      std::vector<Time> times;
      const auto end = static_cast<std::uint32_t>(std::min(demands.size(), (part + 1) * 256));
      for (auto g = static_cast<std::uint32_t>(part * 256); g < end; ++g) {
        const UtilizationDiagram& diagram = ledger_.diagram(demands[g].entry);
        times.clear();
        diagram.AppendTimesIn(low + 1, high + 1, times);  // below b, the amount before b is in effect
        for (Time b : times) parts[part].push_back(pack(b - 1, g));
        if (d >= kInfiniteDuration) continue;
        times.clear();
        diagram.AppendTimesIn(low + d, high + d, times);  // from b - d down, b is past the window
        for (Time b : times) parts[part].push_back(pack(b - d, g));
      }
    });
    std::vector<std::uint64_t> events;
    for (const auto& part : parts) events.insert(events.end(), part.begin(), part.end());
    RadixSort64(events);
    std::reverse(events.begin(), events.end());
    return events;
  };
  // The exact sweep over a stretch's candidates (latest first): the counts kept
  // follow the candidates down from a full evaluation at the first. Returns
  // the index of the first failure, or the number of candidates.
  std::vector<std::size_t> demand_stamp(demands.size(), SIZE_MAX), host_stamp(hosts.size(), SIZE_MAX);
  std::vector<std::uint32_t> touched;
  std::vector<std::pair<std::uint32_t, std::uint64_t>> undo;  // the availabilities a candidate changed, as they were
  std::size_t visit = 0;  // candidates looked at, for the stamps
  auto sweep = [&](const std::vector<Time>& chunk) -> std::size_t {
    if (!packable || by_coverage) {  // the coverage, or too many demands to pack: every candidate on its own
      for (std::size_t k = 0; k < chunk.size(); ++k) {
        if (!feasible_at(chunk[k])) return k;
      }
      return chunk.size();
    }
    auto [total, roomy] = evaluate_hosts(chunk.front(), d, false);
    // A failure at the first candidate needs no events.
    if (!pe_and_global_allow(chunk.front(), d) || !hosts_allow(total, roomy)) return 0;
    const std::vector<std::uint64_t> events = events_of(chunk.back(), chunk.front());
    // Each event's count at its candidate (the first one at or below its
    // time), worked out in parallel a batch ahead of the sweep that reads it.
    std::vector<std::uint32_t> candidate_of(events.size()), event_fits(events.size());
    for (std::size_t e = 0, k = 1; e < events.size(); ++e) {
      while (k < chunk.size() && chunk[k] > event_time(events[e])) ++k;
      candidate_of[e] = static_cast<std::uint32_t>(k);
    }
    constexpr std::size_t kEventsAhead = 2048;
    std::size_t counted = 0;  // events whose counts are worked out
    std::size_t next_event = 0;
    for (std::size_t k = 1; k < chunk.size(); ++k) {
      const Time t = chunk[k];
      ++visit;
      touched.clear();
      for (; next_event < events.size() && event_time(events[next_event]) >= t; ++next_event) {
        if (next_event == counted) {
          const std::size_t until = std::min(events.size(), counted + kEventsAhead);
          tbb::parallel_for(tbb::blocked_range<std::size_t>(counted, until, 128),
                            [&](const tbb::blocked_range<std::size_t>& r) {
                              for (std::size_t e = r.begin(); e != r.end(); ++e) {
                                const std::uint32_t g = event_demand(events[e]);
                                event_fits[e] = candidate_of[e] < chunk.size()
                                                    ? count_of(g, ledger_.Used(demands[g].entry,
                                                                                chunk[candidate_of[e]], d))
                                                    : 0;
                              }
                            });
          counted = until;
        }
        const std::uint32_t g = event_demand(events[next_event]);
        if (demand_stamp[g] == visit) continue;
        demand_stamp[g] = visit;
        fits[g] = event_fits[next_event];
        const std::uint32_t h = demand_host[g];
        if (host_stamp[h] != visit) {
          host_stamp[h] = visit;
          touched.push_back(h);
        }
      }
      undo.clear();
      for (std::uint32_t h : touched) {
        const std::uint64_t value = availability(h);
        total = total - available[h] + value;
        roomy = roomy - (available[h] >= per_host) + (value >= per_host);
        undo.emplace_back(h, available[h]);
        available[h] = value;
      }
      if (!pe_and_global_allow(t, d) || !hosts_allow(total, roomy)) {
        // Back to the availabilities at the last feasible candidate, the start.
        for (const auto& [h, value] : undo) available[h] = value;
        available_at = chunk[k - 1];
        return k;
      }
    }
    return chunk.size();
  };
  // Below the monotone region, stretches of time [low, high), latest first: a
  // stretch whose lower bounds hold is feasible throughout and skipped without
  // listing its candidates; otherwise its halves are settled, the later first,
  // down to stretches short enough to list and sweep exactly. The stretch at
  // the previous walk's failure, a likely place for this one to fail, is
  // settled apart (in the same order, so the first failure found is the same).
  constexpr Duration kSweptExactly = 1024;  // seconds
  constexpr std::size_t kHalvingsBeforeEmptyCheck = 64;
  std::size_t halvings = 0;
  std::vector<std::pair<Time, Time>> skipped;  // skipped stretches since last_feasible, latest last
  // The last feasible candidate so far: the earliest one of the latest skipped
  // stretch that has any, else the one the sweep left.
  auto last_feasible_so_far = [&]() {
    for (auto it = skipped.rbegin(); it != skipped.rend(); ++it) {
      if (const std::optional<Time> t = earliest_candidate_in(it->first, it->second)) return std::optional<Time>(t);
    }
    return last_feasible;
  };
  struct Stretch {
    Time low, high;
    bool likely_failure = false;  // swept at once, without a lower-bound test
  };
  std::vector<Stretch> stretches = {{*first_time, rises}};
  if (walk_failure_hint_ && *walk_failure_hint_ >= *first_time && *walk_failure_hint_ < rises) {
    const Time at = *walk_failure_hint_;
    const Time low = std::max(*first_time, at + 1 - kSweptExactly);
    stretches = {{*first_time, low}, {low, at + 1, true}, {at + 1, rises}};
  }
  while (!stretches.empty()) {
    const auto [low, high, likely_failure] = stretches.back();
    stretches.pop_back();
    if (low >= high) continue;
    // A stretch without candidate times has nothing to walk. With the
    // breakpoint index that costs a look at its postings, and such stretches
    // are dropped before any lower-bound test.
    if (index != nullptr && !earliest_candidate_in(low, high)) continue;
    if (!likely_failure && feasible_throughout(low, high - 1)) {
      skipped.emplace_back(low, high);
      continue;
    }
    // Without the index: where the lower bounds fail everywhere (a window
    // reaching to the end of a far plan), halving would visit every empty
    // piece; past a budget of halvings (a usual walk needs a few dozen) empty
    // stretches are dropped, for the price of one look at every candidate
    // diagram each.
    if (index == nullptr && halvings > kHalvingsBeforeEmptyCheck && !earliest_candidate_in(low, high)) continue;
    if (high - low > kSweptExactly) {
      ++halvings;
      const Time mid = low + (high - low) / 2;
      stretches.push_back({low, mid});
      stretches.push_back({mid, high});
      continue;
    }
    const std::vector<Time> chunk = times_in(low, high);
    if (chunk.empty()) continue;
    const std::size_t failure = sweep(chunk);
    if (failure < chunk.size()) {
      walk_failure_hint_ = chunk[failure];
      return found(failure == 0 ? last_feasible_so_far() : std::optional<Time>(chunk[failure - 1]));
    }
    last_feasible = chunk.back();
    skipped.clear();
  }
  last_feasible = last_feasible_so_far();
  return found(last_feasible);
}

}  // namespace schedk::dispatch_detail
