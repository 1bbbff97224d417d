// Hostile input, one test group per class of defect a hostile tester found
// (and the fuzzers under tests/fuzz/ keep looking for):
//   HostileValues:   values the plan cannot honour are refused where they enter;
//   DeepNesting:     no recursion depth is the input's to choose;
//   UnboundedEcho:   messages quote at most a few dozen bytes, escaped;
//   InvalidUtf8:     input that is not UTF-8 is refused at its line;
// and, for each, a refused value or request changes nothing. Signals in
// `schedk serve` are tested end to end in tests/tools/cli_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cstdio>
#include <deque>
#include <fstream>
#include <string>
#include <vector>

#include "io/ge_value.hpp"
#include "io/job_line.hpp"
#include "io/snapshot_reader.hpp"
#include "io/swf_reader.hpp"
#include "io/untrusted_text.hpp"
#include "kernel/complex/string_expression.hpp"
#include "kernel/dispatch/schedule.hpp"
#include "kernel/priority/priority.hpp"
#include "tests/session_support.hpp"
#include "tests/test_support.hpp"

namespace schedk::io {
namespace {

// One host with 4 slots, a consumable license pool of 2 and a plain INT attribute.
const std::string kCluster =
    "schedk-snapshot 1\nnow 1000\n"
    "begin complex\nslots s INT <= YES YES 1 1000\nh_rt h_rt TIME <= YES NO 0:0:0 0\n"
    "lic l INT <= YES YES 0 0\nnum n INT <= YES NO 0 0\narch a RESTRING == YES NO NONE 0\nend complex\n"
    "begin global\ncomplex_values lic=2\nend global\n"
    "begin exechost h1\ncomplex_values slots=4,arch=lx-amd64\nend exechost\n"
    "begin queue all.q\nhostlist h1\nslots 4\nend queue\n";
const int kClusterLines = static_cast<int>(std::count(kCluster.begin(), kCluster.end(), '\n'));

Status Error(const std::string& text) { return testing::LoadError(text); }

// Expects `text` to be refused at `line` with a message containing `what`.
void ExpectRefused(const std::string& text, int line, const std::string& what) {
  const Status st = Error(text);
  ASSERT_FALSE(st.ok()) << "accepted:\n" << text;
  EXPECT_EQ(st.code(), Status::Code::kInvalidInput);
  EXPECT_EQ(st.line(), line) << st.ToString();
  EXPECT_NE(st.message().find(what), std::string::npos) << st.ToString();
}

// The digest line of a transcript's request `id`.
std::string DigestOf(const std::string& out, const std::string& id) {
  const std::size_t at = out.find("ok " + id + " ");
  return at == std::string::npos ? std::string() : out.substr(at, out.find('\n', at) - at);
}

// --- values the plan cannot honour -----------------------------------------------------------------

TEST(HostileValuesTest, NegativeRuntimesAndConsumableRequestsAreRefused) {
  ExpectRefused(kCluster + "job 1 owner=u l_hard=h_rt=-1\n", kClusterLines + 1, "h_rt cannot be negative");
  ExpectRefused(kCluster + "job 1 owner=u l_hard=lic=-2\n", kClusterLines + 1, "lic cannot be negative");
  ExpectRefused(kCluster + "job 1 owner=u l_soft=lic=-1\n", kClusterLines + 1, "lic cannot be negative");
  ExpectRefused(kCluster + "job 1 owner=u l_hard=lic=1e301\n", kClusterLines + 1, "finite amount");
  ExpectRefused(kCluster + "job 1 owner=u l_hard=lic=INFINITY\n", kClusterLines + 1, "finite amount");
  // A capacity that would credit the resource.
  std::string negative_capacity = kCluster;
  negative_capacity.replace(negative_capacity.find("lic=2"), 5, "lic=-2");
  ExpectRefused(negative_capacity, 11, "lic cannot be negative");
  // A non-consumable number may be negative, as a load value may; zero requests are fine.
  EXPECT_TRUE(Error(kCluster + "job 1 owner=u l_hard=num=-3,lic=0,h_rt=0:0:5\n").ok());
}

// Found by fuzz_snapshot: h_rt=22:088888888888888888888:0 (5.3e21 s) was cast
// to a 64-bit duration by the dispatch pass, which is undefined behaviour.
TEST(HostileValuesTest, TimesBeyondTheClockAreInfinite) {
  EXPECT_EQ(ParseTypedNumber("22:088888888888888888888:0", ValueType::kTime), static_cast<double>(kInfiniteDuration));
  EXPECT_EQ(ParseTypedNumber("INFINITY", ValueType::kTime), static_cast<double>(kInfiniteDuration));
  EXPECT_EQ(ParseTypedNumber("1:0:0", ValueType::kTime), 3600.0);
  auto s = ReadSnapshot(kCluster + "job 1 owner=u l_hard=h_rt=22:088888888888888888888:0\n"
                                   "job 2 owner=u l_hard=h_rt=INFINITY\njob 3 owner=u l_hard=h_rt=0:1:0\n",
                        "t.snap");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  const PriorityResult priorities = ComputePriorities(s->cluster, s->jobs);
  const QueueInstanceTable instances = QueueInstanceTable::Build(s->cluster);
  const ScheduleResult r = ScheduleInterval(s->cluster, s->jobs, priorities, instances);
  ASSERT_EQ(r.decisions.size(), 3u);
  for (const Decision& d : r.decisions) {
    EXPECT_EQ(d.kind, DecisionKind::kStart);
    // h_rt plus Grid Engine's default DURATION_OFFSET of 60 s; an infinite one stays infinite.
    EXPECT_EQ(d.duration, d.job == 3 ? 60 + 60 : kInfiniteDuration) << "job " << d.job;
  }
}

// Found by fuzz_job_line: `pe_min=` (empty) parsed, but the canonical record
// left it out and then did not parse ("pe_name given without pe_min").
TEST(HostileValuesTest, EmptySlotCountsAreRefusedWhereTheyAreRead) {
  JobNameSpace names;
  std::vector<JobToken> tokens;
  std::deque<std::string> storage;
  ParsedJob job;
  for (const char* line : {"job 1 owner=u pe_name=mpi pe_min=", "job 1 owner=u pe_name=mpi pe_min=1 pe_max="}) {
    const auto e = ParseJobLine(line, 1, names, tokens, storage, job);
    ASSERT_TRUE(e.has_value()) << line;
    EXPECT_NE(e->find("expected a slot count"), std::string::npos) << *e;
  }
  ASSERT_FALSE(ParseJobLine("job 1 owner=u pe_name=mpi pe_min=2", 1, names, tokens, storage, job));
  std::string canonical;
  RenderJobLine(job, names, canonical);
  EXPECT_EQ(canonical, "job 1 owner=u pe_name=mpi pe_min=2");
}

TEST(HostileValuesTest, NumbersBeyondADoubleAndDatesThatDoNotExistAreRefused) {
  EXPECT_FALSE(ParseGeNumber("1e309"));
  EXPECT_FALSE(ParseGeNumber("-1e309"));
  EXPECT_FALSE(ParseGeNumber("1e308G"));
  EXPECT_FALSE(ParseGeNumber("1e308:0:0"));
  EXPECT_FALSE(ParseGeNumber("0x1ffffffffffffffff"));  // 65 bits would wrap around
  EXPECT_EQ(ParseGeNumber("INFINITY"), DBL_MAX);
  EXPECT_EQ(ParseGeNumber("0x10"), 16.0);
  EXPECT_EQ(ParseGeNumber("1e308"), 1e308);
  EXPECT_FALSE(ParseTime("2026-02-30T00:00:00Z"));
  EXPECT_FALSE(ParseTime("2023-02-29T00:00:00Z"));
  EXPECT_FALSE(ParseTime("2026-04-31T12:00:00Z"));
  EXPECT_EQ(ParseTime("2024-02-29T00:00:00Z"), 1709164800);  // a leap day exists
  EXPECT_EQ(ParseTime("2000-02-29T00:00:00Z"), 951782400);
  ExpectRefused(kCluster + "job 1 owner=u submit=2026-02-30T00:00:00Z\n", kClusterLines + 1, "submit");
}

TEST(HostileValuesTest, HoldListsWithEmptyOrImpossibleJobsAreRefused) {
  ExpectRefused(kCluster + "job 2 owner=u hold_jid=,,,@@\n", kClusterLines + 1, "hold_jid");
  ExpectRefused(kCluster + "job 2 owner=u hold_jid=1,\n", kClusterLines + 1, "empty job");
  ExpectRefused(kCluster + "job 2 owner=u hold_jid=a@b\n", kClusterLines + 1, "job number or job name");
  ExpectRefused(kCluster + "job 2 owner=u hold_jid=build*\n", kClusterLines + 1, "wildcard");
  EXPECT_TRUE(Error(kCluster + "job 1 owner=u name=build\njob 2 owner=u hold_jid=1,build,99\n").ok());
}

TEST(HostileValuesTest, SessionUsageThatWouldOverflowIsRefusedAndChangesNothing) {
  const std::string start = Requests({"h hello proto=1", "s snapshot"}) + kCluster +
                            Requests({"job 1 owner=u state=r start=900 granted=all.q@h1:1",
                                      "job 2 owner=u state=r start=900 granted=all.q@h1:1", "end snapshot",
                                      "1 finish 1 usage=cpu=1e300", "d1 digest"});
  const std::string refused = Requests({"r1 finish 2 usage=cpu=1e300", "r2 finish 2 usage=cpu=1e309",
                                        "r3 finish 2 usage=cpu=1e308,mem=1e308", "d2 digest", "s1 schedule",
                                        "x dump"});
  const Transcript t = Converse(start + refused, 1 << 20);
  for (const char* id : {"r1", "r2", "r3"}) {
    EXPECT_NE(t.out.find(std::string("err ") + id + " 422 invalid-value"), std::string::npos) << id << "\n" << t.out;
  }
  const std::string d1 = DigestOf(t.out, "d1"), d2 = DigestOf(t.out, "d2");
  ASSERT_FALSE(d1.empty()) << t.out;
  EXPECT_EQ(Field(d1, "hash"), Field(d2, "hash"));
  EXPECT_EQ(Field(d1, "gen"), Field(d2, "gen"));
  EXPECT_EQ(Field(d2, "tasks"), "1");  // job 2 still runs
  EXPECT_NE(t.out.find("\ndone s1 "), std::string::npos) << t.out;  // the next pass works
  // The dump loads back.
  std::string dump;
  for (std::size_t at = t.out.find("data x "); at != std::string::npos; at = t.out.find("data x ", at + 1)) {
    dump += t.out.substr(at + 7, t.out.find('\n', at) - at - 7) + "\n";
  }
  EXPECT_NE(dump.find("usage user u cpu=1e+300"), std::string::npos) << dump;
  EXPECT_TRUE(ReadSnapshot(dump, "dump.snap").ok()) << ReadSnapshot(dump, "dump.snap").status().ToString();
}

// Found by fuzz_session's dump property: `mod job N submit=` removed the
// submit time, and a dump then loaded with the clock's time in its place.
TEST(HostileValuesTest, ASessionKeepsEveryJobsSubmitTime) {
  const Transcript t = Converse(Requests({"h hello proto=1", "s snapshot"}) + kCluster +
                                Requests({"job 1 owner=u submit=900", "end snapshot", "d1 digest",
                                          "1 mod job 1 submit=", "2 mod job 1 p=-5", "x dump", "d2 digest"}));
  EXPECT_NE(t.out.find("err 1 422 invalid-value \"mod job: submit cannot be removed\""), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("data x job 1 owner=u submit=900 p=-5"), std::string::npos) << t.out;
}

TEST(HostileValuesTest, CorruptAndBombGzipIsBadInputRefusedEarly) {
  const std::string good = testing::Gzip("; MaxProcs: 4\n1 0 -1 10 1 -1 -1 1 10 -1 1 1 1 -1 -1 -1 -1 -1\n");
  auto ok = Gunzip(good, "t.swf.gz");
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  std::string corrupt = good;
  corrupt[corrupt.size() / 2] = static_cast<char>(corrupt[corrupt.size() / 2] ^ 0x5a);
  auto bad = Gunzip(corrupt.substr(0, corrupt.size() - 3), "t.swf.gz");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), Status::Code::kInvalidInput);  // exit 2, not 1
  // 64 MiB of NULs, and one line of 64 MiB, each from a gzip of about 64 KiB.
  for (const char fill : {'\0', 'x'}) {
    auto bomb = Gunzip(testing::Gzip(std::string(std::size_t{64} << 20, fill)), "bomb.swf.gz");
    ASSERT_FALSE(bomb.ok());
    EXPECT_EQ(bomb.status().code(), Status::Code::kInvalidInput);
    EXPECT_NE(bomb.status().message().find(fill == '\0' ? "NUL" : "longer than"), std::string::npos)
        << bomb.status().ToString();
  }
  // Short lines in great number: refused by the ratio.
  std::string lines;
  for (int i = 0; i < (80 << 20) / 8; ++i) lines += "1 2 3 \n";
  auto many = Gunzip(testing::Gzip(lines), "many.swf.gz");
  ASSERT_FALSE(many.ok());
  EXPECT_NE(many.status().message().find("times its size"), std::string::npos) << many.status().ToString();
}

