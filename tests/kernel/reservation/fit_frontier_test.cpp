// FitFrontier: earliest starts searched from what earlier answers proved must
// equal the plain search's (and the naive twin's) in conservative passes, with
// releases and reassignment in between, and with one frontier moved between
// diagrams.
#include "kernel/reservation/fit_frontier.hpp"

#include <cstdint>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "kernel/reservation/utilization_diagram.hpp"

namespace schedk {
namespace {

// Hand-checked: an answer is a lower bound for harder questions only.
TEST(FitFrontierTest, AnswersBoundOnlyHarderQuestions) {
  UtilizationDiagram d;
  FitFrontier frontier;
  d.Add(0, 100, 8);    // full over [0, 100)
  d.Add(200, 100, 6);  // 6 of 8 over [200, 300)
  // 4 of 8 units for 100 s fit in the gap [100, 200).
  EXPECT_EQ(d.EarliestFit(0, 100, 4, frontier), 100);
  // Longer: the gap is too short, so after 300; the earlier answer (100) is only a bound.
  EXPECT_EQ(d.EarliestFit(0, 101, 4, frontier), 300);
  // An easier question (shorter) must not be bounded by the 300 of the longer one.
  EXPECT_EQ(d.EarliestFit(0, 50, 4, frontier), 100);
  // A higher limit is easier too: 100, not 300.
  EXPECT_EQ(d.EarliestFit(0, 101, 6, frontier), 100);
  // An earlier `from` is not covered by answers given from later.
  EXPECT_EQ(d.EarliestFit(250, 10, 4, frontier), 300);
  EXPECT_EQ(d.EarliestFit(100, 10, 4, frontier), 100);
  // Releasing usage makes earlier answers void: the gap [0, 100) opens.
  d.Add(0, 100, -8);
  EXPECT_EQ(d.EarliestFit(0, 100, 4, frontier), 0);
  // No fit stays no fit for harder questions, until a release.
  d.Add(300, kDiagramForever, 6);
  EXPECT_EQ(d.EarliestFit(0, kDiagramForever, 1, frontier), std::nullopt);
  EXPECT_EQ(d.EarliestFit(0, kDiagramForever, 0.5, frontier), std::nullopt);
  d.Add(300, kDiagramForever, -6);
  EXPECT_EQ(d.EarliestFit(0, kDiagramForever, 0.5, frontier), 300);
}

// The conservative pass, scaled down: each job's earliest start with
// the frontier equals the naive twin's, and the booking follows.
TEST(FitFrontierTest, ConservativePassMatchesThePlainSearch) {
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    std::mt19937_64 rng(seed);
    constexpr double kCores = 1000;
    UtilizationDiagram fast;
    NaiveUtilizationDiagram naive;
    FitFrontier frontier;
    std::size_t bounded = 0;
    for (int job = 0; job < 1200; ++job) {
      const double cores = static_cast<double>(std::uint64_t{1} << (rng() % 8));
      const auto duration = static_cast<Duration>(60 + rng() % 86341);
      const Time from = job < 600 ? 0 : static_cast<Time>(rng() % 100000);
      bounded += frontier.size() > 0 ? 1 : 0;
      const std::optional<Time> start = fast.EarliestFit(from, duration, kCores - cores, frontier);
      ASSERT_EQ(start, naive.EarliestFit(from, duration, kCores - cores)) << "seed " << seed << " job " << job;
      ASSERT_TRUE(start.has_value());
      fast.Add(*start, duration, cores);
      naive.Add(*start, duration, cores);
    }
    EXPECT_LE(frontier.size(), FitFrontier::kCapacity);
    EXPECT_GT(bounded, 1150u);  // the frontier was in use, not forgotten each time
  }
}

// Random adds, releases, reassignments and questions on two diagrams, each
// with its own frontier and sometimes through one they share: always the plain
// answer.
TEST(FitFrontierTest, ReleasesReassignmentAndSharedFrontiersStayExact) {
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    std::mt19937_64 rng(seed);
    UtilizationDiagram diagrams[2];
    FitFrontier own[2], shared;
    struct Booking {
      Time start;
      Duration duration;
      double amount;
    };
    std::vector<Booking> booked[2];
    for (int op = 0; op < 4000; ++op) {
      const int k = static_cast<int>(rng() % 2);
      UtilizationDiagram& d = diagrams[k];
      const auto kind = rng() % 20;
      if (kind < 8) {
        const Booking b{static_cast<Time>(rng() % 5000), static_cast<Duration>(1 + rng() % 800),
                        static_cast<double>(1 + rng() % 4)};
        d.Add(b.start, b.duration, b.amount);
        booked[k].push_back(b);
      } else if (kind < 10 && !booked[k].empty()) {
        const std::size_t i = rng() % booked[k].size();
        d.Add(booked[k][i].start, booked[k][i].duration, -booked[k][i].amount);
        booked[k].erase(booked[k].begin() + static_cast<std::ptrdiff_t>(i));
      } else if (kind == 10) {
        d = diagrams[1 - k];  // assignment replaces the content, emptier or fuller
        booked[k] = booked[1 - k];
      } else {
        const Time from = static_cast<Time>(rng() % 3000);
        const auto duration = static_cast<Duration>(1 + rng() % 1500);
        const double limit = static_cast<double>(rng() % 14);
        FitFrontier& frontier = rng() % 4 == 0 ? shared : own[k];
        ASSERT_EQ(d.EarliestFit(from, duration, limit, frontier), d.EarliestFit(from, duration, limit))
            << "seed " << seed << " op " << op;
      }
    }
  }
}

}  // namespace
}  // namespace schedk
