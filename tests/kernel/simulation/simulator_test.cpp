// Trace replay (kernel/simulation): the pyss micro-case of the pyss test suite
// level 0 under FCFS, EASY and conservative; the summary's arithmetic; and, on
// the stored traces (skipped where ../shared is absent), the published SC'15
// EASY schedules of all four traces job by job (level 1), the CTC-SP2 smoke
// run (level 3) and the relations between policies (level 4).
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <string>

#include "io/simulation_plot.hpp"
#include "io/snapshot_reader.hpp"
#include "io/swf_reader.hpp"
#include "io/swf_workload.hpp"
#include "kernel/simulation/simulation_metrics.hpp"
#include "kernel/simulation/simulator.hpp"
#include "tests/test_support.hpp"

namespace schedk {
namespace {

struct Replayed {
  io::SwfTrace trace;
  SimulationResult result;
  SimulationSummary summary;
};

// Which passes replay: the kernel's, or the one-pool engine's where it applies.
enum class Passes { kKernel, kPool };

Replayed Replay(io::SwfTrace trace, SimPolicy policy, bool runtime_estimate = false,
                SimSemantics semantics = SimSemantics::kReference, Duration interval = 0,
                Passes passes = Passes::kKernel) {
  io::SwfWorkloadOptions workload;
  workload.runtime_estimate = runtime_estimate;
  auto text = io::SwfSnapshotText(trace, workload);
  EXPECT_TRUE(text.ok()) << text.status().ToString();
  auto snapshot = io::ReadSnapshot(text.value(), "trace");
  EXPECT_TRUE(snapshot.ok()) << snapshot.status().ToString();
  SimulationOptions options;
  options.policy = policy;
  options.semantics = semantics;
  options.interval = interval;
  if (passes == Passes::kPool) options.pool_processors = static_cast<std::uint32_t>(*trace.max_procs);
  Replayed r;
  r.result = Simulate(snapshot->cluster, snapshot->jobs, options);
  r.summary = Summarize(r.result, static_cast<double>(*trace.max_procs));
  r.trace = std::move(trace);
  return r;
}

io::SwfTrace Parse(const std::string& text) {
  auto t = io::ReadSwf(text, "micro.swf");
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  return t.value();
}

// pyss cons_bf_input.0: 100 processors; (submit, estimate = runtime, procs) =
// (0, 100, 70), (1, 100, 80), (2, 100, 90), (50, 250, 20).
const char* kConsBf0 =
    "; MaxProcs: 100\n"
    "1 0 -1 100 70 -1 -1 70 100 -1 1 1 -1 -1 -1 -1 -1 -1\n"
    "2 1 -1 100 80 -1 -1 80 100 -1 1 1 -1 -1 -1 -1 -1 -1\n"
    "3 2 -1 100 90 -1 -1 90 100 -1 1 1 -1 -1 -1 -1 -1 -1\n"
    "4 50 -1 250 20 -1 -1 20 250 -1 1 1 -1 -1 -1 -1 -1 -1\n";

std::vector<Time> Finishes(const SimulationResult& r) {
  std::vector<Time> out;
  for (const SimulatedJob& j : r.jobs) out.push_back(j.start + j.runtime);
  return out;
}

Replayed PoolReplay(io::SwfTrace trace, SimPolicy policy, bool runtime_estimate = false) {
  return Replay(std::move(trace), policy, runtime_estimate, SimSemantics::kReference, 0, Passes::kPool);
}

TEST(SimulatorTest, ConsBfInput0UnderEachPolicy) {
  // Conservative: the fourth job would overlap the third's reservation at 200.
  EXPECT_EQ(Finishes(Replay(Parse(kConsBf0), SimPolicy::kConservative).result), (std::vector<Time>{100, 200, 300, 550}));
  // EASY: only the head reserves; the fourth fits beside it at 50 and delays the third.
  EXPECT_EQ(Finishes(Replay(Parse(kConsBf0), SimPolicy::kEasy).result), (std::vector<Time>{100, 200, 400, 300}));
  // FCFS: nobody passes anybody.
  EXPECT_EQ(Finishes(Replay(Parse(kConsBf0), SimPolicy::kFcfs).result), (std::vector<Time>{100, 200, 300, 550}));
  EXPECT_EQ(Finishes(PoolReplay(Parse(kConsBf0), SimPolicy::kEasy).result), (std::vector<Time>{100, 200, 400, 300}));
  EXPECT_EQ(Finishes(PoolReplay(Parse(kConsBf0), SimPolicy::kFcfs).result), (std::vector<Time>{100, 200, 300, 550}));
  // Conservative has no one-pool engine: the kernel's passes replay it.
  EXPECT_EQ(Finishes(PoolReplay(Parse(kConsBf0), SimPolicy::kConservative).result),
            (std::vector<Time>{100, 200, 300, 550}));
  EXPECT_EQ(Finishes(Replay(Parse(kConsBf0), SimPolicy::kEasy, false, SimSemantics::kNative).result),
            (std::vector<Time>{100, 200, 400, 300}));
}

TEST(SimulatorTest, MauiPolicyKeepsBypassCounts) {
  // EASY on cons_bf_input.0: job 4 (20 processors, 250 s) backfills at t=50
  // past jobs 2 and 3, which wait for job 1; nothing passes them afterwards.
  io::SwfWorkloadOptions workload;
  auto text = io::SwfSnapshotText(Parse(kConsBf0), workload);
  ASSERT_TRUE(text.ok());
  auto snapshot = io::ReadSnapshot(text.value(), "trace");
  ASSERT_TRUE(snapshot.ok());
  SimulationOptions options;
  options.policy = SimPolicy::kEasy;
  const SimulationResult ge = Simulate(snapshot->cluster, snapshot->jobs, options);
  snapshot->cluster.config.priority_policy = PriorityPolicy::kMaui;  // QUEUETIMEWEIGHT 1: first come, first served
  const SimulationResult maui = Simulate(snapshot->cluster, snapshot->jobs, options);
  ASSERT_EQ(maui.jobs.size(), 4u);
  std::vector<std::uint32_t> bypassed;
  for (const SimulatedJob& j : maui.jobs) bypassed.push_back(j.bypassed);
  EXPECT_EQ(bypassed, (std::vector<std::uint32_t>{0, 1, 1, 0}));
  EXPECT_EQ(Finishes(maui), Finishes(ge));
  for (const SimulatedJob& j : ge.jobs) EXPECT_EQ(j.bypassed, 0u);  // counted under Maui only
}

TEST(SimulatorTest, PassesEveryIntervalInNativeSemantics) {
  // Passes at 0, 30, 60, ...: job 1 starts at 0; job 4 (submitted at 50)
  // backfills at 60 until 310; job 2 starts at the first pass after job 1's
  // end at 100, i.e. 120; job 3 needs 90 processors, free once job 4 ends at
  // 310, so it starts at 330.
  EXPECT_EQ(Finishes(Replay(Parse(kConsBf0), SimPolicy::kEasy, false, SimSemantics::kNative, 30).result),
            (std::vector<Time>{100, 220, 430, 310}));
  // A job that can never start ends the replay instead of ticking forever.
  const Replayed r = Replay(Parse("; MaxProcs: 100\n1 0 -1 10 100 -1 -1 100 10 -1 1 1 -1 -1 -1 -1 -1 -1\n"
                                  "2 5 -1 10 200 -1 -1 200 10 -1 1 1 -1 -1 -1 -1 -1 -1\n"),
                            SimPolicy::kEasy, false, SimSemantics::kNative, 60);
  EXPECT_EQ(r.result.jobs[0].start, 0);
  EXPECT_EQ(r.result.jobs[1].start, -1);
}

// More of pyss's hand-made cases (the pyss test suite), re-expressed: 100
// processors; jobs as (submit, estimate, processors, runtime) with the finish
// time each policy must give. All 50 (case, policy) pairs of the stored subset
// of pyss's inputs were checked the same way while this was written.
struct MicroJob {
  Time submit;
  Duration estimate;
  std::uint32_t procs;
  Duration runtime;
  Time finish;
};

std::string MicroSwf(const std::vector<MicroJob>& jobs) {
  std::string swf = "; MaxProcs: 100\n";
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    const MicroJob& j = jobs[k];
    swf += std::to_string(k + 1) + " " + std::to_string(j.submit) + " -1 " + std::to_string(j.runtime) + " " +
           std::to_string(j.procs) + " -1 -1 " + std::to_string(j.procs) + " " + std::to_string(j.estimate) +
           " -1 1 1 -1 -1 -1 -1 -1 -1\n";
  }
  return swf;
}

void ExpectFinishes(const std::vector<MicroJob>& jobs, SimPolicy policy, const char* what) {
  std::vector<Time> expected;
  for (const MicroJob& j : jobs) expected.push_back(j.finish);
  EXPECT_EQ(Finishes(Replay(Parse(MicroSwf(jobs)), policy).result), expected) << what;
  EXPECT_EQ(Finishes(PoolReplay(Parse(MicroSwf(jobs)), policy).result), expected) << what << ", one-pool passes";
}

TEST(SimulatorTest, PyssMicroCases) {
  // A full-machine job, four that start when it ends, then two short
  // full-machine jobs in turn (the first ends early, so the second follows it).
  const std::vector<MicroJob> after_the_first = {{0, 200, 100, 100, 100},   {10, 3000, 10, 900, 1000},
                                                 {10, 3000, 10, 900, 1000}, {20, 1980, 10, 900, 1000},
                                                 {20, 1980, 10, 900, 1000}, {30, 2, 100, 1, 1001},
                                                 {31, 2, 100, 2, 1003}};
  for (SimPolicy p : {SimPolicy::kFcfs, SimPolicy::kEasy, SimPolicy::kConservative}) {
    ExpectFinishes(after_the_first, p, "jobs after a full-machine job");
  }
  // Short jobs backfill in front of two 95-processor jobs, but the last job
  // (6 processors for 1,200 s) would delay a reservation and waits.
  const std::vector<MicroJob> backfill_all_but_last = {
      {0, 100, 50, 100, 100},   {1, 1000, 95, 100, 200}, {2, 1000, 95, 100, 300}, {5, 11, 1, 10, 15},
      {6, 12, 1, 11, 17},       {6, 12, 1, 12, 18},      {6, 12, 2, 10, 16},      {6, 1000, 95, 100, 400},
      {7, 100, 100, 100, 500},  {8, 20, 1, 2, 10},       {8, 21, 1, 2, 10},       {10, 1200, 6, 1000, 1500}};
  ExpectFinishes(backfill_all_but_last, SimPolicy::kEasy, "backfilling all but the last, easy");
  ExpectFinishes(backfill_all_but_last, SimPolicy::kConservative, "backfilling all but the last, conservative");
  // The first job ends early; the backfilled third then keeps the second waiting.
  const std::vector<MicroJob> early_end = {{100, 600, 50, 100, 200}, {101, 600, 60, 10, 214}, {104, 100, 50, 100, 204}};
  ExpectFinishes(early_end, SimPolicy::kEasy, "an early end, easy");
  ExpectFinishes(early_end, SimPolicy::kConservative, "an early end, conservative");
  // EASY backfills the last two jobs beside the 100-processor head.
  ExpectFinishes({{0, 600, 90, 600, 600}, {0, 10, 10, 10, 10}, {1, 10, 100, 10, 610}, {2, 10, 6, 10, 20},
                  {3, 10, 4, 10, 20}},
                 SimPolicy::kEasy, "two backfills beside the head");
  // FCFS: the 10-processor job behind the 99-processor one waits for it.
  ExpectFinishes({{0, 100, 15, 100, 100}, {0, 100, 15, 100, 100}, {0, 100, 15, 100, 100}, {0, 100, 15, 100, 100},
                  {0, 100, 15, 100, 100}, {0, 100, 15, 100, 100}, {5, 100, 50, 100, 200}, {6, 100, 10, 100, 200},
                  {7, 1000, 99, 100, 300}, {8, 2, 10, 2, 302}},
                 SimPolicy::kFcfs, "no passing under fcfs");
  ExpectFinishes({{0, 20, 50, 20, 20}, {1, 20, 60, 20, 40}, {2, 300, 20, 300, 320}, {3, 400, 10, 400, 420},
                  {4, 500, 10, 500, 520}, {5, 20, 10, 20, 60}},
                 SimPolicy::kFcfs, "fcfs fills the machine in order");
}

TEST(SimulatorTest, SummaryArithmetic) {
  const Replayed r = Replay(Parse(kConsBf0), SimPolicy::kEasy);
  // Starts 0, 100, 300, 50 for submits 0, 1, 2, 50: waits 0, 99, 298, 0; runs 100, 100, 100, 250.
  EXPECT_DOUBLE_EQ(r.summary.mean_wait, (0 + 99 + 298 + 0) / 4.0);
  EXPECT_DOUBLE_EQ(r.summary.mean_bsld, (1.0 + 199.0 / 100 + 398.0 / 100 + 1.0) / 4);
  EXPECT_EQ(r.summary.makespan, 400);
  EXPECT_DOUBLE_EQ(r.summary.utilization, (100.0 * 70 + 100.0 * 80 + 100.0 * 90 + 250.0 * 20) / (100.0 * 400));
  EXPECT_EQ(r.summary.jobs, 4u);
}

TEST(SimulatorTest, PlotDrawsTheThreeSeries) {
  const Replayed r = Replay(Parse(kConsBf0), SimPolicy::kEasy);
  const std::string svg = io::PlotSvg(r.result, 100, "cons_bf_input.0 <easy>");
  EXPECT_EQ(svg.rfind("<svg ", 0), 0u);
  EXPECT_NE(svg.find("cons_bf_input.0 &lt;easy&gt;"), std::string::npos);
  std::size_t polylines = 0;
  for (std::size_t at = 0; (at = svg.find("<polyline", at)) != std::string::npos; ++at) ++polylines;
  EXPECT_EQ(polylines, 3u);
  // Peaks: 2 jobs wait at once (jobs 2 and 3 from t = 2 to 100), all 100
  // processors are busy from 100 to 300, and the running mean of the wait
  // peaks when job 3 starts: (0 + 0 + 99 + 298) / 4 s = 0.0276 h.
  EXPECT_NE(svg.find("text-anchor=\"end\">2</text>"), std::string::npos) << svg.substr(0, 800);
  EXPECT_NE(svg.find("text-anchor=\"end\">1</text>"), std::string::npos);
  EXPECT_NE(svg.find("text-anchor=\"end\">0.02757</text>"), std::string::npos);
  EXPECT_EQ(svg.substr(svg.size() - 7), "</svg>\n");
}

// --- the stored traces ---------------------------------------------------------------------------

std::optional<io::SwfTrace> Stored(const std::string& relative) {
  const std::string path = testing::SharedDir() + "/datasets/swf/" + relative;
  if (!std::ifstream(path)) return std::nullopt;
  auto t = io::ReadSwfFile(path);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  return t.value();
}

// Level 1: the reference file's fields 1, 2, 4, 8 and 9 are the input; every
// job's simulated wait must equal its field 3, with the kernel's passes and
// with the one-pool engine's.
void ExpectPublishedSchedule(const std::string& trace_name, bool runtime_estimate, double bsld, double wait) {
  const std::string file = runtime_estimate
                               ? "res_easy_prediction_backfill_scheduler_predictorclairvoyant_throw_an_error.swf.gz"
                               : "res_easy_backfill_scheduler_None_None.swf.gz";
  auto trace = Stored("reference/" + trace_name + "/" + file);
  if (!trace) GTEST_SKIP() << "../shared/datasets is absent";
  std::map<JobNumber, Time> published;
  for (const io::SwfJob& j : trace->jobs) published[static_cast<JobNumber>(j.get(io::kSwfJob))] = j.get(io::kSwfWait);
  for (Passes passes : {Passes::kKernel, Passes::kPool}) {
    const Replayed r = Replay(*trace, SimPolicy::kEasy, runtime_estimate, SimSemantics::kReference, 0, passes);
    const char* engine = passes == Passes::kKernel ? "kernel passes" : "one-pool passes";
    std::size_t same = 0;
    JobNumber first_different = 0;
    for (const SimulatedJob& j : r.result.jobs) {
      if (j.start - j.submit == published[j.job]) {
        ++same;
      } else if (first_different == 0) {
        first_different = j.job;
      }
    }
    EXPECT_EQ(same, r.result.jobs.size()) << engine << ": first job with another wait: " << first_different;
    EXPECT_NEAR(r.summary.mean_bsld, bsld, 0.005) << engine;  // the published value, to its printed digits
    EXPECT_NEAR(r.summary.mean_wait, wait, 0.05) << engine;
  }
}

TEST(SimulationDatasetTest, KthSp2EasyRequestedTime) { ExpectPublishedSchedule("KTH-SP2", false, 92.58, 6836.9); }
TEST(SimulationDatasetTest, KthSp2EasyActualRuntime) { ExpectPublishedSchedule("KTH-SP2", true, 71.72, 6327.7); }
TEST(SimulationDatasetTest, CtcSp2EasyRequestedTime) { ExpectPublishedSchedule("CTC-SP2", false, 49.57, 14272.6); }
TEST(SimulationDatasetTest, CtcSp2EasyActualRuntime) { ExpectPublishedSchedule("CTC-SP2", true, 37.17, 13581.7); }
TEST(SimulationDatasetTest, SdscSp2EasyRequestedTime) { ExpectPublishedSchedule("SDSC-SP2", false, 87.87, 20497.8); }
TEST(SimulationDatasetTest, SdscSp2EasyActualRuntime) { ExpectPublishedSchedule("SDSC-SP2", true, 70.48, 17337.1); }
TEST(SimulationDatasetTest, SdscBlueEasyRequestedTime) { ExpectPublishedSchedule("SDSC-BLUE", false, 36.52, 7690.8); }
TEST(SimulationDatasetTest, SdscBlueEasyActualRuntime) { ExpectPublishedSchedule("SDSC-BLUE", true, 30.62, 7336.3); }

// Level 3: the first 10,000 filtered CTC-SP2 jobs of the archive file.
TEST(SimulationDatasetTest, CtcSp2FirstTenThousand) {
  auto trace = Stored("CTC-SP2-1996-3.1-cln.swf.gz");
  if (!trace) GTEST_SKIP() << "../shared/datasets is absent";
  io::PwaFilter(*trace);
  trace->jobs.resize(10000);
  const Replayed r = Replay(std::move(*trace), SimPolicy::kEasy);
  EXPECT_NEAR(r.summary.mean_bsld, 60.392, 0.0005);
  EXPECT_NEAR(r.summary.mean_wait, 13820.2, 0.05);
}

// Level 4 on KTH-SP2: clairvoyant estimates beat requested ones, FCFS is at
// least 10 times worse, and utilisation hardly moves between policies.
TEST(SimulationDatasetTest, KthSp2PoliciesRelate) {
  auto trace = Stored("reference/KTH-SP2/res_easy_backfill_scheduler_None_None.swf.gz");
  if (!trace) GTEST_SKIP() << "../shared/datasets is absent";
  const Replayed easy = Replay(*trace, SimPolicy::kEasy);
  const Replayed clairvoyant = Replay(*trace, SimPolicy::kEasy, true);
  const Replayed fcfs = Replay(*trace, SimPolicy::kFcfs);
  EXPECT_LT(clairvoyant.summary.mean_bsld, easy.summary.mean_bsld);
  EXPECT_GE(fcfs.summary.mean_bsld, 10 * easy.summary.mean_bsld);
  EXPECT_NEAR(fcfs.summary.utilization, easy.summary.utilization, 0.005 * easy.summary.utilization);
  EXPECT_NEAR(clairvoyant.summary.utilization, easy.summary.utilization, 0.005 * easy.summary.utilization);
}

}  // namespace
}  // namespace schedk
