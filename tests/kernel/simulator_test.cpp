// Trace replay (kernel/simulation): the pyss micro-case of workloads.md §6
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

Replayed Replay(io::SwfTrace trace, SimPolicy policy, bool runtime_estimate = false,
                SimSemantics semantics = SimSemantics::kReference) {
  io::SwfWorkloadOptions workload;
  workload.runtime_estimate = runtime_estimate;
  auto text = io::SwfSnapshotText(trace, workload);
  EXPECT_TRUE(text.ok()) << text.status().ToString();
  auto snapshot = io::ReadSnapshot(text.value(), "trace");
  EXPECT_TRUE(snapshot.ok()) << snapshot.status().ToString();
  SimulationOptions options;
  options.policy = policy;
  options.semantics = semantics;
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

TEST(SimulatorTest, ConsBfInput0UnderEachPolicy) {
  // Conservative: the fourth job would overlap the third's reservation at 200.
  EXPECT_EQ(Finishes(Replay(Parse(kConsBf0), SimPolicy::kConservative).result), (std::vector<Time>{100, 200, 300, 550}));
  // EASY: only the head reserves; the fourth fits beside it at 50 and delays the third.
  EXPECT_EQ(Finishes(Replay(Parse(kConsBf0), SimPolicy::kEasy).result), (std::vector<Time>{100, 200, 400, 300}));
  // FCFS: nobody passes anybody.
  EXPECT_EQ(Finishes(Replay(Parse(kConsBf0), SimPolicy::kFcfs).result), (std::vector<Time>{100, 200, 300, 550}));
  EXPECT_EQ(Finishes(Replay(Parse(kConsBf0), SimPolicy::kEasy, false, SimSemantics::kNative).result),
            (std::vector<Time>{100, 200, 400, 300}));
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
// job's simulated wait must equal its field 3.
void ExpectPublishedSchedule(const std::string& trace_name, bool runtime_estimate, double bsld, double wait) {
  const std::string file = runtime_estimate
                               ? "res_easy_prediction_backfill_scheduler_predictorclairvoyant_throw_an_error.swf.gz"
                               : "res_easy_backfill_scheduler_None_None.swf.gz";
  auto trace = Stored("reference/" + trace_name + "/" + file);
  if (!trace) GTEST_SKIP() << "../shared/datasets is absent";
  std::map<JobNumber, Time> published;
  for (const io::SwfJob& j : trace->jobs) published[static_cast<JobNumber>(j.get(io::kSwfJob))] = j.get(io::kSwfWait);
  const Replayed r = Replay(std::move(*trace), SimPolicy::kEasy, runtime_estimate);
  std::size_t same = 0;
  JobNumber first_different = 0;
  for (const SimulatedJob& j : r.result.jobs) {
    if (j.start - j.submit == published[j.job]) {
      ++same;
    } else if (first_different == 0) {
      first_different = j.job;
    }
  }
  EXPECT_EQ(same, r.result.jobs.size()) << "first job with another wait: " << first_different;
  EXPECT_NEAR(r.summary.mean_bsld, bsld, 0.005);  // the published value, to its printed digits
  EXPECT_NEAR(r.summary.mean_wait, wait, 0.05);
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
