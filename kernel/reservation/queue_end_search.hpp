// queue_end_search.hpp
// The queue-end-time iteration for a parallel job's reservation: the
// candidate start times are the breakpoints of the diagrams the job draws on
// (its PE's, the global host's, those of every statically eligible queue
// instance and its host), and Grid Engine walks them from the latest down,
// stopping at the first where the job does not fit: the reservation starts at
// the last candidate that fitted. Three forms, one header:
// - PlainQueueEndWalk: that walk as Grid Engine does it, a full parallel
//   assignment at every candidate. The reference twin, and the walk for
//   -masterq jobs (whose master queue the search does not look for).
// - QueueEndSearch: the same answer without weighing every candidate (how, in
//   its class comment), and with the room at the start found.
// - EarliestGapStart: RESERVE_IN_GAPS (a schedk option): the earliest
//   candidate, or now, at which the job fits, gaps in the plan included.
// - QuotaStartFrom: resource quotas checked from a walk's start on.
// Invariants: QueueEndSearch::Run and PlainQueueEndWalk give the same start
// for every job and plan; none changes the ledger.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "kernel/dispatch/interval.hpp"
#include "kernel/reservation/host_coverage.hpp"

namespace schedk::dispatch_detail {

// Grid Engine's descending walk: the earliest candidate from which every later
// one fits `least` slots (now where there is no candidate).
std::optional<Time> PlainQueueEndWalk(const Interval& interval, const JobView& job, PeId pe, std::uint32_t least);

// The earliest candidate at or after now, or now, at which `least` slots fit.
std::optional<Time> EarliestGapStart(const Interval& interval, const JobView& job, PeId pe, std::uint32_t least);

// Resource quotas on a walk's start `from` (found without them): `from`, or
// the earliest later candidate from which `least` slots fit under the
// quotas too, found by bisection over time (exact where the fit, once there,
// stays): each step tries the earliest candidate in the later half of the
// stretch of time left, so both twins try the same candidates. A start
// before now splits the walk at now: the plan's stretch is settled first,
// then the past's, where a fit goes rather than comes as time goes on.
// The time a quota frees up is not a candidate by itself. `search`: the
// queue-end search that found `from`, whose hosts' verdicts answer the fits
// of a $pe_slots job where it reads them off its coverage (null: none).
class QueueEndSearch;
std::optional<Time> QuotaStartFrom(const Interval& interval, const JobView& job, PeId pe, std::uint32_t least,
                                   Time from, const QueueEndSearch* search = nullptr);

// The walk without listing every candidate time. Above the last time any
// diagram the job draws on rises, every window's peak is the amount at its
// start, which only falls: feasibility is monotone there, and a binary search
// over those candidates finds the first failure. Below, stretches of time are
// settled latest first: one whose lower bounds hold is feasible throughout;
// the others are halved down to short stretches, whose candidates are listed
// and swept downwards from a full evaluation at the first. A host's slot
// availability over [t, t + d) can only change where one of its breakpoints b
// stops being in effect (t < b) or leaves the window (t <= b - d), so only
// demands with such an event since the previous candidate are re-counted, and
// feasibility is read off aggregates per allocation rule (RuleVerdict), which
// is exactly when the parallel assignment succeeds.
// One search per walk: construct, Run once.
class QueueEndSearch {
 public:
  QueueEndSearch(const Interval& interval, const JobView& job, PeId pe, std::uint32_t least, std::uint32_t most);

  // The walk's start (nullopt: not even the latest candidate fits). With a
  // start and `room_at_start`, that is the room there (RoomAt, not before 0,
  // without the quotas).
  std::optional<Time> Run(Interval::ParallelRoom* room_at_start);

  // After Run, the room at `start`: hosts in the order parallel jobs take
  // them (load, then host; where the queue list is not sorted, its order),
  // weighed in growing batches of that order and joined one by one until
  // they can give `most` slots (Interval::RoomFromHosts); with `quotas`,
  // each host cut by them as it comes. Interval::RoomAt's room.
  Interval::ParallelRoom RoomAt(Time start, bool quotas);

  // After Run, where the hosts' verdicts are read off the coverage (each plan
  // host has one queue instance): whether some plan host gives the least
  // count at t, with the PE and the global host, in an instance that
  // `admits` (the quotas' say); nullopt where there is no coverage.
  template <class Admits>
  std::optional<bool> AnyHostAt(Time t, const Admits& admits) const {
    if (!by_coverage_) return std::nullopt;
    if (!PeAndGlobalAllow(t, d_)) return false;
    for (std::uint32_t h = 0; h < plan_->hosts.size(); ++h) {
      const std::uint32_t i = plan_->instances[plan_->hosts[h].instances_begin].instance;
      if (admits(i) && !coverage_.Denies(h, t)) return true;
    }
    return false;
  }

 private:
  using ParallelRoom = Interval::ParallelRoom;

  // Sets up the plan, the job's amounts and the per-demand state; false where
  // the PE's access list or the global host's static match rules the job out.
  bool Plan();

