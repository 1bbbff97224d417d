// priority_bench: the Grid Engine priority pass (urgency, tickets from the
// functional, share-tree and override policies, normalisation, prio and the
// dispatch order) against std::sort of the same number of 64-bit keys.
//
// Workloads (sizes via --benchmark_filter, e.g. 'BM_PriorityPass/jobs:1000000'):
//   BM_PriorityPass/jobs:N/threads:T/retain:R  N pending jobs (plus 1% running),
//       10,000 users, 100 projects, 20 departments, every ticket policy active,
//       waiting-time urgency, 10% PE jobs; T worker threads. R=0: jemalloc's
//       decay of freed pages (the executables' options, tools/jemalloc_options.cpp),
//       so each pass faults most of its columns in afresh, as a one-shot
//       command does; R=1: freed pages are kept, as `schedk serve` keeps them
//       between its passes.
//   BM_MauiPass/jobs:N/threads:T/retain:0  the same population under PRIORITY_POLICY=maui
//       with every component weighted (PolicyMix::kMaui); goal: within 1.5x of
//       BM_PriorityPass at 1M jobs.
//   BM_SortBaseline/keys:N            std::sort of N random uint64 keys.
//   BM_TaskKeySort/keys:N/algo:A/same_prio:P  N 128-bit task keys on two threads,
//       sorted by tbb::parallel_sort (A=0) or by ParallelSortByKey and ranked (A=1);
//       P=1: every key has the same high word (one prio for all jobs).
// Populations are generated once per size, outside the timed loop, from a fixed seed.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <memory>
#include <random>
#include <vector>

#include <tbb/parallel_sort.h>
#include <tbb/task_arena.h>

#include "bench/thread_counts.hpp"
#include "kernel/util/bucket_sort.hpp"
#include "kernel/priority/priority.hpp"
#include "kernel/util/sort_key.hpp"
#include "tests/support/population.hpp"
#include "tools/allocator.hpp"

namespace {

const schedk::io::Snapshot& PopulationOf(std::size_t jobs, bool maui = false) {
  // One population at a time: the next size (or policy) frees the previous one.
  static std::size_t cached_size = 0;
  static bool cached_maui = false;
  static std::unique_ptr<schedk::io::Snapshot> cached;
  if (cached_size != jobs || cached_maui != maui) {
    cached.reset();
    cached = std::make_unique<schedk::io::Snapshot>(schedk::GeneratePopulation(
        schedk::PriorityBenchmarkSpec(jobs, maui ? schedk::io::PolicyMix::kMaui : schedk::io::PolicyMix::kEvery)));
    cached_size = jobs;
    cached_maui = maui;
  }
  return *cached;
}

void RunPass(benchmark::State& state, bool maui) {
  const auto jobs = static_cast<std::size_t>(state.range(0));
  const int threads = static_cast<int>(state.range(1));
  const bool retain = state.range(2) != 0;
  const schedk::io::Snapshot& p = PopulationOf(jobs, maui);
  tbb::task_arena arena(threads);
  const schedk::tools::PageDecay before = retain ? schedk::tools::RetainFreedPages() : schedk::tools::PageDecay{};
  for (auto _ : state) {
    arena.execute([&] {
      schedk::PriorityResult r = schedk::ComputePriorities(p.cluster, p.jobs);
      benchmark::DoNotOptimize(r.order.data());
    });
  }
  if (retain) schedk::tools::ReturnFreedPages(before);
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * jobs));
  state.counters["jobs/s"] = benchmark::Counter(static_cast<double>(jobs), benchmark::Counter::kIsIterationInvariantRate);
}

void BM_PriorityPass(benchmark::State& state) { RunPass(state, false); }
BENCHMARK(BM_PriorityPass)
    ->ArgNames({"jobs", "threads", "retain"})
    ->ArgsProduct({{10000, 100000, 1000000, 10000000}, schedk::bench::ThreadCounts(), {0, 1}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_MauiPass(benchmark::State& state) { RunPass(state, true); }
BENCHMARK(BM_MauiPass)
    ->ArgNames({"jobs", "threads", "retain"})
    ->ArgsProduct({{10000, 100000, 1000000, 10000000}, schedk::bench::ThreadCounts(), {0}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_SortBaseline(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  std::mt19937_64 rng(42);
  std::vector<std::uint64_t> keys(n);
  for (auto& k : keys) k = rng();
  std::vector<std::uint64_t> work(n);
  for (auto _ : state) {
    state.PauseTiming();
    std::copy(keys.begin(), keys.end(), work.begin());
    state.ResumeTiming();
    std::sort(work.begin(), work.end());
    benchmark::DoNotOptimize(work.data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n));
}
BENCHMARK(BM_SortBaseline)
    ->ArgNames({"keys"})
    ->Arg(10000)
    ->Arg(100000)
    ->Arg(1000000)
    ->Arg(10000000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// The dispatch order's ranking alone: N 128-bit keys (distinct, as the task
// positions make them) on two threads, sorted by tbb::parallel_sort (algo 0) or
// sorted by ParallelSortByKey and ranked as the pass ranks them (algo 1). Their
// high words are random, or all equal (`same_prio`: every job at one prio, as
// with every policy off).
void BM_TaskKeySort(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const bool same_prio = state.range(2) != 0;
  std::mt19937_64 rng(42);
  std::vector<schedk::SortKey128> keys(n);
  for (std::size_t i = 0; i < n; ++i) keys[i] = {same_prio ? 1 : rng(), (rng() >> 32 << 32) | i};
  std::vector<schedk::SortKey128> work(n);
  std::vector<std::uint32_t> ranks(n);
  tbb::task_arena arena(2);
  for (auto _ : state) {
    state.PauseTiming();
    std::copy(keys.begin(), keys.end(), work.begin());
    state.ResumeTiming();
    arena.execute([&] {
      if (state.range(1) == 0) {
        tbb::parallel_sort(work.begin(), work.end());
      } else {
        schedk::ParallelSortByKey(
            work.data(), n, [](const schedk::SortKey128& k) { return k.wide(); }, schedk::SortKey128Before{},
            [&](const schedk::SortKey128* sorted, std::size_t count, std::size_t rank) {
              for (std::size_t k = 0; k < count; ++k) {
                ranks[static_cast<std::uint32_t>(sorted[k].low)] = static_cast<std::uint32_t>(rank + k);
              }
            });
      }
    });
    benchmark::DoNotOptimize(work.data());
    benchmark::DoNotOptimize(ranks.data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n));
}
BENCHMARK(BM_TaskKeySort)
    ->ArgNames({"keys", "algo", "same_prio"})
    ->ArgsProduct({{1000000}, {0, 1}, {0, 1}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