// --- recursion whose depth the input sets ------------------------------------------------------------

TEST(DeepNestingTest, DeeplyNestedHostgroupsResolveWithoutRecursion) {
  constexpr int kDepth = 100000;
  std::string text = "schedk-snapshot 1\nnow 1000\n";
  for (int g = 0; g < kDepth; ++g) {
    text += "begin hostgroup @g" + std::to_string(g) + "\nhostlist " +
            (g + 1 < kDepth ? "@g" + std::to_string(g + 1) : std::string("h1")) + "\nend hostgroup\n";
  }
  text += "begin queue all.q\nhostlist @g0\nslots 1\nend queue\n";
  auto s = ReadSnapshot(text, "deep.snap");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->cluster.hostgroups[0].hosts.size(), 1u);
  // A cycle at the bottom is still named.
  std::string cycle = text;
  cycle.replace(cycle.rfind("hostlist h1"), 11, "hostlist @g0");
  const Status st = Error(cycle);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.line(), 3) << st.ToString();
  EXPECT_NE(st.message().find("contains itself"), std::string::npos);
}

std::string ChainShareTree(int depth) {
  std::string text = "schedk-snapshot 1\nnow 1000\nbegin sconf\nweight_tickets_share 1000\nend sconf\nbegin sharetree\n";
  for (int n = 0; n <= depth; ++n) {
    text += "id=" + std::to_string(n) + "\nname=" + (n == depth ? std::string("u") : "n" + std::to_string(n)) +
            "\ntype=0\nshares=1\nchildnodes=" + (n < depth ? std::to_string(n + 1) : std::string("NONE")) + "\n";
  }
  return text + "end sharetree\njob 1 owner=u\n";
}

