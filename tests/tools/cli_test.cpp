// End-to-end tests of the schedk binary: the seeds' numbers through the CLI on
// the bundled datasets, their expected outputs, exit codes, and byte-identical
// output with 1 and N threads.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "tests/test_support.hpp"

namespace schedk {
namespace {

struct CliRun {
  int exit_code = -1;
  std::string out;
  std::string err;
};

using testing::ReadText;

CliRun Schedk(const std::string& args, const std::string& stdin_text = "") {
  static int counter = 0;
  const std::string base = ::testing::TempDir() + "schedk_cli_" + std::to_string(::getpid()) + "_" + std::to_string(counter++);
  std::string command = testing::SchedkBinary() + " " + args + " > " + base + ".out 2> " + base + ".err";
  if (!stdin_text.empty()) {
    std::ofstream(base + ".in") << stdin_text;
    command += " < " + base + ".in";
  }
  const int status = std::system(command.c_str());
  CliRun r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = ReadText(base + ".out");
  r.err = ReadText(base + ".err");
  std::remove((base + ".out").c_str());
  std::remove((base + ".err").c_str());
  std::remove((base + ".in").c_str());
  return r;
}

std::string Dataset(const std::string& name) { return testing::SourceDir() + "/datasets/" + name; }

// `schedule` output with the done line's elapsed milliseconds blanked out.
std::string WithoutElapsed(std::string out) {
  const std::size_t at = out.rfind(" ms=");
  if (at != std::string::npos) out = out.substr(0, at) + " ms=_\n";
  return out;
}

// The numeric field `key` of the JSON Lines row of job `job`.
double Field(const std::string& jsonl, unsigned job, const std::string& key) {
  std::istringstream lines(jsonl);
  std::string line;
  const std::string id = "{\"job\":" + std::to_string(job) + ",";
  while (std::getline(lines, line)) {
    if (line.rfind(id, 0) != 0) continue;
    const std::size_t at = line.find("\"" + key + "\":");
    if (at == std::string::npos) break;
    return std::strtod(line.c_str() + at + key.size() + 3, nullptr);
  }
  ADD_FAILURE() << "no " << key << " for job " << job;
  return -1;
}

TEST(CliTest, BlogFunctionalExample) {
  const CliRun r = Schedk("priorities --format jsonl " + Dataset("blog-functional.snap"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_DOUBLE_EQ(Field(r.out, 101, "ftckt"), 250000);
  EXPECT_DOUBLE_EQ(Field(r.out, 102, "ftckt"), 250000);
  EXPECT_DOUBLE_EQ(Field(r.out, 103, "ftckt"), 500000);
  EXPECT_NEAR(Field(r.out, 104, "ftckt"), 41666.67, 0.005);
  EXPECT_NEAR(Field(r.out, 105, "ftckt"), 27777.78, 0.005);
  EXPECT_NEAR(Field(r.out, 106, "ftckt"), 20833.33, 0.005);
  EXPECT_NEAR(Field(r.out, 107, "ftckt"), 83333.33, 0.005);
  EXPECT_NEAR(Field(r.out, 108, "ftckt"), 41666.67, 0.005);
  EXPECT_NEAR(Field(r.out, 107, "ntckts"), 83333.33 / 500000, 1e-8);
}

TEST(CliTest, AllPoliciesOff) {
  const CliRun r = Schedk("priorities --format jsonl " + Dataset("blog-all-off.snap"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (unsigned job : {66622u, 66722u, 67652u, 63285u}) EXPECT_NEAR(Field(r.out, job, "prio"), 0.555, 1e-12);
}

TEST(CliTest, PosixPriorityTable) {
  const CliRun r = Schedk("priorities --format jsonl " + Dataset("blog-posix.snap"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (int k = 0; k < 32; ++k) {
    const unsigned job = 63300 + static_cast<unsigned>(k);
    const int ppri = 1024 - 64 * k;
    EXPECT_DOUBLE_EQ(Field(r.out, job, "ppri"), ppri);
    EXPECT_DOUBLE_EQ(Field(r.out, job, "nurg"), 1.0);
    EXPECT_DOUBLE_EQ(Field(r.out, job, "npprior"), (ppri + 1024) / 2048.0);
    EXPECT_NEAR(Field(r.out, job, "prio"), (ppri + 1024) / 2048.0 + 0.105, 1e-12);
  }
  EXPECT_NE(r.out.find("\"prio\":1.105"), std::string::npos);
}

TEST(CliTest, ReservationExampleUnderGridEngine62Rules) {
  const CliRun r = Schedk("priorities " + Dataset("reservation-2004.snap"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Dispatch order and qstat's %7.5f display: 0.62883, 0.60500, 0.50500.
  const std::size_t a = r.out.find("    3127      1 0.62883");
  const std::size_t b = r.out.find("    3128      1 0.60500");
  const std::size_t c = r.out.find("    3129      1 0.50500");
  ASSERT_NE(a, std::string::npos) << r.out;
  ASSERT_NE(b, std::string::npos) << r.out;
  ASSERT_NE(c, std::string::npos) << r.out;
  EXPECT_LT(a, b);
  EXPECT_LT(b, c);
}

TEST(CliTest, SiteUrgencyPolicy) {
  const CliRun r = Schedk("priorities --format jsonl " + Dataset("site-urgency.snap"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto position = [&](unsigned job) { return r.out.find("{\"job\":" + std::to_string(job) + ","); };
  EXPECT_LT(position(34), position(1));  // 34 h beats a fresh t-queue job ...
  EXPECT_LT(position(1), position(33));  // ... 33 h does not
  EXPECT_LT(position(74), position(2));  // 74 h beats a fresh u-queue job ...
  EXPECT_LT(position(2), position(73));  // ... 73 h does not
}

TEST(CliTest, ExpectedOutputs) {
  for (const char* name : {"blog-all-off", "blog-posix", "blog-functional", "reservation-2004", "site-urgency",
                           "policies-mix", "maui-fairshare"}) {
    const CliRun r = Schedk("priorities " + Dataset(std::string(name) + ".snap"));
    ASSERT_EQ(r.exit_code, 0) << name << ": " << r.err;
    EXPECT_EQ(r.out, ReadText(Dataset(std::string(name) + ".expected"))) << name;
  }
}

// qstat shows a pending array job's template (its first dispatchable task)
// on every pending or held task, as a real 8.1.9 cell does (make compat,
// scenario array-tickets); --task-values computed keeps each task's own.
TEST(CliTest, PendingArrayTasksShowTheJobsTemplateUnlessComputedIsAsked) {
  const CliRun qstat = Schedk("priorities " + Dataset("policies-mix.snap"));
  const CliRun computed = Schedk("priorities --task-values computed " + Dataset("policies-mix.snap"));
  ASSERT_EQ(qstat.exit_code, 0) << qstat.err;
  ASSERT_EQ(computed.exit_code, 0) << computed.err;
  EXPECT_EQ(computed.out, ReadText(Dataset("policies-mix.computed.expected")));
  auto row = [](const std::string& out, const std::string& job_task) {
    const std::size_t at = out.find(job_task);
    return at == std::string::npos ? std::string() : out.substr(at + job_task.size(), 120);
  };
  // Job 24's tasks 2..6 wait behind task 1: qstat shows task 1's columns on each.
  EXPECT_EQ(row(qstat.out, "      24      2 "), row(qstat.out, "      24      1 "));
  EXPECT_EQ(row(qstat.out, "      24      6 "), row(computed.out, "      24      1 "));
  EXPECT_NE(row(computed.out, "      24      2 "), row(computed.out, "      24      1 "));
  // A job with no dispatchable task keeps its zeros (held job 26).
  EXPECT_EQ(row(qstat.out, "      26      1 "), row(computed.out, "      26      1 "));
}

// Grid Engine's accounting file, from the 8.1.9 cell of make compat: its
// usage records (undecayed with --halftime 0: u1's cpu is the sum awk gives,
// 0.309486) and a replay of its 140 tasks.
TEST(CliTest, AccountingFileAsUsageAndAsATrace) {
  const std::string file = testing::SourceDir() + "/tests/io/ge_capture/accounting";
  const CliRun usage = Schedk("import accounting " + file + " --now 1795653700 --halftime 0");
  ASSERT_EQ(usage.exit_code, 0) << usage.err;
  EXPECT_NE(usage.out.find("usage user u1 cpu=0.3094"), std::string::npos) << usage.out;
  const CliRun no_clock = Schedk("import accounting " + file);
  EXPECT_EQ(no_clock.exit_code, 2);
  const CliRun replay = Schedk("simulate " + file + " --format accounting --summary-format json");
  ASSERT_EQ(replay.exit_code, 0) << replay.err;
  EXPECT_NE(replay.out.find("\"jobs\":140,"), std::string::npos) << replay.out;
}

TEST(CliTest, MauiPolicyGivesIdenticalBytesWithOneAndManyThreads) {
  CliRun generated = Schedk("generate --jobs 30000 --hosts 200 --seed 5");
  ASSERT_EQ(generated.exit_code, 0) << generated.err;
  std::string snapshot = generated.out;
  snapshot.replace(snapshot.find("params MONITOR=1"), 16, "params MONITOR=1,PRIORITY_POLICY=maui");
  snapshot += "begin maui\nUSERWEIGHT 1\nXFACTORWEIGHT 100\nPROCWEIGHT 10\nMEMWEIGHT 1\nPEWEIGHT 3\nMEMRESOURCE mem\n"
              "FSUSERWEIGHT 10\nFSPOLICY UTILIZEDPS\nUSERCFG[DEFAULT] FSTARGET=2 PRIORITY=3\nend maui\n";
  for (const char* format : {"table", "jsonl"}) {
    const std::string args = std::string("priorities - --format ") + format;
    const CliRun one = Schedk(args + " --threads 1", snapshot);
    const CliRun many = Schedk(args + " --threads 8", snapshot);
    ASSERT_EQ(one.exit_code, 0) << one.err;
    EXPECT_GT(one.out.size(), 30000u * 100);
    EXPECT_EQ(one.out, many.out) << format;
  }
}

// The thread counts whose outputs must be byte-identical: odd ones cut chunks
// unevenly, 16 is a master's host.
constexpr int kThreadCounts[] = {2, 3, 7, 16};

// Every bundled snapshot and a generated one with quota sets and
// reservations: priorities (table, JSON Lines) and the schedule, the same
// bytes at every thread count as on one thread.
TEST(CliTest, EveryThreadCountGivesIdenticalBytes) {
  const CliRun generated = Schedk("generate --jobs 20000 --hosts 300 --seed 9 --max-reservation 50 --quota-sets 3");
  ASSERT_EQ(generated.exit_code, 0) << generated.err;
  const std::string generated_path = ::testing::TempDir() + "schedk_threads_" + std::to_string(::getpid()) + ".snap";
  std::ofstream(generated_path) << generated.out;
  std::vector<std::string> snapshots = {generated_path};
  for (const auto& entry : std::filesystem::directory_iterator(testing::SourceDir() + "/datasets")) {
    if (entry.path().extension() == ".snap") snapshots.push_back(entry.path().string());
  }
  std::sort(snapshots.begin(), snapshots.end());
  for (const std::string& snapshot : snapshots) {
    for (const char* command : {"priorities --format table", "priorities --format jsonl", "schedule"}) {
      const std::string args = std::string(command) + " " + snapshot;
      const CliRun one = Schedk(args + " --threads 1");
      ASSERT_EQ(one.exit_code, 0) << args << ": " << one.err;
      for (const int threads : kThreadCounts) {
        const CliRun many = Schedk(args + " --threads " + std::to_string(threads));
        EXPECT_EQ(WithoutElapsed(one.out), WithoutElapsed(many.out)) << args << ", " << threads << " threads";
      }
    }
  }
  std::remove(generated_path.c_str());
}

bool Has(const std::string& out, const std::string& line) { return out.find(line + "\n") != std::string::npos; }

// Seed 004 / sge-algorithms.md §5.9, interval 1 with DURATION_OFFSET 0, and the
// MONITOR lines the spec prints for it (all.q@carc is the only queue here).
TEST(CliScheduleTest, Seed004ReservesL5AtT30AndL1AtT60) {
  const CliRun r = Schedk("schedule " + Dataset("reservation-2004.snap"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Has(r.out, "start 3127.1 at=1077903416 dur=30 slots=1 granted=all.q@carc:1")) << r.out;
  EXPECT_TRUE(Has(r.out, "sched 3127:1:STARTING:1077903416:30:G:global:license:4.000000"));
  EXPECT_TRUE(Has(r.out, "sched 3127:1:STARTING:1077903416:30:Q:all.q@carc:slots:1.000000"));
  EXPECT_TRUE(Has(r.out, "reserve 3128.1 at=1077903446 dur=30 slots=1 granted=all.q@carc:1"));
  EXPECT_TRUE(Has(r.out, "sched 3128:1:RESERVING:1077903446:30:G:global:license:5.000000"));
  EXPECT_TRUE(Has(r.out, "reserve 3129.1 at=1077903476 dur=31 slots=1 granted=all.q@carc:1"));
  EXPECT_TRUE(Has(r.out, "sched 3129:1:RESERVING:1077903476:31:G:global:license:1.000000"));
  EXPECT_TRUE(Has(WithoutElapsed(r.out), "done starts=1 reserves=2 pending=0 ms=_"));
}

TEST(CliScheduleTest, Seed004L1WithThirtySecondsBackfills) {
  const CliRun r = Schedk("schedule " + Dataset("reservation-2004-backfill.snap"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Has(r.out, "reserve 3128.1 at=1077903446 dur=30 slots=1 granted=all.q@carc:1")) << r.out;
  EXPECT_TRUE(Has(r.out, "start 3129.1 at=1077903416 dur=30 slots=1 granted=all.q@carc:1"));
}

TEST(CliScheduleTest, Seed004WithTheDefaultOffset) {
  const CliRun r = Schedk("schedule " + Dataset("reservation-2004-offset.snap"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Has(r.out, "start 3127.1 at=1077903416 dur=90 slots=1 granted=all.q@carc:1")) << r.out;
  EXPECT_TRUE(Has(r.out, "reserve 3128.1 at=1077903506 dur=90 slots=1 granted=all.q@carc:1"));  // T+90
  EXPECT_TRUE(Has(r.out, "reserve 3129.1 at=1077903596 dur=91 slots=1 granted=all.q@carc:1"));  // T+180
}

// sge-algorithms.md T5.4: reservation at 2000, two backfills, one blocked job, loop end.
TEST(CliScheduleTest, T5_4BackfillScenario) {
  const CliRun r = Schedk("schedule " + Dataset("backfill-t54.snap"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Has(r.out, "sched 1:1:RUNNING:900:400:Q:all.q@node1:slots:1.000000")) << r.out;
  EXPECT_TRUE(Has(r.out, "sched 2:1:RUNNING:950:1050:Q:all.q@node1:slots:1.000000"));
  EXPECT_TRUE(Has(r.out, "reserve 11.1 at=2000 dur=600 slots=4 pe=mpi granted=all.q@node1:4"));
  EXPECT_TRUE(Has(r.out, "sched 11:1:RESERVING:2000:600:P:mpi:slots:4.000000"));
  EXPECT_TRUE(Has(r.out, "start 12.1 at=1000 dur=250 slots=1 granted=all.q@node1:1"));
  EXPECT_NE(r.out.find("pending 13.1 reason=reservation-blocked "), std::string::npos);
  EXPECT_TRUE(Has(r.out, "start 14.1 at=1000 dur=900 slots=1 granted=all.q@node1:1"));
}

// Grid Engine reserves only after a diagram's tail; RESERVE_IN_GAPS=1 uses gaps,
// for sequential and parallel jobs alike.
TEST(CliScheduleTest, ReservationsInGapsOnlyWithTheExtension) {
  const CliRun ge = Schedk("schedule " + Dataset("reserve-in-gaps.snap"));
  ASSERT_EQ(ge.exit_code, 0) << ge.err;
  EXPECT_TRUE(Has(ge.out, "reserve 11.1 at=1500 dur=100 slots=2 pe=mpi granted=all.q@h1:2")) << ge.out;
  EXPECT_TRUE(Has(ge.out, "reserve 12.1 at=1600 dur=300 slots=1 pe=mpi granted=all.q@h1:1"));
  EXPECT_TRUE(Has(ge.out, "reserve 13.1 at=1600 dur=100 slots=1 granted=all.q@h1:1"));
  const CliRun gaps = Schedk("schedule " + Dataset("reserve-in-gaps-on.snap"));
  ASSERT_EQ(gaps.exit_code, 0) << gaps.err;
  EXPECT_TRUE(Has(gaps.out, "reserve 11.1 at=1500 dur=100 slots=2 pe=mpi granted=all.q@h1:2")) << gaps.out;
  EXPECT_TRUE(Has(gaps.out, "reserve 12.1 at=1100 dur=300 slots=1 pe=mpi granted=all.q@h1:1"));
  EXPECT_TRUE(Has(gaps.out, "reserve 13.1 at=1400 dur=100 slots=1 granted=all.q@h1:1"));
}

TEST(CliScheduleTest, MonitorFileIsAppendedWithSeparators) {
  const std::string file = ::testing::TempDir() + "schedk_monitor_" + std::to_string(::getpid());
  std::remove(file.c_str());
  for (int i = 0; i < 2; ++i) {
    const CliRun r = Schedk("schedule --monitor " + file + " " + Dataset("reservation-2004.snap"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  const std::string section =
      "::::::::\n"
      "3127:1:STARTING:1077903416:30:G:global:license:4.000000\n"
      "3127:1:STARTING:1077903416:30:H:carc:slots:1.000000\n"
      "3127:1:STARTING:1077903416:30:Q:all.q@carc:slots:1.000000\n"
      "3128:1:RESERVING:1077903446:30:G:global:license:5.000000\n"
      "3128:1:RESERVING:1077903446:30:H:carc:slots:1.000000\n"
      "3128:1:RESERVING:1077903446:30:Q:all.q@carc:slots:1.000000\n"
      "3129:1:RESERVING:1077903476:31:G:global:license:1.000000\n"
      "3129:1:RESERVING:1077903476:31:H:carc:slots:1.000000\n"
      "3129:1:RESERVING:1077903476:31:Q:all.q@carc:slots:1.000000\n";
  EXPECT_EQ(ReadText(file), section + section);
  std::remove(file.c_str());
}

TEST(CliScheduleTest, JsonLinesRecords) {
  const CliRun r = Schedk("schedule --format jsonl " + Dataset("backfill-t54.snap"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Has(r.out, "{\"type\":\"reserve\",\"job\":11,\"task\":1,\"at\":2000,\"dur\":600,\"slots\":4,"
                         "\"pe\":\"mpi\",\"granted\":[{\"qi\":\"all.q@node1\",\"slots\":4}]}"))
      << r.out;
  EXPECT_TRUE(Has(r.out, "{\"type\":\"sched\",\"job\":11,\"task\":1,\"state\":\"RESERVING\",\"start\":2000,"
                         "\"duration\":600,\"level\":\"P\",\"object\":\"mpi\",\"resource\":\"slots\",\"amount\":4}"));
  EXPECT_NE(r.out.find("{\"type\":\"pending\",\"job\":13,\"task\":1,\"reason\":\"reservation-blocked\""),
            std::string::npos);
}

TEST(CliScheduleTest, ExpectedOutputs) {  // at every thread count: EveryThreadCountGivesIdenticalBytes
  for (const char* name :
       {"reservation-2004", "reservation-2004-backfill", "reservation-2004-offset", "backfill-t54", "reserve-in-gaps",
        "reserve-in-gaps-on", "quota-users", "quota-hosts", "quota-consumables", "quota-past", "soft-requests"}) {
    const CliRun one = Schedk("schedule --threads 1 " + Dataset(std::string(name) + ".snap"));
    ASSERT_EQ(one.exit_code, 0) << name << ": " << one.err;
    EXPECT_EQ(WithoutElapsed(one.out), ReadText(Dataset(std::string(name) + ".schedule.expected"))) << name;
  }
}

// --profile adds one line per stage on standard error, in the order the
// stages ran, and changes nothing on standard output.
TEST(CliScheduleTest, ProfileNamesEveryStageInOrderAndChangesNoOutput) {
  const std::string snapshot = Dataset("quota-users.snap");
  const CliRun plain = Schedk("schedule --threads 2 " + snapshot);
  const CliRun profiled = Schedk("schedule --profile --threads 2 " + snapshot);
  ASSERT_EQ(profiled.exit_code, 0) << profiled.err;
  EXPECT_EQ(WithoutElapsed(profiled.out), WithoutElapsed(plain.out));
  EXPECT_EQ(plain.err, "");
  std::vector<std::string> stages;
  std::istringstream lines(profiled.err);
  std::string line;
  while (std::getline(lines, line)) {
    ASSERT_EQ(line.rfind("profile: ", 0), 0u) << line;
    if (line.rfind("profile: threads ", 0) == 0) {
      EXPECT_EQ(line, "profile: threads 2");
      continue;
    }
    ASSERT_EQ(line.substr(line.size() - 3), " ms") << line;
    const std::size_t name_end = line.find_last_not_of(" 0123456789.", line.size() - 4);
    stages.push_back(line.substr(9, name_end - 8));
  }
  const std::vector<std::string> expected = {"read snapshot",
                                             "priorities: classify",
                                             "priorities: tickets",
                                             "priorities: urgency",
                                             "priorities: task order",
                                             "queue instances",
                                             "interval: setup",
                                             "interval: running bookings",
                                             "interval: queue list",
                                             "interval: task rows",
                                             "interval: dispatch loop",
                                             "interval: pending records",
                                             "write"};
  EXPECT_EQ(stages, expected);
  const CliRun priorities = Schedk("priorities --profile --threads 1 " + snapshot);
  ASSERT_EQ(priorities.exit_code, 0) << priorities.err;
  EXPECT_NE(priorities.err.find("profile: priorities: task order"), std::string::npos) << priorities.err;
  EXPECT_EQ(priorities.err.find("interval:"), std::string::npos) << priorities.err;
}

std::vector<std::string> NonEmptyLines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    if (end > at) lines.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  return lines;
}

// The quota and soft-request datasets are real cells' scheduler runs: schedk's
// MONITOR lines are the cell's own, but for the order of one booking's L
// lines, which the cell takes from its scheduler's event history
// (tests/compat/compare.py).
TEST(CliScheduleTest, MonitorLinesAreTheRealCells) {
  auto sorted_runs = [](const std::vector<std::string>& lines) {
    std::vector<std::string> out = lines;
    auto booking = [](const std::string& l) {
      std::size_t at = 0;
      for (int field = 0; field < 5 && at != std::string::npos; ++field) at = l.find(':', at + 1);
      return at != std::string::npos && l.compare(at + 1, 2, "L:") == 0 ? l.substr(0, at) : std::string();
    };
    for (std::size_t i = 0; i < out.size();) {
      std::size_t j = i + 1;
      while (!booking(out[i]).empty() && j < out.size() && booking(out[j]) == booking(out[i])) ++j;
      std::sort(out.begin() + static_cast<std::ptrdiff_t>(i), out.begin() + static_cast<std::ptrdiff_t>(j));
      i = j;
    }
    return out;
  };
  for (const char* name : {"quota-users", "quota-hosts", "quota-consumables", "quota-past", "soft-requests"}) {
    const std::string monitor = ::testing::TempDir() + "/" + name + ".monitor";
    std::remove(monitor.c_str());
    const CliRun r = Schedk("schedule --monitor " + monitor + " " + Dataset(std::string(name) + ".snap"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::vector<std::string> ours = NonEmptyLines(ReadText(monitor));
    ASSERT_FALSE(ours.empty());
    ours.erase(ours.begin());  // the section's "::::::::"
    const std::vector<std::string> cell = NonEmptyLines(ReadText(Dataset(std::string(name) + ".cell-monitor")));
    EXPECT_EQ(sorted_runs(ours), sorted_runs(cell)) << name;
  }
  // The pending reason names the set, the rule and the usage key as qstat -j does.
  const CliRun hosts = Schedk("schedule " + Dataset("quota-hosts.snap"));
  EXPECT_TRUE(Has(hosts.out,
                  "pending 19.1 reason=rqs:hostlim/1 "
                  "\"cannot run because it exceeds limit \\\"////vm/\\\" in rule \\\"hostlim/1\\\"\""))
      << hosts.out;
}

// `schedk quota`: qquota's table of what running jobs use (the cell's qquota
// printed `maxu/1 slots=1/3 users u1` for job 7).
TEST(CliQuotaTest, RunningJobsUsageAsQquotaPrintsIt) {
  const CliRun r = Schedk("quota " + Dataset("quota-users.snap"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "resource quota rule limit                filter\n" + std::string(80, '-') +
                       "\nmaxu/1             slots=1/3            users u1\n");
}

// Requests that can never be met get `never:` reasons; requests that cannot be
// read are input errors naming the line, with nothing on standard output.
TEST(CliScheduleTest, ImpossibleRequestsAndBadInput) {
  const std::string cluster =
      "schedk-snapshot 1\nnow 1000\n"
      "begin complex\nslots s INT <= YES YES 1 1000\ngpu g BOOL == FORCED NO 0 0\nlic l INT <= YES YES 0 0\n"
      "end complex\n"
      "begin global\ncomplex_values lic=2\nend global\n"
      "begin exechost h1\ncomplex_values gpu=true\nend exechost\n"
      "begin pe mpi\nslots 4\nallocation_rule $fill_up\nend pe\n"
      "begin queue all.q\nhostlist h1\nslots 4\npe_list mpi\nend queue\n";
  const CliRun r = Schedk("schedule -", cluster +
                                            "job 1 owner=u submit=900\n"  // h1 forces gpu
                                            "job 2 owner=u submit=901 pe_name=mpi pe_min=8 pe_max=16 l_hard=gpu=true\n"
                                            "job 3 owner=u submit=902 l_hard=gpu=true,lic=3\n");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("pending 1.1 reason=never:no-queue "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("pending 2.1 reason=never:pe "), std::string::npos);
  EXPECT_NE(r.out.find("pending 3.1 reason=never:capacity:lic "), std::string::npos);
  const CliRun unknown_pe = Schedk("schedule -", cluster + "job 4 owner=u pe_name=nosuch pe_min=1 pe_max=2\n");
  EXPECT_EQ(unknown_pe.exit_code, 2);
  EXPECT_TRUE(unknown_pe.out.empty());
  EXPECT_NE(unknown_pe.err.find("<stdin>:23: pe_name: no parallel environment matches 'nosuch'"), std::string::npos)
      << unknown_pe.err;
  const CliRun range = Schedk("schedule -", cluster + "job 5 owner=u pe_name=mpi pe_min=8 pe_max=2\n");
  EXPECT_EQ(range.exit_code, 2);
  EXPECT_NE(range.err.find("<stdin>:23: pe_max: expected a slot count >= pe_min"), std::string::npos) << range.err;
}

TEST(CliGenerateTest, SameSeedSameBytesAndTheSnapshotLoads) {
  const std::string args = "generate --jobs 200 --hosts 40 --slots-per-host 8 --seed ";
  const CliRun a = Schedk(args + "5");
  const CliRun b = Schedk(args + "5");
  const CliRun c = Schedk(args + "6");
  ASSERT_EQ(a.exit_code, 0) << a.err;
  EXPECT_EQ(a.out, b.out);
  EXPECT_NE(a.out, c.out);
  EXPECT_NE(a.out.find("begin hostgroup @rack2\n"), std::string::npos);  // 40 hosts: two racks of 32
  const CliRun r = Schedk("schedule -", a.out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\ndone starts="), std::string::npos);
  EXPECT_EQ(Schedk("generate --hosts 4").exit_code, 2);  // --jobs is required
}

// --running-tasks spreads exactly that many running tasks; --policies every
// adds every ticket input, maui switches the policy; the default has neither.
// --quota-sets: sets of three rules with limits worked from the cluster's
// size (64 hosts x 8 slots = 512, 2 racks, 16 users, 4 projects; short.q
// has 2 slots on each of rack 1's 32 hosts): set 2 gives each project
// 64 x 3 / 8 = 24 short.q slots, each user 256 x 3 / 32 = 24 slots on
// @rack2 and 512 x 3 / 16 = 96 elsewhere. Without the option, no set.
TEST(CliGenerateTest, QuotaSets) {
  const std::string args = "generate --jobs 100 --hosts 64 --slots-per-host 8 --users 16 --projects 4";
  const CliRun with = Schedk(args + " --quota-sets 2");
  ASSERT_EQ(with.exit_code, 0) << with.err;
  EXPECT_NE(with.out.find("begin rqs quota2\nname quota2\ndescription NONE\nenabled TRUE\n"
                          "limit name short projects {*} queues short.q to slots=24\n"
                          "limit name rack users {*} hosts @rack2 to slots=24\n"
                          "limit name user users {*} to slots=96\nend rqs\n"),
            std::string::npos)
      << with.out.substr(0, 4000);
  const CliRun quota = Schedk("quota -", with.out);
  ASSERT_EQ(quota.exit_code, 0) << quota.err;
  EXPECT_NE(quota.out.find("quota1/user "), std::string::npos) << quota.out;
  EXPECT_EQ(Schedk(args).out.find("begin rqs"), std::string::npos);
  EXPECT_NE(Schedk(args + " --quota-sets 1001").exit_code, 0);
}

// Soft requests by their share: none without one (the same bytes as
// before); with one, the same jobs with soft requests added, which schedule.
TEST(CliGenerateTest, SoftRequests) {
  const std::string args = "generate --jobs 400 --hosts 40 --slots-per-host 8 --users 16 --projects 4";
  const CliRun plain = Schedk(args);
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(plain.out.find("_soft="), std::string::npos);
  EXPECT_EQ(Schedk(args + " --soft-fraction 0").out, plain.out);
  const CliRun soft = Schedk(args + " --soft-fraction 0.5");
  ASSERT_EQ(soft.exit_code, 0) << soft.err;
  std::size_t queue = 0, resource = 0, jobs = 0;
  std::istringstream lines(soft.out);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("job ", 0) != 0 || line.find(" state=r ") != std::string::npos) continue;
    ++jobs;
    queue += line.find(" q_soft=short.q") != std::string::npos;
    resource += line.find(" l_soft=arch=lx-arm64") != std::string::npos;
  }
  EXPECT_EQ(jobs, 400u);
  EXPECT_GT(queue, 120u);  // about 200
  EXPECT_LT(queue, 280u);
  EXPECT_GT(resource, 50u);  // about half of them
  EXPECT_LT(resource, queue);
  std::string without = soft.out;
  for (const char* added : {" l_soft=arch=lx-arm64", " q_soft=short.q"}) {
    for (std::size_t at = without.find(added); at != std::string::npos; at = without.find(added, at)) {
      without.erase(at, std::string(added).size());
    }
  }
  EXPECT_EQ(without, plain.out);
  const CliRun scheduled = Schedk("schedule -", soft.out);
  ASSERT_EQ(scheduled.exit_code, 0) << scheduled.err;
  EXPECT_NE(Schedk(args + " --soft-fraction 1.5").exit_code, 0);
}

TEST(CliGenerateTest, RunningTasksAndPolicyMixes) {
  const std::string args = "generate --jobs 3000 --hosts 8 --users 50 --projects 4 --running-tasks 13 --policies ";
  const CliRun tickets = Schedk(args + "tickets");
  const CliRun every = Schedk(args + "every --random-submit");
  const CliRun maui = Schedk(args + "maui");
  for (const CliRun* r : {&tickets, &every, &maui}) ASSERT_EQ(r->exit_code, 0) << r->err;
  const auto count = [](const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count(tickets.out, " state=r "), 13u);
  EXPECT_EQ(count(every.out, " state=r "), 13u);
  for (const char* input : {"\noticket ", " oticket=", "\nname=default\n", " state=hqw", " js=", " dl=", "\nusage "}) {
    EXPECT_GT(count(every.out, input), 0u) << input;
    EXPECT_EQ(count(tickets.out, input), 0u) << input;
  }
  EXPECT_EQ(count(every.out, "\nusage user "), 100u);  // each user's own, and in its project
  EXPECT_EQ(count(every.out, "\nusage project "), 4u);
  EXPECT_EQ(count(every.out, "\nname=default\n"), 4u);  // one default leaf per project
  EXPECT_EQ(count(tickets.out, " qos="), 0u);
  EXPECT_EQ(count(maui.out, " qos=qos1 "), 754u);  // job numbers 1..3013 that leave 1 modulo 4
  EXPECT_NE(maui.out.find("PRIORITY_POLICY=maui"), std::string::npos);
  // Under maui, `priorities` explains Maui's factors.
  const CliRun explained = Schedk("priorities -", maui.out);
  ASSERT_EQ(explained.exit_code, 0) << explained.err;
  EXPECT_NE(explained.out.find("PRIORITY"), std::string::npos);
  EXPECT_TRUE(explained.err.empty()) << explained.err;
  // --categories 3: the pending jobs share three request combinations.
  const CliRun shared = Schedk(args + "tickets --categories 3");
  ASSERT_EQ(shared.exit_code, 0) << shared.err;
  std::set<std::string> combinations;
  std::istringstream lines(shared.out);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("job ", 0) == 0 && line.find(" state=r ") == std::string::npos) {
      const std::size_t pe = line.find(" pe_name="), hard = line.find(" l_hard=");
      combinations.insert(line.substr(pe != std::string::npos ? pe : hard));
    }
  }
  EXPECT_EQ(combinations.size(), 3u);
}

// Hostile values: counts and intervals nobody can mean are bad input (exit 2), not wrapped or obeyed.
TEST(CliGenerateTest, CountsItCannotMeanAreRefused) {
  for (const char* args :
       {"--jobs -1 --hosts 4", "--jobs 10 --hosts 0", "--jobs 10 --hosts 4 --users 0", "--jobs 2000000000 --hosts 4",
        "--jobs 10 --hosts 4 --slots-per-host 4294967297", "--jobs 10 --hosts 4 --running-tasks 257",
        "--jobs 10 --hosts 4 --policies none", "--jobs 10 --hosts 4 --categories 1000001"}) {
    const CliRun r = Schedk(std::string("generate ") + args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_TRUE(r.out.empty()) << args;
  }
}

TEST(CliSimulateTest, AnIntervalBeyondADayIsRefused) {
  const CliRun r = Schedk("simulate --semantics native --interval 999999999999 " + Dataset("replay-small.swf"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.out.empty());
}

TEST(CliTest, StandardInput) {
  const CliRun r = Schedk("priorities -", ReadText(Dataset("blog-functional.snap")));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, ReadText(Dataset("blog-functional.expected")));
}

TEST(CliTest, BadInputExitsWithTwoAndPrintsNothing) {
  const CliRun r = Schedk("priorities -", "schedk-snapshot 1\nnow 5\njob 1 owner=u l_hard=nosuch=1\n");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.out.empty());
  EXPECT_NE(r.err.find("<stdin>:3: l_hard: unknown complex attribute 'nosuch'"), std::string::npos) << r.err;
}

TEST(CliTest, MissingFileExitsWithOne) {
  const CliRun r = Schedk("priorities /nonexistent/file.snap");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(r.out.empty());
  EXPECT_NE(r.err.find("/nonexistent/file.snap"), std::string::npos);
}

TEST(CliTest, HelpVersionAndUsage) {
  EXPECT_EQ(Schedk("--help").exit_code, 0);
  const CliRun v = Schedk("--version");
  EXPECT_EQ(v.exit_code, 0);
  EXPECT_NE(v.out.find("schedk "), std::string::npos);
  EXPECT_EQ(Schedk("priorities --format xml x.snap").exit_code, 2);
  EXPECT_EQ(Schedk("").exit_code, 2);
}

// --- schedk simulate ------------------------------------------------------------------------------

TEST(CliSimulateTest, BundledExampleSummaryAndJobsOut) {
  const std::string out = ::testing::TempDir() + "schedk_sim_" + std::to_string(::getpid()) + ".swf";
  const CliRun easy = Schedk("simulate " + Dataset("replay-small.swf") + " --summary-format json --jobs-out " + out);
  ASSERT_EQ(easy.exit_code, 0) << easy.err;
  for (const char* key : {"\"jobs\":300,", "\"mean_wait\":", "\"mean_bsld\":", "\"utilization\":", "\"makespan\":",
                          "\"passes\":", "\"sched_seconds\":"}) {
    EXPECT_NE(easy.out.find(key), std::string::npos) << key << " in " << easy.out;
  }
  // One line per job, every field as read but the wait (field 3).
  const std::string jobs = ReadText(out);
  std::remove(out.c_str());
  std::istringstream lines(jobs);
  std::size_t count = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] == ';') continue;
    ++count;
    std::istringstream fields(line);
    std::string job, submit, wait, run;
    fields >> job >> submit >> wait >> run;
    EXPECT_NE(wait, "-1") << line;
  }
  EXPECT_EQ(count, 300u);
  EXPECT_NE(jobs.find("\n1 2204 0 7251 2 "), std::string::npos) << "job 1 finds the machine empty: it waits 0";
  // The same schedule with one worker thread, and through the kernel's passes
  // instead of the one-pool engine, with one and with all threads.
  const CliRun one = Schedk("--threads 1 simulate " + Dataset("replay-small.swf") + " --jobs-out " + out);
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_EQ(ReadText(out), jobs);
  for (const char* threads : {"--threads 1 ", ""}) {
    const CliRun kernel = Schedk(std::string(threads) + "simulate " + Dataset("replay-small.swf") +
                                 " --passes kernel --summary-format json --jobs-out " + out);
    ASSERT_EQ(kernel.exit_code, 0) << kernel.err;
    EXPECT_EQ(ReadText(out), jobs) << threads;
    EXPECT_NE(kernel.out.find("\"passes\":585,"), std::string::npos) << kernel.out;
  }
  EXPECT_NE(easy.out.find("\"passes\":585,"), std::string::npos) << easy.out;
  std::remove(out.c_str());
  const CliRun fcfs = Schedk("simulate " + Dataset("replay-small.swf") + " --policy fcfs --summary-format json");
  ASSERT_EQ(fcfs.exit_code, 0) << fcfs.err;
  auto bsld = [](const std::string& json) {
    const std::size_t at = json.find("\"mean_bsld\":") + 12;
    return std::stod(json.substr(at));
  };
  EXPECT_GT(bsld(fcfs.out), 2 * bsld(easy.out));
}

TEST(CliSimulateTest, SnapshotTracesReplayOnTheirOwnCluster) {
  // Two 4-slot hosts; job 1 takes a whole host for 100 s, job 2 needs 6 slots
  // over both ($fill_up) for 50 s, job 3 one slot for 10 s. EASY: 1 and 3
  // start at 1000, 2 waits for job 1 (its 6 slots exist only after 1100).
  const std::string snapshot =
      "schedk-snapshot 1\nnow 1000\n"
      "begin sconf\nweight_priority 0\nweight_urgency 0\nweight_ticket 0\nparams DURATION_OFFSET=0\nend sconf\n"
      "begin exechost a\ncomplex_values slots=4\nend exechost\nbegin exechost b\ncomplex_values slots=4\nend exechost\n"
      "begin pe mpi\nslots 8\nallocation_rule $fill_up\nend pe\n"
      "begin queue all.q\nhostlist a b\nslots 4\npe_list mpi\nend queue\n"
      "job 1 owner=u submit=1000 l_hard=h_rt=100 pe_name=mpi pe_min=4 runtime=100\n"
      "job 2 owner=u submit=1001 l_hard=h_rt=50 pe_name=mpi pe_min=6 runtime=50\n"
      "job 3 owner=u submit=1002 l_hard=h_rt=10 runtime=10\n";
  const std::string csv = ::testing::TempDir() + "schedk_sim_" + std::to_string(::getpid()) + ".csv";
  const CliRun r = Schedk("simulate - --jobs-out " + csv, snapshot);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("jobs 3\n"), std::string::npos) << r.out;
  EXPECT_EQ(ReadText(csv),
            "job,submit,start,wait,runtime,estimate,slots\n"
            "1,1000,1000,0,100,100,4\n"
            "2,1001,1100,99,50,50,6\n"
            "3,1002,1002,0,10,10,1\n");
  std::remove(csv.c_str());
}

TEST(CliSimulateTest, MauiPolicyFromTheSnapshotOrdersTheReplay) {
  // One slot, two queues on it. Class b.q has Maui priority 1000: job 3
  // (submitted last, asking for b.q) runs before job 2 when job 1 ends.
  const std::string snapshot =
      "schedk-snapshot 1\nnow 0\nbegin sconf\nparams PRIORITY_POLICY=maui\nend sconf\n"
      "begin exechost n1\ncomplex_values slots=1\nend exechost\n"
      "begin queue a.q\nhostlist n1\nslots 1\nend queue\nbegin queue b.q\nhostlist n1\nslots 1\nend queue\n"
      "begin maui\nCLASSWEIGHT 1\nCLASSCFG[b.q] PRIORITY=1000\nend maui\n"
      "job 1 owner=u submit=0 runtime=100 l_hard=h_rt=100\n"
      "job 2 owner=u submit=10 runtime=100 l_hard=h_rt=100 q_hard=a.q\n"
      "job 3 owner=u submit=20 runtime=100 l_hard=h_rt=100 q_hard=b.q\n";
  const std::string csv = ::testing::TempDir() + "schedk_maui_" + std::to_string(::getpid()) + ".csv";
  const CliRun r = Schedk("simulate - --jobs-out " + csv, snapshot);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ReadText(csv),
            "job,submit,start,wait,runtime,estimate,slots\n"
            "1,0,0,0,100,160,1\n"
            "2,10,200,190,100,160,1\n"
            "3,20,100,80,100,160,1\n");
  std::remove(csv.c_str());
  // The same snapshot under Grid Engine's policy: first come, first served.
  std::string ge = snapshot;
  ge.replace(ge.find("params PRIORITY_POLICY=maui"), 27, "params PRIORITY_POLICY=ge");
  ASSERT_EQ(Schedk("simulate - --jobs-out " + csv, ge).exit_code, 0);
  EXPECT_NE(ReadText(csv).find("2,10,100,90,100,160,1\n"), std::string::npos) << ReadText(csv);
  std::remove(csv.c_str());
}

TEST(CliSimulateTest, MauiFileForAnSwfTrace) {
  const std::string dir = ::testing::TempDir() + "schedk_maui_cfg_" + std::to_string(::getpid());
  const std::string fifo = dir + ".fifo.cfg", big = dir + ".big.cfg", bad = dir + ".bad.cfg";
  std::ofstream(fifo) << "# queue time alone (Maui's default): first come, first served\nQUEUETIMEWEIGHT 1\n";
  std::ofstream(big) << "QUEUETIMEWEIGHT 0\nPROCWEIGHT 1\nBACKFILLPOLICY FIRSTFIT\n";
  std::ofstream(bad) << "QUEUETIMEWEIGHT 0\nPROCWEIGHT lots\n";
  const std::string trace = Dataset("replay-small.swf");
  const CliRun ge = Schedk("simulate " + trace + " --summary-format json");
  const CliRun fifo_run = Schedk("simulate " + trace + " --summary-format json --maui " + fifo);
  ASSERT_EQ(fifo_run.exit_code, 0) << fifo_run.err;
  // Queue time orders as submission does: the same schedule.
  auto without_time = [](const std::string& json) { return json.substr(0, json.find(",\"sched_seconds\"")); };
  EXPECT_EQ(without_time(fifo_run.out), without_time(ge.out));
  // Largest jobs first: another schedule; the warning names the file and line.
  const CliRun big_run = Schedk("simulate " + trace + " --summary-format json --maui " + big);
  ASSERT_EQ(big_run.exit_code, 0) << big_run.err;
  EXPECT_NE(without_time(big_run.out), without_time(ge.out));
  EXPECT_NE(big_run.err.find(big + ":3: warning: maui: BACKFILLPOLICY does not bear on priority"), std::string::npos)
      << big_run.err;
  const CliRun bad_run = Schedk("simulate " + trace + " --maui " + bad);
  EXPECT_EQ(bad_run.exit_code, 2);
  EXPECT_NE(bad_run.err.find(bad + ":2: maui: PROCWEIGHT: expected a whole number, not 'lots'"), std::string::npos)
      << bad_run.err;
  const CliRun snapshot = Schedk("simulate - --maui " + fifo, "schedk-snapshot 1\nnow 0\njob 1 owner=u runtime=10\n");
  EXPECT_EQ(snapshot.exit_code, 2);
  EXPECT_NE(snapshot.err.find("--maui is for SWF traces"), std::string::npos) << snapshot.err;
  for (const std::string& f : {fifo, big, bad}) std::remove(f.c_str());
}

TEST(CliSimulateTest, SnapshotTraceJobsNeedARuntime) {
  const CliRun r = Schedk("simulate -", "schedk-snapshot 1\nnow 0\njob 1 owner=u runtime=10\njob 2 owner=u\n");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("<stdin>:4: job 2 has no runtime="), std::string::npos) << r.err;
}

TEST(CliSimulateTest, MalformedTracesNameTheirLine) {
  const std::string trace = "; MaxProcs: 8\n1 0 -1 10 1 -1 -1 1 60 -1 1 1 -1 -1 -1 -1 -1 -1\n2 5 -1 10\n";
  const CliRun strict = Schedk("simulate -", trace);
  EXPECT_EQ(strict.exit_code, 2);
  EXPECT_TRUE(strict.out.empty());
  EXPECT_NE(strict.err.find("<stdin>:3: expected 18 fields, not 4"), std::string::npos) << strict.err;
  const CliRun lenient = Schedk("simulate - --lenient", trace);
  EXPECT_EQ(lenient.exit_code, 0) << lenient.err;
  EXPECT_NE(lenient.out.find("jobs 1\n"), std::string::npos) << lenient.out;
  EXPECT_NE(lenient.err.find("1 malformed lines skipped"), std::string::npos) << lenient.err;
  const CliRun no_size = Schedk("simulate -", "1 0 -1 10 1 -1 -1 1 60 -1 1 1 -1 -1 -1 -1 -1 -1\n");
  EXPECT_EQ(no_size.exit_code, 2);
  EXPECT_NE(no_size.err.find("MaxProcs"), std::string::npos) << no_size.err;
}

// --- schedk serve through its real file descriptors --------------------------------------------

TEST(CliServeTest, ReplyPerRequestAndALogLinePerRequest) {
  const std::string log = ::testing::TempDir() + "schedk_serve_" + std::to_string(::getpid()) + ".log";
  const CliRun r = Schedk("serve --log-file " + log, "a ping\nb hello proto=1\nc ping\nd quit\ne ping\n");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(r.err.empty()) << r.err;
  EXPECT_EQ(r.out.substr(0, 4), "err ");
  EXPECT_NE(r.out.find("\nok c\nbye d\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find(" e"), std::string::npos) << r.out;  // nothing after quit
  EXPECT_EQ(ReadText(log), "a ping 426 send 'hello proto=1' first\nb hello hello\nc ping ok\nd quit bye\n");
  std::remove(log.c_str());
}

TEST(CliServeTest, EndOfInputInsideABodyIsRefusedAndTheSessionEnds) {
  const CliRun r = Schedk("serve", "h hello proto=1\ns snapshot\nschedk-snapshot 1\nnow 5\n");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("err s 400 bad-syntax \"end of input inside the snapshot request\"\n"), std::string::npos) << r.out;
}

TEST(CliServeTest, ALineWithoutNewlineAtTheEndIsARequest) {
  const CliRun r = Schedk("serve", "h hello proto=1\np ping");
  EXPECT_NE(r.out.find("ok p\n"), std::string::npos) << r.out;
}

TEST(CliServeTest, OverLongLinesAreRefusedAndDropped) {
  const std::string input = "h hello proto=1\nx add job 1 owner=" + std::string(5000, 'u') + "\np ping\n";
  const CliRun r = Schedk("serve --max-line-bytes 100", input);
  EXPECT_NE(r.out.find("err x 413 line-too-long"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nok p\n"), std::string::npos) << r.out;
}

// A bulk ingest through the reader thread's batches: every reply in order, a
// job given twice refused at its second line, and nothing read after quit
// is handled, though the reader has read ahead.
TEST(CliServeTest, BulkAddsAreAnsweredInOrderAndQuitEndsThem) {
  std::string input = "h hello proto=1\nc begin queue all.q\nend\n";
  std::string expected = "ok c\n";
  for (int i = 1; i <= 150000; ++i) {
    const int number = i == 100000 ? 7 : i;  // job 7 again
    input +=
        "a" + std::to_string(i) + " add job " + std::to_string(number) + " owner=u" + std::to_string(i % 50) + "\n";
    expected +=
        i == 100000 ? "err a100000 409 state-conflict \"job 7 exists\" obj=job:7\n" : "ok a" + std::to_string(i) + "\n";
  }
  input += "g digest\nq quit\nz add job 999999 owner=late\nd digest\n";
  for (const char* threads : {"1", "3"}) {
    const CliRun r = Schedk(std::string("serve --threads ") + threads, input);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    ASSERT_EQ(r.out.rfind("hello h ", 0), 0u) << r.out.substr(0, 200);
    const std::size_t after_hello = r.out.find('\n') + 1;
    EXPECT_EQ(r.out.substr(after_hello, expected.size()), expected) << threads << " threads";
    const std::string rest = r.out.substr(after_hello + expected.size());
    EXPECT_EQ(rest.rfind("ok g gen=150000 jobs=149999 tasks=149999 objects=1 hash=", 0), 0u) << rest;
    EXPECT_EQ(rest.substr(rest.find('\n')), "\nbye q\n") << rest;
  }
}

TEST(CliServeTest, AClosedStandardOutputEndsTheSessionWithoutACrash) {
  std::string input = "h hello proto=1\n";
  for (int i = 0; i < 200000; ++i) input += "p" + std::to_string(i) + " ping\n";
  const std::string base = ::testing::TempDir() + "schedk_serve_pipe_" + std::to_string(::getpid());
  std::ofstream(base + ".in") << input;
  const std::string command = "bash -c '" + testing::SchedkBinary() + " serve < " + base +
                              ".in 2> " + base + ".err | head -c 100 > /dev/null; exit ${PIPESTATUS[0]}'";
  const int status = std::system(command.c_str());
  EXPECT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_EQ(ReadText(base + ".err"), "");
  std::remove((base + ".in").c_str());
  std::remove((base + ".err").c_str());
}

// `schedk serve` on real pipes, killed by `sig` once its reply to the
// greeting has come and a pass is under way; returns how it ended and what it
// wrote to stdout and stderr.
struct KilledServe {
  int status = 0;
  std::string out, err;
};
KilledServe ServeKilledBy(int sig, const std::string& input, const std::string& log) {
  int to_child[2], from_child[2];
  EXPECT_EQ(::pipe(to_child), 0);
  EXPECT_EQ(::pipe(from_child), 0);
  const std::string err_path = ::testing::TempDir() + "schedk_serve_sig_" + std::to_string(::getpid()) + ".err";
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(to_child[0], 0);
    ::dup2(from_child[1], 1);
    const int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(err, 2);
    for (int fd : {to_child[0], to_child[1], from_child[0], from_child[1], err}) ::close(fd);
    ::execl(testing::SchedkBinary().c_str(), "schedk", "serve", "--log-file", log.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(to_child[0]);
  ::close(from_child[1]);
  std::signal(SIGPIPE, SIG_IGN);  // the writer may outlive the child
  std::thread writer([&] {
    std::size_t done = 0;
    while (done < input.size()) {
      const ssize_t n = ::write(to_child[1], input.data() + done, input.size() - done);
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
    ::close(to_child[1]);
  });
  KilledServe k;
  char buffer[1 << 16];
  bool killed = false;
  for (ssize_t n; (n = ::read(from_child[0], buffer, sizeof buffer)) > 0;) {
    k.out.append(buffer, static_cast<std::size_t>(n));
    if (!killed && k.out.find("\nok s\n") != std::string::npos) {  // the snapshot is in; passes follow
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      ::kill(pid, sig);
      killed = true;
    }
  }
  ::close(from_child[0]);
  writer.join();
  ::waitpid(pid, &k.status, 0);
  k.err = ReadText(err_path);
  std::remove(err_path.c_str());
  return k;
}

TEST(CliServeTest, SignalsEndTheSessionBetweenReplyLinesWithTheirExitCode) {
  const CliRun cluster = Schedk("generate --jobs 20000 --hosts 400 --seed 9");
  ASSERT_EQ(cluster.exit_code, 0) << cluster.err;
  std::string input = "h hello proto=1\ns snapshot\n" + cluster.out + "end snapshot\n";
  for (int i = 0; i < 50; ++i) input += "p" + std::to_string(i) + " schedule\n";
  const std::string log = ::testing::TempDir() + "schedk_serve_sig_" + std::to_string(::getpid()) + ".log";
  for (const auto& [sig, name] : {std::pair{SIGTERM, "SIGTERM"}, std::pair{SIGINT, "SIGINT"}, std::pair{SIGHUP, "SIGHUP"}}) {
    std::remove(log.c_str());
    const KilledServe k = ServeKilledBy(sig, input, log);
    ASSERT_TRUE(WIFEXITED(k.status)) << name << ": ended by signal " << WTERMSIG(k.status);
    EXPECT_EQ(WEXITSTATUS(k.status), 128 + sig) << name;
    ASSERT_FALSE(k.out.empty()) << name;
    EXPECT_EQ(k.out.back(), '\n') << name << ": a partial line at the end: " << k.out.substr(k.out.size() - 80);
    EXPECT_EQ(k.out.find("done p49 "), std::string::npos) << name << ": the session was not interrupted";
    EXPECT_NE(k.err.find(std::string("serve: ended by ") + name), std::string::npos) << k.err;
    EXPECT_NE(ReadText(log).find(std::string("- signal ") + name + " exit=" + std::to_string(128 + sig)),
              std::string::npos);
  }
  std::remove(log.c_str());
}

}  // namespace
}  // namespace schedk
