// utilization_diagram.hpp
// A resource utilisation diagram (Grid Engine's `utilized` list of a RUE,
// sge_resource_utilization.c): how much of one resource one container (a PE, the
// global host, an exec host, a queue instance) has in use, as a step function
// of time. Each breakpoint (time, amount) holds from its time until the next
// breakpoint; before the first the amount is 0, after the last it is the last
// amount (normally 0). Time kDiagramForever (2^32 - 1) is Grid Engine's U32MAX.
//
// Storage: the breakpoints lie in contiguous sorted arrays, cut into blocks of
// at most kBlockCapacity (a two-level B+tree), with a segment tree of block
// maxima and minima over them. Max, Below, EarliestFit and breakpoint lookups
// cost O(log n + B); Add costs O(k + B + log n) for the k breakpoints inside the
// added interval, amortised over block splits. NaiveUtilizationDiagram is the
// O(n) twin that spells Grid Engine's list operations out; both give the same
// breakpoints to the bit, because Add performs Grid Engine's own additions
// breakpoint by breakpoint, in the same order.
//
// Invariants after every public call (utilization_normalize): times strictly
// increase; the first amount is not 0; no amount equals its predecessor's.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "kernel/reservation/fit_frontier.hpp"
#include "kernel/types.hpp"

namespace schedk {

// Grid Engine's U32MAX: the end of an infinite job and the end of every plan.
inline constexpr Time kDiagramForever = std::numeric_limits<std::uint32_t>::max();

// A booking's end s + d, saturated at kDiagramForever.
inline Time DiagramEnd(Time start, Duration duration) {
  return start + duration < kDiagramForever ? start + duration : kDiagramForever;
}

struct Breakpoint {
  Time time = 0;
  double amount = 0;
  friend bool operator==(const Breakpoint&, const Breakpoint&) = default;
};

class UtilizationDiagram {
 public:
  // 128 keeps most host and queue-instance diagrams in one block, where Max is one
  // search and a short scan.
  static constexpr std::uint32_t kBlockCapacity = 128;

  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }

  // utilization_add: `amount` more in use over [start, DiagramEnd(start, duration)),
  // then normalised. A negative amount undoes an earlier add.
  // Contract: 0 <= start < kDiagramForever and duration > 0.
  // With `ends`, Add also tells whether a breakpoint lay at the window's start
  // and end before it and lies there after it.
  struct AddedEnds {
    bool had_start = false, had_end = false, has_start = false, has_end = false;
  };
  void Add(Time start, Duration duration, double amount, AddedEnds* ends = nullptr);

  // Add for each of `additions` in turn, to the same breakpoints. Where every
  // amount and every sum of them and of the diagram's amounts is an integer
  // a double holds exactly, no order of the additions changes a sum, so the
  // step function is built at once from the sorted ends (O(n log n) where n
  // Adds cost O(n^2) when their windows overlap); otherwise one Add after
  // another. Contract: each as Add's.
  struct Addition {
    Time start = 0;
    Duration duration = 0;
    double amount = 0;
  };
  void AddAll(std::span<const Addition> additions);

  // utilization_max: the peak over [start, end), i.e. the amount in effect at
  // `start` and that of every breakpoint inside the window; for start =
  // kDiagramForever (QUEUE_END) the queue-end utilization, as Grid Engine's.
  double Max(Time start, Duration duration) const;

  // The amount in effect at t (0 before the first breakpoint). From the last
  // increase on, it equals Max(t, d) for every d.
  double AmountAt(Time t) const;

  // Max and AmountAt for a caller that asks one diagram again and again at
  // nearby times: the search for `start` begins where `hint` points (the place
  // an earlier question left there; any value is valid) and gallops from
  // there. The answers are Max's and AmountAt's.
  double Max(Time start, Duration duration, std::uint32_t& hint) const;
  double AmountAt(Time t, std::uint32_t& hint) const;

  // utilization_queue_end: the last amount, or the one before it when the last
  // breakpoint is at kDiagramForever (an infinite job). 0 when empty.
  double QueueEnd() const;

  // utilization_below: the time from which the amount stays at most `limit`
  // up to the last breakpoint (the latest breakpoint whose amount is <= limit
  // while its predecessor's is > limit), or 0 ("now") if there is none. It looks
  // at the tail only: Grid Engine never reserves a gap.
  Time Below(double limit) const;

  // The earliest start t >= from, among `from` and the breakpoint times after it,
  // at which the amount stays <= limit over [t, DiagramEnd(t, duration)); nullopt
  // if there is none before kDiagramForever. This does use gaps: the
  // RESERVE_IN_GAPS=1 extension.
  std::optional<Time> EarliestFit(Time from, Duration duration, double limit) const;
  // The same answer, searched from where `frontier`'s earlier answers on this
  // diagram allow (fit_frontier.hpp), and remembered there for later questions.
  std::optional<Time> EarliestFit(Time from, Duration duration, double limit, FitFrontier& frontier) const;

