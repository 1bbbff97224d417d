#include "kernel/reservation/host_coverage.hpp"

#include <algorithm>
#include <optional>
#include <span>

#include <tbb/parallel_for.h>

#include "kernel/tuning.hpp"

namespace schedk::dispatch_detail {

namespace {

constexpr Time kBefore = std::numeric_limits<Time>::min(), kAfter = std::numeric_limits<Time>::max();

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

// Appends to `ranges` the start times at which demand g (its steps in
// `steps`) denies its host per_host slots over a window of length d.
void AppendDenied(std::uint32_t g, std::span<const Breakpoint> steps, const DemandCounter& count,
                  std::uint32_t per_host, Duration d, std::vector<std::pair<Time, Time>>& ranges) {
  // Whether a step at `amount` denies the host: counts fall as amounts rise,
  // so amounts up to one that allows allow, from one that denies deny.
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
  // queue end, the amount before a last breakpoint there: that step reaches it.
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
  for (const Breakpoint& point : steps) {
    step();
    from = point.time;
    amount = point.amount;
  }
  step();
  if (run_from) ranges.emplace_back(*run_from == kBefore ? kBefore : *run_from - d + 1, kAfter);
}

// One block of plan hosts: each host's denied ranges, and their intersection
// (where one host suffices) or their +1/-1 events (where hosts are counted).
struct Block {
  std::vector<std::pair<Time, Time>> denied;
  std::vector<std::uint32_t> host_end;  // per host of the block: the end of its ranges in `denied`
  std::vector<std::pair<Time, Time>> all_denied = {{kBefore, kAfter}};
  std::vector<std::pair<Time, std::int32_t>> events;

  // Merges the host's ranges (several demands give overlapping ones) into `denied`.
  void AddHost(std::vector<std::pair<Time, Time>>& ranges, bool one_suffices) {
    std::sort(ranges.begin(), ranges.end());
    const std::size_t host_begin = host_end.empty() ? 0 : host_end.back();
    for (const auto& [from, to] : ranges) {
      const bool joins =
          denied.size() > host_begin && (denied.back().second == kAfter || from <= denied.back().second + 1);
      if (joins) {
        denied.back().second = std::max(denied.back().second, to);
      } else {
        denied.emplace_back(from, to);
      }
    }
    if (one_suffices) {
      if (!all_denied.empty()) all_denied = Intersect(all_denied, TimeRanges(denied).subspan(host_begin));
    } else {
      for (std::size_t r = host_begin; r < denied.size(); ++r) {
        events.emplace_back(denied[r].first, 1);
        if (denied[r].second != kAfter) events.emplace_back(denied[r].second + 1, -1);
      }
    }
    host_end.push_back(static_cast<std::uint32_t>(denied.size()));
  }
};

// The times at which the hosts fail, from the events of the hosts denied:
// counted from each event on, the hosts fail where the rule does not allow the others.
std::vector<std::pair<Time, Time>> FailuresOf(std::vector<std::pair<Time, std::int32_t>>& events,
                                              std::uint32_t host_count, const RuleVerdict& verdict) {
  std::sort(events.begin(), events.end());
  std::vector<std::pair<Time, Time>> failures;
  auto fail = [&](Time from, Time to) {
    if (!failures.empty() && failures.back().second != kAfter && failures.back().second + 1 == from) {
      failures.back().second = to;
    } else {
      failures.emplace_back(from, to);
    }
  };
  auto allow = [&](std::uint64_t hosts) { return verdict.Allows(0, hosts); };
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
  return failures;
}

}  // namespace

bool HostCoverage::Denies(std::uint32_t h, Time t) const {
  return Meets(TimeRanges(denied).subspan(host_first[h], host_first[h + 1] - host_first[h]), t, t);
}
bool HostCoverage::FailsAt(Time t) const { return Meets(failures, t, t); }
bool HostCoverage::FailsIn(Time low, Time high) const { return Meets(failures, low, high); }

HostCoverage HostCoverage::Build(const WalkPlan& walk, const DemandCounter& count, const RuleVerdict& verdict,
                                 Duration d, const ResourceLedger& ledger, FlatDiagrams& flat) {
  // Where one host suffices ($pe_slots), the hosts fail where all of them are
  // denied: the intersection of their ranges. Otherwise the hosts denied are
  // counted over events, +1 where a range begins, -1 after it ends.
  const bool one_suffices = verdict.Allows(0, 1);
  std::vector<std::uint32_t> entries(walk.demands.size());
  for (std::size_t g = 0; g < entries.size(); ++g) entries[g] = walk.demands[g].entry;
  flat.Refresh(ledger, entries);
  const auto host_count = static_cast<std::uint32_t>(walk.hosts.size());
  std::vector<Block> blocks((host_count + tuning::kPlanHostsPerBlock - 1) / tuning::kPlanHostsPerBlock);
  tbb::parallel_for(std::size_t{0}, blocks.size(), [&](std::size_t b) {
    std::vector<std::pair<Time, Time>> ranges;
    const auto end = std::min(host_count, static_cast<std::uint32_t>((b + 1) * tuning::kPlanHostsPerBlock));
    for (auto h = static_cast<std::uint32_t>(b * tuning::kPlanHostsPerBlock); h < end; ++h) {
      const HostPlan& plan = walk.hosts[h];
      ranges.clear();
      for (std::uint32_t g = plan.first; g < walk.DemandsEnd(plan); ++g) {
        AppendDenied(g, flat.Steps(walk.demands[g].entry), count, verdict.per_host, d, ranges);
      }
      blocks[b].AddHost(ranges, one_suffices);
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
  coverage.failures = one_suffices ? std::move(all_denied) : FailuresOf(events, host_count, verdict);
  return coverage;
}

}  // namespace schedk::dispatch_detail
