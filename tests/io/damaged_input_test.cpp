// Every input path against damaged input: the bundled snapshots and the
// replay trace, each damaged in many seeded ways (lines dropped, doubled,
// swapped or cut short; tokens and values replaced by hostile ones; the text
// truncated), are read. Each either loads, and then the priority and dispatch
// passes (and a short replay) run on it, or fails with an error that names the
// source. Nothing may crash, hang or trip a sanitizer: .ci/run repeats this
// under AddressSanitizer and UndefinedBehaviorSanitizer.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "io/snapshot_reader.hpp"
#include "io/swf_reader.hpp"
#include "io/swf_workload.hpp"
#include "kernel/dispatch/queue_instances.hpp"
#include "kernel/dispatch/schedule.hpp"
#include "kernel/priority/priority.hpp"
#include "kernel/simulation/simulator.hpp"
#include "kernel/util/split_mix.hpp"
#include "tests/damage.hpp"

namespace schedk {
namespace {

// A bundled input, read as the tools read files.
std::string ReadText(const std::filesystem::path& path) {
  auto text = io::ReadWholeFile(path.string());
  EXPECT_TRUE(text.ok()) << text.status().ToString();
  return text.ok() ? std::move(text.value()) : std::string();
}

void ExpectNamedError(const io::Status& status, const std::string& source, const std::string& input) {
  EXPECT_EQ(status.ToString().rfind(source + ":", 0), 0u) << status.ToString() << "\n--- input:\n" << input;
}

TEST(DamagedInputTest, SnapshotsLoadAndScheduleOrNameTheirError) {
  const std::filesystem::path dir = std::filesystem::path(SCHEDK_SOURCE_DIR) / "datasets";
  std::vector<std::filesystem::path> snapshots;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".snap") snapshots.push_back(entry.path());
  }
  std::sort(snapshots.begin(), snapshots.end());
  ASSERT_GE(snapshots.size(), 10u);
  SplitMix64 rng(2026);
  std::size_t loaded = 0, refused = 0;
  for (const std::filesystem::path& path : snapshots) {
    const std::string original = ReadText(path);
    for (int round = 0; round < 60; ++round) {
      std::string damaged = testing::DamagedText(original, rng);
      if (rng.Below(3) == 0) damaged = testing::DamagedText(damaged, rng);
      auto snapshot = io::ReadSnapshot(damaged, "damaged.snap");
      if (!snapshot.ok()) {
        ++refused;
        ExpectNamedError(snapshot.status(), "damaged.snap", damaged);
        continue;
      }
      ++loaded;
      const Cluster& cluster = snapshot->cluster;
      const PriorityResult priorities = ComputePriorities(cluster, snapshot->jobs, Twin::kReference);
      ASSERT_LE(priorities.dispatchable_tasks, priorities.order.size());
      const QueueInstanceTable instances = QueueInstanceTable::Build(cluster);
      const ScheduleResult result =
          ScheduleInterval(cluster, snapshot->jobs, priorities, instances, Twin::kReference);
      // A start or a reservation holds grants of the slots it names; the rest hold none.
      for (const Decision& d : result.decisions) {
        ASSERT_LE(d.grant_begin, d.grant_end);
        ASSERT_LE(d.grant_end, result.grants.size());
        std::uint64_t granted = 0;
        for (std::uint32_t g = d.grant_begin; g < d.grant_end; ++g) granted += result.grants[g].slots;
        if (d.kind == DecisionKind::kPending) {
          EXPECT_EQ(granted, 0u) << damaged;
        } else {
          EXPECT_EQ(granted, d.slots) << damaged;
        }
      }
    }
  }
  // The damage must leave some inputs readable and make others wrong, or it tests nothing.
  EXPECT_GT(loaded, snapshots.size() * 6);
  EXPECT_GT(refused, snapshots.size() * 6);
}

TEST(DamagedInputTest, SwfTracesReplayOrNameTheirError) {
  const std::string original = ReadText(std::filesystem::path(SCHEDK_SOURCE_DIR) / "datasets" / "replay-small.swf");
  // The first 40 jobs keep each replay short.
  std::string head;
  {
    std::size_t jobs = 0;
    for (const std::string& line : testing::TextLines(original)) {
      if (!line.empty() && line[0] != ';' && ++jobs > 40) break;
      head += line + "\n";
    }
  }
  SplitMix64 rng(5);
  std::size_t replayed = 0, refused = 0;
  for (int round = 0; round < 200; ++round) {
    const std::string damaged = testing::DamagedText(head, rng);
    auto trace = io::ReadSwf(damaged, "damaged.swf");
    if (!trace.ok()) {
      ++refused;
      ExpectNamedError(trace.status(), "damaged.swf", damaged);
      continue;
    }
    io::PwaFilter(trace.value());
    auto text = io::SwfSnapshotText(trace.value(), {});
    if (!text.ok()) {
      ++refused;
      ExpectNamedError(text.status(), "damaged.swf", damaged);
      continue;
    }
    auto snapshot = io::ReadSnapshot(text.value(), "damaged.swf");
    ASSERT_TRUE(snapshot.ok()) << snapshot.status().ToString() << "\n--- input:\n" << damaged;
    for (SimPolicy policy : {SimPolicy::kEasy, SimPolicy::kConservative}) {
      SimulationOptions options;
      options.policy = policy;
      options.pool_processors = static_cast<std::uint32_t>(*trace->max_procs);
      const SimulationResult result = Simulate(snapshot->cluster, snapshot->jobs, options);
      for (const SimulatedJob& job : result.jobs) EXPECT_TRUE(job.start == -1 || job.start >= job.submit);
    }
    ++replayed;
  }
  EXPECT_GT(replayed, 20u);
  EXPECT_GT(refused, 20u);
}

}  // namespace
}  // namespace schedk
