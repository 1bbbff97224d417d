// Resource utilisation diagrams: the test vectors of sge-algorithms.md §5.1
// (T5.1-T5.3) on both implementations, and the block-structured diagram
// against its naive twin over long random operation sequences.
#include "kernel/reservation/utilization_diagram.hpp"

#include <cstdint>
#include <random>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>


namespace schedk {
namespace {

template <class Diagram>
class DiagramVectorsTest : public ::testing::Test {};
using Diagrams = ::testing::Types<UtilizationDiagram, NaiveUtilizationDiagram>;
TYPED_TEST_SUITE(DiagramVectorsTest, Diagrams);

std::vector<Breakpoint> Points(std::initializer_list<Breakpoint> points) { return points; }

template <class Diagram>
std::vector<Breakpoint> PointsOf(const Diagram& d) {
  const auto& points = d.Breakpoints();
  return std::vector<Breakpoint>(points.begin(), points.end());
}

// Walks the queue-end-time iterator of one diagram: the last breakpoint, then
// each earlier one.
template <class Diagram>
std::vector<Time> IteratorTimes(const Diagram& d) {
  std::vector<Time> times;
  for (std::optional<Time> t = d.LastBreakpoint(); t; t = d.LastBreakpointBefore(*t)) times.push_back(*t);
  return times;
}

TYPED_TEST(DiagramVectorsTest, T5_1_AddMaxAndIterator) {
  TypeParam d;
  d.Add(800, 200, 8);
  d.Add(1000, 100, 4);
  d.Add(1100, 100, 8);
  EXPECT_EQ(PointsOf(d), Points({{800, 8}, {1000, 4}, {1100, 8}, {1200, 0}}));
  EXPECT_EQ(d.Max(1000, 100), 4);
  EXPECT_EQ(d.Max(1200, 150), 0);
  EXPECT_EQ(d.Max(700, 150), 8);
  EXPECT_EQ(IteratorTimes(d), (std::vector<Time>{1200, 1100, 1000, 800}));
  EXPECT_EQ(d.LastIncrease(), 1100);  // 4 -> 8
}

// T5.2's stated result follows from the diagram after T5.1's first two adds,
// {800:8, 1000:4, 1100:0}: the infinite add makes 1100 read 4, equal to 1000's
// 4, and normalisation merges it away. (After all three of T5.1's adds, 1100
// would read 12 and could not merge.)
TYPED_TEST(DiagramVectorsTest, T5_2_NormalisationWithInfinity) {
  TypeParam d;
  d.Add(800, 200, 8);
  d.Add(1000, 100, 4);
  ASSERT_EQ(PointsOf(d), Points({{800, 8}, {1000, 4}, {1100, 0}}));
  d.Add(1100, kDiagramForever, 4);
  d.Add(2000, kDiagramForever, 4);
  EXPECT_EQ(PointsOf(d), Points({{800, 8}, {1000, 4}, {2000, 8}, {kDiagramForever, 0}}));
  EXPECT_EQ(d.Max(1200, kDiagramForever), 8);
  EXPECT_EQ(d.Max(1000, 1000), 4);  // 2000 is not < 2000
  EXPECT_EQ(d.QueueEnd(), 8);
  EXPECT_EQ(IteratorTimes(d), (std::vector<Time>{kDiagramForever, 2000, 1000, 800}));
  // §5.1: max at s = U32MAX is the queue-end utilization, not the 0 after the
  // infinite jobs' end entry, so the QETI's first candidate fails for a job
  // that needs what they hold forever.
  EXPECT_EQ(d.Max(kDiagramForever, 60), 8);
}

TYPED_TEST(DiagramVectorsTest, T5_3_Below) {
  constexpr Time T = 1077903416;
  TypeParam d;
  d.Add(T, 30, 4);
  EXPECT_EQ(PointsOf(d), Points({{T, 4}, {T + 30, 0}}));
  EXPECT_EQ(d.Below(0), T + 30);
  EXPECT_EQ(d.Below(4), 0);  // "now"
  d.Add(T + 30, 30, 5);
  EXPECT_EQ(PointsOf(d), Points({{T, 4}, {T + 30, 5}, {T + 60, 0}}));
  EXPECT_EQ(d.Below(0), T + 60);
  EXPECT_EQ(d.Below(4), T + 60);
  EXPECT_EQ(d.Below(5), 0);
  EXPECT_EQ(d.Below(3), T + 60);
}

// Seed 004 / §5.9 interval 1 with DURATION_OFFSET 0, on the global license
// diagram: L4 starts (4 for 30 s); L1 with h_rt 31 cannot backfill, with h_rt
// 30 it can; a 31 s reservation for 1 license lands at T+60.
TYPED_TEST(DiagramVectorsTest, WorkedExampleLicenseDiagram) {
  constexpr Time T = 1077903416;
  constexpr double kTotal = 5;
  TypeParam d;
  EXPECT_LE(4, kTotal - d.Max(T, 30));
  d.Add(T, 30, 4);
  EXPECT_GT(5, kTotal - d.Max(T, 30));        // L5 cannot start now
  EXPECT_EQ(d.Below(kTotal - 5), T + 30);      // and is reserved at T+30
  d.Add(T + 30, 30, 5);
  EXPECT_GT(1, kTotal - d.Max(T, 31));        // L1 (31 s) cannot backfill
  EXPECT_LE(1, kTotal - d.Max(T, 30));        // a 30 s L1 could
  EXPECT_EQ(d.Below(kTotal - 1), T + 60);      // L1 is reserved at T+60
}

// T5.4's queue diagram: R1 (900, 400) and R2 (950, 1050) in a 4-slot queue.
TYPED_TEST(DiagramVectorsTest, T5_4_BackfillScenario) {
  TypeParam d;
  d.Add(900, 400, 1);
  d.Add(950, 1050, 1);
  EXPECT_EQ(PointsOf(d), Points({{900, 1}, {950, 2}, {1300, 1}, {2000, 0}}));
  EXPECT_EQ(d.Max(2000, 600), 0);  // P1's QETI: 2000 fits 4 slots ...
  EXPECT_EQ(d.Max(1300, 600), 1);  // ... 1300 does not
  d.Add(2000, 600, 4);
  EXPECT_EQ(PointsOf(d), Points({{900, 1}, {950, 2}, {1300, 1}, {2000, 4}, {2600, 0}}));
  EXPECT_EQ(d.Max(1000, 250), 2);   // P2 backfills
  d.Add(1000, 250, 1);
  EXPECT_EQ(d.Max(1000, 1200), 4);  // P3 is blocked
  EXPECT_EQ(d.Max(1000, 900), 3);   // P4 starts
}

TYPED_TEST(DiagramVectorsTest, UndoRestoresTheEmptyDiagram) {
  TypeParam d;
  d.Add(100, 50, 3);
  d.Add(120, 100, 2);
  d.Add(100, 50, -3);
  d.Add(120, 100, -2);
  EXPECT_TRUE(d.empty());
  EXPECT_EQ(d.QueueEnd(), 0);
  EXPECT_EQ(d.Below(0), 0);
  EXPECT_EQ(d.LastBreakpoint(), std::nullopt);
}

TYPED_TEST(DiagramVectorsTest, EarliestFitUsesGaps) {
  TypeParam d;
  d.Add(100, 100, 6);  // 6 of 8 in use over [100, 200)
  d.Add(300, 100, 8);  // full over [300, 400)
  // 4 units for 50 s: not at 100 (6 + 4 > 8), but at 200 in the gap.
  EXPECT_EQ(d.EarliestFit(100, 50, 8 - 4), 200);
  // 4 units for 150 s do not fit the gap [200, 300): after 400.
  EXPECT_EQ(d.EarliestFit(100, 150, 8 - 4), 400);
  // From before the first breakpoint, a short job fits at once.
  EXPECT_EQ(d.EarliestFit(0, 100, 8 - 4), 0);
  // Grid Engine's tail-only search gives 400 for both.
  EXPECT_EQ(d.Below(8 - 4), 400);
  EXPECT_EQ(d.EarliestFit(0, 10, -1), std::nullopt);
  d.Add(400, kDiagramForever, 5);  // booked out to the end of time
  EXPECT_EQ(d.EarliestFit(100, 150, 8 - 4), std::nullopt);
}

// Long random sequences on both, compared after every operation: many blocks,
// splits and merges, undo, infinite adds and fractional amounts.
TEST(UtilizationDiagramTest, MatchesTheNaiveTwinOnRandomSequences) {
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    std::mt19937_64 rng(seed);
    UtilizationDiagram fast;
    NaiveUtilizationDiagram naive;
    struct Booking {
      Time start;
      Duration duration;
      double amount;
    };
    std::vector<Booking> booked;
    const Time horizon = seed % 3 == 0 ? 400 : 20000;  // dense and sparse time axes
    const double amounts[] = {1, 2, 3, 4, 0.5, 0.1, 1e9, 1.5, 7};
    for (int op = 0; op < 2000; ++op) {
      const auto kind = rng() % 10;
      if (kind < 6 || booked.empty()) {
        Booking b{static_cast<Time>(rng() % horizon), static_cast<Duration>(1 + rng() % (horizon / 4)),
                  amounts[rng() % 9]};
        if (rng() % 40 == 0) b.duration = kDiagramForever;
        fast.Add(b.start, b.duration, b.amount);
        naive.Add(b.start, b.duration, b.amount);
        booked.push_back(b);
      } else if (kind < 9) {
        const std::size_t k = rng() % booked.size();
        const Booking b = booked[k];
        booked.erase(booked.begin() + static_cast<std::ptrdiff_t>(k));
        fast.Add(b.start, b.duration, -b.amount);
        naive.Add(b.start, b.duration, -b.amount);
      } else {
        // Queries at random points.
        for (int q = 0; q < 4; ++q) {
          const Time s = static_cast<Time>(rng() % (horizon + 100));
          const Duration dur = static_cast<Duration>(1 + rng() % horizon);
          const double limit = static_cast<double>(rng() % 12);
          ASSERT_EQ(fast.Max(s, dur), naive.Max(s, dur)) << "seed " << seed << " op " << op;
          ASSERT_EQ(fast.AmountAt(s), naive.AmountAt(s)) << "seed " << seed << " op " << op;
          ASSERT_EQ(fast.NextBreakpoint(s), naive.NextBreakpoint(s)) << "seed " << seed << " op " << op;
          if (const std::optional<Time> rise = fast.LastIncrease(); !rise || s >= *rise) {
            ASSERT_EQ(fast.AmountAt(s), fast.Max(s, dur)) << "seed " << seed << " op " << op;
          }
          ASSERT_EQ(fast.Below(limit), naive.Below(limit)) << "seed " << seed << " op " << op;
          ASSERT_EQ(fast.EarliestFit(s, dur, limit), naive.EarliestFit(s, dur, limit))
              << "seed " << seed << " op " << op;
          ASSERT_EQ(fast.LastBreakpointBefore(s), naive.LastBreakpointBefore(s)) << "seed " << seed;
          std::vector<Time> fast_times, naive_times;
          fast.AppendTimesIn(s, s + dur, fast_times);
          naive.AppendTimesIn(s, s + dur, naive_times);
          ASSERT_EQ(fast_times, naive_times) << "seed " << seed << " op " << op;
        }
      }
      ASSERT_EQ(fast.size(), naive.size()) << "seed " << seed << " op " << op;
      ASSERT_EQ(fast.QueueEnd(), naive.QueueEnd()) << "seed " << seed << " op " << op;
      ASSERT_EQ(fast.LastBreakpoint(), naive.LastBreakpoint());
      ASSERT_EQ(fast.FirstBreakpoint(), naive.FirstBreakpoint());
      ASSERT_EQ(fast.LastIncrease(), naive.LastIncrease()) << "seed " << seed << " op " << op;
    }
    ASSERT_EQ(fast.Breakpoints(), naive.Breakpoints()) << "seed " << seed;
  }
}

}  // namespace
}  // namespace schedk