TEST(DeepNestingTest, ShareTreesDeeperThanTheLimitAreRefusedAtTheNode) {
  auto fine = ReadSnapshot(ChainShareTree(kMaxShareTreeDepth), "tree.snap");
  ASSERT_TRUE(fine.ok()) << fine.status().ToString();
  const PriorityResult r = ComputePriorities(fine->cluster, fine->jobs);
  EXPECT_GT(testing::Find(fine.value(), r, 1).values.stckt, 0);  // the one job gets every share-tree ticket
  const Status st = Error(ChainShareTree(100000));
  ASSERT_FALSE(st.ok());
  const int node_line = 7 + 5 * (kMaxShareTreeDepth + 1);  // "id=257"
  EXPECT_EQ(st.line(), node_line) << st.ToString();
  EXPECT_NE(st.message().find("more than 256 levels"), std::string::npos) << st.ToString();
}

TEST(DeepNestingTest, StringRequestsNestingTooDeepAreRefusedNotOverflowed) {
  const std::string deep = std::string(500000, '(') + "lx*" + std::string(500000, ')');
  EXPECT_TRUE(StringExpressionTooDeep(deep));
  EXPECT_EQ(EvaluateStringExpression(ValueType::kReString, deep, "lx-amd64"), ExpressionResult::kError);
  EXPECT_EQ(EvaluateStringExpression(ValueType::kReString, std::string(500000, '!') + "lx*", "lx"),
            ExpressionResult::kError);
  const std::string ok = std::string(kMaxStringExpressionDepth, '(') + "lx*" + std::string(kMaxStringExpressionDepth, ')');
  EXPECT_FALSE(StringExpressionTooDeep(ok));
  EXPECT_EQ(EvaluateStringExpression(ValueType::kReString, ok, "lx-amd64"), ExpressionResult::kMatch);
  EXPECT_EQ(EvaluateStringExpression(ValueType::kReString, "!!" + ok.substr(2, ok.size() - 4), "lx-amd64"),
            ExpressionResult::kMatch);  // '!' counts as a level too
  EXPECT_TRUE(StringExpressionTooDeep("!" + ok));
  ExpectRefused(kCluster + "job 1 owner=u l_hard=arch=" + deep + "\n", kClusterLines + 1, "deeper than 64");
  auto s = ReadSnapshot(kCluster + "job 1 owner=u l_hard=arch=" + ok + "\n", "ok.snap");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  const PriorityResult priorities = ComputePriorities(s->cluster, s->jobs);
  const QueueInstanceTable instances = QueueInstanceTable::Build(s->cluster);
  EXPECT_EQ(ScheduleInterval(s->cluster, s->jobs, priorities, instances).decisions.front().kind, DecisionKind::kStart);
}

