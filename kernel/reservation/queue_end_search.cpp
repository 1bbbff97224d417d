#include "kernel/reservation/queue_end_search.hpp"

#include <algorithm>
#include <atomic>
#include <cassert>
#include <limits>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>

#include "kernel/util/radix_sort.hpp"
#include "kernel/tuning.hpp"

namespace schedk::dispatch_detail {

namespace {

// The distinct breakpoint times in [from, to) of the entries' diagrams, latest first.
std::vector<Time> BreakpointTimesIn(const ResourceLedger& ledger, const std::vector<std::uint32_t>& entries, Time from, Time to) {
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

// Every candidate time of a walk whose candidate-time entries are `entries`, latest first.
std::vector<Time> QueueEndTimes(const ResourceLedger& ledger, const std::vector<std::uint32_t>& entries) {
  return BreakpointTimesIn(ledger, entries, 0, kDiagramForever + 1);
}

// Events where a demand's count may change, packed as (time, demand) in one
// integer: times lie in [-2^33, 2^33), demands below 2^24 (else: one at a time).
constexpr std::uint64_t kTimeBias = std::uint64_t{1} << 33;
constexpr int kDemandBits = 24;
Time EventTime(std::uint64_t e) { return static_cast<Time>(e >> kDemandBits) - static_cast<Time>(kTimeBias); }
std::uint32_t EventDemand(std::uint64_t e) { return static_cast<std::uint32_t>(e & ((1u << kDemandBits) - 1)); }
std::uint64_t PackEvent(Time t, std::uint32_t g) {
  return (static_cast<std::uint64_t>(t + static_cast<Time>(kTimeBias)) << kDemandBits) | g;
}

}  // namespace

// --- the reference walk and RESERVE_IN_GAPS ------------------------------------------------------

std::optional<Time> PlainQueueEndWalk(const Interval& interval, const JobView& job, PeId pe, std::uint32_t least) {
  std::vector<Time> times = QueueEndTimes(interval.ledger_, interval.TimeEntries(job, pe));
  if (times.empty()) times.push_back(interval.cluster_.now);
  std::optional<Time> start;
  for (Time t : times) {
    if (!interval.AssignParallel(job, pe, least, t, nullptr).ok) break;
    start = t;
  }
  return start;
}

std::optional<Time> EarliestGapStart(const Interval& interval, const JobView& job, PeId pe, std::uint32_t least) {
  std::vector<Time> ascending = QueueEndTimes(interval.ledger_, interval.TimeEntries(job, pe));
  std::reverse(ascending.begin(), ascending.end());
  ascending.insert(ascending.begin(), interval.cluster_.now);
  for (Time t : ascending) {
    if (t >= interval.cluster_.now && interval.AssignParallel(job, pe, least, t, nullptr).ok) return t;
  }
  return std::nullopt;
}

namespace {

// The candidate times of a walk after its start `from`: from the ledger's
// breakpoint index where there is one (read where asked), else listed from
// each diagram.
class LaterCandidates {
 public:
  LaterCandidates(const ResourceLedger& ledger, const std::vector<std::uint32_t>& entries, const BreakpointIndex* index,
                  Time from)
      : index_(index) {
    if (index_ != nullptr) {
      weighed_.assign(ledger.size(), 0);
      for (std::uint32_t k : entries) weighed_[k] = 1;
    } else {
      listed_ = BreakpointTimesIn(ledger, entries, from + 1, kDiagramForever + 1);
      std::reverse(listed_.begin(), listed_.end());
    }
  }
  // The earliest candidate in [low, high).
  std::optional<Time> EarliestIn(Time low, Time high) const {
    std::optional<Time> found;
    if (index_ == nullptr) {
      const auto it = std::lower_bound(listed_.begin(), listed_.end(), low);
      if (it != listed_.end() && *it < high) found = *it;
      return found;
    }
    index_->ForEachIn(low, high, [&](Time t, std::uint32_t k) {
      if (weighed_[k] != 0) found = t;
      return !found;
    });
    return found;
  }
  // The latest candidate in [low, high).
  std::optional<Time> LatestIn(Time low, Time high) const {
    std::optional<Time> found;
    if (index_ == nullptr) {
      const auto it = std::lower_bound(listed_.begin(), listed_.end(), high);
      if (it != listed_.begin() && *std::prev(it) >= low) found = *std::prev(it);
      return found;
    }
    index_->ForEachInReverse(low, high, [&](Time t, std::uint32_t k) {
      if (weighed_[k] != 0) found = t;
      return !found;
    });
    return found;
  }