namespace schedk {
namespace {

// AddAll against one Add after another, from an empty and from a booked
// diagram: integer amounts (built at once) and amounts that are not (added in
// turn) give the same breakpoints, and the same answers after.
TEST(UtilizationDiagramTest, AddAllGivesTheBreakpointsOfAddsInTurn) {
  for (std::uint64_t seed = 1; seed <= 24; ++seed) {
    std::mt19937_64 rng(seed);
    const Time horizon = seed % 3 == 0 ? 300 : 50000;
    const double integral[] = {1, 2, 3, 16, 1e9, 4e15};
    const double any[] = {1, 0.5, 0.1, 3, 1.5};
    UtilizationDiagram in_turn, at_once;
    for (int round = 0; round < 3; ++round) {
      std::vector<UtilizationDiagram::Addition> additions(1 + rng() % 400);
      for (auto& a : additions) {
        a.start = static_cast<Time>(rng() % horizon);
        a.duration = rng() % 50 == 0 ? kDiagramForever : static_cast<Duration>(1 + rng() % horizon);
        a.amount = seed % 4 == 1 ? any[rng() % 5] : integral[rng() % (seed % 4 == 2 ? 6 : 4)];
      }
      for (const auto& a : additions) in_turn.Add(a.start, a.duration, a.amount);
      at_once.AddAll(additions);
      ASSERT_EQ(at_once.Breakpoints(), in_turn.Breakpoints()) << "seed " << seed << " round " << round;
      ASSERT_EQ(at_once.size(), in_turn.size());
      ASSERT_EQ(at_once.LastIncrease(), in_turn.LastIncrease());
      for (int q = 0; q < 50; ++q) {
        const Time t = static_cast<Time>(rng() % (horizon + 10));
        const Duration d = static_cast<Duration>(1 + rng() % horizon);
        ASSERT_EQ(at_once.Max(t, d), in_turn.Max(t, d)) << "seed " << seed;
        ASSERT_EQ(at_once.EarliestFit(t, d, 5), in_turn.EarliestFit(t, d, 5)) << "seed " << seed;
      }
    }
  }
}

// SameSteps compares the step functions, not how the breakpoints lie in
// blocks: the same 300 bookings added in two orders (the blocks split
// differently) give the same steps; one amount or one breakpoint more does not.
TEST(UtilizationDiagramTest, SameStepsComparesTheStepFunctions) {
  UtilizationDiagram forward, backward;
  for (Time t = 0; t < 300; ++t) forward.Add(10 * t, 15, 1 + static_cast<double>(t % 3));
  for (Time t = 300; t-- > 0;) backward.Add(10 * t, 15, 1 + static_cast<double>(t % 3));
  ASSERT_GT(forward.size(), UtilizationDiagram::kBlockCapacity);
  EXPECT_TRUE(forward.SameSteps(backward));
  EXPECT_TRUE(backward.SameSteps(forward));
  UtilizationDiagram changed = backward;
  changed.Add(1500, 5, 0.5);  // inside an existing step: same times, other amounts
  EXPECT_FALSE(forward.SameSteps(changed));
  changed.Add(1500, 5, -0.5);
  EXPECT_TRUE(forward.SameSteps(changed));
  changed.Add(5000, 10, 1);  // past the end: one breakpoint more
  EXPECT_FALSE(forward.SameSteps(changed));
  EXPECT_TRUE(UtilizationDiagram().SameSteps(UtilizationDiagram()));
  EXPECT_FALSE(UtilizationDiagram().SameSteps(forward));
}

}  // namespace
}  // namespace schedk