  // The queue-end-time iterator's steps: the time of the last breakpoint,
  // and of the latest breakpoint before `t`; nullopt when there is none.
  std::optional<Time> LastBreakpoint() const;
  std::optional<Time> LastBreakpointBefore(Time t) const;

  // The time of the last breakpoint whose amount is above the one before it
  // (for the first, above 0); nullopt if there is none. From there on the
  // amount only falls, so a window's peak is the amount at its start.
  std::optional<Time> LastIncrease() const;

  // Every breakpoint in time order.
  std::vector<Breakpoint> Breakpoints() const;
  // Calls visit(time, amount) for every breakpoint in time order.
  template <class Visit>
  void ForEachBreakpoint(Visit visit) const {
    const std::uint32_t n = blocks();
    for (std::uint32_t b = 0; b < n; ++b) {
      // Pointers read once: `visit` may write memory the compiler cannot tell from these.
      const Time* times = time_.data() + Slot(b);
      const double* amounts = amount_.data() + Slot(b);
      const std::uint32_t count = Count(b);
      for (std::uint32_t i = 0; i < count; ++i) visit(times[i], amounts[i]);
    }
  }
  // Whether both diagrams have the same breakpoints (the same step function).
  bool SameSteps(const UtilizationDiagram& other) const;
  // The times of the breakpoints in [from, to), in time order, appended to `out`.
  void AppendTimesIn(Time from, Time to, std::vector<Time>& out) const;
  // The time of the first breakpoint; nullopt when empty.
  std::optional<Time> FirstBreakpoint() const;
  // The time of the first breakpoint at or after t; nullopt if there is none.
  std::optional<Time> NextBreakpoint(Time t) const;
  // Whether a breakpoint lies at t.
  bool HasBreakpointAt(Time t) const;

 private:
  // A breakpoint's place: a block in time order (an index into order_) and an
  // offset inside it. {blocks(), 0} is the end.
  struct Position {
    std::uint32_t block = 0;
    std::uint32_t offset = 0;
    friend auto operator<=>(const Position&, const Position&) = default;
  };

  std::uint32_t blocks() const { return static_cast<std::uint32_t>(order_.size()); }
  std::uint32_t Count(std::uint32_t block) const { return count_[order_[block]]; }
  std::size_t Slot(std::uint32_t block) const { return std::size_t{order_[block]} * kBlockCapacity; }
  Time TimeAt(Position p) const { return time_[Slot(p.block) + p.offset]; }
  double AmountAt(Position p) const { return amount_[Slot(p.block) + p.offset]; }
  Position End() const { return {blocks(), 0}; }
  Position Next(Position p) const;
  Position Previous(Position p) const;  // contract: p is not the first breakpoint

  std::optional<Position> Floor(Time t) const;  // the latest breakpoint at or before t
  // Max over a window ending at `end` of a one-block diagram, the amount in
  // effect at its start being that before breakpoint i (the first after the start).
  double OneBlockPeak(std::uint32_t i, Time end) const;
  Position LowerBound(Time t) const;            // the first breakpoint at or after t

  double RangeMax(Position from, Position to) const;                        // over [from, to); -inf if empty
  std::optional<Position> FirstAbove(Position from, double limit) const;    // amount > limit
  std::optional<Position> FirstAtMost(Position from, double limit) const;   // amount <= limit
  std::optional<Position> LastAbove(Position before, double limit) const;   // in [0, before)
  std::optional<Position> LastAtMost(Position before, double limit) const;  // in [0, before)
  // The last breakpoint over `limit` from `first` up to the first breakpoint at or after `end`.
  std::optional<Position> LastAboveBefore(Position first, Time end, double limit) const;

  // Add where breakpoints lie at `start` and `end` already and none in
  // between takes its predecessor's amount: the amounts change in place, no
  // block is rewritten. False (and nothing changed) otherwise.
  bool AddInPlace(Time start, Time end, double amount);
  // Replaces the blocks [first, last) (in time order) by `run`, cut into blocks.
  void Replace(std::uint32_t first, std::uint32_t last, const std::vector<Breakpoint>& run);
  void WriteBlock(std::uint32_t slot, const Breakpoint* points, std::uint32_t count);
  std::uint32_t AllocateSlot();
  void RebuildTree();
  void UpdateLeaf(std::uint32_t block);
  // The first block in [from, blocks()) / last block in [0, before) whose subtree
  // holds an amount above `limit` (kAbove) or at most `limit` (kAtMost).
  enum class Test : std::uint8_t { kAbove, kAtMost };
  std::optional<std::uint32_t> FirstBlock(std::uint32_t from, Test test, double limit) const;
  std::optional<std::uint32_t> LastBlock(std::uint32_t before, Test test, double limit) const;
  bool Holds(std::size_t node, Test test, double limit) const {
    return test == Test::kAbove ? tree_max_[node] > limit : tree_min_[node] <= limit;
  }

