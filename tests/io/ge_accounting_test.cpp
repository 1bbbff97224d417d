// Grid Engine's accounting file: a real one from the 8.1.9 cell of make
// compat (tests/io/ge_capture/accounting, 140 tasks) and Univa 8.2's from
// ../shared/datasets/sge (milliseconds), read as decayed share-tree usage and
// as a replay trace; malformed records refused at their line.
#include "io/ge_accounting.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "io/snapshot_reader.hpp"
#include "tests/test_support.hpp"

namespace schedk::io {
namespace {

using testing::ReadText;

// One 8.1.9 record: owner, project, submit/start/end, slots, cpu.
std::string Record(const std::string& owner, const std::string& project, long submit, long start, long end, int slots,
                   double cpu) {
  std::ostringstream r;
  r << "all.q:vm:" << owner << ":" << owner << ":sleep:7:sge:0:" << submit << ":" << start << ":" << end
    << ":0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:" << project << ":defaultdepartment:NONE:" << slots << ":0:" << cpu
    << ":2:4:-l h_rt=600:0:NONE:0:0:0\n";
  return r.str();
}

TEST(AccountingTest, UsageDecaysByTheHalftime) {
  // cpu 100 ended one halftime (168 h) before now: 50; 8 of io... a project
  // job counts for the owner, the owner in the project and the project.
  const std::string text = "# Version: 8.1.9\n" + Record("u1", "NONE", 0, 10, 1000, 1, 100) +
                           Record("u1", "p1", 0, 10, 1000 + 168 * 3600, 2, 8) +
                           Record("u2", "NONE", 0, 0, 0, 1, 5);  // never started: no usage
  auto records = ReadAccounting(text, "acct");
  ASSERT_TRUE(records.ok()) << records.status().ToString();
  ASSERT_EQ(records->size(), 3u);
  const Time now = 1000 + 2 * 168 * 3600;
  EXPECT_EQ(AccountingUsageRecords(records.value(), now, 168),
            "usage user u1 cpu=29,mem=1.5,io=3\n"   // 100/4 + 8/2, mem 2/4 + 2/2, io 4/4 + 4/2
            "usage user u1 cpu=4,mem=1,io=2 project=p1\n"
            "usage project p1 cpu=4,mem=1,io=2\n");
  // A record that ends after now is not usage yet; halftime 0 keeps usage undecayed.
  EXPECT_EQ(AccountingUsageRecords(records.value(), 1000, 0), "usage user u1 cpu=100,mem=2,io=4\n");
  const Snapshot s = testing::Load("schedk-snapshot 1\nnow " + std::to_string(now) + "\nbegin project p1\nend project\n" +
                                   AccountingUsageRecords(records.value(), now, 168) + "job 1 owner=u1 project=p1\n");
  EXPECT_EQ(s.cluster.now, now);
}

TEST(AccountingTest, ARealCellsFile) {
  auto records = ReadAccounting(ReadText(testing::SourceDir() + "/tests/io/ge_capture/accounting"), "accounting");
  ASSERT_TRUE(records.ok()) << records.status().ToString();
  ASSERT_EQ(records->size(), 140u);
  // awk -F: '$4=="u1" && $10!=0 {s+=$37} END {printf "%.6f", s}': 0.309486 over 80 tasks.
  const std::string usage = AccountingUsageRecords(records.value(), 1795653700, 0);
  const std::size_t at = usage.find("usage user u1 cpu=");
  ASSERT_NE(at, std::string::npos) << usage;
  EXPECT_NEAR(std::stod(usage.substr(at + 18)), 0.309486, 5e-7);
  const SwfTrace trace = AccountingAsSwf(records.value(), "accounting");
  EXPECT_EQ(trace.jobs.size(), 140u);
  EXPECT_EQ(trace.jobs.front().get(kSwfSubmit), 0);
  EXPECT_LE(trace.max_procs.value_or(0), 8);  // the cell's queues never held more than 8 slots in use
  EXPECT_GE(trace.max_procs.value_or(0), 4);
}

TEST(AccountingTest, UnivaMillisecondsAndTheReplayTrace) {
  const std::string path = testing::SharedDir() + "/datasets/sge/ug82_accounting";
  if (!std::ifstream(path)) GTEST_SKIP() << "../shared/datasets/sge/ug82_accounting is not here";
  auto records = ReadAccounting(ReadText(path), path);
  ASSERT_TRUE(records.ok()) << records.status().ToString();
  ASSERT_EQ(records->size(), 21u);
  // The first record: submitted 1416358463256 ms, started ...112008, ended ...112016.
  EXPECT_EQ(records->front().submit, 1416358463);
  EXPECT_EQ(records->front().start, 1416359112);
  EXPECT_EQ(records->front().end, 1416359112);
  const SwfTrace trace = AccountingAsSwf(records.value(), path);
  for (const SwfJob& j : trace.jobs) {
    EXPECT_GE(j.get(kSwfRequestedTime), std::max<long long>(1, j.get(kSwfRunTime)));
    EXPECT_GE(j.get(kSwfWait), 0);
  }
}

TEST(AccountingTest, MalformedRecordsAreRefusedAtTheirLine) {
  auto short_line = ReadAccounting("# header\nall.q:vm:u:u:x:1\n", "acct");
  ASSERT_FALSE(short_line.ok());
  EXPECT_EQ(short_line.status().ToString(), "acct:2: expected 45 fields (Grid Engine 8.1) or 52 (8.2), not 6");
  std::string bad = Record("u1", "NONE", 0, 10, 20, 1, 1);
  bad.replace(bad.find(":0:10:20:"), 9, ":0:ten:20:");
  auto not_a_number = ReadAccounting(bad, "acct");
  ASSERT_FALSE(not_a_number.ok());
  EXPECT_NE(not_a_number.status().ToString().find("acct:1: start_time: expected a number, not 'ten'"), std::string::npos)
      << not_a_number.status().ToString();
  auto backwards = ReadAccounting(Record("u1", "NONE", 0, 30, 20, 1, 1), "acct");
  ASSERT_FALSE(backwards.ok());
  EXPECT_NE(backwards.status().message().find("end_time before start_time"), std::string::npos);
}

}  // namespace
}  // namespace schedk::io
