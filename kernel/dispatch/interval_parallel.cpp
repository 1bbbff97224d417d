#include "kernel/dispatch/interval.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>
#include <tbb/task_arena.h>

#include "kernel/radix_sort.hpp"

namespace schedk::dispatch_detail {

// --- parallel jobs -------------------------------------------------------------------------------

// add_pe_slots_to_category: the slot counts the job may get from `pe`, ascending.
std::vector<std::uint32_t> Interval::SlotCandidates(const JobView& job, PeId pe) const {
  const ParallelEnvironment& p = cluster_.pes[pe.index()];
  const PeRequest& request = job.requests->pe;
  std::vector<std::uint32_t> candidates;
  const std::uint32_t high = std::min(request.max, p.slots);
  for (std::uint32_t n = request.min; n <= high; ++n) {
    if (p.allocation_rule == AllocationRule::kFixed && n % p.slots_per_host != 0) continue;
    candidates.push_back(n);
    if (n == UINT32_MAX) break;
  }
  return candidates;
}

// parallel_assignment at one start time: the PE's slots, global resources for
// the whole job, then hosts in load order under the allocation rule, each host
// giving the minimum of its own resources and the sum of its queue instances'.
Interval::ParallelRoom Interval::RoomFor(const JobView& job, PeId pe, Time start, bool now,
                                         std::uint32_t enough) const {
  ParallelRoom room;
  const Duration d = job.duration;
  const ParallelEnvironment& p = cluster_.pes[pe.index()];
  if (!HasAccess(cluster_.entities, p.user_lists, p.xuser_lists, {}, {}, job.owner, job.group, job.project)) {
    return room;
  }
  if (const auto k = ledger_.Find({ContainerLevel::kPe, pe.index()}, complexes_.slots)) {
    const ConsumableEntry& e = ledger_.entry(*k);
    room.pe_left = e.total - (ignore_plan_ ? e.used_now : ledger_.Used(*k, start, d));
  }
  std::uint64_t global_found = 0;
  const LevelFit global = Fit({ContainerLevel::kGlobal, 0}, job, start, d, global_found, nullptr);
  if (global.static_mismatch || !GlobalStatic(job)) return room;
  room.usable = true;
  room.global_slots = global.slots;
  room.global_limiting = global.limiting;
  // One instance: its slots join its host's, or the first resource that kept
  // it out (first in queue order) is noted.
  std::optional<QueueKey> limiting_key;
  auto visit = [&](std::uint32_t i, HostSlots*& slots) {
    const HostId host = instances_.host[i];
    if (alarm_[i] || !QueueStatic(job, i, pe) || !HostStatic(job, host)) return;
    std::uint64_t found = global_found;
    const LevelFit q = Fit({ContainerLevel::kQueue, i}, job, start, d, found, nullptr);
    std::uint64_t host_found = found;
    const LevelFit h = Fit({ContainerLevel::kHost, host.index()}, job, start, d, host_found, nullptr);
    if (!AllFound(job, host_found) || q.static_mismatch || h.static_mismatch || q.slots == 0 || h.slots == 0) {
      if (!q.static_mismatch && !h.static_mismatch && AllFound(job, host_found) &&
          (!limiting_key || KeyOf(i) < *limiting_key)) {
        limiting_key = KeyOf(i);
        room.instance_limiting = q.slots == 0 ? q.limiting : h.limiting;
      }
      return;
    }
    if (slots == nullptr) {
      room.hosts.push_back({host, h.slots, {}});
      slots = &room.hosts.back();
    }
    slots->queues.emplace_back(i, q.slots);
  };
  auto close_host = [](HostSlots& h) {
    std::uint64_t sum = 0;
    for (const auto& [i, n] : h.queues) sum += n;
    h.available = static_cast<std::uint32_t>(std::min<std::uint64_t>(h.available, sum));
  };
  if (now) {
    // Hosts with a free instance, already in load order; stop once they can
    // give `enough` slots under the allocation rule.
    const std::uint32_t per_host = p.allocation_rule == AllocationRule::kFixed ? p.slots_per_host : 1;
    std::uint64_t sum = 0, roomy = 0;  // available slots; hosts with room for per_host
    auto suffices = [&](const HostSlots& last) {
      if (enough == kUnlimited) return false;
      switch (p.allocation_rule) {
        case AllocationRule::kFillUp:
          return sum >= enough;
        case AllocationRule::kRoundRobin:  // the first round gives one slot per host
          return room.hosts.size() >= enough;
        case AllocationRule::kPeSlots:
          return last.available >= enough;
        case AllocationRule::kFixed:
          return roomy * per_host >= enough;
      }
      return false;
    };
    for (const auto& [value, h] : free_hosts_) {
      HostSlots* slots = nullptr;
      for (std::uint32_t k = instances_.host_first[h]; k < instances_.host_first[h + 1]; ++k) {
        if (has_free_[host_queues_[k]]) visit(host_queues_[k], slots);
      }
      if (slots == nullptr) continue;
      close_host(*slots);
      sum += slots->available;
      roomy += slots->available >= per_host;
      if (suffices(*slots)) break;
    }
    return room;
  }
  std::vector<std::uint32_t> host_pos(cluster_.hosts.size(), UINT32_MAX);
  for (const QueueKey& key : queue_order_) {
    const std::uint32_t i = key.instance;
    const std::uint32_t h = instances_.host[i].index();
    HostSlots* slots = host_pos[h] == UINT32_MAX ? nullptr : &room.hosts[host_pos[h]];
    const std::size_t before = room.hosts.size();
    visit(i, slots);
    if (room.hosts.size() > before) host_pos[h] = static_cast<std::uint32_t>(before);
  }
  // Hosts in host (load) order, as Grid Engine walks them.
  std::stable_sort(room.hosts.begin(), room.hosts.end(), [&](const HostSlots& a, const HostSlots& b) {
    return std::make_pair(host_value_[a.host.index()], a.host) < std::make_pair(host_value_[b.host.index()], b.host);
  });
  for (HostSlots& h : room.hosts) close_host(h);
  return room;
}

ParallelFit Interval::Distribute(const ParallelRoom& room, PeId pe, std::uint32_t total, Decision* why) const {
  ParallelFit result;
  if (!room.usable) return result;
  const ParallelEnvironment& p = cluster_.pes[pe.index()];
  if (room.pe_left < total) {
    if (why != nullptr && why->reason == PendingReason::kNone) {
      why->reason = PendingReason::kPe;
      why->object = pe.value;
    }
    return result;
  }
  if (room.global_slots < total) {
    if (why != nullptr && why->reason == PendingReason::kNone) {
      why->reason = PendingReason::kResource;
      why->object = room.global_limiting.value;
    }
    return result;
  }
  if (why != nullptr && why->reason == PendingReason::kNone && room.instance_limiting.valid()) {
    why->reason = PendingReason::kResource;
    why->object = room.instance_limiting.value;
  }
  std::vector<std::uint32_t> take(room.hosts.size(), 0);
  std::uint32_t remaining = total;
  switch (p.allocation_rule) {
    case AllocationRule::kPeSlots:
      for (std::size_t k = 0; k < room.hosts.size(); ++k) {
        if (room.hosts[k].available >= total) {
          take[k] = total;
          remaining = 0;
          break;
        }
      }
      break;
    case AllocationRule::kFillUp:
      for (std::size_t k = 0; k < room.hosts.size() && remaining > 0; ++k) {
        take[k] = std::min(remaining, room.hosts[k].available);
        remaining -= take[k];
      }
      break;
    case AllocationRule::kRoundRobin:
      for (bool added = true; remaining > 0 && added;) {
        added = false;
        for (std::size_t k = 0; k < room.hosts.size() && remaining > 0; ++k) {
          if (take[k] < room.hosts[k].available) {
            ++take[k];
            --remaining;
            added = true;
          }
        }
      }
      break;
    case AllocationRule::kFixed:
      for (std::size_t k = 0; k < room.hosts.size() && remaining > 0; ++k) {
        if (room.hosts[k].available >= p.slots_per_host) {
          take[k] = p.slots_per_host;
          remaining -= std::min(remaining, p.slots_per_host);
        }
      }
      break;
  }
  if (remaining > 0) {  // the hosts together cannot give the slots under the allocation rule
    if (why != nullptr && why->reason == PendingReason::kNone) {
      why->reason = PendingReason::kResource;
      why->object = complexes_.slots.value;
    }
    return result;
  }
  for (std::size_t k = 0; k < room.hosts.size(); ++k) {
    std::uint32_t left = take[k];
    for (const auto& [i, n] : room.hosts[k].queues) {
      if (left == 0) break;
      const std::uint32_t here = std::min(left, n);
      result.grants.push_back({i, here});
      left -= here;
    }
  }
  result.ok = true;
  return result;
}

std::optional<std::pair<PeId, ParallelFit>> Interval::StartParallel(const JobView& job, Decision& why) {
  std::optional<std::pair<PeId, ParallelFit>> best;
  std::uint32_t best_slots = 0;
  bool any_candidates = false;
  for (PeId pe : job.requests->pe.matching) {
    const std::vector<std::uint32_t> candidates = SlotCandidates(job, pe);
    if (candidates.empty()) continue;
    any_candidates = true;
    // Bounds from the free slots now: in all queue instances together, and on
    // the host with the most. A count above them cannot be assigned, so the
    // walk over hosts may stop once they can give the largest count below them.
    const ParallelEnvironment& p = cluster_.pes[pe.index()];
    const double most_on_a_host = host_free_values_.empty() ? 0 : *host_free_values_.rbegin();
    const double bound = p.allocation_rule == AllocationRule::kPeSlots ? most_on_a_host : free_slots_;
    const double per_host_least = p.allocation_rule == AllocationRule::kFixed ? p.slots_per_host : 1;
    if (candidates.front() > bound || per_host_least > most_on_a_host) {
      if (why.reason == PendingReason::kNone) {
        why.reason = PendingReason::kResource;
        why.object = complexes_.slots.value;
      }
      continue;
    }
    const auto enough = static_cast<std::uint32_t>(std::min<double>(candidates.back(), std::floor(bound)));
    // The largest feasible count, by binary search over the candidates.
    const ParallelRoom room = RoomFor(job, pe, cluster_.now, true, enough);
    std::size_t lo = 0, hi = candidates.size();  // feasible: [0, lo); unknown: [lo, hi)
    ParallelFit fit;
    while (lo < hi) {
      const std::size_t mid = lo + (hi - lo) / 2;
      ParallelFit f = Distribute(room, pe, candidates[mid], lo == 0 ? &why : nullptr);
      if (f.ok) {
        fit = std::move(f);
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    if (lo == 0) continue;
    const std::uint32_t slots = candidates[lo - 1];
    if (!best || slots > best_slots) {  // a later PE replaces the best only with more slots
      best = std::make_pair(pe, std::move(fit));
      best_slots = slots;
    }
  }
  if (!any_candidates) {  // no PE matches, or none can give a count in the range
    why.reason = PendingReason::kNever;
    why.never = NeverCause::kNoPe;
  }
  return best;
}

// The diagrams whose breakpoints are the queue-end-time iterator's candidate
// start times for one PE: the PE's and the global host's, and those of every
// statically eligible queue instance and its host, for the consumables the
// job requests (slots always).
std::vector<std::uint32_t> Interval::TimeEntries(const JobView& job, PeId pe) const {
  std::vector<std::uint32_t> entries;
  auto requested = [&](ComplexId c) { return c == complexes_.slots || FindValue(job.requests->hard, c) != nullptr; };
  auto collect_container = [&](ContainerRef c) {
    for (std::uint32_t k = ledger_.Begin(c); k < ledger_.End(c); ++k) {
      if (requested(ledger_.entry(k).complex)) entries.push_back(k);
    }
  };
  collect_container({ContainerLevel::kPe, pe.index()});
  collect_container({ContainerLevel::kGlobal, 0});
  std::vector<std::uint8_t> host_seen(cluster_.hosts.size(), 0);
  for (std::uint32_t i = 0; i < instances_.size(); ++i) {
    const HostId host = instances_.host[i];
    if (!QueueStatic(job, i, pe) || !HostStatic(job, host)) continue;
    collect_container({ContainerLevel::kQueue, i});
    if (!host_seen[host.index()]) {
      host_seen[host.index()] = 1;
      collect_container({ContainerLevel::kHost, host.index()});
    }
  }
  return entries;
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

// The queue-end-time walk as a sweep, without listing every candidate time.
// Above the last time any diagram the job draws on rises, every window's peak
// is the amount at its start, which only falls: feasibility is monotone there,
// and a binary search over those candidates finds the first failure. Below,
// candidates are taken in chunks of time, latest first, each swept downwards
// from a full evaluation at its first time: a host's slot availability over
// [t, t + d) can only change where one of its breakpoints b stops being in
// effect (t < b) or leaves the window (t <= b - d), so only hosts with such an
// event since the previous candidate are re-evaluated, and feasibility is read
// off aggregates per allocation rule (the sum of available slots for $fill_up
// and $round_robin, the hosts with room for the whole job for $pe_slots, the
// hosts with room for n slots for a fixed n), which is exactly when
// AssignParallel succeeds. Chunks double in length, so a walk that fails soon
// (the usual case on a full cluster) looks at few breakpoints.
std::optional<Time> Interval::QueueEndStart(const JobView& job, PeId pe, std::uint32_t least) const {
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
  // Eligible hosts with their eligible instances.
  std::vector<HostId> hosts;
  std::vector<std::vector<std::uint32_t>> host_instances;
  std::vector<std::uint32_t> host_index(cluster_.hosts.size(), UINT32_MAX);
  for (std::uint32_t i = 0; i < instances_.size(); ++i) {
    const HostId host = instances_.host[i];
    if (alarm_[i] || !QueueStatic(job, i, pe) || !HostStatic(job, host)) continue;
    if (host_index[host.index()] == UINT32_MAX) {
      host_index[host.index()] = static_cast<std::uint32_t>(hosts.size());
      hosts.push_back(host);
      host_instances.emplace_back();
    }
    host_instances[host_index[host.index()]].push_back(i);
  }
  const std::optional<std::uint32_t> pe_entry = ledger_.Find({ContainerLevel::kPe, pe.index()}, complexes_.slots);
  const AllocationRule rule = p.allocation_rule;
  const std::uint32_t per_host = rule == AllocationRule::kPeSlots ? least
                                 : rule == AllocationRule::kFixed ? p.slots_per_host
                                                                  : 1;
  // The static part of every host's and instance's match, worked out once:
  // what is left are the demands on their ledger entries.
  struct InstancePlan {
    std::vector<Demand> demands;
  };
  struct HostPlan {
    bool usable = false;
    std::vector<Demand> demands;
    std::vector<InstancePlan> instances;
  };
  std::vector<HostPlan> plans(hosts.size());
  for (std::uint32_t h = 0; h < hosts.size(); ++h) {
    HostPlan& plan = plans[h];
    std::uint64_t found_host = 0;
    const LevelFit hf = Fit({ContainerLevel::kHost, hosts[h].index()}, job, cluster_.now, d, found_host, &plan.demands);
    if (hf.static_mismatch) continue;
    plan.usable = true;
    for (std::uint32_t i : host_instances[h]) {
      std::uint64_t found = global_found | found_host;
      InstancePlan instance;
      const LevelFit q = Fit({ContainerLevel::kQueue, i}, job, cluster_.now, d, found, &instance.demands);
      if (!AllFound(job, found) || q.static_mismatch) continue;
      plan.instances.push_back(std::move(instance));
    }
  }
  auto slots_from = [&](const std::vector<Demand>& demands, Time t) -> std::uint64_t {
    std::uint64_t n = kUnlimited;
    for (const Demand& demand : demands) {
      const double left = ledger_.entry(demand.entry).total - ledger_.Used(demand.entry, t, d);
      if (demand.kind != DemandKind::kPerSlot) {
        if (demand.amount > left) return 0;
      } else {
        const double fits = std::floor(left / demand.amount);
        if (fits <= 0) return 0;
        n = std::min<std::uint64_t>(n, fits >= kUnlimited ? kUnlimited - 1 : static_cast<std::uint64_t>(fits));
      }
    }
    return n;
  };
  // AssignParallel's per-host availability at t: the host's own slots, at most
  // the sum of its instances'.
  auto availability = [&](std::uint32_t h, Time t) -> std::uint64_t {
    const HostPlan& plan = plans[h];
    if (!plan.usable) return 0;
    const std::uint64_t host_slots = slots_from(plan.demands, t);
    if (host_slots == 0) return 0;
    std::uint64_t sum = 0;
    for (const InstancePlan& instance : plan.instances) sum += slots_from(instance.demands, t);
    return std::min(host_slots, sum);
  };
  // What the PE and the global host allow at t, and the rule's verdict on the
  // hosts' aggregates.
  auto pe_and_global_allow = [&](Time t) {
    if (pe_entry && ledger_.entry(*pe_entry).total - ledger_.Used(*pe_entry, t, d) < least) return false;
    std::uint64_t unused = 0;
    return Fit({ContainerLevel::kGlobal, 0}, job, t, d, unused, nullptr).slots >= least;
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
  // Sum of availability and hosts with room for per_host slots, over every host at t.
  auto evaluate_hosts = [&](Time t) {
    return tbb::parallel_reduce(
        tbb::blocked_range<std::uint32_t>(0, static_cast<std::uint32_t>(hosts.size()), 64),
        std::pair<std::uint64_t, std::uint64_t>{0, 0},
        [&](const tbb::blocked_range<std::uint32_t>& r, std::pair<std::uint64_t, std::uint64_t> acc) {
          for (std::uint32_t h = r.begin(); h != r.end(); ++h) {
            const std::uint64_t a = availability(h, t);
            acc.first += a;
            acc.second += a >= per_host;
          }
          return acc;
        },
        [](auto a, auto b) { return std::make_pair(a.first + b.first, a.second + b.second); });
  };
  auto feasible_at = [&](Time t) {
    if (!pe_and_global_allow(t)) return false;
    const auto [total, roomy] = evaluate_hosts(t);
    return hosts_allow(total, roomy);
  };
  const std::vector<std::uint32_t> time_entries = TimeEntries(job, pe);
  std::optional<Time> first_time;
  for (std::uint32_t k : time_entries) {
    if (const std::optional<Time> t = ledger_.diagram(k).FirstBreakpoint()) {
      first_time = first_time ? std::min(*first_time, *t) : *t;
    }
  }
  if (!first_time) {  // no breakpoint at all: the walk's only candidate is now
    return feasible_at(cluster_.now) ? std::optional<Time>(cluster_.now) : std::nullopt;
  }
  // The monotone region above the last rise.
  Time rises = std::numeric_limits<Time>::min();
  auto note_rises = [&](std::uint32_t k) {
    if (const std::optional<Time> t = LastIncreaseOf(k)) rises = std::max(rises, *t);
  };
  if (pe_entry) note_rises(*pe_entry);
  ForEachDemand({ContainerLevel::kGlobal, 0}, job, [&](const Demand& demand) { note_rises(demand.entry); });
  for (std::uint32_t h = 0; h < hosts.size(); ++h) {
    ForEachDemand({ContainerLevel::kHost, hosts[h].index()}, job,
                  [&](const Demand& demand) { note_rises(demand.entry); });
    for (std::uint32_t i : host_instances[h]) {
      ForEachDemand({ContainerLevel::kQueue, i}, job, [&](const Demand& demand) { note_rises(demand.entry); });
    }
  }
  const std::vector<Time> upper = TimesIn(ledger_, time_entries, rises, kDiagramForever + 1);
  std::size_t lo = 0, hi = upper.size();
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (feasible_at(upper[mid])) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  std::optional<Time> last_feasible = lo == 0 ? std::nullopt : std::optional<Time>(upper[lo - 1]);
  if (lo < upper.size() || rises <= *first_time) return last_feasible;
  // Events where a host's availability may change, packed as (time, host) in
  // one integer: times lie in [-2^33, 2^33), hosts below 2^24.
  constexpr std::uint64_t kTimeBias = std::uint64_t{1} << 33;
  constexpr int kHostBits = 24;
  auto event_time = [&](std::uint64_t e) { return static_cast<Time>(e >> kHostBits) - static_cast<Time>(kTimeBias); };
  auto event_host = [&](std::uint64_t e) { return static_cast<std::uint32_t>(e & ((1u << kHostBits) - 1)); };
  // The events in [chunk.back(), chunk.front()), latest first.
  auto events_of = [&](const std::vector<Time>& chunk) {
    const Time low = chunk.back(), high = chunk.front();
    std::vector<std::vector<std::uint64_t>> parts((hosts.size() + 63) / 64);
    tbb::parallel_for(std::size_t{0}, parts.size(), [&](std::size_t part) {
      std::vector<Time> times;
      const auto end = static_cast<std::uint32_t>(std::min(hosts.size(), (part + 1) * 64));
      for (auto h = static_cast<std::uint32_t>(part * 64); h < end; ++h) {
        auto add = [&](const Demand& demand) {
          const UtilizationDiagram& diagram = ledger_.diagram(demand.entry);
          times.clear();
          diagram.AppendTimesIn(low + 1, high + 1, times);  // below b, the entry before b is in effect
          for (Time b : times) {
            parts[part].push_back((static_cast<std::uint64_t>(b - 1 + static_cast<Time>(kTimeBias)) << kHostBits) | h);
          }
          if (d >= kInfiniteDuration) return;
          times.clear();
          diagram.AppendTimesIn(low + d, high + d, times);  // from b - d down, b is past the window
          for (Time b : times) {
            parts[part].push_back((static_cast<std::uint64_t>(b - d + static_cast<Time>(kTimeBias)) << kHostBits) | h);
          }
        };
        ForEachDemand({ContainerLevel::kHost, hosts[h].index()}, job, add);
        for (std::uint32_t i : host_instances[h]) ForEachDemand({ContainerLevel::kQueue, i}, job, add);
      }
    });
    std::vector<std::uint64_t> events;
    for (const auto& part : parts) events.insert(events.end(), part.begin(), part.end());
    RadixSort64(events);
    std::reverse(events.begin(), events.end());
    return events;
  };
  // Sweeps one chunk (latest first); returns the index of its first failure, or its size.
  std::vector<std::uint64_t> available(hosts.size(), 0);
  std::vector<std::size_t> stamp(hosts.size(), SIZE_MAX);
  auto sweep = [&](const std::vector<Time>& chunk) -> std::size_t {
    const std::vector<std::uint64_t> events = events_of(chunk);
    std::uint64_t total = 0, roomy = 0;
    auto set = [&](std::uint32_t h, std::uint64_t value) {
      total = total - available[h] + value;
      roomy = roomy - (available[h] >= per_host) + (value >= per_host);
      available[h] = value;
    };
    tbb::parallel_for(std::size_t{0}, hosts.size(), [&](std::size_t h) {
      available[h] = availability(static_cast<std::uint32_t>(h), chunk.front());
      stamp[h] = SIZE_MAX;
    });
    for (std::uint64_t a : available) {
      total += a;
      roomy += a >= per_host;
    }
    std::size_t next_event = 0;
    for (std::size_t k = 0; k < chunk.size(); ++k) {
      const Time t = chunk[k];
      for (; k > 0 && next_event < events.size() && event_time(events[next_event]) >= t; ++next_event) {
        const std::uint32_t h = event_host(events[next_event]);
        if (stamp[h] == k) continue;
        stamp[h] = k;
        set(h, availability(h, t));
      }
      if (!pe_and_global_allow(t) || !hosts_allow(total, roomy)) return k;
    }
    return chunk.size();
  };
  Time below = rises;  // the candidates still to look at lie before this time
  Time width = std::max<Time>(1, (rises - *first_time) / 64);
  while (below > *first_time) {
    const Time from = std::max(below - width, *first_time);
    const std::vector<Time> chunk = TimesIn(ledger_, time_entries, from, below);
    below = from;
    width *= 2;
    if (chunk.empty()) continue;
    const std::size_t failure = sweep(chunk);
    if (failure < chunk.size()) return failure == 0 ? last_feasible : std::optional<Time>(chunk[failure - 1]);
    last_feasible = chunk.back();
  }
  return last_feasible;
}

std::optional<std::tuple<PeId, ParallelFit, Time>> Interval::ReserveParallel(const JobView& job, Decision& why) {
  std::optional<std::tuple<PeId, ParallelFit, Time>> best;
  for (PeId pe : job.requests->pe.matching) {
    const std::vector<std::uint32_t> candidates = SlotCandidates(job, pe);
    if (candidates.empty()) continue;
    const std::uint32_t least = candidates.front();
    std::optional<Time> walk_start;
    if (config_.reserve_in_gaps) {
      // schedk extension: the earliest feasible breakpoint (or now), gaps included.
      std::vector<Time> ascending = QueueEndTimes(job, pe);
      std::reverse(ascending.begin(), ascending.end());
      ascending.insert(ascending.begin(), cluster_.now);
      for (Time t : ascending) {
        if (t >= cluster_.now && AssignParallel(job, pe, least, t, nullptr).ok) {
          walk_start = t;
          break;
        }
      }
    } else if (mode_ == ExecutionMode::kSerial) {
      // The earliest breakpoint from which every later one is feasible: walk down
      // from the latest and stop at the first failure.
      std::vector<Time> times = QueueEndTimes(job, pe);
      if (times.empty()) times.push_back(cluster_.now);
      for (Time t : times) {
        if (!AssignParallel(job, pe, least, t, nullptr).ok) break;
        walk_start = t;
      }
    } else {
      walk_start = QueueEndStart(job, pe, least);
    }
    if (!walk_start) continue;
    const Time start = std::max(*walk_start, Time{0});
    // Maximise the slot count at that start (§4.7), by binary search as for "now".
    const ParallelRoom room = RoomFor(job, pe, start, false);
    ParallelFit fit;
    std::size_t lo = 0, hi = candidates.size();
    while (lo < hi) {
      const std::size_t mid = lo + (hi - lo) / 2;
      ParallelFit f = Distribute(room, pe, candidates[mid], nullptr);
      if (f.ok) {
        fit = std::move(f);
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    if (!fit.ok) continue;
    if (!best || start < std::get<2>(*best)) best = std::make_tuple(pe, std::move(fit), start);
  }
  if (!best && why.never == NeverCause::kNone) why.never = NeverCause::kNoPe;
  return best;
}

bool Interval::FitsIgnoringPlan(const JobView& job) {
  ignore_plan_ = true;
  Decision scratch;
  const bool fits = job.requests->has_pe ? StartParallel(job, scratch).has_value()
                                         : StartSequential(job, scratch).has_value();
  ignore_plan_ = false;
  return fits;
}

}  // namespace schedk::dispatch_detail