  // The last breakpoint, kept by Replace (time: the lowest Time when empty):
  // questions from there on are answered without a search, reading only the
  // object's first cache line.
  Time tail_time_ = std::numeric_limits<Time>::min();
  double tail_amount_ = 0;
  // The diagram's peak and the first and last steps [from, to) in which it is
  // in effect (to: the next breakpoint, or the greatest Time after the last),
  // kept by Replace: a window that overlaps either step peaks there, which
  // answers most long windows without a search (none: from > to).
  double peak_ = 0;
  Time peak_first_from_ = std::numeric_limits<Time>::max(), peak_first_to_ = std::numeric_limits<Time>::min();
  Time peak_last_from_ = std::numeric_limits<Time>::max(), peak_last_to_ = std::numeric_limits<Time>::min();
  bool ReachesPeak(Time start, Time end) const {
    return (peak_first_from_ < end && peak_first_to_ > start) || (peak_last_from_ < end && peak_last_to_ > start);
  }
  void UpdatePeakSteps();
  // Block slot s holds its breakpoints at [s * kBlockCapacity, + count_[s]).
  // Declared next to the fields above, so that a question about a one-block
  // diagram reads the object's first two cache lines and its breakpoints only.
  std::vector<Time> time_;
  std::vector<double> amount_;
  // Where there is one block (most diagrams of hosts and queue instances,
  // kept by Replace): its breakpoints' count and their place in time_ and
  // amount_; kNotOneBlock otherwise.
  static constexpr std::uint32_t kNotOneBlock = UINT32_MAX;
  std::uint32_t one_block_count_ = kNotOneBlock;
  std::uint32_t one_block_base_ = 0;
  std::vector<std::uint32_t> count_;
  std::vector<double> slot_max_, slot_min_;
  std::vector<std::uint32_t> free_slots_;
  std::vector<std::uint32_t> order_;  // blocks in time order -> slot
  std::vector<Time> first_time_;      // blocks in time order -> time of their first breakpoint
  std::size_t size_ = 0;
  // How often usage may have fallen (an Add with a negative amount, or the
  // diagram assigned over), for FitFrontier: assignment counts as a release.
  struct ReleaseCount {
    std::uint64_t value = 0;
    ReleaseCount() = default;
    ReleaseCount(const ReleaseCount&) = default;
    ReleaseCount& operator=(const ReleaseCount& other) {
      value = std::max(value, other.value) + 1;
      return *this;
    }
  };
  ReleaseCount releases_;
  // Segment tree over the blocks in time order: leaves at [leaves_, 2 * leaves_).
  std::size_t leaves_ = 0;
  std::vector<double> tree_max_, tree_min_;
  std::vector<Breakpoint> run_;  // Add's working copy of the blocks it changes
};

// The reference twin and test oracle: Grid Engine's list operations of
// sge_resource_utilization.c spelt out over one sorted vector, every operation
// O(n) (EarliestFit O(n^2)). Same interface, same results to the bit; the
// invariants above.
class NaiveUtilizationDiagram {
 public:
  bool empty() const { return points_.empty(); }
  std::size_t size() const { return points_.size(); }
  void Add(Time start, Duration duration, double amount);
  double Max(Time start, Duration duration) const;
  double AmountAt(Time t) const {
    double amount = 0;
    for (const Breakpoint& p : points_) {
      if (p.time > t) break;
      amount = p.amount;
    }
    return amount;
  }
  double QueueEnd() const;
  Time Below(double limit) const;
  std::optional<Time> EarliestFit(Time from, Duration duration, double limit) const;
  std::optional<Time> LastBreakpoint() const;
  std::optional<Time> LastBreakpointBefore(Time t) const;
  std::optional<Time> LastIncrease() const;
  const std::vector<Breakpoint>& Breakpoints() const { return points_; }
  void AppendTimesIn(Time from, Time to, std::vector<Time>& out) const {
    for (const Breakpoint& p : points_) {
      if (p.time >= from && p.time < to) out.push_back(p.time);
    }
  }
  std::optional<Time> NextBreakpoint(Time t) const {
    for (const Breakpoint& p : points_) {
      if (p.time >= t) return p.time;
    }
    return std::nullopt;
  }
  std::optional<Time> FirstBreakpoint() const {
    return points_.empty() ? std::nullopt : std::optional<Time>(points_.front().time);
  }
  // Takes over normalised breakpoints (benchmarks start large diagrams this way).
  void Assign(std::vector<Breakpoint> points) { points_ = std::move(points); }

 private:
  std::vector<Breakpoint> points_;
};

}  // namespace schedk
