// The one-pool engine (kernel/simulation/pool_backfill): hand-worked passes
// (the shadow time and the extra processors, estimated ends that free
// processors, jobs larger than the pool), and the engine against the kernel's
// own passes on generated workloads, job by job.
#include "kernel/simulation/pool_backfill.hpp"

#include <gtest/gtest.h>

#include <string>

#include "io/snapshot_reader.hpp"
#include "io/swf_reader.hpp"
#include "io/swf_workload.hpp"
#include "kernel/simulation/simulator.hpp"
#include "kernel/util/split_mix.hpp"

namespace schedk {
namespace {

PoolRules Easy(bool reference = true) { return {PoolPolicy::kEasy, reference, 15}; }

std::vector<std::uint32_t> PassAt(PoolBackfill& pool, Time now) {
  std::vector<std::uint32_t> started;
  pool.Pass(now, started);
  return started;
}

TEST(PoolBackfillTest, BackfillsByTheShadowTimeOrBesideTheReservation) {
  PoolBackfill pool(10, Easy());
  pool.Submit(1, 5, 100);
  EXPECT_EQ(PassAt(pool, 0), (std::vector<std::uint32_t>{1}));
  // Job 2 needs 8: job 1's end at 100 frees them (the shadow time), leaving 2 extra.
  pool.Submit(2, 8, 50);
  pool.Submit(3, 3, 101);   // ends after 100 and needs more than the 2 extra: waits
  pool.Submit(4, 2, 1000);  // fits in the extra
  pool.Submit(5, 3, 100);   // ends at 100 exactly, when the reservation begins
  pool.Submit(6, 1, 50);    // nothing is free any more
  EXPECT_EQ(PassAt(pool, 0), (std::vector<std::uint32_t>{4, 5}));
  EXPECT_EQ(pool.waiting(), 3u);
  // At 100 job 1's and job 5's estimated ends have come: 8 free, job 2 starts.
  EXPECT_EQ(PassAt(pool, 100), (std::vector<std::uint32_t>{2}));
}

TEST(PoolBackfillTest, HoldersEndingTogetherAllCountAtTheShadowTime) {
  PoolBackfill pool(11, Easy());
  pool.Submit(1, 3, 50);
  pool.Submit(2, 3, 50);
  pool.Submit(3, 4, 80);
  EXPECT_EQ(PassAt(pool, 0), (std::vector<std::uint32_t>{1, 2, 3}));
  // Job 4 needs 4: 1 free now, 3 more at 50 (job 1), and job 2's 3 then too,
  // so 3 are extra and job 5 may run past 50.
  pool.Submit(4, 4, 10);
  pool.Submit(5, 1, 1000);
  EXPECT_EQ(PassAt(pool, 0), (std::vector<std::uint32_t>{5}));
}

TEST(PoolBackfillTest, EstimatedEndsAndTerminationsFreeProcessors) {
  PoolBackfill pool(4, Easy());
  pool.Submit(1, 4, 10);
  EXPECT_EQ(PassAt(pool, 0), (std::vector<std::uint32_t>{1}));
  pool.Submit(2, 4, 100);
  EXPECT_TRUE(PassAt(pool, 9).empty());
  // Job 1 is still running at 10, but its estimated end has come.
  EXPECT_EQ(PassAt(pool, 10), (std::vector<std::uint32_t>{2}));
  pool.Terminate(1, 10);  // its processors were let go already
  pool.Submit(3, 1, 5);
  EXPECT_TRUE(PassAt(pool, 11).empty());
  // Job 2 ends early: its termination frees its processors before 110.
  pool.Terminate(2, 110);
  EXPECT_EQ(PassAt(pool, 50), (std::vector<std::uint32_t>{3}));
}

TEST(PoolBackfillTest, NativeSemanticsHoldUntilTheTermination) {
  PoolBackfill pool(10, Easy(false));
  pool.Submit(1, 6, 100);
  pool.Submit(2, 2, 300);
  EXPECT_EQ(PassAt(pool, 0), (std::vector<std::uint32_t>{1, 2}));
  // At 150 job 1 is past its estimated end but holds its 6 processors; it is
  // assumed to end at 150 + 15, job 2 at 300. Job 3 needs 8: shadow time 165,
  // 0 extra. Job 4 ends by then; job 5 would not, and nothing is extra.
  pool.Submit(3, 8, 100);
  pool.Submit(4, 1, 15);
  pool.Submit(5, 1, 16);
  EXPECT_EQ(PassAt(pool, 150), (std::vector<std::uint32_t>{4}));
  // Its termination frees them: 7 free at 160, job 3 still needs 8 (by job
  // 4's end at 165), and job 5 would run past that.
  pool.Terminate(1, 100);
  EXPECT_TRUE(PassAt(pool, 160).empty());
  pool.Terminate(4, 165);
  EXPECT_EQ(PassAt(pool, 165), (std::vector<std::uint32_t>{3}));
  EXPECT_EQ(pool.waiting(), 1u);
}

TEST(PoolBackfillTest, AJobLargerThanThePool) {
  // easy: it never starts and never reserves; later jobs start where they fit.
  PoolBackfill easy(10, Easy());
  easy.Submit(1, 20, 100);
  easy.Submit(2, 6, 100);
  easy.Submit(3, 6, 100);
  easy.Submit(4, 4, 200);
  // Job 3 reserves from 100; job 4 fits beside it (extra 4).
  EXPECT_EQ(PassAt(easy, 0), (std::vector<std::uint32_t>{2, 4}));
  EXPECT_EQ(easy.waiting(), 2u);
  // fcfs: nothing passes it.
  PoolBackfill fcfs(10, {PoolPolicy::kFcfs, true, 15});
  fcfs.Submit(1, 6, 100);
  fcfs.Submit(2, 20, 100);
  fcfs.Submit(3, 1, 100);
  EXPECT_EQ(PassAt(fcfs, 0), (std::vector<std::uint32_t>{1}));
  EXPECT_TRUE(PassAt(fcfs, 100).empty());
}

TEST(PoolBackfillTest, KeepsTheOrderAcrossManyHoles) {
  // 200 one-processor jobs on 1 processor, each estimated at 1 s: they start
  // one per second in submission order however the waiting list is compacted.
  PoolBackfill pool(1, Easy());
  for (std::uint32_t j = 0; j < 200; ++j) pool.Submit(j, 1, 1);
  for (Time t = 0; t < 200; ++t) {
    EXPECT_EQ(PassAt(pool, t), (std::vector<std::uint32_t>{static_cast<std::uint32_t>(t)})) << "at " << t;
  }
  EXPECT_EQ(pool.waiting(), 0u);
}

// --- against the kernel's passes ---------------------------------------------------------------

// A random SWF workload: clustered submissions (many at equal times), sizes up
// to a little over the pool, run times both shorter and longer than estimated.
std::string RandomSwf(std::uint64_t seed) {
  SplitMix64 rng(seed);
  const std::uint64_t procs = 1 + rng.Below(16);
  const std::uint64_t jobs = 1 + rng.Below(60);
  std::string swf = "; MaxProcs: " + std::to_string(procs) + "\n";
  std::uint64_t submit = 0;
  for (std::uint64_t j = 1; j <= jobs; ++j) {
    if (rng.Below(3) == 0) submit += rng.Below(40);
    const std::uint64_t size = 1 + rng.Below(procs + 2);
    const std::uint64_t estimate = 1 + rng.Below(100);
    const std::uint64_t runtime = rng.Below(4) == 0 ? rng.Below(150) : rng.Below(estimate + 1);
    swf += std::to_string(j) + " " + std::to_string(submit) + " -1 " + std::to_string(runtime) + " " +
           std::to_string(size) + " -1 -1 " + std::to_string(size) + " " + std::to_string(estimate) +
           " -1 1 1 -1 -1 -1 -1 -1 -1\n";
  }
  return swf;
}

TEST(PoolBackfillTest, SameScheduleAsTheKernelPasses) {
  for (std::uint64_t seed = 1; seed <= 600; ++seed) {
    const std::string swf = RandomSwf(seed);
    auto trace = io::ReadSwf(swf, "random.swf");
    ASSERT_TRUE(trace.ok()) << trace.status().ToString();
    auto text = io::SwfSnapshotText(trace.value(), {});
    ASSERT_TRUE(text.ok()) << text.status().ToString();
    auto snapshot = io::ReadSnapshot(text.value(), "random");
    ASSERT_TRUE(snapshot.ok()) << snapshot.status().ToString();
    // Reference semantics, then native with a pass per event, then native
    // with a pass every 7 s.
    const SimSemantics semantics = seed % 3 == 0 ? SimSemantics::kReference : SimSemantics::kNative;
    const Duration interval = seed % 3 == 2 ? 7 : 0;
    for (SimPolicy policy : {SimPolicy::kEasy, SimPolicy::kFcfs}) {
      SimulationOptions options;
      options.policy = policy;
      options.semantics = semantics;
      options.interval = interval;
      const SimulationResult kernel = Simulate(snapshot->cluster, snapshot->jobs, options);
      options.pool_processors = static_cast<std::uint32_t>(*trace->max_procs);
      const SimulationResult pool = Simulate(snapshot->cluster, snapshot->jobs, options);
      ASSERT_EQ(kernel.jobs.size(), pool.jobs.size());
      EXPECT_EQ(kernel.passes, pool.passes) << "seed " << seed;
      for (std::size_t k = 0; k < kernel.jobs.size(); ++k) {
        ASSERT_EQ(kernel.jobs[k].start, pool.jobs[k].start)
            << "seed " << seed << (policy == SimPolicy::kEasy ? " easy" : " fcfs")
            << (semantics == SimSemantics::kReference ? " reference" : " native") << " interval " << interval << ", job "
            << kernel.jobs[k].job
            << "\n"
            << swf;
      }
    }
  }
}

}  // namespace
}  // namespace schedk
