// The snapshot reader at every thread count against itself on one thread,
// where its chunks are parsed one after the other: the same error, at the
// same line, on damaged input. A generated snapshot of several chunks
// (io/tuning.hpp) is damaged at two places, so that the earliest error must
// win over one in a chunk that may finish first. Runs under ThreadSanitizer in
// .ci/run.
#include <gtest/gtest.h>

#include <tbb/global_control.h>
#include <tbb/task_arena.h>

#include <string>

#include "io/snapshot_generator.hpp"
#include "io/snapshot_reader.hpp"
#include "io/tuning.hpp"
#include "kernel/util/split_mix.hpp"
#include "tests/damage.hpp"

namespace schedk::io {
namespace {

// What reading `text` on `threads` threads gives: "ok", or the error.
std::string ReadOn(int threads, const std::string& text) {
  tbb::global_control workers(tbb::global_control::max_allowed_parallelism, threads);
  tbb::task_arena arena(threads);
  return arena.execute([&] {
    auto read = ReadSnapshot(text, "damaged.snap");
    return read.ok() ? std::string("ok") : read.status().ToString();
  });
}

TEST(ThreadCountTest, SnapshotReaderNamesTheSameErrorAtEveryThreadCount) {
  GeneratorSpec spec;
  spec.jobs = 4 * tuning::kLinesPerChunk;
  spec.hosts = 50;
  spec.seed = 3;
  std::string text;
  ASSERT_TRUE(GenerateSnapshot(spec, [&](std::string_view s) { return text.append(s), true; }));
  ASSERT_EQ(ReadOn(1, text), "ok");
  int errors = 0, late_errors = 0;
  for (std::uint64_t seed = 1; seed <= 24; ++seed) {
    SplitMix64 rng(seed);
    const std::string damaged = testing::DamagedText(testing::DamagedText(text, rng), rng);
    const std::string serial = ReadOn(1, damaged);
    if (serial != "ok") {
      ++errors;
      // "damaged.snap:<line>: ...": past the first chunk of job lines?
      late_errors += std::stoi(serial.substr(serial.find(':') + 1)) > tuning::kLinesPerChunk + 100;
    }
    for (const int threads : {2, 3, 7, 16}) {
      EXPECT_EQ(ReadOn(threads, damaged), serial) << "seed " << seed << ", " << threads << " threads";
    }
  }
  EXPECT_GE(errors, 8);  // the damage is seen, so the comparison means something
  EXPECT_GE(late_errors, 4);
}

// Of two bad request combinations, the error names the one on the earlier
// line at every thread count.
TEST(ThreadCountTest, EarliestBadRequestCombinationIsNamed) {
  std::string text = "schedk-snapshot 1\nnow 1000\n";  // jobs from line 3 on
  constexpr int kJobs = 20000, kEarly = 15000, kLate = 19000;
  for (int j = 0; j < kJobs; ++j) {
    const std::string request = j == kEarly ? "early=1" : j == kLate ? "late=1" : "h_rt=" + std::to_string(60 + j);
    text += "job " + std::to_string(j + 1) + " owner=u l_hard=" + request + "\n";
  }
  const std::string expected = "damaged.snap:" + std::to_string(3 + kEarly) + ":";
  for (const int threads : {1, 2, 3, 7, 16}) {
    const std::string error = ReadOn(threads, text);
    EXPECT_EQ(error.rfind(expected, 0), 0u) << threads << " threads: " << error;
    EXPECT_NE(error.find("'early'"), std::string::npos) << error;
  }
}

}  // namespace
}  // namespace schedk::io
