// The SWF reader: header numbers, fields, errors with their line, lenient
// reading, gzip input, and the archive filter of docs/replay.md, The archive filter (on crafted
// jobs, and on the stored CTC-SP2 trace: 77,199 jobs, as the SC'15 runs used).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>

#include "io/swf_reader.hpp"
#include "io/swf_workload.hpp"
#include "tests/test_support.hpp"

namespace schedk::io {
namespace {

constexpr const char* kSmall =
    "; Version: 2.2\n"
    ";  MaxProcs: 100\n"
    "; MaxNodes: 100\n"
    "; UnixStartTime: 843469200\n"
    "1 0 5 97225 56 -1 -1 56 210000 -1 1 1 -1 -1 -1 -1 -1 -1\n"
    "\n"
    "  2   327952 0 9382 80 12.5 -1 80 14400 -1 1 2 3 -1 1 -1 -1 -1\n";

TEST(SwfReaderTest, HeaderAndFields) {
  auto t = ReadSwf(kSmall, "small.swf");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->max_procs, 100);
  EXPECT_EQ(t->max_nodes, 100);
  EXPECT_EQ(t->unix_start_time, 843469200);
  ASSERT_EQ(t->jobs.size(), 2u);
  EXPECT_EQ(t->jobs[0].get(kSwfRunTime), 97225);
  EXPECT_EQ(t->jobs[0].get(kSwfRequestedTime), 210000);
  EXPECT_EQ(t->jobs[1].get(kSwfSubmit), 327952);
  EXPECT_DOUBLE_EQ(t->jobs[1].field[kSwfAverageCpu], 12.5);
  EXPECT_EQ(t->jobs[1].get(kSwfGroup), 3);
  EXPECT_EQ(t->jobs[1].line, 7);
}

TEST(SwfReaderTest, NumbersOtherThanShortIntegersAreReadByStrtod) {
  // Short integers are read directly; the rest as strtod reads them.
  auto t = ReadSwf("1 +5 1e3 1234567890123456 -0 0.25 -1 1 60 -1 1 1 -1 -1 -1 -1 -1 -1\n", "n.swf");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->jobs[0].field[kSwfSubmit], 5.0);
  EXPECT_EQ(t->jobs[0].field[kSwfWait], 1000.0);
  EXPECT_EQ(t->jobs[0].field[kSwfRunTime], 1234567890123456.0);
  EXPECT_TRUE(std::signbit(t->jobs[0].field[kSwfAllocatedProcs]));
  EXPECT_EQ(t->jobs[0].field[kSwfAverageCpu], 0.25);
  // Beyond 2^53 an integral field would not be exact; infinities and NaN are no numbers of a trace.
  for (const char* big : {"12345678901234567", "1e309", "-1e300", "nan", "inf"}) {
    auto b = ReadSwf(std::string("1 ") + big + " 0 10 1 -1 -1 1 60 -1 1 1 -1 -1 -1 -1 -1 -1\n", "b.swf");
    ASSERT_FALSE(b.ok()) << big;
    EXPECT_EQ(b.status().ToString(), std::string("b.swf:1: field 2 is out of range: '") + big + "'");
  }
  for (const char* bad : {"-", "1-", "--1", "5x"}) {
    auto b = ReadSwf(std::string("1 ") + bad + " 0 10 1 -1 -1 1 60 -1 1 1 -1 -1 -1 -1 -1 -1\n", "b.swf");
    ASSERT_FALSE(b.ok()) << bad;
    EXPECT_EQ(b.status().ToString(), std::string("b.swf:1: field 2 is not a number: '") + bad + "'");
  }
}

TEST(SwfReaderTest, WorkloadErrorsNameTheTraceLine) {
  auto text = [](const std::string& swf) {
    auto t = ReadSwf(swf, "w.swf");
    EXPECT_TRUE(t.ok()) << t.status().ToString();
    auto s = SwfSnapshotText(t.value(), {});
    return s.ok() ? std::string("ok") : s.status().ToString();
  };
  const std::string job = " 0 -1 10 1 -1 -1 1 60 -1 1 1 -1 -1 -1 -1 -1 -1\n";
  EXPECT_EQ(text("; MaxProcs: 4\n1" + job + "2" + job), "ok");
  EXPECT_EQ(text("; MaxProcs: 4\n1" + job + "1" + job), "w.swf:3: job 1: a job of this number came earlier");
  EXPECT_EQ(text("; MaxProcs: 4\n4294967296" + job), "w.swf:2: job 4294967296: job number out of range");
  EXPECT_EQ(text("; MaxProcs: 10000000\n1" + job),
            "w.swf: the trace's header gives MaxProcs 10000000: the machine's parallel environment and queue hold at "
            "most 9999999 slots");
  EXPECT_EQ(text("; MaxProcs: 4\n1 4294967295 -1 10 1 -1 -1 1 60 -1 1 1 -1 -1 -1 -1 -1 -1\n"),
            "w.swf:2: job 1: submit time out of range (at most 4294967294)");
  EXPECT_EQ(text("; MaxProcs: 4\n1 0 -1 10 1 -1 -1 1 4294967295 -1 1 1 -1 -1 -1 -1 -1 -1\n"),
            "w.swf:2: job 1: run time or estimate out of range (at most 4294967294 s)");
  EXPECT_EQ(text("; MaxProcs: 4\n1 0 -1 10 0 -1 -1 0 60 -1 1 1 -1 -1 -1 -1 -1 -1\n"),
            "w.swf:2: job 1: no processor count (the archive filter, --filter pwa, drops such jobs)");
}

