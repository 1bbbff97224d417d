// Share-tree usage as sge_share_mon prints it (`-c 1 -n -f ...`), read into
// the snapshot's usage records: the rows of a real 8.1.9 cell's tree with a
// group node, a project node and its users; what the output cannot say; and
// every malformed line as an error naming the command and the line.
#include <gtest/gtest.h>

#include <string>

#include "io/ge_import/share_usage.hpp"

namespace schedk::io {
namespace {

constexpr const char* kSource = "sge_share_mon -c 1";

std::string Row(const std::string& time, const std::string& node, const std::string& user, const std::string& project,
                const std::string& cpu = "0.000000") {
  return "usage_time=" + time + "\tnode_name=" + node + "\tuser_name=" + user + "\tproject_name=" + project +
         "\tcpu=" + cpu + "\tmem=0.000000\tio=0.000000\t\n";
}

// The rows of a cell's tree Root{grpA{u1,u2}, P1{u3,u4}} after jobs ran: u4 in
// P1 was last updated by an earlier run than the others.
TEST(ShareUsageTest, UsersUsersInProjectsAndProjectsBecomeUsageRecords) {
  const std::string output =
      Row("0", "/", "", "") + Row("0", "/grpA", "", "") + Row("1795662200", "/grpA/u1", "u1", "", "5.399108") +
      Row("1795662196", "/grpA/u2", "u2", "", "1.300859") + Row("0", "/P1", "", "P1", "3.574196") +
      Row("1795662190", "/P1/u3", "u3", "P1", "2.748267") + Row("1795662180", "/P1/u4", "u4", "P1", "0.825930");
  auto usage = ParseShareUsage(output, kSource);
  ASSERT_TRUE(usage.ok()) << usage.status().ToString();
  EXPECT_EQ(usage->records,
            "usage user u1 cpu=5.399108,mem=0.000000,io=0.000000 at=1795662200\n"
            "usage user u2 cpu=1.300859,mem=0.000000,io=0.000000 at=1795662196\n"
            "usage user u3 cpu=2.748267,mem=0.000000,io=0.000000 at=1795662190 project=P1\n"
            "usage user u4 cpu=0.825930,mem=0.000000,io=0.000000 at=1795662180 project=P1\n"
            // A project's time is not printed: the latest of its users'.
            "usage project P1 cpu=3.574196,mem=0.000000,io=0.000000 at=1795662190\n");
  EXPECT_TRUE(usage->notes.empty());
}

TEST(ShareUsageTest, ARecordListedTwiceIsWrittenOnceAndDefaultNodesAreNoted) {
  const std::string output = Row("10", "/a/u1", "u1", "", "1.5") + Row("10", "/b/u1", "u1", "", "1.5") +
                             Row("0", "/P2", "", "P2", "2") + Row("0", "/default", "", "");
  auto usage = ParseShareUsage(output, kSource);
  ASSERT_TRUE(usage.ok()) << usage.status().ToString();
  EXPECT_EQ(usage->records,
            "usage user u1 cpu=1.5,mem=0.000000,io=0.000000 at=10\n"
            "usage project P2 cpu=2,mem=0.000000,io=0.000000 at=10\n");  // no user of its own: the latest stamp
  ASSERT_EQ(usage->notes.size(), 1u);
  EXPECT_NE(usage->notes[0].find("'default' node"), std::string::npos);
  EXPECT_EQ(ParseShareUsage("", kSource)->records, "");
}

TEST(ShareUsageTest, MalformedLinesNameTheCommandAndTheLine) {
  const std::string good = Row("10", "/u1", "u1", "");
  const std::pair<std::string, std::string> cases[] = {
      {good + "usage_time=10\tnode_name=/u2\n", "expected the fields"},
      {good + "node_name=/u2\tusage_time=10\tuser_name=u2\tproject_name=\tcpu=1\tmem=1\tio=1\n",
       "expected usage_time="},
      {good + Row("-5", "/u2", "u2", ""), "usage_time: expected epoch seconds"},
      {good + Row("10", "/u2", "u2", "", "-1"), "cpu: expected a finite number >= 0"},
      {good + Row("10", "/u2", "u2", "", "nan"), "cpu: expected a finite number >= 0"},
      {good + Row("10", "/u2", "u2", "", "1e999"), "cpu: expected a finite number >= 0"},
      {good + Row("10", "/u2", "u 2", ""), "is not an object name"},
      {good + "x=1\tusage_time=10\tnode_name=/u2\tuser_name=u2\tproject_name=\tcpu=1\tmem=1\tio=1\n",
       "expected usage_time="},
      {good + std::string("usage_time=1\x1b[2J\n"), "control character"},
      {good + Row("10", "/u2", "u2", "").substr(0, 90) + "\textra=1\n", "unexpected field"},
  };
  for (const auto& [output, message] : cases) {
    auto usage = ParseShareUsage(output, kSource);
    ASSERT_FALSE(usage.ok()) << output;
    EXPECT_EQ(usage.status().file(), kSource);
    EXPECT_EQ(usage.status().line(), 2) << output;
    EXPECT_NE(usage.status().message().find(message), std::string::npos) << usage.status().ToString();
  }
}

TEST(ShareUsageTest, TheCaptureIsNamedAfterTheCommandWhereverItLies) {
  const CellCommand c = ShareUsageCommand("/usr/lib/gridengine/sge_share_mon");
  EXPECT_EQ(c.argv.front(), "/usr/lib/gridengine/sge_share_mon");
  EXPECT_EQ(c.capture, ShareUsageCommand("sge_share_mon").capture);
  EXPECT_EQ(c.capture.rfind("sge%5Fshare%5Fmon_-c_1_-n_-f_", 0), 0u);
}

}  // namespace
}  // namespace schedk::io
