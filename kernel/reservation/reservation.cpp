// The reservation step of the dispatch loop and its searches: sequential jobs
// take the earliest start over the queue instances in the queue list's order
// (Grid Engine's per-queue tail search), parallel jobs the queue-end-time
// walk's start on the PE that gives it earliest (queue_end_search.hpp).
#include "kernel/dispatch/interval.hpp"
#include "kernel/reservation/queue_end_search.hpp"
#include "kernel/tuning.hpp"

namespace schedk::dispatch_detail {

bool Interval::Reserve(const JobView& job, CategoryState& category, Decision& why, std::uint32_t& reservations) {
  const bool parallel = job.requests->has_pe;
  list_order_.Search(
      parallel, [] { return true; }, [this](std::uint32_t i) { return ListKey(i); });
  Decision decision = PendingDecision(job);
  Decision reserve_why = decision;
  PeId pe;
  std::vector<Grant> grants;
  Time start = 0;
  if (parallel) {
    if (auto fit = ReserveParallel(job, reserve_why)) {
      std::tie(pe, std::ignore, start) = *fit;
      grants = std::move(std::get<1>(*fit).grants);
      list_order_.Succeeded(HasSoftRequests(job));
    }
  } else if (auto found = ReserveSequential(job, reserve_why)) {
    grants = {{found->first, 1}};
    start = found->second;
  }
  if (grants.empty()) {  // no reservation possible either
    why.reason = PendingReason::kNever;
    if (why.never == NeverCause::kNone) {
      why.never = reserve_why.never != NeverCause::kNone ? reserve_why.never : NeverCause::kBookedOut;
      why.object = reserve_why.object;
    }
    category.rejected_reserve = true;
    return false;
  }
  list_order_.Split({});
  Book(job, pe, grants, start, job.duration, UsageState::kReserving);
  decision.kind = DecisionKind::kReserve;
  decision.at = start;
  decision.pe = pe;
  for (const Grant& g : grants) decision.slots += g.slots;
  NoteSoftRequests(job, decision, grants);
  Record(decision, grants);
  ++reservations;
  RejectForNow(category, why);
  return true;
}

std::optional<Time> Interval::EarliestFor(const std::vector<Demand>& demands, Duration d, Decision& why) {
  const Time now = cluster_.now;
  for (const Demand& demand : demands) {
    const ConsumableEntry& e = ledger_.entry(demand.entry);
    const double threshold = e.total - demand.amount;
    if (threshold < 0) {
      why.never = NeverCause::kExceedsCapacity;
      why.object = e.complex.value;
      return std::nullopt;
    }
    if (demand.amount > e.total - ledger_.diagram(demand.entry).QueueEnd()) {
      why.never = NeverCause::kBookedOut;
      why.object = e.complex.value;
      return std::nullopt;
    }
  }
  Time t = now;
  if (!config_.reserve_in_gaps) {
    for (const Demand& demand : demands) {
      const Time below = ledger_.diagram(demand.entry).Below(ledger_.entry(demand.entry).total - demand.amount);
      t = std::max(t, below == 0 ? now : below);
    }
    return t;
  }
  return CommonFitFrom(demands, t, d);
}

std::optional<Time> Interval::CommonFitFrom(const std::vector<Demand>& demands, Time t, Duration d) {
  for (bool moved = true; moved;) {
    moved = false;
    for (const Demand& demand : demands) {
      const double limit = ledger_.entry(demand.entry).total - demand.amount;
      const std::optional<Time> fit = ledger_.EarliestFit(demand.entry, t, d, limit);
      if (!fit) return std::nullopt;
      if (*fit > t) {
        t = *fit;
        moved = true;
      }
    }
  }
  return t;
}

std::optional<std::pair<std::uint32_t, Time>> Interval::ReserveSequential(const JobView& job, Decision& why) {
  std::uint64_t global_found = 0;
  std::vector<Demand> global_demands;
  const LevelFit global =
      Fit({ContainerLevel::kGlobal, 0}, job, cluster_.now, job.duration, global_found, &global_demands);
  if (global.static_mismatch || !GlobalStatic(job)) return std::nullopt;
  // The earliest start; among equal ones the first instance the search meets.
  // With soft requests, a later one with fewer violations takes the same start
  // only where the global host alone sets it: Grid Engine's search cuts an
  // instance whose host, queue or quota time is not before the best start
  // (is_not_better), so only the global host's can equal it.
  struct Best {
    std::uint32_t instance;
    Time start;
    std::uint32_t violations;
  };
  std::optional<Best> best;
  const bool soft = HasSoftRequests(job);
  VisitReservationOrder([&](std::uint32_t i, bool) {
    const HostId host = instances_.host[i];
    if (alarm_[i] || !QueueStatic(job, i, PeId::None()) || !HostStatic(job, host)) return;
    std::uint64_t found = global_found;
    std::vector<Demand> demands = global_demands;
    const LevelFit h = Fit({ContainerLevel::kHost, host.index()}, job, cluster_.now, job.duration, found, &demands);
    const LevelFit q = Fit({ContainerLevel::kQueue, i}, job, cluster_.now, job.duration, found, &demands);
    if (!AllFound(job, found) || h.static_mismatch || q.static_mismatch) return;
    Decision local;
    std::optional<Time> t = EarliestFor(demands, job.duration, local);
    if (t) t = ReservationStartUnderQuotas(job, i, demands, *t);
    if (!t) {
      if (why.never == NeverCause::kNone) {
        why.never = local.never;
        why.object = local.object;
      }
      return;
    }
    if (!best || *t < best->start) {
      best = Best{i, *t, soft ? SoftViolations(job, i) : 0};
      return;
    }
    if (!soft || *t != best->start) return;
    const std::uint32_t violations = SoftViolations(job, i);
    if (violations >= best->violations) return;
    const std::vector<Demand> own(demands.begin() + static_cast<std::ptrdiff_t>(global_demands.size()), demands.end());
    const std::optional<Time> own_start = EarliestFor(own, job.duration, local);
    const std::optional<Time> quota_start = ReservationStartUnderQuotas(job, i, {}, cluster_.now);
    if (own_start && *own_start < *t && quota_start && *quota_start < *t) best = Best{i, *t, violations};
  });
  if (!best) return std::nullopt;
  return std::make_pair(best->instance, best->start);
}

std::optional<std::tuple<PeId, ParallelFit, Time>> Interval::ReserveParallel(const JobView& job, Decision& why) {
  std::optional<std::tuple<PeId, ParallelFit, Time>> best;
  std::uint64_t best_violations = 0;
  for (PeId pe : job.requests->pe.matching) {
    const std::vector<std::uint32_t> candidates = SlotCandidates(job, pe);
    if (candidates.empty()) continue;
    const std::uint32_t least = candidates.front();
    std::optional<Time> walk_start;
    ParallelRoom room;
    std::optional<QueueEndSearch> search;
    if (config_.reserve_in_gaps) {
      walk_start = EarliestGapStart(*this, job, pe, least);
    } else if (twin_ == Twin::kReference || !job.requests->queue_master.empty()) {
      walk_start = PlainQueueEndWalk(*this, job, pe, least);
    } else {
      // Past a few walks, the breakpoint index pays for its building.
      if (ledger_.breakpoint_index() == nullptr && ++walks_without_index_ >= tuning::kWalksBeforeIndex) {
        walks_without_index_ = 0;
        ledger_.IndexBreakpoints();
      }
      walk_start = search.emplace(*this, job, pe, least, candidates.back()).Run(quota_.active() ? nullptr : &room);
    }
    // The room the slot count is weighed on. The search's has the list's
    // host order and each host's instances in queue order, or with
    // sorted-in full ones, in queue order where no host has two instances
    // whose keys tie; under the quotas it is weighed again at the start they
    // give, and cut.
    const bool own_room =
        !search || (!list_order_.sorted_in().empty() && seq_no_ties_on_a_host_) || HasSoftRequests(job);
    auto room_at = [&](Time start) {
      return own_room ? RoomAt(job, pe, start, twin_ == Twin::kOptimised ? candidates.back() : kUnlimited)
                      : search->RoomAt(start, true);
    };
    bool room_known = !own_room && !quota_.active();  // the search's Run
    if (walk_start && quota_.active()) {
      const Time unquoted = *walk_start;
      // QuotaStartFrom's first question, whether the least count fits at the
      // walk's start, is answered on that room where it is one of the plan:
      // the room it weighs is this one's first hosts (the same hosts in the
      // same order, cut alike, up to where they give the least count), or
      // all of this one's that could help (RoomBuilder::AnswerOnly). Without
      // a per-job amount the quotas weigh at the master, the placements of
      // either room are within the cut.
      if (search && unquoted >= cluster_.now && !quota_.AsksPerJob(*job.requests)) {
        room = room_at(unquoted);
        const ParallelFit least_fit = Distribute(room, pe, least, nullptr);
        room_known = least_fit.ok && !PlacementQuotaExcess(job, pe, least_fit.grants, unquoted);
      }
      if (!room_known) walk_start = QuotaStartFrom(*this, job, pe, least, unquoted, search ? &*search : nullptr);
      // The failure hint is a likely place for the next walk to fail because
      // the reservation is booked at this walk's start; the quotas book it
      // elsewhere, and a stale hint costs the next walk a sweep in vain.
      if (walk_start != unquoted) walk_failure_hint_.reset();
    }
    if (!walk_start) continue;
    const Time start = std::max(*walk_start, Time{0});
    // Maximise the slot count at that start, by binary search as for "now".
    if (!room_known) room = room_at(start);
    ParallelFit fit;
    std::size_t lo = 0, hi = candidates.size();
    while (lo < hi) {
      const std::size_t mid = lo + (hi - lo) / 2;
      ParallelFit f = Distribute(room, pe, candidates[mid], nullptr);
      f.ok = f.ok && !PlacementQuotaExcess(job, pe, f.grants, start);
      if (f.ok) {
        fit = std::move(f);
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    if (!fit.ok) continue;
    // A later PE replaces the best with an earlier start, or with fewer soft
    // violations at the same start (sge_select_parallel_environment).
    const std::uint64_t violations = PlacementSoftViolations(job, fit.grants);
    if (!best || start < std::get<2>(*best) || (start == std::get<2>(*best) && violations < best_violations)) {
      best = std::make_tuple(pe, std::move(fit), start);
      best_violations = violations;
    }
  }
  if (!best && why.never == NeverCause::kNone) why.never = NeverCause::kNoPe;
  return best;
}

}  // namespace schedk::dispatch_detail