TEST(SwfReaderTest, MalformedLinesNameTheirLineOrAreCountedWhenLenient) {
  const std::string text = std::string(kSmall) + "3 1 2 3\n4 0 0 10 1 -1 -1 1 60 -1 1 x -1 -1 -1 -1 -1 -1\n";
  auto strict = ReadSwf(text, "bad.swf");
  ASSERT_FALSE(strict.ok());
  EXPECT_EQ(strict.status().ToString(), "bad.swf:8: expected 18 fields, not 4");
  SwfReadOptions lenient;
  lenient.lenient = true;
  auto t = ReadSwf(text, "bad.swf", lenient);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->jobs.size(), 2u);
  EXPECT_EQ(t->skipped, 2u);
}

TEST(SwfReaderTest, GzipInputIsDetectedFromItsContent) {
  const std::string path = ::testing::TempDir() + "schedk_swf_" + std::to_string(::getpid()) + ".txt";
  std::ofstream(path, std::ios::binary) << testing::Gzip(kSmall);
  auto t = ReadSwfFile(path);
  std::remove(path.c_str());
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->jobs.size(), 2u);
  EXPECT_EQ(t->max_procs, 100);
  EXPECT_FALSE(Gunzip(testing::Gzip(kSmall).substr(0, 20), "cut.gz").ok());
}

TEST(SwfReaderTest, PwaFilterFollowsTheSc15Preprocessing) {
  const std::string text =
      "; MaxProcs: 64\n"
      "1 10 0 100 8 -1 -1 8 50 -1 1 1 -1 -1 -1 -1 -1 -1\n"    // runtime capped at 50
      "2 10 0 100 -1 -1 -1 4 200 -1 1 1 -1 -1 -1 -1 -1 -1\n"   // allocated copied from requested
      "3 10 0 100 6 -1 -1 -1 200 -1 1 1 -1 -1 -1 -1 -1 -1\n"   // requested copied from allocated
      "4 10 0 100 -1 -1 -1 -1 200 -1 1 1 -1 -1 -1 -1 -1 -1\n"  // no processors: dropped
      "5 10 0 100 65 -1 -1 8 200 -1 1 1 -1 -1 -1 -1 -1 -1\n"   // allocated above MaxProcs: dropped
      "6 10 0 0 8 -1 -1 8 200 -1 1 1 -1 -1 -1 -1 -1 -1\n"      // runtime 0: dropped
      "7 10 0 100 8 -1 -1 8 -1 -1 1 1 -1 -1 -1 -1 -1 -1\n"     // no requested time: dropped
      "8 -5 0 100 8 -1 -1 8 200 -1 1 1 -1 -1 -1 -1 -1 -1\n";   // negative submit: dropped
  auto t = ReadSwf(text, "f.swf");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(PwaFilter(t.value()), 5u);
  ASSERT_EQ(t->jobs.size(), 3u);
  EXPECT_EQ(t->jobs[0].get(kSwfRunTime), 50);
  EXPECT_EQ(t->jobs[1].get(kSwfAllocatedProcs), 4);
  EXPECT_EQ(t->jobs[2].get(kSwfRequestedProcs), 6);
}

TEST(SwfDatasetTest, CtcSp2FilteredIsTheSc15Input) {
  const std::string path = testing::SharedDir() + "/datasets/swf/CTC-SP2-1996-3.1-cln.swf.gz";
  if (!std::ifstream(path)) GTEST_SKIP() << "../shared is absent: " << path;
  auto t = ReadSwfFile(path);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->jobs.size(), 77222u);  // MaxRecords
  EXPECT_EQ(t->max_procs, 338);
  PwaFilter(t.value());
  EXPECT_EQ(t->jobs.size(), 77199u);  // docs/replay.md, The archive filter
}

}  // namespace
}  // namespace schedk::io