TEST(DeepNestingTest, ASessionRefusesADeepRequestAndLivesOn) {
  const std::string deep = std::string(200000, '(') + "lx*" + std::string(200000, ')');
  const Transcript t = Converse(Requests({"h hello proto=1", "s snapshot"}) + kCluster +
                                    Requests({"end snapshot", "1 add job 1 owner=u l_hard=arch=" + deep,
                                              "2 add job 2 owner=u", "3 schedule"}),
                                1 << 20);
  EXPECT_NE(t.out.find("err 1 422 invalid-value"), std::string::npos) << t.out.substr(0, 400);
  EXPECT_NE(t.out.find("ok 2"), std::string::npos);
  EXPECT_NE(t.out.find("start 3 2.1 "), std::string::npos) << t.out;
}

// --- errors that echo input -----------------------------------------------------------------------

TEST(UnboundedEchoTest, MessagesQuoteAFewDozenBytesEscaped) {
  EXPECT_EQ(Quote("abc"), "'abc'");
  EXPECT_EQ(Quote(std::string("a\0b\x1b[2J\\", 8)), "'a\\x00b\\x1b[2J\\\\'");
  EXPECT_EQ(Quote("caf\xc3\xa9 \xff"), "'caf\xc3\xa9 \\xff'");  // valid UTF-8 kept, the stray byte escaped
  EXPECT_EQ(Quote(std::string(1000, 'x')), "'" + std::string(kQuoteLimit, 'x') + "...'");
  const std::string huge(10 << 20, 'z');
  const Status st = Error(kCluster + "job 1 owner=u l_hard=" + huge + "=1\n");
  ASSERT_FALSE(st.ok());
  EXPECT_LT(st.ToString().size(), 200u) << st.ToString().substr(0, 300);
  const Status token = Error(kCluster + "job 1 owner=u " + huge + "\n");
  ASSERT_FALSE(token.ok());
  EXPECT_LT(token.ToString().size(), 200u);
  const Status control = Error(kCluster + std::string("job 1 owner=u nosuch\x1b]0;pwned\x07=1\n"));
  ASSERT_FALSE(control.ok());
  EXPECT_NE(control.message().find("control character \\x1b at byte 21"), std::string::npos) << control.message();
  EXPECT_EQ(control.message().find('\x1b'), std::string::npos);
  EXPECT_EQ(PrintableMessage("a\nb\x01"), "a\\x0ab\\x01");
}

