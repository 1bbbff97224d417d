#include "kernel/reservation/utilization_diagram.hpp"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>

namespace schedk {
namespace {

constexpr double kNoAmount = -std::numeric_limits<double>::infinity();
constexpr double kNoMinimum = std::numeric_limits<double>::infinity();

// utilization_add on `run`, a stretch of whole blocks holding every breakpoint
// the add changes and the one after them, then utilization_normalize over it.
// `before` is the amount of the breakpoint just before the run, nullopt when the
// run starts the diagram. The rest of the diagram was normalised already, so
// normalising the run normalises the whole diagram.
// Tells whether the run had breakpoints at start and end.
void AddToRun(std::vector<Breakpoint>& run, Time start, Time end, double amount, std::optional<double> before,
              bool& had_start, bool& had_end) {
  auto by_time = [](const Breakpoint& p, Time t) { return p.time < t; };
  // 1. At start: add to the breakpoint there, or insert one continuing the amount before it.
  auto it = std::lower_bound(run.begin(), run.end(), start, by_time);
  had_start = it != run.end() && it->time == start;
  if (had_start) {
    it->amount += amount;
  } else {
    const double previous = it == run.begin() ? before.value_or(0.0) : std::prev(it)->amount;
    it = run.insert(it, Breakpoint{start, previous + amount});
  }
  // 2. Inside the interval.
  for (++it; it != run.end() && it->time < end; ++it) it->amount += amount;
  // 3. At end: a breakpoint there stays; otherwise one returns to the amount before.
  had_end = it != run.end() && it->time == end;
  if (!had_end) run.insert(it, Breakpoint{end, std::prev(it)->amount - amount});
  // 4. Normalise: no leading zeros, no amount equal to its predecessor's.
  std::size_t read = 0, write = 0;
  if (!before) {
    while (read < run.size() && run[read].amount == 0.0) ++read;
  }
  std::optional<double> previous = before;
  for (; read < run.size(); ++read) {
    if (previous && *previous == run[read].amount) continue;
    previous = run[read].amount;
    run[write++] = run[read];
  }
  run.resize(write);
}

}  // namespace

UtilizationDiagram::Position UtilizationDiagram::Next(Position p) const {
  if (++p.offset < Count(p.block)) return p;
  return {p.block + 1, 0};
}

UtilizationDiagram::Position UtilizationDiagram::Previous(Position p) const {
  if (p.offset > 0) return {p.block, p.offset - 1};
  assert(p.block > 0);
  return {p.block - 1, Count(p.block - 1) - 1};
}

std::optional<UtilizationDiagram::Position> UtilizationDiagram::Floor(Time t) const {
  const auto block_it = std::upper_bound(first_time_.begin(), first_time_.end(), t);
  if (block_it == first_time_.begin()) return std::nullopt;
  const auto block = static_cast<std::uint32_t>(block_it - first_time_.begin() - 1);
  const Time* first = time_.data() + Slot(block);
  const Time* it = std::upper_bound(first, first + Count(block), t);
  return Position{block, static_cast<std::uint32_t>(it - first - 1)};
}

UtilizationDiagram::Position UtilizationDiagram::LowerBound(Time t) const {
  const std::optional<Position> floor = Floor(t);
  if (!floor) return {0, 0};
  return TimeAt(*floor) == t ? *floor : Next(*floor);
}

double UtilizationDiagram::RangeMax(Position from, Position to) const {
  double peak = kNoAmount;
  if (!(from < to)) return peak;
  auto scan = [&](std::uint32_t block, std::uint32_t begin, std::uint32_t end) {
    const double* amounts = amount_.data() + Slot(block);
    for (std::uint32_t i = begin; i < end; ++i) peak = std::max(peak, amounts[i]);
  };
  if (from.block == to.block) {
    scan(from.block, from.offset, to.offset);
    return peak;
  }
  scan(from.block, from.offset, Count(from.block));
  // Whole blocks in between, through the tree.
  std::size_t lo = leaves_ + from.block + 1, hi = leaves_ + to.block;
  for (; lo < hi; lo >>= 1, hi >>= 1) {
    if (lo & 1) peak = std::max(peak, tree_max_[lo++]);
    if (hi & 1) peak = std::max(peak, tree_max_[--hi]);
  }
  if (to.block < blocks()) scan(to.block, 0, to.offset);
  return peak;
}

std::optional<std::uint32_t> UtilizationDiagram::FirstBlock(std::uint32_t from, Test test, double limit) const {
  if (from >= blocks()) return std::nullopt;
  // Climb from the leaf, looking at each right sibling not yet covered...
  std::size_t node = leaves_ + from;
  if (!Holds(node, test, limit)) {
    for (;;) {
      if (node == 1) return std::nullopt;
      if ((node & 1) == 0 && Holds(node + 1, test, limit)) {
        node = node + 1;
        break;
      }
      node >>= 1;
    }
  }
  // ... then descend to the leftmost leaf that holds.
  while (node < leaves_) node = Holds(2 * node, test, limit) ? 2 * node : 2 * node + 1;
  return static_cast<std::uint32_t>(node - leaves_);
}

std::optional<std::uint32_t> UtilizationDiagram::LastBlock(std::uint32_t before, Test test, double limit) const {
  if (before == 0) return std::nullopt;
  std::size_t node = leaves_ + before - 1;
  if (!Holds(node, test, limit)) {
    for (;;) {
      if (node == 1) return std::nullopt;
      if ((node & 1) == 1 && Holds(node - 1, test, limit)) {
        node = node - 1;
        break;
      }
      node >>= 1;
    }
  }
  while (node < leaves_) node = Holds(2 * node + 1, test, limit) ? 2 * node + 1 : 2 * node;
  return static_cast<std::uint32_t>(node - leaves_);
}

std::optional<UtilizationDiagram::Position> UtilizationDiagram::FirstAbove(Position from, double limit) const {
  if (from.block >= blocks()) return std::nullopt;
  const double* amounts = amount_.data() + Slot(from.block);
  for (std::uint32_t i = from.offset; i < Count(from.block); ++i) {
    if (amounts[i] > limit) return Position{from.block, i};
  }
  const std::optional<std::uint32_t> block = FirstBlock(from.block + 1, Test::kAbove, limit);
  if (!block) return std::nullopt;
  const double* found = amount_.data() + Slot(*block);
  std::uint32_t i = 0;
  while (!(found[i] > limit)) ++i;  // the tree says one is there
  return Position{*block, i};
}

std::optional<UtilizationDiagram::Position> UtilizationDiagram::FirstAtMost(Position from, double limit) const {
  if (from.block >= blocks()) return std::nullopt;
  const double* amounts = amount_.data() + Slot(from.block);
  for (std::uint32_t i = from.offset; i < Count(from.block); ++i) {
    if (amounts[i] <= limit) return Position{from.block, i};
  }
  const std::optional<std::uint32_t> block = FirstBlock(from.block + 1, Test::kAtMost, limit);
  if (!block) return std::nullopt;
  const double* found = amount_.data() + Slot(*block);
  std::uint32_t i = 0;
  while (!(found[i] <= limit)) ++i;
  return Position{*block, i};
}

std::optional<UtilizationDiagram::Position> UtilizationDiagram::LastAbove(Position before, double limit) const {
  if (before.block < blocks()) {
    const double* amounts = amount_.data() + Slot(before.block);
    for (std::uint32_t i = before.offset; i-- > 0;) {
      if (amounts[i] > limit) return Position{before.block, i};
    }
  }
  const std::optional<std::uint32_t> block = LastBlock(before.block, Test::kAbove, limit);
  if (!block) return std::nullopt;
  const double* found = amount_.data() + Slot(*block);
  std::uint32_t i = Count(*block) - 1;
  while (!(found[i] > limit)) --i;
  return Position{*block, i};
}

std::optional<UtilizationDiagram::Position> UtilizationDiagram::LastAtMost(Position before, double limit) const {
  if (before.block < blocks()) {
    const double* amounts = amount_.data() + Slot(before.block);
    for (std::uint32_t i = before.offset; i-- > 0;) {
      if (amounts[i] <= limit) return Position{before.block, i};
    }
  }
  const std::optional<std::uint32_t> block = LastBlock(before.block, Test::kAtMost, limit);
  if (!block) return std::nullopt;
  const double* found = amount_.data() + Slot(*block);
  std::uint32_t i = Count(*block) - 1;
  while (!(found[i] <= limit)) --i;
  return Position{*block, i};
}

void UtilizationDiagram::Add(Time start, Duration duration, double amount, AddedEnds* ends) {
  assert(start >= 0 && start < kDiagramForever && duration > 0);
  if (amount < 0) ++releases_.value;
  const Time end = DiagramEnd(start, duration);
  if (AddInPlace(start, end, amount)) {
    if (ends != nullptr) *ends = {true, true, true, true};
    return;
  }
  // The blocks from the one in effect at `start` to the one after the one in
  // effect at `end`: every breakpoint the add or the normalisation can change
  // (with one block, that one).
  std::uint32_t first = 0, last = blocks();
  if (blocks() > 1) {
    const std::optional<Position> at_start = Floor(start);
    const std::optional<Position> at_end = Floor(end);
    first = at_start ? at_start->block : 0;
    last = std::min(std::max(first, at_end ? at_end->block : 0) + 2, blocks());
  }
  run_.clear();
  for (std::uint32_t b = first; b < last; ++b) {
    const std::size_t slot = Slot(b);
    for (std::uint32_t i = 0; i < Count(b); ++i) run_.push_back({time_[slot + i], amount_[slot + i]});
  }
  std::optional<double> before;
  if (first > 0) before = amount_[Slot(first - 1) + Count(first - 1) - 1];
  bool had_start = false, had_end = false;  // the run holds every breakpoint from `start` to `end`
  AddToRun(run_, start, end, amount, before, had_start, had_end);
  if (ends != nullptr) {
    ends->had_start = had_start;
    ends->had_end = had_end;
    auto at = [&](Time t) {
      const auto it = std::lower_bound(run_.begin(), run_.end(), t,
                                       [](const Breakpoint& p, Time time) { return p.time < time; });
      return it != run_.end() && it->time == t;
    };
    ends->has_start = at(start);
    ends->has_end = at(end);
  }
  Replace(first, last, run_);
}

bool UtilizationDiagram::AddInPlace(Time start, Time end, double amount) {
  if (size_ == 0) return false;
  const std::optional<Position> from = Floor(start);
  if (!from || TimeAt(*from) != start) return false;
  const Position to = *Floor(end);  // a breakpoint lies at or before `end`: the one at `start`
  if (TimeAt(to) != end) return false;
  // The amounts as AddToRun makes them; none may equal its predecessor's
  // (nor, for the first breakpoint, 0), or normalising would drop it.
  double previous = *from == Position{0, 0} ? 0.0 : AmountAt(Previous(*from));
  for (Position p = *from; p != to; p = Next(p)) {
    const double added = AmountAt(p) + amount;
    if (added == previous) return false;
    previous = added;
  }
  if (AmountAt(to) == previous) return false;
  for (std::uint32_t b = from->block; b <= to.block; ++b) {
    const std::uint32_t first = b == from->block ? from->offset : 0;
    const std::uint32_t last = b == to.block ? to.offset : Count(b);
    if (first == last) continue;
    const std::size_t slot = Slot(b);
    double peak = kNoAmount, low = kNoMinimum;
    for (std::uint32_t i = 0; i < Count(b); ++i) {
      if (i >= first && i < last) amount_[slot + i] += amount;
      peak = std::max(peak, amount_[slot + i]);
      low = std::min(low, amount_[slot + i]);
    }
    slot_max_[order_[b]] = peak;
    slot_min_[order_[b]] = low;
    UpdateLeaf(b);
  }
  UpdatePeakSteps();  // the last breakpoint, at or after `end`, keeps its amount
  return true;
}

void UtilizationDiagram::AddAll(std::span<const Addition> additions) {
  // Exact: every amount an integer, and the sum of their magnitudes (with the
  // diagram's own steps) below 2^53, so every partial sum is exact too.
  constexpr double kExact = 9007199254740992.0;  // 2^53
  double magnitude = 0;
  bool exact = true;
  std::vector<std::pair<Time, double>> steps;  // (time, change of the amount)
  steps.reserve(size_ + 2 * additions.size());
  double previous = 0;
  ForEachBreakpoint([&](Time t, double amount) {
    steps.emplace_back(t, amount - previous);
    exact = exact && std::floor(amount) == amount;
    magnitude += std::fabs(amount - previous);
    previous = amount;
  });
  for (const Addition& a : additions) {
    exact = exact && std::floor(a.amount) == a.amount;
    magnitude += 2 * std::fabs(a.amount);
  }
  if (!exact || !(magnitude < kExact)) {
    for (const Addition& a : additions) Add(a.start, a.duration, a.amount);
    return;
  }
  for (const Addition& a : additions) {
    assert(a.start >= 0 && a.start < kDiagramForever && a.duration > 0);
    if (a.amount < 0) ++releases_.value;
    steps.emplace_back(a.start, a.amount);
    steps.emplace_back(DiagramEnd(a.start, a.duration), -a.amount);
  }
  std::sort(steps.begin(), steps.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  // The normalised step function: a breakpoint where the amount changes (none while it stays 0 at first).
  run_.clear();
  double amount = 0;
  for (std::size_t k = 0; k < steps.size();) {
    const Time t = steps[k].first;
    for (; k < steps.size() && steps[k].first == t; ++k) amount += steps[k].second;
    if (amount != (run_.empty() ? 0.0 : run_.back().amount)) run_.push_back({t, amount});
  }
  Replace(0, blocks(), run_);
}

std::uint32_t UtilizationDiagram::AllocateSlot() {
  if (!free_slots_.empty()) {
    const std::uint32_t slot = free_slots_.back();
    free_slots_.pop_back();
    return slot;
  }
  count_.push_back(0);
  slot_max_.push_back(kNoAmount);
  slot_min_.push_back(kNoMinimum);
  return static_cast<std::uint32_t>(count_.size() - 1);
}

void UtilizationDiagram::WriteBlock(std::uint32_t slot, const Breakpoint* points, std::uint32_t count) {
  const std::size_t base = std::size_t{slot} * kBlockCapacity;
  if (time_.size() < base + count) {  // a lone small block grows with its content
    time_.resize(base + count);
    amount_.resize(base + count);
  }
  double peak = kNoAmount, low = kNoMinimum;
  for (std::uint32_t i = 0; i < count; ++i) {
    time_[base + i] = points[i].time;
    amount_[base + i] = points[i].amount;
    peak = std::max(peak, points[i].amount);
    low = std::min(low, points[i].amount);
  }
  count_[slot] = count;
  slot_max_[slot] = peak;
  slot_min_[slot] = low;
}

void UtilizationDiagram::Replace(std::uint32_t first, std::uint32_t last, const std::vector<Breakpoint>& run) {
  const auto n = static_cast<std::uint32_t>(run.size());
  const std::uint32_t old_blocks = last - first;
  std::size_t replaced = 0;
  for (std::uint32_t b = first; b < last; ++b) replaced += Count(b);
  // Keep the block count while the blocks stay between a quarter full and full;
  // otherwise cut the run into half-full blocks.
  std::uint32_t new_blocks = old_blocks;
  if (n == 0) {
    new_blocks = 0;
  } else if (n > old_blocks * kBlockCapacity || n < old_blocks * (kBlockCapacity / 4)) {
    new_blocks = std::max<std::uint32_t>(1, (n + kBlockCapacity / 2 - 1) / (kBlockCapacity / 2));
    new_blocks = std::min(new_blocks, n);
  }
  std::vector<std::uint32_t> slots(order_.begin() + first, order_.begin() + last);
  while (slots.size() > new_blocks) {
    free_slots_.push_back(slots.back());
    count_[slots.back()] = 0;
    slots.pop_back();
  }
  while (slots.size() < new_blocks) slots.push_back(AllocateSlot());
  std::vector<Time> firsts(new_blocks);
  for (std::uint32_t j = 0; j < new_blocks; ++j) {
    const std::uint32_t begin = static_cast<std::uint32_t>(std::uint64_t{n} * j / new_blocks);
    const std::uint32_t end = static_cast<std::uint32_t>(std::uint64_t{n} * (j + 1) / new_blocks);
    WriteBlock(slots[j], run.data() + begin, end - begin);
    firsts[j] = run[begin].time;
  }
  if (new_blocks == old_blocks) {
    for (std::uint32_t j = 0; j < new_blocks; ++j) {
      first_time_[first + j] = firsts[j];
      UpdateLeaf(first + j);
    }
  } else {
    order_.erase(order_.begin() + first, order_.begin() + last);
    order_.insert(order_.begin() + first, slots.begin(), slots.end());
    first_time_.erase(first_time_.begin() + first, first_time_.begin() + last);
    first_time_.insert(first_time_.begin() + first, firsts.begin(), firsts.end());
    RebuildTree();
  }
  size_ = size_ - replaced + n;
  if (size_ == 0) {
    tail_time_ = std::numeric_limits<Time>::min();
    tail_amount_ = 0;
  } else {
    const Position tail = Previous(End());
    tail_time_ = TimeAt(tail);
    tail_amount_ = AmountAt(tail);
  }
  one_block_count_ = blocks() == 1 ? Count(0) : kNotOneBlock;
  one_block_base_ = blocks() == 1 ? static_cast<std::uint32_t>(Slot(0)) : 0;
  UpdatePeakSteps();
}

void UtilizationDiagram::UpdatePeakSteps() {
  peak_first_from_ = peak_last_from_ = std::numeric_limits<Time>::max();
  peak_first_to_ = peak_last_to_ = std::numeric_limits<Time>::min();
  if (size_ == 0) return;
  peak_ = tree_max_[1];
  // Before the first breakpoint the amount is 0: a window reaching back there
  // peaks at the steps' peak only if that is not below 0.
  if (!(peak_ >= 0)) return;
  const double below = std::nextafter(peak_, -std::numeric_limits<double>::infinity());
  auto step_end = [&](Position p) {
    const Position next = Next(p);
    return next == End() ? std::numeric_limits<Time>::max() : TimeAt(next);
  };
  const std::optional<Position> first = FirstAbove({0, 0}, below);
  const std::optional<Position> last = LastAbove(End(), below);
  assert(first && last);  // the peak is some breakpoint's amount
  peak_first_from_ = TimeAt(*first);
  peak_first_to_ = step_end(*first);
  peak_last_from_ = TimeAt(*last);
  peak_last_to_ = step_end(*last);
}

void UtilizationDiagram::RebuildTree() {
  leaves_ = std::bit_ceil(std::max<std::size_t>(blocks(), 1));
  tree_max_.assign(2 * leaves_, kNoAmount);
  tree_min_.assign(2 * leaves_, kNoMinimum);
  for (std::uint32_t b = 0; b < blocks(); ++b) {
    tree_max_[leaves_ + b] = slot_max_[order_[b]];
    tree_min_[leaves_ + b] = slot_min_[order_[b]];
  }
  for (std::size_t node = leaves_ - 1; node >= 1; --node) {
    tree_max_[node] = std::max(tree_max_[2 * node], tree_max_[2 * node + 1]);
    tree_min_[node] = std::min(tree_min_[2 * node], tree_min_[2 * node + 1]);
  }
}

void UtilizationDiagram::UpdateLeaf(std::uint32_t block) {
  std::size_t node = leaves_ + block;
  tree_max_[node] = slot_max_[order_[block]];
  tree_min_[node] = slot_min_[order_[block]];
  for (node >>= 1; node >= 1; node >>= 1) {
    tree_max_[node] = std::max(tree_max_[2 * node], tree_max_[2 * node + 1]);
    tree_min_[node] = std::min(tree_min_[2 * node], tree_min_[2 * node + 1]);
  }
}

double UtilizationDiagram::Max(Time start, Duration duration) const {
  if (empty()) return 0;
  if (start >= kDiagramForever) return QueueEnd();  // utilization_max's QUEUE_END case
  const Time end = DiagramEnd(start, duration);
  if (ReachesPeak(start, end)) return peak_;
  if (one_block_count_ != kNotOneBlock) {
    // One block (most diagrams of hosts and queue instances): a search for the
    // amount in effect, then a scan to the window's end.
    const Time* times = time_.data() + one_block_base_;
    return OneBlockPeak(static_cast<std::uint32_t>(std::upper_bound(times, times + one_block_count_, start) - times),
                        end);
  }
  const std::optional<Position> in_effect = Floor(start);
  const double at_start = in_effect ? AmountAt(*in_effect) : 0.0;
  const Position inside = in_effect ? Next(*in_effect) : Position{0, 0};
  return std::max(at_start, RangeMax(inside, LowerBound(end)));
}

namespace {

// The first of times[0, n) after t, searched for from `from` outwards in
// doubling steps (O(log distance)). Contract: times ascend.
std::uint32_t UpperBoundFrom(const Time* times, std::uint32_t n, Time t, std::uint32_t from) {
  from = std::min(from, n);
  std::uint32_t lo = 0, hi = n;  // the answer lies in [lo, hi]
  if (from < n && times[from] <= t) {
    lo = from + 1;
    std::uint32_t step = 1;
    while (lo + step <= n && times[lo + step - 1] <= t) {
      lo += step;
      step *= 2;
    }
    hi = std::min(n, lo + step - 1);
  } else {
    hi = from;  // times[hi] > t, or hi == n
    std::uint32_t step = 1;
    while (hi >= step && times[hi - step] > t) {
      hi -= step;
      step *= 2;
    }
    lo = hi >= step ? hi - step + 1 : 0;
  }
  return static_cast<std::uint32_t>(std::upper_bound(times + lo, times + hi, t) - times);
}

}  // namespace

double UtilizationDiagram::Max(Time start, Duration duration, std::uint32_t& hint) const {
  if (start >= tail_time_ && start < kDiagramForever) return tail_amount_;  // past the last breakpoint (or empty)
  if (one_block_count_ == kNotOneBlock || start >= kDiagramForever) return Max(start, duration);
  const Time end = DiagramEnd(start, duration);
  if (ReachesPeak(start, end)) return peak_;
  hint = UpperBoundFrom(time_.data() + one_block_base_, one_block_count_, start, hint);
  return OneBlockPeak(hint, end);
}

double UtilizationDiagram::OneBlockPeak(std::uint32_t i, Time end) const {
  const Time* times = time_.data() + one_block_base_;
  const double* amounts = amount_.data() + one_block_base_;
  const std::uint32_t n = one_block_count_;
  double peak = i > 0 ? amounts[i - 1] : 0.0;
  for (; i < n && times[i] < end; ++i) peak = std::max(peak, amounts[i]);
  return peak;
}

double UtilizationDiagram::AmountAt(Time t, std::uint32_t& hint) const {
  if (t >= tail_time_) return tail_amount_;
  if (ReachesPeak(t, t + 1)) return peak_;
  if (one_block_count_ == kNotOneBlock) return AmountAt(t);
  const std::uint32_t i = UpperBoundFrom(time_.data() + one_block_base_, one_block_count_, t, hint);
  hint = i;
  return i > 0 ? amount_[one_block_base_ + i - 1] : 0.0;
}

double UtilizationDiagram::AmountAt(Time t) const {
  const std::optional<Position> in_effect = Floor(t);
  return in_effect ? AmountAt(*in_effect) : 0.0;
}

double UtilizationDiagram::QueueEnd() const {
  if (empty()) return 0;
  Position last = Previous(End());
  if (TimeAt(last) == kDiagramForever && size_ > 1) last = Previous(last);
  return AmountAt(last);
}

Time UtilizationDiagram::Below(double limit) const {
  // The latest breakpoint at most `limit`; the run of such breakpoints it ends
  // begins right after the latest breakpoint above `limit` before it.
  const std::optional<Position> at_most = LastAtMost(End(), limit);
  if (!at_most) return 0;
  const std::optional<Position> above = LastAbove(*at_most, limit);
  if (!above) return 0;
  return TimeAt(Next(*above));
}

std::optional<UtilizationDiagram::Position> UtilizationDiagram::LastAboveBefore(Position first, Time end,
                                                                                double limit) const {
  // The window's end, found forward from `first`: windows are mostly short.
  std::uint32_t block = first.block;
  for (int step = 0; block + 1 < blocks() && first_time_[block + 1] < end; ++step) {
    if (step == 4) {  // a long window: jump there
      block = static_cast<std::uint32_t>(std::lower_bound(first_time_.begin() + block, first_time_.end(), end) -
                                         first_time_.begin() - 1);
      break;
    }
    ++block;
  }
  if (block >= blocks()) return std::nullopt;
  const Time* times = time_.data() + Slot(block);
  const std::uint32_t from = block == first.block ? first.offset : 0;
  Position stop{block, static_cast<std::uint32_t>(std::lower_bound(times + from, times + Count(block), end) - times)};
  if (stop.offset == Count(block)) stop = {block + 1, 0};
  // Backwards from there: the last breakpoint over the limit, if it is in the window.
  const std::optional<Position> found = LastAbove(stop, limit);
  return found && !(*found < first) ? found : std::nullopt;
}

std::optional<Time> UtilizationDiagram::EarliestFit(Time from, Duration duration, double limit) const {
  if (limit < 0) return std::nullopt;  // even an idle resource is over the limit
  Time t = from;
  std::optional<Position> in_effect = Floor(t);
  for (;;) {
    // No start up to the last breakpoint over the limit in the window fits; the
    // next candidate is the first breakpoint after it that is not over.
    const std::optional<Position> blocker =
        LastAboveBefore(in_effect ? *in_effect : Position{0, 0}, DiagramEnd(t, duration), limit);
    if (!blocker) return t < kDiagramForever ? std::optional<Time>(t) : std::nullopt;
    in_effect = FirstAtMost(Next(*blocker), limit);
    if (!in_effect) return std::nullopt;
    t = TimeAt(*in_effect);
  }
}

std::optional<Time> UtilizationDiagram::EarliestFit(Time from, Duration duration, double limit,
                                                    FitFrontier& frontier) const {
  frontier.Follow(this, releases_.value);
  const Time bound = frontier.LowerBound(from, duration, limit);
  const std::optional<Time> fit = bound < kDiagramForever ? EarliestFit(bound, duration, limit) : std::nullopt;
  frontier.Remember({from, duration, limit, fit.value_or(kDiagramForever)});
  return fit;
}

std::optional<Time> UtilizationDiagram::LastBreakpoint() const {
  if (empty()) return std::nullopt;
  return TimeAt(Previous(End()));
}

std::optional<Time> UtilizationDiagram::LastBreakpointBefore(Time t) const {
  const std::optional<Position> floor = Floor(t);
  if (!floor) return std::nullopt;
  if (TimeAt(*floor) < t) return TimeAt(*floor);
  if (*floor == Position{0, 0}) return std::nullopt;
  return TimeAt(Previous(*floor));
}

std::optional<Time> UtilizationDiagram::LastIncrease() const {
  if (empty()) return std::nullopt;
  Position p = Previous(End());
  for (;;) {
    const bool first = p == Position{0, 0};
    const double before = first ? 0.0 : AmountAt(Previous(p));
    if (AmountAt(p) > before) return TimeAt(p);
    if (first) return std::nullopt;
    p = Previous(p);
  }
}

std::vector<Breakpoint> UtilizationDiagram::Breakpoints() const {
  std::vector<Breakpoint> points;
  points.reserve(size_);
  for (std::uint32_t b = 0; b < blocks(); ++b) {
    for (std::uint32_t i = 0; i < Count(b); ++i) points.push_back({TimeAt({b, i}), AmountAt({b, i})});
  }
  return points;
}

bool UtilizationDiagram::SameSteps(const UtilizationDiagram& other) const {
  if (size_ != other.size_) return false;
  Position a{0, 0}, b{0, 0};
  for (std::size_t n = 0; n < size_; ++n, a = Next(a), b = other.Next(b)) {
    if (TimeAt(a) != other.TimeAt(b) || AmountAt(a) != other.AmountAt(b)) return false;
  }
  return true;
}

void UtilizationDiagram::AppendTimesIn(Time from, Time to, std::vector<Time>& out) const {
  for (Position p = LowerBound(from); p < End() && TimeAt(p) < to; p = Next(p)) out.push_back(TimeAt(p));
}

std::optional<Time> UtilizationDiagram::NextBreakpoint(Time t) const {
  const Position p = LowerBound(t);
  if (!(p < End())) return std::nullopt;
  return TimeAt(p);
}

bool UtilizationDiagram::HasBreakpointAt(Time t) const {
  const std::optional<Position> floor = Floor(t);
  return floor && TimeAt(*floor) == t;
}

std::optional<Time> UtilizationDiagram::FirstBreakpoint() const {
  if (empty()) return std::nullopt;
  return TimeAt({0, 0});
}

// --- NaiveUtilizationDiagram, the reference twin ---------------------------------------------------
void NaiveUtilizationDiagram::Add(Time start, Duration duration, double amount) {
  assert(start >= 0 && start < kDiagramForever && duration > 0);
  const Time end = DiagramEnd(start, duration);
  // utilization_add, step by step over the whole list.
  std::size_t i = 0;
  while (i < points_.size() && points_[i].time < start) ++i;
  if (i < points_.size() && points_[i].time == start) {
    points_[i].amount += amount;
  } else {
    const double previous = i == 0 ? 0.0 : points_[i - 1].amount;
    points_.insert(points_.begin() + static_cast<std::ptrdiff_t>(i), Breakpoint{start, previous + amount});
  }
  for (++i; i < points_.size() && points_[i].time < end; ++i) points_[i].amount += amount;
  if (i == points_.size() || points_[i].time != end) {
    points_.insert(points_.begin() + static_cast<std::ptrdiff_t>(i), Breakpoint{end, points_[i - 1].amount - amount});
  }
  // utilization_normalize.
  while (!points_.empty() && points_.front().amount == 0.0) points_.erase(points_.begin());
  std::vector<Breakpoint> kept;
  for (const Breakpoint& p : points_) {
    if (kept.empty() || kept.back().amount != p.amount) kept.push_back(p);
  }
  points_ = std::move(kept);
}

double NaiveUtilizationDiagram::Max(Time start, Duration duration) const {
  if (start >= kDiagramForever) return QueueEnd();  // utilization_max's QUEUE_END case
  const Time end = DiagramEnd(start, duration);
  double peak = 0;
  for (const Breakpoint& p : points_) {
    if (p.time <= start) peak = p.amount;  // the amount in effect at start
  }
  for (const Breakpoint& p : points_) {
    if (p.time > start && p.time < end) peak = std::max(peak, p.amount);
  }
  return peak;
}

double NaiveUtilizationDiagram::QueueEnd() const {
  if (points_.empty()) return 0;
  if (points_.back().time == kDiagramForever && points_.size() > 1) return points_[points_.size() - 2].amount;
  return points_.back().amount;
}

Time NaiveUtilizationDiagram::Below(double limit) const {
  // utilization_below: backwards from the end.
  for (std::size_t i = points_.size(); i-- > 1;) {
    if (points_[i].amount <= limit && points_[i - 1].amount > limit) return points_[i].time;
  }
  return 0;
}

std::optional<Time> NaiveUtilizationDiagram::EarliestFit(Time from, Duration duration, double limit) const {
  if (limit < 0 || from >= kDiagramForever) return std::nullopt;
  if (Max(from, duration) <= limit) return from;
  for (const Breakpoint& p : points_) {
    if (p.time > from && p.time < kDiagramForever && Max(p.time, duration) <= limit) return p.time;
  }
  return std::nullopt;
}

std::optional<Time> NaiveUtilizationDiagram::LastIncrease() const {
  for (std::size_t i = points_.size(); i-- > 0;) {
    if (points_[i].amount > (i == 0 ? 0.0 : points_[i - 1].amount)) return points_[i].time;
  }
  return std::nullopt;
}

std::optional<Time> NaiveUtilizationDiagram::LastBreakpoint() const {
  if (points_.empty()) return std::nullopt;
  return points_.back().time;
}

std::optional<Time> NaiveUtilizationDiagram::LastBreakpointBefore(Time t) const {
  std::optional<Time> found;
  for (const Breakpoint& p : points_) {
    if (p.time < t) found = p.time;
  }
  return found;
}

}  // namespace schedk