namespace schedk {
namespace {

// The hinted Max and AmountAt answer as the plain ones whatever the hint:
// one hint carried across random questions (near and far, before the first
// breakpoint and past the last), on diagrams of one block and of many.
TEST(UtilizationDiagramTest, HintedQuestionsAnswerAsThePlainOnes) {
  std::mt19937_64 rng(5);
  for (const int bookings : {0, 1, 3, 40, 400}) {
    UtilizationDiagram d;
    for (int b = 0; b < bookings; ++b) {
      d.Add(static_cast<Time>(rng() % 5000), static_cast<Duration>(1 + rng() % 400), static_cast<double>(1 + rng() % 5));
    }
    std::uint32_t hint = static_cast<std::uint32_t>(rng() % 300);
    Time t = 2500;
    for (int q = 0; q < 2000; ++q) {
      t = rng() % 4 == 0 ? static_cast<Time>(rng() % 6000) - 200 : std::max<Time>(0, t + static_cast<Time>(rng() % 41) - 20);
      const Duration window = static_cast<Duration>(1 + rng() % 800);
      ASSERT_EQ(d.Max(t, window, hint), d.Max(t, window)) << bookings << " bookings, t " << t;
      ASSERT_EQ(d.AmountAt(t, hint), d.AmountAt(t)) << bookings << " bookings, t " << t;
      if (q % 100 == 0) hint = static_cast<std::uint32_t>(rng());  // any value is valid
    }
  }
  // Past the last breakpoint the answer is the last amount, without a search;
  // a diagram emptied again answers 0 there.
  UtilizationDiagram d;
  d.Add(100, 50, 2);
  d.Add(120, 100, 3);  // 100: 2, 120: 5, 150: 3, 220: 0
  std::uint32_t hint = 0;
  EXPECT_EQ(d.Max(130, 10, hint), 5);
  EXPECT_EQ(d.Max(150, 1000, hint), 3);
  EXPECT_EQ(d.Max(220, 1000, hint), 0);
  d.Add(300, 50, 1);  // a new last breakpoint
  EXPECT_EQ(d.Max(220, 1000, hint), 1);
  EXPECT_EQ(d.AmountAt(320, hint), 1);
  EXPECT_EQ(d.AmountAt(400, hint), 0);
  d.Add(100, 50, -2);
  d.Add(120, 100, -3);
  d.Add(300, 50, -1);
  ASSERT_TRUE(d.empty());
  EXPECT_EQ(d.Max(0, 1000, hint), 0);
  EXPECT_EQ(d.AmountAt(320, hint), 0);
}

}  // namespace
}  // namespace schedk