TEST(UnboundedEchoTest, AFileThatIsNotASnapshotIsNamedNeverQuoted) {
  const std::string path = ::testing::TempDir() + "schedk_secret.txt";
  std::ofstream(path) << "root:SECRET-PASSWORD-HASH:0:0\n";
  const Status st = ReadSnapshotFile(path).status();
  EXPECT_EQ(st.code(), Status::Code::kInvalidInput);
  EXPECT_EQ(st.message().find("SECRET"), std::string::npos) << st.ToString();
  EXPECT_NE(st.ToString().find(path), std::string::npos);
  const Transcript t = Converse(Requests({"h hello proto=1", "l load " + path}));
  EXPECT_EQ(t.out.find("SECRET"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("err l "), std::string::npos) << t.out;
  std::remove(path.c_str());
}

// Memory bounded by what is kept: a session loads regular files only.
TEST(UnboundedEchoTest, ASessionLoadsOnlyRegularFiles) {
  const Transcript t = Converse(Requests({"h hello proto=1", "1 load /dev/zero", "2 load /dev/null", "3 ping"}));
  EXPECT_NE(t.out.find("err 1 404 no-such-object \"/dev/zero: not a regular file\""), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("err 2 404"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("ok 3"), std::string::npos) << t.out;
}

TEST(UnboundedEchoTest, ProtocolRepliesHoldNoControlBytes) {
  const Transcript t = Converse(Requests({"h hello proto=1", std::string("1 frobnicate\x1b[2J\x01"),
                                          std::string("2 add job 1 owner=u bad\x7f=1"), "3 quit"}));
  for (const char c : t.out) {
    EXPECT_TRUE(c == '\n' || (static_cast<unsigned char>(c) >= 0x20 && c != 0x7f)) << static_cast<int>(c) << t.out;
  }
  EXPECT_NE(t.out.find("bye 3"), std::string::npos);
}

// --- invalid UTF-8 --------------------------------------------------------------------------------

TEST(InvalidUtf8Test, SnapshotsRefuseItAtItsLine) {
  ExpectRefused(kCluster + "job 1 owner=u\njob 2 owner=\xc3\x28\n", kClusterLines + 2, "invalid UTF-8");
  ExpectRefused(kCluster + "job 1 owner=u name=\xed\xa0\x80\n", kClusterLines + 1, "invalid UTF-8");  // a surrogate
  ExpectRefused(kCluster + "job 1 owner=u name=\xc0\xaf\n", kClusterLines + 1, "invalid UTF-8");      // overlong '/'
  ExpectRefused("schedk-snapshot 1\nnow 1000\nbegin exechost h\xff\nend exechost\n", 3, "invalid UTF-8");
  // Valid multi-byte names load and reach JSON Lines intact.
  auto s = ReadSnapshot(kCluster + "job 1 owner=J\xc3\xbcrgen name=\xe6\x97\xa5\xf0\x9f\x9a\x80\n", "u.snap");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(FindNonText("J\xc3\xbcrgen \xe6\x97\xa5\xf0\x9f\x9a\x80"), std::string_view::npos);
  EXPECT_EQ(FindNonText("abcdefgh\xf5"), 8u);
  EXPECT_EQ(FindNonText("\xf4\x90\x80\x80"), 0u);  // above U+10FFFF
}

TEST(InvalidUtf8Test, SessionRequestsAndBodiesRefuseItAndChangeNothing) {
  const Transcript t = Converse(Requests({"h hello proto=1", "s snapshot"}) + kCluster +
                                Requests({"end snapshot", "d1 digest", "1 add job 1 owner=\xff", "2 begin exechost h2",
                                          "complex_values slots=\xc3", "end", "d2 digest"}));
  EXPECT_NE(t.out.find("err 1 400 bad-syntax \"invalid UTF-8 at byte 19"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("err 2 400 bad-syntax \"invalid UTF-8 at byte 22\" line=1"), std::string::npos) << t.out;
  EXPECT_EQ(Field(DigestOf(t.out, "d1"), "hash"), Field(DigestOf(t.out, "d2"), "hash"));
  EXPECT_EQ(Field(DigestOf(t.out, "d1"), "gen"), Field(DigestOf(t.out, "d2"), "gen"));
}

// Found by fuzz_job_line: a 0x1f in a request value split the request key that
// joins l_hard, l_soft, ... with 0x1f, so a dump wrote keys the job never had.
TEST(InvalidUtf8Test, ControlCharactersAreRefusedLikeInvalidUtf8) {
  ExpectRefused(kCluster + "job 1 owner=u l_soft=num=1\x1fx\n", kClusterLines + 1, "control character \\x1f at byte 27");
  ExpectRefused(kCluster + "job 1 owner=u name=\"a\x1b[2Jb\"\n", kClusterLines + 1, "control character \\x1b");
  ExpectRefused(kCluster + "begin pe p\x01\nend pe\n", kClusterLines + 1, "control character \\x01");
  EXPECT_TRUE(Error(kCluster + "job 1\towner=u\r\n").ok());  // tabs and CRLF line ends are text
  EXPECT_EQ(FindNonText("a\rb"), 1u);
  EXPECT_EQ(FindNonText("abcdefgh\x7f\r\n"), std::string_view::npos);
  const Transcript t = Converse(Requests({"h hello proto=1", "s snapshot"}) + kCluster +
                                Requests({"end snapshot", "d1 digest", "1 add job 1 owner=u l_hard=h_rt=1\x1f\x1f\x1f\x1f\x1f" "3",
                                          "d2 digest"}));
  EXPECT_NE(t.out.find("err 1 400 bad-syntax \"control character \\\\x1f at byte 34"), std::string::npos) << t.out;
  EXPECT_EQ(Field(DigestOf(t.out, "d1"), "hash"), Field(DigestOf(t.out, "d2"), "hash"));
}

// Found by fuzz_session: a `begin` line that is not text was refused at once,
// so the lines of its body were taken for requests.
TEST(InvalidUtf8Test, ABodyRequestThatIsNotTextStillCollectsItsBody) {
  const Transcript t = Converse(Requests({"h hello proto=1", "s snapshot"}) + kCluster +
                                Requests({"end snapshot", "1 begin exechost h\xff", "2 quit", "end", "3 ping"}));
  EXPECT_NE(t.out.find("err 1 400 bad-syntax \"invalid UTF-8 at byte 19 of the request line\""), std::string::npos)
      << t.out;
  EXPECT_EQ(t.out.find("bye 2"), std::string::npos) << t.out;  // a line of the body, not a request
  EXPECT_NE(t.out.find("ok 3"), std::string::npos) << t.out;
}

}  // namespace
}  // namespace schedk::io
