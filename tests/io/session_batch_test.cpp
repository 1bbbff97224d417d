// Session::HandleLines against its plain twin, HandleLine one line after the
// other: the same replies, byte for byte, and the same state, whatever the
// batches and the thread count. The input mixes runs of `add job` requests
// (valid, refused by the parser, by the cluster, given twice, unreadable,
// too long) with other requests and bodies that break the runs. Runs under
// ThreadSanitizer in .ci/run.
#include <gtest/gtest.h>

#include <tbb/global_control.h>
#include <tbb/task_arena.h>

#include <random>
#include <string>
#include <vector>

#include "io/session/input_lines.hpp"
#include "tests/session_support.hpp"

namespace schedk::io {
namespace {

constexpr std::size_t kLimit = 200;

constexpr const char* kCluster = R"(schedk-snapshot 1
now 1000
begin exechost n1
complex_values slots=8
end exechost
begin project p1
end project
begin queue all.q
hostlist n1
slots 8
end queue)";

// One `add job` line of many kinds; `number` mostly new, sometimes not.
std::string AddLine(std::mt19937& random, std::size_t k, unsigned& next_number) {
  const std::string id = "a" + std::to_string(k);
  unsigned number = next_number++;
  if (random() % 10 == 0) number = 1 + random() % next_number;  // given before, or twice in this run
  const std::string job = " job " + std::to_string(number);
  const std::string owner = " owner=u" + std::to_string(random() % 40);  // new names keep arriving
  // Lines HandleLine refuses before reading the request end a run: they are rare.
  // clang-format off
  if (random() % 150 == 0) {
    switch (random() % 3) {
      case 0: return id + " add" + job + owner + " name=bad\001byte";                // not text
      case 1: return id + " add" + job + owner + " name=" + std::string(kLimit, 'x');  // too long
      default: return "bad/id add" + job + owner;                                    // not a request id
    }
  }
  switch (random() % 12) {
    case 0: return id + " add" + job;                                           // no owner: refused by the parser
    case 1: return id + " add" + job + owner + " project=nope";                 // refused by the cluster
    case 2: return id + " add" + job + owner + " l_hard=nosuch=1";              // an unknown complex
    case 3: return id + " add" + job + owner + " name=\"unterminated";          // a bad quote
    case 4: return "";
    case 5: return "# a comment";
    case 6: return id + "\tadd\tjob\t" + std::to_string(number) + owner + "\r";  // tabs, CRLF
    case 7: return id + " add" + job + owner + " project=p1 name=n" + std::to_string(random() % 7);
    default: return id + " add" + job + owner + " l_hard=h_rt=" + std::to_string(60 + random() % 600);
  }
  // clang-format on
}

// A conversation whose add runs are long enough to go through AddJobs.
std::string Conversation(unsigned seed) {
  std::mt19937 random(seed);
  std::vector<std::string> lines = {"a add job 1 owner=early", "h hello proto=1", "s snapshot"};
  lines.emplace_back(kCluster);  // lines of its own once joined
  lines.push_back("end snapshot");
  unsigned next_number = 1;
  std::size_t k = 0;
  for (const int run : {300, 40, 700, 65, 1}) {
    for (int i = 0; i < run; ++i) lines.push_back(AddLine(random, k++, next_number));
    // clang-format off
    switch (run % 4) {  // what breaks the run
      case 0: lines.push_back("p ping"); break;
      case 1: lines.push_back("d del job 3"); break;
      case 2: lines.insert(lines.end(), {"o begin project p2", "x add job 99999 owner=inbody", "end"}); break;
      default: lines.push_back("s schedule");
    }
    // clang-format on
  }
  for (const char* last :
       {"s schedule", "p priorities", "g digest", "u dump job", "q quit", "z add job 5 owner=late"}) {
    lines.emplace_back(last);
  }
  std::string text;
  for (const std::string& l : lines) text += l + "\n";
  return text;
}

// The replies and then the log lines of a session fed `input` one line at a
// time (seed 0), or through a LineCutter in pieces of random sizes, each
// batch taken at a random point, to Session::HandleLines.
std::string Replies(const std::string& input, unsigned seed) {
  std::string out, log;
  SessionOptions options;
  options.version = "test";
  options.max_line_bytes = kLimit;
  Session session(
      options, [&](std::string_view s) { return out.append(s), true; },
      [&](std::string_view s) { return log.append(s), true; });
  if (seed == 0) {
    Feed(session, input, kLimit);
    return out + log;
  }
  std::mt19937 random(seed);
  LineCutter cutter(kLimit);
  std::size_t at = 0;
  while (at < input.size() && !session.ended()) {
    const std::size_t piece = std::min<std::size_t>(input.size() - at, 1 + random() % 20000);
    cutter.Append(std::string_view(input).substr(at, piece));
    at += piece;
    if (at == input.size()) cutter.Finish();
    if (random() % 3 == 0 || at == input.size()) session.HandleLines(cutter.Take().lines);
  }
  if (!session.ended()) session.EndOfInput();
  return out + log;
}

// The first line where `a` differs from `b`, in both; empty if none does.
std::string FirstDifference(const std::string& a, const std::string& b) {
  std::size_t at = 0;
  while (at < std::min(a.size(), b.size()) && a[at] == b[at]) ++at;
  if (at == a.size() && at == b.size()) return {};
  const std::size_t line = a.rfind('\n', at == 0 ? 0 : at - 1);
  const std::size_t from = line == std::string::npos ? 0 : line + 1;
  return "got:      " + a.substr(from, a.find('\n', from) - from) +
         "\nexpected: " + b.substr(from, b.find('\n', from) - from);
}

TEST(SessionBatchTest, HandleLinesRepliesAsOneLineAtATime) {
  for (const unsigned seed : {1u, 2u, 3u}) {
    const std::string input = Conversation(seed);
    const std::string expected = WithoutPassTimes(Replies(input, 0));
    // Every kind of refusal and plenty of successes, so the comparison means something.
    for (const char* reply : {"ok a", "err a", " 400 ", " 409 ", " 413 ", " 422 ", "err -", "bye q"}) {
      EXPECT_NE(expected.find(reply), std::string::npos) << reply;
    }
    EXPECT_GT(std::count(expected.begin(), expected.end(), '\n'), 1000);
    for (const int threads : {1, 2, 3, 7, 16}) {
      tbb::global_control workers(tbb::global_control::max_allowed_parallelism, threads);
      tbb::task_arena arena(threads);
      const std::string got = WithoutPassTimes(arena.execute([&] { return Replies(input, seed * 100 + threads); }));
      EXPECT_EQ(FirstDifference(got, expected), "") << "seed " << seed << ", " << threads << " threads";
    }
  }
}

// The ingest's stage listener hears each batch's line kinds, then each run
// of `add job` lines go through every other stage in kIngestStages' order,
// and changes no reply.
TEST(SessionBatchTest, IngestStagesComeInOrderAndChangeNothing) {
  const std::string input = Conversation(1);
  std::vector<IngestStage> heard;
  const IngestListener listen = [&](IngestStage stage) { heard.push_back(stage); };
  std::string out, log;
  SessionOptions options;
  options.version = "test";
  options.max_line_bytes = kLimit;
  options.ingest_stages = &listen;
  Session session(
      options, [&](std::string_view s) { return out.append(s), true; },
      [&](std::string_view s) { return log.append(s), true; });
  LineCutter cutter(kLimit);
  cutter.Append(input);
  cutter.Finish();
  session.HandleLines(cutter.Take().lines);
  EXPECT_EQ(FirstDifference(WithoutPassTimes(out + log), WithoutPassTimes(Replies(input, 0))), "");
  const std::vector<IngestStage> run = {
      IngestStage::kParse,     IngestStage::kMergeNames,      IngestStage::kRepoint, IngestStage::kSortByShard,
      IngestStage::kCheckRows, IngestStage::kKeepRequestSets, IngestStage::kInsert,  IngestStage::kReplies};
  ASSERT_GE(heard.size(), 2u);
  EXPECT_EQ(heard[0], IngestStage::kLineKinds);
  EXPECT_EQ(heard[1], IngestStage::kDone);
  std::size_t runs = 0;
  for (std::size_t at = 2; at < heard.size(); at += run.size() + 1, ++runs) {
    ASSERT_LE(at + run.size() + 1, heard.size());
    EXPECT_TRUE(std::equal(run.begin(), run.end(), heard.begin() + static_cast<std::ptrdiff_t>(at))) << "run " << runs;
    EXPECT_EQ(heard[at + run.size()], IngestStage::kDone);
  }
  EXPECT_GE(runs, 2u);
}

TEST(SessionBatchTest, LineCutterCutsAsTheServeCommandDid) {
  LineCutter cutter(4);
  cutter.Append("ab\ncdefg");
  cutter.Append("hi\n\nxy");
  InputBatch first = cutter.Take();
  ASSERT_EQ(first.lines.size(), 3u);
  EXPECT_EQ(first.lines[0].text, "ab");
  EXPECT_FALSE(first.lines[0].too_long);
  EXPECT_EQ(first.lines[1].text, "cdef");
  EXPECT_TRUE(first.lines[1].too_long);
  EXPECT_EQ(first.lines[2].text, "");
  EXPECT_FALSE(first.end);
  cutter.Append("z");
  cutter.Finish();
  InputBatch last = cutter.Take();
  ASSERT_EQ(last.lines.size(), 1u);
  EXPECT_EQ(last.lines[0].text, "xyz");
  EXPECT_TRUE(last.end);
  EXPECT_EQ(first.lines[0].text, "ab");  // the first batch's bytes are its own
}

}  // namespace
}  // namespace schedk::io
