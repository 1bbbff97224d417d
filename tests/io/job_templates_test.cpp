// JobTemplates' parallel build against its reference twin (one walk of the
// priority order): the same template position for every job and kind, at
// several thread counts, on a generated snapshot whose array jobs are split
// into enrolled and unenrolled rows of one job.
#include <gtest/gtest.h>

#include <tbb/task_arena.h>

#include <string>

#include "io/job_templates.hpp"
#include "io/snapshot_generator.hpp"
#include "io/snapshot_reader.hpp"
#include "kernel/util/split_mix.hpp"

namespace schedk::io {
namespace {

// The generated snapshot with each array job `job N.1-K ...` (K > 2)
// rewritten at random: as is, as task 1 enrolled beside rows 2 and 3-K, or
// with all its tasks enrolled.
std::string SnapshotWithEnrolledRows() {
  GeneratorSpec spec;
  spec.jobs = 20000;
  spec.hosts = 40;
  spec.seed = 11;
  spec.array_fraction = 0.3;
  std::string text;
  EXPECT_TRUE(GenerateSnapshot(spec, [&](std::string_view s) { return text.append(s), true; }));
  SplitMix64 rng(5);
  std::string out;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = text.find('\n', at);
    const std::string line = text.substr(at, end - at);
    at = end + 1;
    const std::size_t dot = line.find('.'), dash = line.find('-'), space = line.find(' ', 4);
    const bool array = line.rfind("job ", 0) == 0 && dot < space && line.compare(dot, 3, ".1-") == 0 &&
                       std::stoi(line.substr(dash + 1)) > 2;
    const std::uint64_t pick = rng.Next() % 3;
    if (!array || pick == 0) {
      out += line + '\n';
    } else if (pick == 1) {
      const std::string number = line.substr(4, dot - 4), rest = line.substr(space);
      out += "job " + number + ".1" + rest + " enrolled=y\n";
      out += "job " + number + ".2" + rest + '\n';
      out += "job " + number + ".3" + line.substr(dash) + '\n';
    } else {
      out += line + " enrolled=y\n";
    }
  }
  return out;
}

TEST(JobTemplatesTest, ParallelBuildGivesTheReferencePositions) {
  auto snapshot = ReadSnapshot(SnapshotWithEnrolledRows(), "enrolled.snap");
  ASSERT_TRUE(snapshot.ok()) << snapshot.status().ToString();
  const JobTable& jobs = snapshot.value().jobs;
  const PriorityResult result = ComputePriorities(snapshot.value().cluster, jobs);
  const RowIndex index(jobs);
  const JobTemplates reference(jobs, result, index, Twin::kReference);
  using Kind = JobTemplates::Kind;
  std::size_t found[2] = {0, 0};
  for (const int threads : {1, 2, 3, 7, 16}) {
    tbb::task_arena arena(threads);
    const JobTemplates optimised = arena.execute([&] { return JobTemplates(jobs, result, index); });
    for (std::uint32_t flat = 0; flat < index.size(); ++flat) {
      const std::uint32_t s = index.shard(flat);
      const JobNumber job = jobs.shards()[s].number[index.row(flat)];
      for (const Kind kind : {Kind::kUnenrolled, Kind::kEnrolled}) {
        const std::uint32_t* want = reference.Find(kind, s, job);
        const std::uint32_t* got = optimised.Find(kind, s, job);
        ASSERT_EQ(want == nullptr, got == nullptr) << "job " << job << ", " << threads << " threads";
        if (want == nullptr) continue;
        ASSERT_EQ(*want, *got) << "job " << job << ", " << threads << " threads";
        found[static_cast<int>(kind)] += threads == 1;
      }
    }
  }
  // Both kinds occur, so the comparison means something.
  EXPECT_GT(found[0], 10000u);
  EXPECT_GT(found[1], 1000u);
}

}  // namespace
}  // namespace schedk::io
