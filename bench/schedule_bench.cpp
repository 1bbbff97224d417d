// schedule_bench: one full scheduling interval (priorities, then dispatch,
// reservation and backfilling) on clusters from `schedk generate`: hosts with
// 64 slots, half of them busy with running tasks, 10% parallel jobs with slot
// ranges over three PEs, licenses and memory, 10% -R y.
//   BM_ScheduleInterval/hosts:H/jobs:N/max_reservation:R
// and at each thread count (bench/thread_counts.hpp; the goal size too):
//   BM_ScheduleIntervalThreads/hosts:H/jobs:N/max_reservation:R/threads:T
// With resource quota sets (`schedk generate --quota-sets`: per project on
// short.q, per user on a rack, per user), beside the same cluster without:
//   BM_ScheduleIntervalQuotas/hosts:H/jobs:N/max_reservation:R/quota_sets:Q
// and Open Cluster Scheduler's published case, three rules on 1,000 hosts
// with 50 job categories (0.45 s per run in OCS 9.2):
//   BM_ScheduleIntervalOcsQuotas/jobs:N/quota_sets:Q (categories 50, max_reservation 0)
// The goal size (10,000 hosts, 1M jobs, max_reservation 1000) runs only
// when SCHEDK_BENCH_GOAL=1 is set (about 15 s and 0.6 GB each on this machine), once
// with jemalloc's decay of freed pages (BM_ScheduleIntervalGoal) and once as the second
// interval of a session, whose freed pages are kept as `schedk serve` keeps
// them (BM_ScheduleIntervalGoalPagesKept; an untimed interval runs first).
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <tuple>
#include <utility>

#include <tbb/task_arena.h>

#include "bench/thread_counts.hpp"
#include "kernel/dispatch/schedule.hpp"
#include "tests/support/population.hpp"
#include "tools/allocator.hpp"