  // --- counts over one window ---------------------------------------------------------------------
  // Demand g's slot count over [t, t + window); in the monotone region the
  // peak is the amount at t.
  std::uint32_t FitsAt(std::uint32_t g, Time t, Duration window, bool monotone);
  std::uint32_t SlotsOf(std::uint32_t first, std::uint32_t last) const;
  // The parallel assignment's availability of plan host h from the counts
  // kept: the host's own slots, at most the sum of its instances'.
  std::uint64_t Availability(std::uint32_t h) const;
  // Refreshes host h's counts over [t, t + window) and returns its availability.
  std::uint64_t Refresh(std::uint32_t h, Time t, Duration window, bool monotone);

  // --- verdicts ------------------------------------------------------------------------------------
  // What the PE and the global host allow over [t, t + window).
  bool PeAndGlobalAllow(Time t, Duration window) const;
  // Every host at t: counts refreshed, availabilities summed (total, roomy).
  std::pair<std::uint64_t, std::uint64_t> EvaluateHosts(Time t, Duration window, bool monotone);
  bool FeasibleAt(Time t);
  // Whether the hosts allow the job over [t, t + window). Availabilities are
  // never negative, so the hosts' counts may stop adding up once they are
  // enough: the verdict is the same whichever hosts came first. Leaves the
  // counts kept of the hosts it looked at.
  bool HostsSuffice(Time t, Duration window, bool monotone);
  // Whether every candidate in [low, high] is feasible, by lower bounds: each
  // window [t, t + d) lies within [low, high + d), over which no count is higher.
  bool FeasibleThroughout(Time low, Time high);

  // --- candidate times -----------------------------------------------------------------------------
  // The distinct candidate times in [from, to), latest first.
  std::vector<Time> TimesIn(Time from, Time to) const;
  std::optional<Time> EarliestCandidateIn(Time low, Time high) const;
  // The last time any diagram the job draws on rises.
  Time LastRise() const;

  // --- the walk's stages ---------------------------------------------------------------------------
  // Above the last rise: the last feasible candidate there (nullopt: none) and
  // whether some candidate there fails (the walk then stops there).
  struct Upper {
    std::optional<Time> last_feasible;
    bool fails = false;
  };
  Upper SearchAboveLastRise(Time rises);
  // The first failure in `upper` (latest first; the latest fits, the earliest
  // does not), bracketed with every host's availability at both ends: a host
  // equal at both ends of the bracket stays so inside it (monotone region).
  std::size_t BracketFirstFailure(const std::vector<Time>& upper);
  // Below the last rise, in [first_time, rises): the walk's start, given the
  // last feasible candidate above.
  std::optional<Time> SearchBelowLastRise(Time first_time, Time rises, std::optional<Time> last_feasible);
  // The events in [low, high), latest first, where a demand's count may
  // change, packed as (time, demand) in one integer.
  std::vector<std::uint64_t> EventsOf(Time low, Time high);
  // The exact sweep over a stretch's candidates (latest first): the counts
  // kept follow the candidates down from a full evaluation at the first.
  // Returns the index of the first failure, or the number of candidates.
  std::size_t Sweep(const std::vector<Time>& chunk);
  std::size_t SweepEachCandidate(const std::vector<Time>& chunk);

  // Plan host h's slots at the start (counts refreshed), or nullopt where it
  // has none.
  std::optional<Interval::HostSlots> HostSlotsOf(std::uint32_t h, bool listed) const;

  const Interval& interval_;
  const ResourceLedger& ledger_;
  const JobView& job_;
  const PeId pe_;
  const ParallelEnvironment& p_;
  const Duration d_;
  const std::uint32_t most_;
  const RuleVerdict verdict_;
  const std::optional<std::uint32_t> pe_entry_;
  std::shared_ptr<const WalkPlan> plan_;  // the walk's plan (set by Plan)
  std::vector<double> amounts_;
  std::optional<DemandCounter> count_;
  std::vector<std::uint32_t> fits_;   // per demand: its count over the window last asked
  std::vector<std::uint32_t> hints_;  // per demand: where its diagram's last search ended
  bool by_coverage_ = false;          // the hosts' verdicts are read off coverage_
  HostCoverage coverage_;
  std::vector<std::uint64_t> available_;  // per plan host: its availability last worked out
  // A time at which available_ holds every host's availability exactly (the
  // sweep's last feasible candidate, where it failed at the next one).
  std::optional<Time> available_at_;
  const BreakpointIndex* index_ = nullptr;  // the ledger's, where it has one
  std::vector<std::uint8_t> weighed_;       // with the index, per ledger entry: one of the plan's time entries
  std::vector<std::uint32_t> demand_of_;    // with the index, per ledger entry: its demand (set up when asked)
  // The sweep's bookkeeping: per demand and per host, the candidate that last
  // touched it; the hosts a candidate touched, and their availabilities before.
  std::vector<std::size_t> demand_stamp_, host_stamp_;
  std::vector<std::uint32_t> touched_;
  std::vector<std::pair<std::uint32_t, std::uint64_t>> undo_;
  std::size_t visit_ = 0;  // candidates looked at, for the stamps
};

}  // namespace schedk::dispatch_detail
