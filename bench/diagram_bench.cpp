// diagram_bench: resource utilisation diagrams (kernel/reservation/).
//   BM_Diagram<Op>/<impl>/breakpoints:N  one operation on a diagram of N
//       breakpoints, for the block-structured diagram and its naive twin:
//       Max over a window holding about 100 breakpoints, Below, Add followed by
//       its undo (the diagram keeps its size), and EarliestFit.
//   BM_ConservativePass/jobs:N  the workload Fluxion's planner was timed on:
//       an empty pool of 10,000 cores (one consumable), then N jobs in submit
//       order, each of 2^k cores (k uniform in 0..10) for 60..86,400 s, each
//       given its earliest start (gaps allowed, RESERVE_IN_GAPS=1) and booked
//       before the next. /frontier searches from what a FitFrontier of the
//       earlier answers allows (schedk's pass); /blocked and /naive search
//       each diagram from the start, as Fluxion's planner does.
// Diagrams and parameters are generated outside the timed loops from fixed seeds.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <vector>

#include "kernel/reservation/utilization_diagram.hpp"

namespace {

using schedk::Duration;
using schedk::NaiveUtilizationDiagram;
using schedk::Time;
using schedk::UtilizationDiagram;

constexpr Time kSpacing = 10;  // seconds between breakpoints of the test diagrams

// A diagram of about n breakpoints: n/2 non-overlapping bookings of 1..8 units.
const UtilizationDiagram& DiagramOf(std::size_t n) {
  static std::map<std::size_t, std::unique_ptr<UtilizationDiagram>> cache;
  auto& d = cache[n];
  if (!d) {
    d = std::make_unique<UtilizationDiagram>();
    std::mt19937_64 rng(7);
    for (std::size_t i = 0; i < n / 2; ++i) {
      d->Add(static_cast<Time>(2 * i) * kSpacing, kSpacing, static_cast<double>(1 + rng() % 8));
    }
  }
  return *d;
}

template <class Diagram>
Diagram Copy(std::size_t n) {
  if constexpr (std::is_same_v<Diagram, UtilizationDiagram>) {
    return DiagramOf(n);
  } else {
    NaiveUtilizationDiagram naive;
    naive.Assign(DiagramOf(n).Breakpoints());
    return naive;
  }
}

// The parameters of one query: a window of about 100 breakpoints and a limit.
struct QueryParameters {
  Time start;
  Duration duration;
  double limit;
};

std::vector<QueryParameters> Queries(std::size_t n) {
  std::mt19937_64 rng(11);
  std::vector<QueryParameters> queries(1024);
  const Time span = static_cast<Time>(n) * kSpacing;
  for (QueryParameters& q : queries) {
    q.start = static_cast<Time>(rng() % static_cast<std::uint64_t>(span));
    q.duration = 100 * kSpacing;
    q.limit = static_cast<double>(rng() % 9);
  }
  return queries;
}

// One operation per iteration on a copy of the diagram of N breakpoints.
template <class Diagram, class Operation>
void DiagramBenchmark(benchmark::State& state, Operation operation) {
  const auto n = static_cast<std::size_t>(state.range(0));
  Diagram d = Copy<Diagram>(n);
  const std::vector<QueryParameters> queries = Queries(n);
  std::size_t i = 0;
  for (auto _ : state) operation(d, queries[i++ & 1023]);
  state.SetItemsProcessed(state.iterations());
}

template <class Diagram>
void BM_DiagramMax(benchmark::State& state) {
  DiagramBenchmark<Diagram>(state, [](const Diagram& d, const QueryParameters& q) {
    benchmark::DoNotOptimize(d.Max(q.start, q.duration));
  });
}

template <class Diagram>
void BM_DiagramBelow(benchmark::State& state) {
  DiagramBenchmark<Diagram>(state, [](const Diagram& d, const QueryParameters& q) {
    benchmark::DoNotOptimize(d.Below(q.limit));
  });
}

// An add and its undo, so that the diagram keeps its size.
template <class Diagram>
void BM_DiagramAddUndo(benchmark::State& state) {
  DiagramBenchmark<Diagram>(state, [](Diagram& d, const QueryParameters& q) {
    d.Add(q.start + 1, q.duration, 3);
    d.Add(q.start + 1, q.duration, -3);
  });
}

template <class Diagram>
void BM_DiagramEarliestFit(benchmark::State& state) {
  DiagramBenchmark<Diagram>(state, [](const Diagram& d, const QueryParameters& q) {
    benchmark::DoNotOptimize(d.EarliestFit(q.start, q.duration, q.limit));
  });
}

void Sizes(benchmark::internal::Benchmark* b) {
  b->ArgName("breakpoints");
  for (std::int64_t n : {1000, 10000, 100000, 1000000}) b->Arg(n);
}

BENCHMARK_TEMPLATE(BM_DiagramMax, UtilizationDiagram)->Name("BM_DiagramMax/blocked")->Apply(Sizes);
BENCHMARK_TEMPLATE(BM_DiagramMax, NaiveUtilizationDiagram)->Name("BM_DiagramMax/naive")->Apply(Sizes);
BENCHMARK_TEMPLATE(BM_DiagramBelow, UtilizationDiagram)->Name("BM_DiagramBelow/blocked")->Apply(Sizes);
BENCHMARK_TEMPLATE(BM_DiagramBelow, NaiveUtilizationDiagram)->Name("BM_DiagramBelow/naive")->Apply(Sizes);
BENCHMARK_TEMPLATE(BM_DiagramAddUndo, UtilizationDiagram)->Name("BM_DiagramAddUndo/blocked")->Apply(Sizes);
BENCHMARK_TEMPLATE(BM_DiagramAddUndo, NaiveUtilizationDiagram)->Name("BM_DiagramAddUndo/naive")->Apply(Sizes);
BENCHMARK_TEMPLATE(BM_DiagramEarliestFit, UtilizationDiagram)->Name("BM_DiagramEarliestFit/blocked")->Apply(Sizes);
// The twin tries every later breakpoint with an O(n) peak: only the small sizes.
BENCHMARK_TEMPLATE(BM_DiagramEarliestFit, NaiveUtilizationDiagram)
    ->Name("BM_DiagramEarliestFit/naive")
    ->ArgName("breakpoints")
    ->Arg(1000)
    ->Arg(10000);

template <class Diagram, bool kWithFrontier>
void BM_ConservativePass(benchmark::State& state) {
  const auto jobs = static_cast<std::size_t>(state.range(0));
  constexpr double kCores = 10000;
  struct Job {
    double cores;
    Duration duration;
  };
  std::mt19937_64 rng(2026);
  std::vector<Job> workload(jobs);
  for (Job& j : workload) {
    j.cores = static_cast<double>(std::uint64_t{1} << (rng() % 11));
    j.duration = static_cast<Duration>(60 + rng() % (86400 - 60 + 1));
  }
  Time last_start = 0;
  for (auto _ : state) {
    Diagram pool;
    schedk::FitFrontier frontier;
    for (const Job& j : workload) {
      std::optional<Time> start;
      if constexpr (kWithFrontier) {
        start = pool.EarliestFit(0, j.duration, kCores - j.cores, frontier);
      } else {
        start = pool.EarliestFit(0, j.duration, kCores - j.cores);
      }
      pool.Add(*start, j.duration, j.cores);
      last_start = *start;
    }
    benchmark::DoNotOptimize(pool.size());
  }
  state.counters["last_start"] = static_cast<double>(last_start);
  state.counters["jobs/s"] = benchmark::Counter(static_cast<double>(jobs), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK_TEMPLATE(BM_ConservativePass, UtilizationDiagram, true)
    ->Name("BM_ConservativePass/frontier")
    ->ArgName("jobs")
    ->Arg(10000)
    ->Arg(100000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_TEMPLATE(BM_ConservativePass, UtilizationDiagram, false)
    ->Name("BM_ConservativePass/blocked")
    ->ArgName("jobs")
    ->Arg(10000)
    ->Arg(100000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_TEMPLATE(BM_ConservativePass, NaiveUtilizationDiagram, false)
    ->Name("BM_ConservativePass/naive")
    ->ArgName("jobs")
    ->Arg(1000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