namespace schedk {
namespace {

// Add's report on the window's ends is what HasBreakpointAt says before and
// after it, on one-block and many-block diagrams, for bookings and releases.
TEST(UtilizationDiagramTest, AddReportsTheBreakpointsAtTheWindowsEnds) {
  std::mt19937_64 rng(11);
  UtilizationDiagram d;
  std::vector<std::tuple<Time, Duration, double>> booked;
  std::size_t changed = 0;
  for (int op = 0; op < 4000; ++op) {
    Time start = static_cast<Time>(rng() % 20000);
    Duration duration = static_cast<Duration>(1 + rng() % 3000);
    double amount = static_cast<double>(1 + rng() % 4);
    if (rng() % 3 == 0 && !booked.empty()) {  // a release of an earlier booking
      std::tie(start, duration, amount) = booked[rng() % booked.size()];
      amount = -amount;
    } else {
      booked.emplace_back(start, duration, amount);
    }
    const Time end = DiagramEnd(start, duration);
    const bool had_start = d.HasBreakpointAt(start), had_end = d.HasBreakpointAt(end);
    UtilizationDiagram::AddedEnds ends;
    d.Add(start, duration, amount, &ends);
    ASSERT_EQ(ends.had_start, had_start) << "op " << op;
    ASSERT_EQ(ends.had_end, had_end) << "op " << op;
    ASSERT_EQ(ends.has_start, d.HasBreakpointAt(start)) << "op " << op;
    ASSERT_EQ(ends.has_end, d.HasBreakpointAt(end)) << "op " << op;
    changed += ends.had_start != ends.has_start || ends.had_end != ends.has_end;
  }
  EXPECT_GT(d.size(), 1000u);  // many blocks
  EXPECT_GT(changed, 1000u);
}

}  // namespace
}  // namespace schedk