namespace {

const schedk::io::Snapshot& SnapshotOf(std::uint32_t hosts, std::uint64_t jobs, std::uint32_t max_reservation,
                                       std::uint32_t quota_sets = 0, std::uint32_t categories = 0) {
  static std::tuple<std::uint32_t, std::uint64_t, std::uint32_t, std::uint32_t, std::uint32_t> cached_key;
  static std::unique_ptr<schedk::io::Snapshot> cached;
  const auto key = std::make_tuple(hosts, jobs, max_reservation, quota_sets, categories);
  if (!cached || cached_key != key) {
    cached.reset();
    cached = std::make_unique<schedk::io::Snapshot>(schedk::GeneratePopulation({.seed = 42,
                                                                                .jobs = jobs,
                                                                                .hosts = hosts,
                                                                                .users = 1000,
                                                                                .projects = 50,
                                                                                .categories = categories,
                                                                                .quota_sets = quota_sets,
                                                                                .max_reservation = max_reservation}));
    cached_key = key;
  }
  return *cached;
}

// `threads`: oneTBB's threads for the interval (0: as many as the host has).
void Run(benchmark::State& state, const schedk::io::Snapshot& s, int threads = 0) {
  std::uint32_t starts = 0, reserves = 0;
  tbb::task_arena arena(threads > 0 ? threads : tbb::task_arena::automatic);
  for (auto _ : state) {
    arena.execute([&] {
      const schedk::PriorityResult priorities = schedk::ComputePriorities(s.cluster, s.jobs);
      const schedk::QueueInstanceTable instances = schedk::QueueInstanceTable::Build(s.cluster);
      const schedk::ScheduleResult result = schedk::ScheduleInterval(s.cluster, s.jobs, priorities, instances);
      starts = result.starts;
      reserves = result.reserves;
      benchmark::DoNotOptimize(result.decisions.data());
    });
  }
  state.counters["starts"] = starts;
  state.counters["reserves"] = reserves;
}

void BM_ScheduleInterval(benchmark::State& state) {
  Run(state, SnapshotOf(static_cast<std::uint32_t>(state.range(0)), static_cast<std::uint64_t>(state.range(1)),
                        static_cast<std::uint32_t>(state.range(2))));
}
BENCHMARK(BM_ScheduleInterval)
    ->ArgNames({"hosts", "jobs", "max_reservation"})
    ->Args({100, 10000, 100})
    ->Args({1000, 10000, 100})
    ->Args({1000, 100000, 0})
    ->Args({1000, 100000, 100})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(1);

// The same at each thread count (bench/thread_counts.hpp).
void BM_ScheduleIntervalThreads(benchmark::State& state) {
  Run(state,
      SnapshotOf(static_cast<std::uint32_t>(state.range(0)), static_cast<std::uint64_t>(state.range(1)),
                 static_cast<std::uint32_t>(state.range(2))),
      static_cast<int>(state.range(3)));
}
BENCHMARK(BM_ScheduleIntervalThreads)
    ->ArgNames({"hosts", "jobs", "max_reservation", "threads"})
    ->ArgsProduct({{1000}, {100000}, {100}, schedk::bench::ThreadCounts()})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(1);

void BM_ScheduleIntervalQuotas(benchmark::State& state) {
  Run(state, SnapshotOf(static_cast<std::uint32_t>(state.range(0)), static_cast<std::uint64_t>(state.range(1)),
                        static_cast<std::uint32_t>(state.range(2)), static_cast<std::uint32_t>(state.range(3))));
}
BENCHMARK(BM_ScheduleIntervalQuotas)
    ->ArgNames({"hosts", "jobs", "max_reservation", "quota_sets"})
    ->Args({100, 10000, 100, 0})
    ->Args({100, 10000, 100, 5})
    ->Args({1000, 100000, 100, 0})
    ->Args({1000, 100000, 100, 5})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(1);

void BM_ScheduleIntervalOcsQuotas(benchmark::State& state) {
  Run(state,
      SnapshotOf(1000, static_cast<std::uint64_t>(state.range(0)), 0, static_cast<std::uint32_t>(state.range(1)), 50));
}
BENCHMARK(BM_ScheduleIntervalOcsQuotas)
    ->ArgNames({"jobs", "quota_sets"})
    ->Args({10000, 0})
    ->Args({10000, 1})
    ->Args({100000, 0})
    ->Args({100000, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(1);

void BM_ScheduleIntervalPagesKept(benchmark::State& state) {
  const auto& s = SnapshotOf(static_cast<std::uint32_t>(state.range(0)), static_cast<std::uint64_t>(state.range(1)),
                             static_cast<std::uint32_t>(state.range(2)));
  const schedk::tools::PageDecay before = schedk::tools::RetainFreedPages();
  {
    // The session's interval before: its pages are the timed one's.
    const schedk::PriorityResult priorities = schedk::ComputePriorities(s.cluster, s.jobs);
    const schedk::QueueInstanceTable instances = schedk::QueueInstanceTable::Build(s.cluster);
    benchmark::DoNotOptimize(schedk::ScheduleInterval(s.cluster, s.jobs, priorities, instances).starts);
  }
  BM_ScheduleInterval(state);
  schedk::tools::ReturnFreedPages(before);
}

const bool kGoalRegistered = [] {
  const char* goal = std::getenv("SCHEDK_BENCH_GOAL");
  if (goal != nullptr && std::string(goal) == "1") {
    for (const auto& [name, run] : {std::pair{"BM_ScheduleIntervalGoal", &BM_ScheduleInterval},
                                    std::pair{"BM_ScheduleIntervalGoalPagesKept", &BM_ScheduleIntervalPagesKept}}) {
      benchmark::RegisterBenchmark(name, run)
          ->ArgNames({"hosts", "jobs", "max_reservation"})
          ->Args({10000, 1000000, 1000})
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime()
          ->Iterations(1);
    }
    benchmark::RegisterBenchmark("BM_ScheduleIntervalGoalThreads", &BM_ScheduleIntervalThreads)
        ->ArgNames({"hosts", "jobs", "max_reservation", "threads"})
        ->ArgsProduct({{10000}, {1000000}, {1000}, schedk::bench::ThreadCounts()})
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime()
        ->Iterations(1);
    // The goal interval with 5 quota sets of 3 rules, beside the same without.
    benchmark::RegisterBenchmark("BM_ScheduleIntervalGoalQuotas", &BM_ScheduleIntervalQuotas)
        ->ArgNames({"hosts", "jobs", "max_reservation", "quota_sets"})
        ->Args({10000, 1000000, 1000, 0})
        ->Args({10000, 1000000, 1000, 5})
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime()
        ->Iterations(1);
  }
  return true;
}();

}  // namespace
