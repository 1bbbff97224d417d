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

// The queue-end-time iterator's candidate start times for one PE: every
// breakpoint of the diagrams the job draws on, latest first.
std::vector<Time> Interval::QueueEndTimes(const JobView& job, PeId pe) const {
  std::vector<Time> times;
  auto collect = [&](std::uint32_t k) {
    for (const Breakpoint& b : ledger_.diagram(k).Breakpoints()) times.push_back(b.time);
  };
  auto requested = [&](ComplexId c) { return c == complexes_.slots || FindValue(job.requests->hard, c) != nullptr; };
  auto collect_container = [&](ContainerRef c) {
    for (std::uint32_t k = ledger_.Begin(c); k < ledger_.End(c); ++k) {
      if (requested(ledger_.entry(k).complex)) collect(k);
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
  // Breakpoint times are never negative: sort them as unsigned integers, latest first.
  std::vector<std::uint64_t> keys(times.begin(), times.end());
  RadixSort64(keys);
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  times.assign(keys.rbegin(), keys.rend());
  return times;
}

// The queue-end-time walk as a sweep. A host's slot availability over
// [t, t + d) can only change where one of its breakpoints b stops being in
// effect (t < b) or leaves the window (t <= b - d); walking the times downwards,
// only hosts with such an event since the previous candidate are re-evaluated,
// and feasibility is read off aggregates per allocation rule (the sum of
// available slots for $fill_up and $round_robin, the hosts with room for the
// whole job for $pe_slots, the hosts with room for n slots for a fixed n),
// which is exactly when AssignParallel succeeds. Blocks of candidate times are
// swept in parallel, each from a full evaluation at its first time; the result
// is the first failure, so it does not depend on the blocking.
std::size_t Interval::FeasiblePrefix(const JobView& job, PeId pe, std::uint32_t least,
                                     const std::vector<Time>& times) const {
  const Duration d = job.duration;
  const ParallelEnvironment& p = cluster_.pes[pe.index()];
  if (!HasAccess(cluster_.entities, p.user_lists, p.xuser_lists, {}, {}, job.owner, job.group, job.project) ||
      !GlobalStatic(job)) {
    return 0;
  }
  std::uint64_t global_found = 0;
  if (Fit({ContainerLevel::kGlobal, 0}, job, cluster_.now, d, global_found, nullptr).static_mismatch) return 0;
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
  // Above the last time any diagram the job draws on rises, every window's
  // peak is the amount at its start, which only falls: feasibility is monotone
  // there, and a binary search finds its first failure.
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
  auto feasible_at = [&](Time t) {
    if (pe_entry && ledger_.entry(*pe_entry).total - ledger_.Used(*pe_entry, t, d) < least) return false;
    std::uint64_t unused = 0;
    if (Fit({ContainerLevel::kGlobal, 0}, job, t, d, unused, nullptr).slots < least) return false;
    const std::pair<std::uint64_t, std::uint64_t> sums = tbb::parallel_reduce(
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
    switch (rule) {
      case AllocationRule::kFillUp:
      case AllocationRule::kRoundRobin:
        return sums.first >= least;
      case AllocationRule::kPeSlots:
        return sums.second >= 1;
      case AllocationRule::kFixed:
        return sums.second * per_host >= least;
    }
    return false;
  };
  const std::size_t monotone = static_cast<std::size_t>(
      std::partition_point(times.begin(), times.end(), [&](Time t) { return t >= rises; }) - times.begin());
  std::size_t lo = 0, hi = monotone;
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (feasible_at(times[mid])) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  if (lo < monotone || monotone == times.size()) return lo;
  const std::size_t from = monotone;
  // Events where a host's availability may change, packed as (time, host) in
  // one integer: times lie in [-2^33, 2^33), hosts below 2^24.
  constexpr std::uint64_t kTimeBias = std::uint64_t{1} << 33;
  constexpr int kHostBits = 24;
  std::vector<std::uint64_t> events;
  auto event = [&](Time t, std::uint32_t h) {
    events.push_back((static_cast<std::uint64_t>(t + static_cast<Time>(kTimeBias)) << kHostBits) | h);
  };
  auto add_events = [&](ContainerRef c, std::uint32_t h) {
    ForEachDemand(c, job, [&](const Demand& demand) {
      for (const Breakpoint& b : ledger_.diagram(demand.entry).Breakpoints()) {
        event(b.time - 1, h);  // below b, the entry before b is in effect and b is in the window
        if (d < kInfiniteDuration) event(b.time - d, h);  // from b - d down, b is past the window
      }
    });
  };
  for (std::uint32_t h = 0; h < hosts.size(); ++h) {
    add_events({ContainerLevel::kHost, hosts[h].index()}, h);
    for (std::uint32_t i : host_instances[h]) add_events({ContainerLevel::kQueue, i}, h);
  }
  RadixSort64(events);  // ascending; walked from the back
  std::reverse(events.begin(), events.end());
  auto event_time = [&](std::size_t e) {
    return static_cast<Time>(events[e] >> kHostBits) - static_cast<Time>(kTimeBias);
  };
  auto event_host = [&](std::size_t e) { return static_cast<std::uint32_t>(events[e] & ((1u << kHostBits) - 1)); };
  // Sweeps times[begin, end); returns the index of the first failure, or end.
  auto sweep = [&](std::size_t begin, std::size_t end) -> std::size_t {
    std::vector<std::uint64_t> available(hosts.size(), 0);
    std::vector<std::size_t> stamp(hosts.size(), SIZE_MAX);
    std::uint64_t total = 0, roomy = 0;  // sum of availability; hosts with room for per_host slots
    auto set = [&](std::uint32_t h, std::uint64_t value) {
      total = total - available[h] + value;
      roomy = roomy - (available[h] >= per_host) + (value >= per_host);
      available[h] = value;
    };
    std::size_t next_event = 0;
    for (std::size_t k = begin; k < end; ++k) {
      const Time t = times[k];
      if (k == begin) {
        for (std::uint32_t h = 0; h < hosts.size(); ++h) set(h, availability(h, t));
        while (next_event < events.size() && event_time(next_event) >= t) ++next_event;
      } else {
        for (; next_event < events.size() && event_time(next_event) >= t; ++next_event) {
          const std::uint32_t h = event_host(next_event);
          if (stamp[h] == k) continue;
          stamp[h] = k;
          set(h, availability(h, t));
        }
      }
      bool ok = true;
      if (pe_entry) ok = ledger_.entry(*pe_entry).total - ledger_.Used(*pe_entry, t, d) >= least;
      if (ok) {
        std::uint64_t unused = 0;
        ok = Fit({ContainerLevel::kGlobal, 0}, job, t, d, unused, nullptr).slots >= least;
      }
      if (ok) {
        switch (rule) {
          case AllocationRule::kFillUp:
          case AllocationRule::kRoundRobin:
            ok = total >= least;
            break;
          case AllocationRule::kPeSlots:
            ok = roomy >= 1;
            break;
          case AllocationRule::kFixed:
            ok = roomy * per_host >= least;
            break;
        }
      }
      if (!ok) return k;
    }
    return end;
  };
  const std::size_t block = std::max<std::size_t>(256, (times.size() - from) / 16);
  const std::size_t wave = std::max<std::size_t>(1, static_cast<std::size_t>(tbb::this_task_arena::max_concurrency()));
  for (std::size_t begin = from; begin < times.size(); begin += block * wave) {
    const std::size_t blocks = std::min(wave, (times.size() - begin + block - 1) / block);
    std::vector<std::size_t> failure(blocks);
    tbb::parallel_for(std::size_t{0}, blocks, [&](std::size_t b) {
      const std::size_t first = begin + b * block;
      failure[b] = sweep(first, std::min(times.size(), first + block));
    });
    for (std::size_t b = 0; b < blocks; ++b) {
      const std::size_t end = std::min(times.size(), begin + (b + 1) * block);
      if (failure[b] < end) return failure[b];
    }
  }
  return times.size();
}

std::optional<std::tuple<PeId, ParallelFit, Time>> Interval::ReserveParallel(const JobView& job, Decision& why) {
  std::optional<std::tuple<PeId, ParallelFit, Time>> best;
  for (PeId pe : job.requests->pe.matching) {
    const std::vector<std::uint32_t> candidates = SlotCandidates(job, pe);
    if (candidates.empty()) continue;
    const std::uint32_t least = candidates.front();
    std::vector<Time> times = QueueEndTimes(job, pe);
    if (times.empty()) times.push_back(cluster_.now);
    // The earliest breakpoint from which every later one is feasible: walk down
    // from the latest and stop at the first failure.
    std::size_t feasible = 0;  // times[0, feasible) are feasible
    if (config_.reserve_in_gaps) {
      // schedk extension: the earliest feasible breakpoint (or now), gaps included.
      std::vector<Time> ascending(times.rbegin(), times.rend());
      ascending.insert(ascending.begin(), cluster_.now);
      std::optional<Time> found;
      for (Time t : ascending) {
        if (t >= cluster_.now && AssignParallel(job, pe, least, t, nullptr).ok) {
          found = t;
          break;
        }
      }
      if (!found) continue;
      times.assign(1, *found);
      feasible = 1;
    } else if (mode_ == ExecutionMode::kSerial) {
      while (feasible < times.size() && AssignParallel(job, pe, least, times[feasible], nullptr).ok) ++feasible;
    } else {
      feasible = FeasiblePrefix(job, pe, least, times);
    }
    if (feasible == 0) continue;
    const Time start = std::max(times[feasible - 1], Time{0});
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
