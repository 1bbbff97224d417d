// reader_bench: the snapshot reader (io/snapshot_reader.hpp) on a generated
// snapshot of N pending jobs (schedk generate's cluster: N / 1000 hosts of 64
// slots, half of them busy with running tasks), text in memory, on T threads.
// The hostile-input checks (UTF-8, value ranges) sit in this path, so their
// cost shows here: at most 3% of the 1M-job read was the budget.
//   BM_ReadSnapshot/jobs:N/threads:T
// and its first step alone, the structure scan (ReadSnapshotParts, which also
// builds the cluster), optimised (twin:0) and its reference (twin:1):
//   BM_ScanStructure/jobs:N/threads:T/twin:W
#include <benchmark/benchmark.h>

#include <string>

#include <tbb/task_arena.h>

#include "bench/thread_counts.hpp"
#include "io/snapshot_generator.hpp"
#include "io/snapshot_reader.hpp"

namespace {

const std::string& SnapshotText(std::size_t jobs) {
  static std::size_t cached_jobs = 0;
  static std::string text;
  if (cached_jobs != jobs) {
    schedk::io::GeneratorSpec spec;
    spec.seed = 7;
    spec.jobs = jobs;
    spec.hosts = static_cast<std::uint32_t>(std::max<std::size_t>(16, jobs / 1000));
    text.clear();
    schedk::io::GenerateSnapshot(spec, [](std::string_view piece) {
      text += piece;
      return true;
    });
    cached_jobs = jobs;
  }
  return text;
}

void BM_ReadSnapshot(benchmark::State& state) {
  const std::string& text = SnapshotText(static_cast<std::size_t>(state.range(0)));
  tbb::task_arena arena(static_cast<int>(state.range(1)));
  for (auto _ : state) {
    arena.execute([&] {
      auto snapshot = schedk::io::ReadSnapshot(text, "bench.snap");
      if (!snapshot.ok()) state.SkipWithError(snapshot.status().ToString().c_str());
      benchmark::DoNotOptimize(snapshot);
    });
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_ReadSnapshot)
    ->ArgNames({"jobs", "threads"})
    ->ArgsProduct({{1000000}, schedk::bench::ThreadCounts()})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_ScanStructure(benchmark::State& state) {
  const std::string& text = SnapshotText(static_cast<std::size_t>(state.range(0)));
  tbb::task_arena arena(static_cast<int>(state.range(1)));
  const auto twin = state.range(2) == 0 ? schedk::Twin::kOptimised : schedk::Twin::kReference;
  for (auto _ : state) {
    arena.execute([&] {
      auto parts = schedk::io::ReadSnapshotParts(text, "bench.snap", twin);
      if (!parts.ok()) state.SkipWithError(parts.status().ToString().c_str());
      benchmark::DoNotOptimize(parts);
    });
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_ScanStructure)
    ->ArgNames({"jobs", "threads", "twin"})
    ->ArgsProduct({{1000000}, schedk::bench::ThreadCounts(), {0, 1}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
