// priority_stress: one priority pass over a generated population, reporting
// the time and the resident memory it costs per pending job.
//   priority_stress JOBS [THREADS [MAX_FUNCTIONAL_JOBS_TO_SCHEDULE [ARRAY_FRACTION [RETAIN]]]]
// ARRAY_FRACTION (default 0) is the share of pending jobs that are array jobs of 2..21 tasks.
// RETAIN=1 keeps the pages the pass frees, as `schedk serve` does (tools/allocator.hpp).
// Memory per job = (peak resident set while the population is loaded and one
// pass runs - resident set before the population existed) / JOBS, read from
// /proc/self/status (VmHWM is reset through /proc/self/clear_refs). One size
// per process, so no other size's memory is counted or reused.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <tbb/global_control.h>
#include <tbb/task_arena.h>

#include "bench/proc_status.hpp"
#include "kernel/priority/priority.hpp"
#include "tests/support/population.hpp"
#include "tools/allocator.hpp"

using schedk::bench::ResetPeak;
using schedk::bench::StatusKb;

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: priority_stress JOBS [THREADS [MAX_FUNCTIONAL_JOBS_TO_SCHEDULE [ARRAY_FRACTION [RETAIN]]]]\n");
    return 1;
  }
  const std::size_t jobs = std::strtoull(argv[1], nullptr, 10);
  const int threads = argc > 2 ? std::atoi(argv[2]) : tbb::this_task_arena::max_concurrency();
  const long before = StatusKb("VmRSS:");
  schedk::io::GeneratorSpec spec = schedk::PriorityBenchmarkSpec(jobs, schedk::io::PolicyMix::kEvery);
  if (argc > 4) spec.array_fraction = std::strtod(argv[4], nullptr);
  schedk::io::Snapshot p = schedk::GeneratePopulation(spec);
  if (argc > 3)
    p.cluster.config.max_functional_jobs_to_schedule = static_cast<std::uint32_t>(std::strtoul(argv[3], nullptr, 10));
  schedk::tools::PurgeFreedPages();  // the generated text's, freed once read
  const long loaded = StatusKb("VmRSS:");
  if (argc > 5 && std::string(argv[5]) == "1") schedk::tools::RetainFreedPages();
  ResetPeak();
  // As many threads as asked for, even past this host's cores (TBB caps its
  // workers there otherwise): each thread's buffers count in the peak.
  const tbb::global_control parallelism(tbb::global_control::max_allowed_parallelism,
                                        static_cast<std::size_t>(threads));
  tbb::task_arena arena(threads);
  const auto start = std::chrono::steady_clock::now();
  std::size_t rows = 0;
  arena.execute([&] {
    const schedk::PriorityResult r = schedk::ComputePriorities(p.cluster, p.jobs);
    rows = r.order.size();
  });
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const long peak = StatusKb("VmHWM:");
  std::printf("jobs %zu threads %d rows %zu pass %.3f s (%.0f jobs/s) table %.1f B/job peak %.1f B/job\n", jobs,
              threads, rows, seconds, static_cast<double>(jobs) / seconds,
              static_cast<double>(loaded - before) * 1024 / static_cast<double>(jobs),
              static_cast<double>(peak - before) * 1024 / static_cast<double>(jobs));
  return 0;
}
