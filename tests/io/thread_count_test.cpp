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

}  // namespace
}  // namespace schedk::io