 private:
  const BreakpointIndex* index_;
  std::vector<std::uint8_t> weighed_;  // with the index: per ledger entry, one the walk weighs
  std::vector<Time> listed_;           // without it: every candidate, ascending
};

}  // namespace

std::optional<Time> QuotaStartFrom(const Interval& interval, const JobView& job, PeId pe, std::uint32_t least,
                                   Time from, const QueueEndSearch* search) {
  const std::vector<std::uint8_t> classes = interval.QuotaClassesWithin(job, pe);
  // Under $pe_slots one host gives the job all its slots and no host's take
  // counts against another's: with one instance per host, the job fits at t
  // where a host the search's coverage admits is in a quota class whose room
  // at t holds `least` (where every class is uniform for the job and no limit
  // weighs a per-job amount, which only the placement's check would see).
  const QuotaUsage& quota = interval.quota_;
  bool by_hosts = search != nullptr && interval.cluster_.pes[pe.index()].allocation_rule == AllocationRule::kPeSlots &&
                  !quota.AsksPerJob(*job.requests);
  for (std::uint32_t c = 0; by_hosts && c < quota.classes(); ++c) {
    by_hosts = quota.Uniform(interval.SubjectAt(job, pe, quota.InstanceOfClass(c)));
  }
  std::vector<std::int64_t> class_room;  // at the time asked, per class (-1: not read yet)
  auto fits = [&](Time t) {
    if (by_hosts) {
      class_room.assign(quota.classes(), -1);
      const std::optional<bool> any = search->AnyHostAt(t, [&](std::uint32_t i) {
        std::int64_t& room = class_room[quota.ClassOf(i)];
        if (room < 0) {
          room = quota.SlotRoom(interval.SubjectAt(job, pe, i), *job.requests, false, interval.WindowAt(job, t));
        }
        return room >= least;
      });
      if (any) return *any;
    }
    return interval.AssignParallelUnderQuotas(job, pe, least, t, classes).ok;
  };
  const Time now = interval.cluster_.now;
  // In the plan's stretch a quota's usage only falls with time: a start that
  // fits there is the answer, and no candidate need be listed.
  if (from >= now && fits(from)) return from;
  const LaterCandidates later(interval.ledger_, interval.TimeEntries(job, pe),
                              interval.twin_ == Twin::kOptimised ? interval.ledger_.breakpoint_index() : nullptr, from);
  // As Grid Engine walks the candidates from the latest down, the start is
  // the earliest one from which every later one fits (none where the latest
  // fails: past it every booking the walk weighs has ended). The walk is
  // found per stretch of time where the fits are taken to hold from some
  // candidate on, latest stretch first, by bisection over time: each step
  // tries the earliest candidate in the later half of what is left of the
  // stretch (both twins try the same candidates). `top` fits; the candidates
  // before `low` fail.
  auto earliest_fitting = [&](Time low, Time top) {
    Time bound = top, start = top;  // none lies in [bound, start)
    while (low < bound) {
      const Time mid = low + (bound - low) / 2;
      const std::optional<Time> t = later.EarliestIn(mid, bound);
      if (t && !fits(*t)) {
        low = *t + 1;
        continue;
      }
      if (t) start = *t;
      bound = mid;
    }
    return start;
  };
  const std::optional<Time> last = later.LatestIn(from + 1, kDiagramForever + 1);
  if (from >= now) {  // one stretch, the plan's
    if (!last || !fits(*last)) return std::nullopt;
    return earliest_fitting(from + 1, *last);
  }
  // A walk from before now has two: the plan after now, then the past up to
  // now. There a window that begins later holds more (it reaches further
  // into the plan, and what it leaves behind, mostly running tasks, is in use
  // at now too), so the latest candidate there is the first to fail.
  Time past_top = from;
  if (last && *last > now) {
    if (!fits(*last)) return std::nullopt;
    const Time first = *later.EarliestIn(now + 1, *last + 1);
    const Time start = fits(first) ? first : earliest_fitting(first + 1, *last);
    if (start != first) return start;
    past_top = later.LatestIn(from + 1, now + 1).value_or(from);
    if (!fits(past_top)) return first;
  } else {
    if (last) past_top = *last;
    if (!fits(past_top)) return std::nullopt;
  }
  if (past_top == from || fits(from)) return from;
  return earliest_fitting(from + 1, past_top);
}

// --- the search ----------------------------------------------------------------------------------

namespace {

RuleVerdict VerdictFor(const ParallelEnvironment& p, std::uint32_t least) {
  const AllocationRule rule = p.allocation_rule;
  const std::uint32_t per_host = rule == AllocationRule::kPeSlots ? least
                                 : rule == AllocationRule::kFixed ? p.slots_per_host
                                                                  : 1;
  return RuleVerdict{rule, least, per_host};
}

}  // namespace

QueueEndSearch::QueueEndSearch(const Interval& interval, const JobView& job, PeId pe, std::uint32_t least,
                               std::uint32_t most)
    : interval_(interval),
      ledger_(interval.ledger_),
      job_(job),
      pe_(pe),
      p_(interval.cluster_.pes[pe.index()]),
      d_(job.duration),
      most_(most),
      verdict_(VerdictFor(p_, least)),
      pe_entry_(ledger_.Find({ContainerLevel::kPe, pe.index()}, interval.complexes_.slots)) {}

std::optional<Time> QueueEndSearch::Run(ParallelRoom* room_at_start) {
  if (!Plan()) return std::nullopt;
  auto found = [&](std::optional<Time> start) {
    if (start && room_at_start != nullptr) *room_at_start = RoomAt(std::max(*start, Time{0}), false);
    return start;
  };
  const std::optional<Time> first_time = EarliestCandidateIn(0, kDiagramForever + 1);
  if (!first_time) {  // no breakpoint at all: the walk's only candidate is now
    const Time now = interval_.cluster_.now;
    return found(FeasibleAt(now) ? std::optional<Time>(now) : std::nullopt);
  }
  const Time rises = LastRise();
  const Upper upper = SearchAboveLastRise(rises);
  if (upper.fails || rises <= *first_time) return found(upper.last_feasible);
  return found(SearchBelowLastRise(*first_time, rises, upper.last_feasible));
}

bool QueueEndSearch::Plan() {
  const ParallelEnvironment& p = p_;
  if (!HasAccess(interval_.cluster_.entities, p.user_lists, p.xuser_lists, {}, {}, job_.owner, job_.group,
                 job_.project) ||
      !interval_.GlobalStatic(job_)) {
    return false;
  }
  std::uint64_t global_found = 0;
  if (interval_.Fit({ContainerLevel::kGlobal, 0}, job_, interval_.cluster_.now, d_, global_found, nullptr)
          .static_mismatch) {
    return false;
  }
  plan_ = interval_.PlanWalk(job_, pe_, global_found);
  amounts_ = interval_.DemandAmounts(*plan_, job_);
  count_.emplace(DemandCounter{*plan_, amounts_, ledger_});
  const std::size_t demands = plan_->demands.size(), hosts = plan_->hosts.size();
  fits_.assign(demands, kUnlimited);
  hints_.assign(demands, 0);
  // $pe_slots and a fixed rule count the hosts with room for the rule's
  // per-host count; where every host has a single queue instance, the
  // coverage gives that count at every start time at once.
  const AllocationRule rule = verdict_.rule;
  by_coverage_ = (rule == AllocationRule::kPeSlots || rule == AllocationRule::kFixed) && verdict_.per_host >= 1 &&
                 ledger_.with_diagrams() &&
                 std::all_of(plan_->hosts.begin(), plan_->hosts.end(),
                             [](const HostPlan& h) { return h.instances_end - h.instances_begin == 1; });
  if (by_coverage_) coverage_ = HostCoverage::Build(*plan_, *count_, verdict_, d_, ledger_, interval_.flat_diagrams_);
  available_.assign(hosts, 0);
  // With the ledger's breakpoint index, the candidate times of a stretch are
  // read from its postings of the walk's entries, not searched for in every
  // one of their diagrams.
  index_ = ledger_.breakpoint_index();
  if (index_ != nullptr) {
    weighed_.assign(ledger_.size(), 0);
    for (std::uint32_t k : plan_->time_entries) weighed_[k] = 1;
  }
  demand_stamp_.assign(demands, SIZE_MAX);
  host_stamp_.assign(hosts, SIZE_MAX);
  return true;
}

// --- counts over one window ----------------------------------------------------------------------

std::uint32_t QueueEndSearch::FitsAt(std::uint32_t g, Time t, Duration window, bool monotone) {
  const std::uint32_t entry = plan_->demands[g].entry;
  const UtilizationDiagram& diagram = ledger_.diagram(entry);
  const double used = monotone && t < kDiagramForever ? diagram.AmountAt(t, hints_[g])
                      : ledger_.with_diagrams()       ? diagram.Max(t, window, hints_[g])
                                                      : ledger_.entry(entry).used_now;
  return (*count_)(g, used);
}

std::uint32_t QueueEndSearch::SlotsOf(std::uint32_t first, std::uint32_t last) const {
  std::uint32_t n = kUnlimited;
  for (std::uint32_t g = first; g < last; ++g) n = std::min(n, fits_[g]);
  return n;
}

std::uint64_t QueueEndSearch::Availability(std::uint32_t h) const {
  const HostPlan& plan = plan_->hosts[h];
  const std::uint64_t host_slots = SlotsOf(plan.first, plan.last);
  if (host_slots == 0) return 0;
  std::uint64_t sum = 0;
  for (const InstancePlan& instance : plan_->InstancesOf(plan)) sum += SlotsOf(instance.first, instance.last);
  return std::min(host_slots, sum);
}

std::uint64_t QueueEndSearch::Refresh(std::uint32_t h, Time t, Duration window, bool monotone) {
  const HostPlan& plan = plan_->hosts[h];
  const std::uint32_t last = plan_->DemandsEnd(plan);
  for (std::uint32_t g = plan.first; g < last; ++g) fits_[g] = FitsAt(g, t, window, monotone);
  return Availability(h);
}

// --- verdicts ------------------------------------------------------------------------------------

bool QueueEndSearch::PeAndGlobalAllow(Time t, Duration window) const {
  if (pe_entry_ && ledger_.entry(*pe_entry_).total - ledger_.Used(*pe_entry_, t, window) < verdict_.least) {
    return false;
  }
  std::uint64_t unused = 0;
  return interval_.Fit({ContainerLevel::kGlobal, 0}, job_, t, window, unused, nullptr).slots >= verdict_.least;
}

std::pair<std::uint64_t, std::uint64_t> QueueEndSearch::EvaluateHosts(Time t, Duration window, bool monotone) {
  tbb::parallel_for(tbb::blocked_range<std::uint32_t>(0, static_cast<std::uint32_t>(available_.size()), 64),
                    [&](const tbb::blocked_range<std::uint32_t>& r) {
                      for (std::uint32_t h = r.begin(); h != r.end(); ++h)
                        available_[h] = Refresh(h, t, window, monotone);
                    });
  std::uint64_t total = 0, roomy = 0;
  for (std::uint64_t a : available_) {
    total += a;
    roomy += a >= verdict_.per_host;
  }
  return {total, roomy};
}

bool QueueEndSearch::FeasibleAt(Time t) {
  if (!PeAndGlobalAllow(t, d_)) return false;
  if (by_coverage_) return !coverage_.FailsAt(t);
  const auto [total, roomy] = EvaluateHosts(t, d_, false);
  return verdict_.Allows(total, roomy);
}

bool QueueEndSearch::HostsSuffice(Time t, Duration window, bool monotone) {
  std::atomic<std::uint64_t> total{0}, roomy{0};
  std::atomic<bool> enough{false};
  tbb::parallel_for(tbb::blocked_range<std::uint32_t>(0, static_cast<std::uint32_t>(plan_->hosts.size()), 64),
                    [&](const tbb::blocked_range<std::uint32_t>& r) {
                      if (enough.load(std::memory_order_relaxed)) return;
                      std::uint64_t block_total = 0, block_roomy = 0;
                      for (std::uint32_t h = r.begin(); h != r.end(); ++h) {
                        const std::uint64_t a = Refresh(h, t, window, monotone);
                        block_total += a;
                        block_roomy += a >= verdict_.per_host;
                      }
                      const std::uint64_t sum = total.fetch_add(block_total) + block_total;
                      const std::uint64_t n = roomy.fetch_add(block_roomy) + block_roomy;
                      if (verdict_.Allows(sum, n)) enough.store(true, std::memory_order_relaxed);
                    });
  return enough.load() || verdict_.Allows(total.load(), roomy.load());
}

bool QueueEndSearch::FeasibleThroughout(Time low, Time high) {
  const Duration span = (high - low) + d_;
  if (!PeAndGlobalAllow(low, span)) return false;
  if (by_coverage_) return !coverage_.FailsIn(low, high);
  return HostsSuffice(low, span, false);
}

// --- candidate times -----------------------------------------------------------------------------

std::vector<Time> QueueEndSearch::TimesIn(Time from, Time to) const {
  if (index_ == nullptr) return BreakpointTimesIn(ledger_, plan_->time_entries, from, to);
  std::vector<Time> times;
  index_->ForEachIn(from, to, [&](Time t, std::uint32_t k) {
    if (weighed_[k] && (times.empty() || times.back() != t)) times.push_back(t);
    return true;
  });
  std::reverse(times.begin(), times.end());
  return times;
}

std::optional<Time> QueueEndSearch::EarliestCandidateIn(Time low, Time high) const {
  std::optional<Time> earliest;
  if (index_ != nullptr) {
    index_->ForEachIn(low, high, [&](Time t, std::uint32_t k) {
      if (weighed_[k]) earliest = t;
      return !earliest;
    });
    return earliest;
  }
  for (std::uint32_t k : plan_->time_entries) {
    const std::optional<Time> t = ledger_.diagram(k).NextBreakpoint(low);
    if (t && *t < high) earliest = earliest ? std::min(*earliest, *t) : *t;
  }
  return earliest;
}

Time QueueEndSearch::LastRise() const {
  Time rises = std::numeric_limits<Time>::min();
  auto note_rises = [&](std::uint32_t k) {
    if (const std::optional<Time> t = interval_.LastIncreaseOf(k)) rises = std::max(rises, *t);
  };
  if (pe_entry_) note_rises(*pe_entry_);
  interval_.ForEachDemand({ContainerLevel::kGlobal, 0}, job_, [&](const Demand& demand) { note_rises(demand.entry); });
  // The plan's demands, in parallel (each names its own entry).
  const std::vector<DemandSlot>& demands = plan_->demands;
  return tbb::parallel_reduce(
      tbb::blocked_range<std::size_t>(0, demands.size(), 1024), rises,
      [&](const tbb::blocked_range<std::size_t>& r, Time latest) {
        for (std::size_t g = r.begin(); g != r.end(); ++g) {
          if (const std::optional<Time> t = interval_.LastIncreaseOf(demands[g].entry)) latest = std::max(latest, *t);
        }
        return latest;
      },
      [](Time a, Time b) { return std::max(a, b); });
}

// --- the walk's stages ---------------------------------------------------------------------------

// Feasibility is monotone above the last rise (availability only rises): a
// walk feasible at the earliest candidate there is feasible throughout, and
// the region's candidates need not be listed. Otherwise, a binary search over
// them, from evaluations at both ends.
QueueEndSearch::Upper QueueEndSearch::SearchAboveLastRise(Time rises) {
  const std::optional<Time> upper_bottom = EarliestCandidateIn(rises, kDiagramForever + 1);
  if (!upper_bottom) return {};  // nothing above the last rise
  const bool bottom_feasible = by_coverage_
                                   ? FeasibleAt(*upper_bottom)
                                   : PeAndGlobalAllow(*upper_bottom, d_) && HostsSuffice(*upper_bottom, d_, true);
  if (bottom_feasible) return {upper_bottom, false};
  const std::vector<Time> upper = TimesIn(rises, kDiagramForever + 1);
  std::size_t lo = 0;  // the first failure in `upper`
  if (upper.empty()) {
    // Nothing to search.
  } else if (by_coverage_) {
    std::size_t hi = upper.size();
    while (lo < hi) {
      const std::size_t mid = lo + (hi - lo) / 2;
      if (FeasibleAt(upper[mid])) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
  } else {
    lo = BracketFirstFailure(upper);
  }
  return {lo == 0 ? std::nullopt : std::optional<Time>(upper[lo - 1]), lo < upper.size()};
}

std::size_t QueueEndSearch::BracketFirstFailure(const std::vector<Time>& upper) {
  const std::uint32_t per_host = verdict_.per_host;
  const std::size_t bottom_index = upper.size() - 1;
  // Both ends with every host evaluated, whatever the PE and global host say.
  auto end_ok = [&](Time t) {
    const auto [total, roomy] = EvaluateHosts(t, d_, true);
    return PeAndGlobalAllow(t, d_) && verdict_.Allows(total, roomy);
  };
  const bool top_ok = end_ok(upper.front());
  std::vector<std::uint64_t> at_top = available_;
  const bool bottom_ok = bottom_index == 0 ? top_ok : end_ok(upper[bottom_index]);
  std::vector<std::uint64_t>& at_bottom = available_;
  if (bottom_ok) return upper.size();
  if (!top_ok) return 0;
  std::size_t top = 0, bottom = bottom_index;  // feasible at top, not at bottom
  std::vector<std::uint32_t> varying;
  std::uint64_t fixed_total = 0, fixed_roomy = 0;
  for (std::uint32_t h = 0; h < at_top.size(); ++h) {
    if (at_top[h] != at_bottom[h]) {
      varying.push_back(h);
    } else {
      fixed_total += at_top[h];
      fixed_roomy += at_top[h] >= per_host;
    }
  }
  std::vector<std::uint64_t> at_mid(at_top.size(), 0);
  while (bottom - top > 1) {
    const std::size_t mid = top + (bottom - top) / 2;
    const Time t = upper[mid];
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, varying.size(), 64),
                      [&](const tbb::blocked_range<std::size_t>& r) {
                        for (std::size_t v = r.begin(); v != r.end(); ++v) {
                          at_mid[varying[v]] = Refresh(varying[v], t, d_, true);
                        }
                      });
    std::uint64_t total = fixed_total, roomy = fixed_roomy;
    for (std::uint32_t h : varying) {
      total += at_mid[h];
      roomy += at_mid[h] >= per_host;
    }
    const bool ok = PeAndGlobalAllow(t, d_) && verdict_.Allows(total, roomy);
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
  return bottom;
}

// Below the monotone region, stretches of time [low, high), latest first: a
// stretch whose lower bounds hold is feasible throughout and skipped without
// listing its candidates; otherwise its halves are settled, the later first,
// down to stretches short enough to list and sweep exactly. The stretch at
// the previous walk's failure, a likely place for this one to fail, is
// settled apart (in the same order, so the first failure found is the same).
std::optional<Time> QueueEndSearch::SearchBelowLastRise(Time first_time, Time rises,
                                                        std::optional<Time> last_feasible) {
  // Without the index, a usual walk needs a few dozen halvings; past that
  // budget, empty stretches are dropped (below).
  std::size_t halvings = 0;
  std::vector<std::pair<Time, Time>> skipped;  // skipped stretches since last_feasible, latest last
  // The last feasible candidate so far: the earliest one of the latest skipped
  // stretch that has any, else the one the sweep left.
  auto last_feasible_so_far = [&]() {
    for (auto it = skipped.rbegin(); it != skipped.rend(); ++it) {
      if (const std::optional<Time> t = EarliestCandidateIn(it->first, it->second)) return std::optional<Time>(t);
    }
    return last_feasible;
  };
  struct Stretch {
    Time low, high;
    bool likely_failure = false;  // swept at once, without a lower-bound test
  };
  std::vector<Stretch> stretches = {{first_time, rises}};
  std::optional<Time>& hint = interval_.walk_failure_hint_;
  if (hint && *hint >= first_time && *hint < rises) {
    const Time at = *hint;
    const Time low = std::max(first_time, at + 1 - tuning::kSweptExactly);
    stretches = {{first_time, low}, {low, at + 1, true}, {at + 1, rises}};
  }
  while (!stretches.empty()) {
    const auto [low, high, likely_failure] = stretches.back();
    stretches.pop_back();
    if (low >= high) continue;
    // A stretch without candidate times has nothing to walk. With the
    // breakpoint index that costs a look at its postings, and such stretches
    // are dropped before any lower-bound test.
    if (index_ != nullptr && !EarliestCandidateIn(low, high)) continue;
    if (!likely_failure && FeasibleThroughout(low, high - 1)) {
      skipped.emplace_back(low, high);
      continue;
    }
    // Without the index: where the lower bounds fail everywhere (a window
    // reaching to the end of a far plan), halving would visit every empty
    // piece; past the budget, empty stretches are dropped, for the price of
    // one look at every candidate diagram each.
    if (index_ == nullptr && halvings > tuning::kHalvingsBeforeEmptyCheck && !EarliestCandidateIn(low, high)) continue;
    if (high - low > tuning::kSweptExactly) {
      ++halvings;
      const Time mid = low + (high - low) / 2;
      stretches.push_back({low, mid});
      stretches.push_back({mid, high});
      continue;
    }
    const std::vector<Time> chunk = TimesIn(low, high);
    if (chunk.empty()) continue;
    const std::size_t failure = Sweep(chunk);
    if (failure < chunk.size()) {
      hint = chunk[failure];
      return failure == 0 ? last_feasible_so_far() : std::optional<Time>(chunk[failure - 1]);
    }
    last_feasible = chunk.back();
    skipped.clear();
  }
  return last_feasible_so_far();
}

std::vector<std::uint64_t> QueueEndSearch::EventsOf(Time low, Time high) {
  const std::vector<DemandSlot>& demands = plan_->demands;
  std::vector<std::uint64_t> events;
  if (index_ != nullptr) {
    if (demand_of_.empty()) {
      demand_of_.assign(ledger_.size(), UINT32_MAX);
      for (std::uint32_t g = 0; g < demands.size(); ++g) {
        assert(demand_of_[demands[g].entry] == UINT32_MAX);  // a container is planned once
        demand_of_[demands[g].entry] = g;
      }
    }
    auto collect = [&](Time from, Time to, Duration shift) {
      index_->ForEachIn(from, to, [&](Time b, std::uint32_t k) {
        if (demand_of_[k] != UINT32_MAX) events.push_back(PackEvent(b - shift, demand_of_[k]));
        return true;
      });
    };
    collect(low + 1, high + 1, 1);                                 // below b, the amount before b is in effect
    if (d_ < kInfiniteDuration) collect(low + d_, high + d_, d_);  // from b - d down, b is past the window
  } else {
    std::vector<std::vector<std::uint64_t>> parts((demands.size() + 255) / 256);
    tbb::parallel_for(std::size_t{0}, parts.size(), [&](std::size_t part) {
      std::vector<Time> times;
      const auto end = static_cast<std::uint32_t>(std::min(demands.size(), (part + 1) * 256));
      for (auto g = static_cast<std::uint32_t>(part * 256); g < end; ++g) {
        const UtilizationDiagram& diagram = ledger_.diagram(demands[g].entry);
        times.clear();
        diagram.AppendTimesIn(low + 1, high + 1, times);  // below b, the amount before b is in effect
        for (Time b : times) parts[part].push_back(PackEvent(b - 1, g));
        if (d_ >= kInfiniteDuration) continue;
        times.clear();
        diagram.AppendTimesIn(low + d_, high + d_, times);  // from b - d down, b is past the window
        for (Time b : times) parts[part].push_back(PackEvent(b - d_, g));
      }
    });
    for (const auto& part : parts) events.insert(events.end(), part.begin(), part.end());
  }
  RadixSort64(events);
  std::reverse(events.begin(), events.end());
  return events;
}

std::size_t QueueEndSearch::SweepEachCandidate(const std::vector<Time>& chunk) {
  for (std::size_t k = 0; k < chunk.size(); ++k) {
    if (!FeasibleAt(chunk[k])) return k;
  }
  return chunk.size();
}

std::size_t QueueEndSearch::Sweep(const std::vector<Time>& chunk) {
  const std::vector<DemandSlot>& demands = plan_->demands;
  // The coverage, or too many demands to pack: every candidate on its own.
  if (by_coverage_ || demands.size() >= (std::size_t{1} << kDemandBits)) return SweepEachCandidate(chunk);
  auto [total, roomy] = EvaluateHosts(chunk.front(), d_, false);
  // A failure at the first candidate needs no events.
  if (!PeAndGlobalAllow(chunk.front(), d_) || !verdict_.Allows(total, roomy)) return 0;
  const std::vector<std::uint64_t> events = EventsOf(chunk.back(), chunk.front());
  // Each event's count at its candidate (the first one at or below its
  // time), worked out in parallel a batch ahead of the sweep that reads it.
  std::vector<std::uint32_t> candidate_of(events.size()), event_fits(events.size());
  for (std::size_t e = 0, k = 1; e < events.size(); ++e) {
    while (k < chunk.size() && chunk[k] > EventTime(events[e])) ++k;
    candidate_of[e] = static_cast<std::uint32_t>(k);
  }
  auto count_events = [&](std::size_t from, std::size_t until) {
    tbb::parallel_for(tbb::blocked_range<std::size_t>(from, until, 128), [&](const tbb::blocked_range<std::size_t>& r) {
      for (std::size_t e = r.begin(); e != r.end(); ++e) {
        const std::uint32_t g = EventDemand(events[e]);
        event_fits[e] = candidate_of[e] < chunk.size()
                            ? (*count_)(g, ledger_.Used(demands[g].entry, chunk[candidate_of[e]], d_))
                            : 0;
      }
    });
  };
  std::size_t counted = 0;  // events whose counts are worked out
  std::size_t next_event = 0;
  const std::uint32_t per_host = verdict_.per_host;
  for (std::size_t k = 1; k < chunk.size(); ++k) {
    const Time t = chunk[k];
    ++visit_;
    touched_.clear();
    for (; next_event < events.size() && EventTime(events[next_event]) >= t; ++next_event) {
      if (next_event == counted) {
        const std::size_t until = std::min(events.size(), counted + tuning::kSweepEventsAhead);
        count_events(counted, until);
        counted = until;
      }
      const std::uint32_t g = EventDemand(events[next_event]);
      if (demand_stamp_[g] == visit_) continue;
      demand_stamp_[g] = visit_;
      fits_[g] = event_fits[next_event];
      const std::uint32_t h = plan_->demand_host[g];
      if (host_stamp_[h] != visit_) {
        host_stamp_[h] = visit_;
        touched_.push_back(h);
      }
    }
    undo_.clear();
    for (std::uint32_t h : touched_) {
      const std::uint64_t value = Availability(h);
      total = total - available_[h] + value;
      roomy = roomy - (available_[h] >= per_host) + (value >= per_host);
      undo_.emplace_back(h, available_[h]);
      available_[h] = value;
    }
    if (!PeAndGlobalAllow(t, d_) || !verdict_.Allows(total, roomy)) {
      // Back to the availabilities at the last feasible candidate, the start.
      for (const auto& [h, value] : undo_) available_[h] = value;
      available_at_ = chunk[k - 1];
      return k;
    }
  }
  return chunk.size();
}

// --- the room at the start -----------------------------------------------------------------------

Interval::ParallelRoom QueueEndSearch::RoomAt(Time start, bool quotas) {
  const std::vector<HostPlan>& hosts = plan_->hosts;
  std::vector<std::uint32_t> plan_of_host(interval_.cluster_.hosts.size(), UINT32_MAX);
  for (std::uint32_t h = 0; h < hosts.size(); ++h) plan_of_host[hosts[h].host.index()] = h;
  const bool listed = !interval_.list_order_.unsorted().empty();
  const std::vector<std::uint32_t>& by_load =
      listed ? interval_.ReservationHostOrder(job_, pe_) : interval_.HostsByLoad();
  std::vector<std::uint32_t> batch;  // plan indices
  std::size_t next = 0, batch_size = 64, taken = 0;
  // The hosts with slots at the start, one by one; their counts are
  // refreshed in growing batches, in parallel.
  auto next_host = [&](Interval::HostSlots& out) {
    for (;;) {
      for (; taken < batch.size(); ++taken) {
        const std::uint32_t h = batch[taken];
        if (available_[h] == 0) continue;
        std::optional<Interval::HostSlots> slots = HostSlotsOf(h, listed);
        if (!slots) continue;
        out = std::move(*slots);
        ++taken;
        return true;
      }
      if (next >= by_load.size()) return false;
      batch.clear();
      taken = 0;
      for (; next < by_load.size() && batch.size() < batch_size; ++next) {
        const std::uint32_t h = plan_of_host[by_load[next]];
        // With the coverage, hosts without room for per_host slots are left
        // out: under $pe_slots and a fixed rule, the assignment never takes
        // slots from them (it asks for at least per_host slots on a host),
        // and the quotas only cut a host's slots. Where every host's
        // availability at the start is known, those without any are left out too.
        if (h != UINT32_MAX && !(by_coverage_ && coverage_.Denies(h, start)) &&
            !(available_at_ == start && available_[h] == 0)) {
          batch.push_back(h);
        }
      }
      batch_size = std::min<std::size_t>(2 * batch_size, 4096);
      tbb::parallel_for(tbb::blocked_range<std::size_t>(0, batch.size(), 32),
                        [&](const tbb::blocked_range<std::size_t>& r) {
                          for (std::size_t b = r.begin(); b != r.end(); ++b) {
                            available_[batch[b]] = Refresh(batch[b], start, d_, false);
                          }
                        });
    }
  };
  return interval_.RoomFromHosts(job_, pe_, start, most_, quotas, next_host);
}

std::optional<Interval::HostSlots> QueueEndSearch::HostSlotsOf(std::uint32_t h, bool listed) const {
  const HostPlan& plan = plan_->hosts[h];
  const std::uint32_t host_slots = SlotsOf(plan.first, plan.last);
  if (host_slots == 0) return std::nullopt;
  Interval::HostSlots slots{plan.host, host_slots, {}};
  std::uint64_t sum = 0;
  for (const InstancePlan& instance : plan_->InstancesOf(plan)) {
    const std::uint32_t n = SlotsOf(instance.first, instance.last);
    if (n == 0) continue;
    slots.queues.emplace_back(instance.instance, n);
    sum += n;
  }
  if (slots.queues.empty()) return std::nullopt;
  if (listed) {
    std::sort(slots.queues.begin(), slots.queues.end(),
              [&](const auto& a, const auto& b) { return interval_.ListOrderLess(a.first, b.first); });
  }
  slots.available = static_cast<std::uint32_t>(std::min<std::uint64_t>(host_slots, sum));
  return slots;
}

}  // namespace schedk::dispatch_detail
