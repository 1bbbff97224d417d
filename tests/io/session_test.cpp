// The session protocol (io/session): golden transcripts for every verb and
// every error code, canonical job rows, state digests that depend only on the
// state, dumps that load back to the same state, refused requests that change
// nothing, and a session's decisions against `schedk schedule` on the same
// snapshot.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "io/priority_writer.hpp"
#include "io/schedule_writer.hpp"
#include "io/session/live_jobs.hpp"
#include "io/session/session.hpp"
#include "io/snapshot_generator.hpp"
#include "io/snapshot_reader.hpp"
#include "kernel/dispatch/schedule.hpp"
#include "kernel/priority/priority.hpp"
#include "tests/damage.hpp"
#include "tests/session_support.hpp"
#include "tests/test_support.hpp"

namespace schedk::io {
namespace {

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The elapsed time is the only field that depends on the run.
std::string WithoutTimes(const std::string& text) { return std::regex_replace(text, std::regex(" ms=[0-9]+"), " ms=_"); }

void ExpectGolden(const std::string& name) {
  const std::string dir = testing::SourceDir() + "/tests/io/serve/";
  const std::string out = WithoutTimes(Converse(ReadText(dir + name + ".in")).out);
  if (std::getenv("SCHEDK_UPDATE_GOLDEN") != nullptr) std::ofstream(dir + name + ".out", std::ios::binary) << out;
  EXPECT_EQ(out, ReadText(dir + name + ".out")) << "transcript " << name;
}

TEST(SessionGoldenTest, Handshake) { ExpectGolden("handshake"); }
TEST(SessionGoldenTest, Jobs) { ExpectGolden("jobs"); }
TEST(SessionGoldenTest, Objects) { ExpectGolden("objects"); }
// PRIORITY_POLICY=maui: the pass bypasses job 1, whose dump shows bypass=1.
TEST(SessionGoldenTest, MauiBypassCounts) { ExpectGolden("maui"); }
// A maui block set, refused (unknown queue, unknown parameter) and deleted in a session;
// a job released under the Maui policy accrues queue time from its release (eligible=).
TEST(SessionGoldenTest, MauiBlockInASession) { ExpectGolden("maui_objects"); }
// Resource quota sets in a session: the quota table before and after a set
// is replaced (alice's running job uses 1 of 1, then of 2), the pending
// reason, and a set the rebuilt cluster refuses (422, nothing changed).
TEST(SessionGoldenTest, QuotaSets) { ExpectGolden("quota"); }
// Soft requests in explain: what the grant met and missed (a host value that
// misses counts at the host and again at the queue that lacks it), before and
// after `mod` drops the soft -q.
TEST(SessionGoldenTest, SoftRequestsInExplain) { ExpectGolden("soft"); }

// --- canonical rows ------------------------------------------------------------------------------

ParsedJob Row(TaskNumber first, TaskNumber last, TaskNumber step, JobState state = JobState::kPending) {
  ParsedJob r;
  r.number = 7;
  r.task_range_given = true;
  r.first = first;
  r.last = last;
  r.step = step;
  r.state = state;
  return r;
}

std::string Ranges(const std::vector<ParsedJob>& rows) {
  std::string s;
  for (const ParsedJob& r : rows) {
    s += (s.empty() ? "" : " ") + JobIdText(r);
    if (r.state == JobState::kHeld) s += "h";
  }
  return s;
}

TEST(LiveJobsTest, CanonicalRowsAreTheGreedyRunsOfEachStatesTasks) {
  // {1, 3, 4}: 1 then 3 fixes the step 2, 4 breaks it.
  std::vector<ParsedJob> rows = {Row(4, 4, 1), Row(1, 1, 1), Row(3, 3, 1)};
  CanonicalRows(rows);
  EXPECT_EQ(Ranges(rows), "7.1-3:2 7.4");
  // The same set written as 1 and 3-4 is the same rows.
  rows = {Row(1, 1, 1), Row(3, 4, 1)};
  CanonicalRows(rows);
  EXPECT_EQ(Ranges(rows), "7.1-3:2 7.4");
  // A task split off and put back merges again; a held task stays apart.
  rows = {Row(1, 3, 1), Row(4, 4, 1), Row(5, 10, 1)};
  CanonicalRows(rows);
  EXPECT_EQ(Ranges(rows), "7.1-10");
  rows = {Row(1, 3, 1), Row(4, 4, 1, JobState::kHeld), Row(5, 10, 1)};
  CanonicalRows(rows);
  EXPECT_EQ(Ranges(rows), "7.1-3 7.4h 7.5-10");
  // A run with a different step after a single task: 2, 4 (step 2), then 5-9:2 continues from 5? No: 4 + 2 = 6.
  rows = {Row(2, 2, 1), Row(4, 4, 1), Row(5, 9, 2)};
  CanonicalRows(rows);
  EXPECT_EQ(Ranges(rows), "7.2-4:2 7.5-9:2");
  rows = {Row(1, 1, 1), Row(2, 8, 3)};  // {1, 2, 5, 8}: 1-2, then 5-8:3
  CanonicalRows(rows);
  EXPECT_EQ(Ranges(rows), "7.1-2 7.5-8:3");
}

// --- digests, dumps and refused requests ---------------------------------------------------------

TEST(SessionStateTest, DigestDependsOnTheStateNotOnThePath) {
  // Path A: add a job array, hold a task, release it, start and finish another.
  Transcript a = Converse(Requests({"h hello proto=1", "s snapshot"}) + kSmallCluster +
                     Requests({"end snapshot", "1 add job 10.1-6 owner=u1 submit=900", "2 hold 10.3", "3 release 10.3",
                               "4 run 10.6 granted=all.q@n1:1", "5 finish 10.6", "6 add job 11 owner=u2 p=-5",
                               "7 mod job 11 p=", "d digest"}));
  // Path B: the same state written directly.
  Transcript b = Converse(Requests({"h hello proto=1", "s snapshot"}) + kSmallCluster +
                     Requests({"job 11 owner=u2 submit=1000", "job 10.1-5 owner=u1 submit=900", "end snapshot",
                               "d digest"}));
  const std::string da = LastLine(a.out), db = LastLine(b.out);
  ASSERT_EQ(da.rfind("ok d ", 0), 0u) << a.out;
  EXPECT_EQ(Field(da, "hash"), Field(db, "hash")) << a.out << "\n" << b.out;
  EXPECT_EQ(Field(da, "jobs"), "2");
  EXPECT_EQ(Field(da, "tasks"), "6");
  EXPECT_NE(Field(da, "gen"), Field(db, "gen"));  // the generation counts changes, the hash does not
  // One more change gives another hash.
  Transcript c = Converse(Requests({"h hello proto=1", "s snapshot"}) + kSmallCluster +
                     Requests({"job 11 owner=u2 submit=1000", "job 10.1-5 owner=u1 submit=900 p=1", "end snapshot",
                               "d digest"}));
  EXPECT_NE(Field(LastLine(c.out), "hash"), Field(da, "hash"));
}

TEST(SessionStateTest, DumpLoadsBackToTheSameState) {
  const std::string setup = Requests({"h hello proto=1", "s snapshot"}) + kSmallCluster +
                            Requests({"end snapshot", "1 add job 1 owner=u1 name=\"two words\" p=1024 l_hard=h_rt=100",
                                      "2 add job 2.1-9:2 owner=u2 pe_name=mpi pe_min=2 pe_max=6 R=y",
                                      "3 add job 3 owner=u3 hold_jid=1", "4 schedule commit=assume",
                                      "5 load n1 np_load_avg=0.25", "6 hoststate n2 down",
                                      "7 finish 1 usage=cpu=10,mem=2,io=1", "8 advance 60", "d digest", "x dump"});
  Transcript first = Converse(setup);
  std::string digest, dump;
  std::istringstream lines(first.out);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("ok d ", 0) == 0) digest = line;
    if (line.rfind("data x ", 0) == 0) dump += line.substr(7) + "\n";
  }
  ASSERT_FALSE(dump.empty()) << first.out;
  EXPECT_NE(dump.find("assumed=y"), std::string::npos) << dump;
  EXPECT_NE(dump.find("hoststate n2 down"), std::string::npos) << dump;
  EXPECT_NE(dump.find("usage user u1 cpu=10,mem=2,io=1 at=1000"), std::string::npos) << dump;
  Transcript second = Converse(Requests({"h hello proto=1", "s snapshot"}) + dump + Requests({"end snapshot", "d digest"}));
  EXPECT_EQ(Field(LastLine(second.out), "hash"), Field(digest, "hash")) << dump;
  EXPECT_EQ(Field(LastLine(second.out), "tasks"), Field(digest, "tasks"));
}

TEST(SessionStateTest, RefusedRequestsChangeNothing) {
  const std::string setup = Requests({"h hello proto=1", "s snapshot"}) + kSmallCluster +
                            Requests({"end snapshot", "1 add job 1 owner=u1 l_hard=h_rt=100",
                                      "2 add job 2 owner=u2 pe_name=mpi pe_min=2", "d1 digest"});
  const std::vector<std::string> refused = {
      "r1 del pe mpi",                              // job 2 needs it
      "r2 snapshot\nschedk-snapshot 1\nnow 5\njob 9 owner=x state=bad\nend snapshot",
      "r3 begin queue all.q\nhostlist n1 n2 n3\nslots many\nend",
      "r4 add job 1 owner=u1",                      // exists
      "r5 run 1 granted=nosuch.q@n1:1",
      "r6 load n1 slots=abc",
      "r7 mod job 2 pe_name=nosuch",
      "r8 finish 1 usage=cpu=-1",
  };
  std::string input = setup;
  for (const std::string& r : refused) input += r + "\n";
  input += "d2 digest\n";
  Transcript t = Converse(input);
  std::string d1, d2;
  std::size_t errors = 0;
  std::istringstream lines(t.out);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("ok d1 ", 0) == 0) d1 = line;
    if (line.rfind("ok d2 ", 0) == 0) d2 = line;
    errors += line.rfind("err r", 0) == 0;
  }
  EXPECT_EQ(errors, refused.size()) << t.out;
  EXPECT_EQ(Field(d1, "hash"), Field(d2, "hash")) << t.out;
  EXPECT_EQ(Field(d1, "gen"), Field(d2, "gen")) << t.out;
}

TEST(SessionStateTest, DeletingAHostDropsItsLoadAndState) {
  Transcript t = Converse(Requests({"h hello proto=1", "s snapshot"}) + kSmallCluster +
                          Requests({"end snapshot", "1 load n2 np_load_avg=0.5", "2 hoststate n2 down", "3 del exechost n2",
                                    "4 dump load", "5 dump hoststate", "6 dump exechost n2", "7 hoststate n2 up"}));
  // n2 stays a host (all.q's hostlist names it) without its block, load or state.
  EXPECT_NE(t.out.find("ok 3\ndone 4 lines=0\ndone 5 lines=0\nerr 6 404"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("ok 7\n"), std::string::npos) << t.out;
}

// Random request streams, well-formed and broken, over a small cluster: every
// request gets exactly one terminal line, in order, only protocol records come
// before it, and the session survives to answer a final ping.
TEST(SessionStateTest, RandomRequestStreamsGetOneTerminalLineEach) {
  std::mt19937_64 random(20261122);
  const std::vector<std::string> verbs = {
      "add job {n} owner=u{u} l_hard=h_rt={t}", "add job {n}.1-{u}:2 owner=u{u} pe_name=mpi pe_min=2 pe_max={u} R=y",
      "add job {n} owner=u{u} state=r start=900 granted=all.q@n{h}:1", "add job {n} owner= p=x",
      "mod job {n} p={p}", "mod job {n} l_hard=nosuch=1", "mod job {n} state=r", "del job {n}", "del job {n}.{u}",
      "hold {n}", "release {n}", "run {n} granted=all.q@n{h}:1", "run {n}", "fail {n} \"gone\"",
      "suspend {n}", "resume {n}", "finish {n} usage=cpu={t}", "finish {n}.{u}", "load n{h} np_load_avg=0.{u}",
      "load n9 x=1", "hoststate n{h} down", "hoststate n{h} up", "clock {t}", "advance {u}", "advance -1",
      "schedule", "schedule commit=assume", "schedule commit=maybe", "priorities", "explain {n}", "dump job {n}",
      "dump queue all.q", "dump frob", "digest", "ping", "frobnicate", "del queue all.q", "del pe mpi", "del exechost n{h}",
      "hold", "run", "add job", "mod job x", "explain"};
  for (int round = 0; round < 100; ++round) {
    std::string input = Requests({"h hello proto=1", "s snapshot"}) + kSmallCluster + "end snapshot\n";
    std::vector<std::string> ids;
    for (int k = 0; k < 60; ++k) {
      std::string request = verbs[random() % verbs.size()];
      auto fill = [&](const std::string& key, const std::string& value) {
        for (std::size_t at; (at = request.find(key)) != std::string::npos;) request.replace(at, key.size(), value);
      };
      fill("{n}", std::to_string(1 + random() % 12));
      fill("{u}", std::to_string(1 + random() % 9));
      fill("{h}", std::to_string(1 + random() % 2));
      fill("{t}", std::to_string(60 + random() % 5000));
      fill("{p}", std::to_string(static_cast<int>(random() % 2000) - 1000));
      const std::string id = "q" + std::to_string(k);
      ids.push_back(id);
      input += id + " " + request + "\n";
      if (random() % 10 == 0) input += "\n# between requests\n";
    }
    input += "last ping\n";
    Transcript t = Converse(input);
    std::vector<std::string> terminal;
    std::istringstream lines(t.out);
    for (std::string line; std::getline(lines, line);) {
      const std::string type = line.substr(0, line.find(' '));
      if (io::KindOfReply(type) == io::ReplyKind::kTerminal) {
        const std::size_t start = line.find(' ') + 1;
        terminal.push_back(line.substr(start, line.find(' ', start) - start));
      } else {
        ASSERT_EQ(io::KindOfReply(type), io::ReplyKind::kRecord) << line;
      }
    }
    std::vector<std::string> expected = {"h", "s"};
    expected.insert(expected.end(), ids.begin(), ids.end());
    expected.push_back("last");
    EXPECT_EQ(terminal, expected) << input;
    EXPECT_NE(t.out.find("ok last\n"), std::string::npos);
  }
}

// Damaged golden transcripts: whatever the damage, the session answers in
// known reply types only, each error with a code and a reason, and the
// output ends with a terminal reply (the last request's, or the refusal of a
// body the input ended inside).
TEST(SessionStateTest, DamagedTranscriptsKeepTheProtocol) {
  const std::string dir = testing::SourceDir() + "/tests/io/serve/";
  SplitMix64 rng(11);
  std::size_t errors = 0, answered_last = 0;
  for (const char* name : {"handshake", "jobs", "objects", "maui", "maui_objects", "soft"}) {
    const std::string original = ReadText(dir + name + ".in");
    for (int round = 0; round < 60; ++round) {
      std::string input = testing::DamagedText(original, rng);
      if (!input.empty() && input.back() != '\n') input += '\n';
      input += "last ping\n";
      const Transcript t = Converse(input);
      std::istringstream lines(t.out);
      std::string type;
      for (std::string line; std::getline(lines, line);) {
        type = line.substr(0, line.find(' '));
        ASSERT_NE(io::KindOfReply(type), io::ReplyKind::kUnknown) << line << "\n--- input:\n" << input;
        if (type == "err") {
          ++errors;
          EXPECT_TRUE(std::regex_match(line, std::regex(R"(err \S+ [1-5][0-9][0-9] [a-z-]+ ".*"( [a-z]+=\S*)*)"))) << line;
        }
        if (line.rfind("ok last", 0) == 0 || line.rfind("err last ", 0) == 0) ++answered_last;
      }
      EXPECT_TRUE(type == "ok" || type == "done" || type == "err" || type == "bye" || type == "hello")
          << "--- input:\n" << input << "\n--- output:\n" << t.out;
    }
  }
  EXPECT_GT(errors, 100u);
  EXPECT_GT(answered_last, 20u);  // most transcripts end with a quit, which the damage mostly keeps
}

// --- decisions against the batch command ---------------------------------------------------------

// The batch records of one snapshot text (what `schedk schedule` prints), times blanked.
std::string BatchSchedule(const std::string& text) {
  auto snapshot = ReadSnapshot(text, "batch");
  EXPECT_TRUE(snapshot.ok()) << snapshot.status().ToString();
  const PriorityResult priorities = ComputePriorities(snapshot->cluster, snapshot->jobs);
  const QueueInstanceTable instances = QueueInstanceTable::Build(snapshot->cluster);
  const ScheduleResult result = ScheduleInterval(snapshot->cluster, snapshot->jobs, priorities, instances);
  std::string out;
  WriteSchedule(snapshot.value(), instances, result, ScheduleFormat::kText, 0, [&](std::string_view s) {
    out.append(s);
    return true;
  });
  return WithoutTimes(out);
}

// Consecutive slices of an interval's result, each written on its own (as a
// session streams them while the interval runs), give the records of the
// whole, short slices and long ones; each slice keeps its decisions' soft
// outcomes (which the records leave out) and counts.
TEST(SessionStateTest, SlicesOfAResultWriteItsRecords) {
  GeneratorSpec spec;
  spec.jobs = 4000;
  spec.hosts = 12;
  spec.seed = 5;
  spec.max_reservation = 1500;
  spec.soft_fraction = 0.3;
  auto snapshot = ReadSnapshot(testing::GeneratedText(spec), "slices");
  ASSERT_TRUE(snapshot.ok()) << snapshot.status().ToString();
  const PriorityResult priorities = ComputePriorities(snapshot->cluster, snapshot->jobs);
  const QueueInstanceTable instances = QueueInstanceTable::Build(snapshot->cluster);
  const ScheduleResult result = ScheduleInterval(snapshot->cluster, snapshot->jobs, priorities, instances);
  ASSERT_GT(result.reserves, 0u);
  ASSERT_GT(result.running_monitor, 0u);
  auto write = [&](const ScheduleResult& r) {
    std::string out;
    WriteScheduleRecords(snapshot.value(), instances, r, ScheduleFormat::kText, [&](std::string_view s) {
      out.append(s);
      return true;
    }, "x");
    return out;
  };
  ASSERT_TRUE(std::any_of(result.decisions.begin(), result.decisions.end(),
                          [](const Decision& d) { return d.soft_begin != UINT32_MAX; }));
  ASSERT_GT(result.decisions.size(), 4000u);
  const std::string whole = write(result);
  std::mt19937_64 random(5);
  for (int round = 0; round < 20; ++round) {
    std::string pieces;
    std::size_t from = 0;
    std::uint32_t starts = 0, reserves = 0, pending = 0;
    bool first = true;
    const std::size_t longest = round % 2 == 0 ? 300 : 2500;
    while (from < result.decisions.size() || first) {
      const std::size_t to = std::min(result.decisions.size(), from + random() % longest);
      const ScheduleResult slice = ScheduleSlice(result, from, to, first);
      pieces += write(slice);
      // The soft outcomes, which the records leave out, and the counts.
      for (std::size_t k = 0; k < slice.decisions.size(); ++k) {
        const Decision &part = slice.decisions[k], &all = result.decisions[from + k];
        ASSERT_EQ(part.soft_begin == UINT32_MAX, all.soft_begin == UINT32_MAX) << "decision " << from + k;
        for (std::uint32_t g = 0; part.soft_begin != UINT32_MAX && g < part.grant_end - part.grant_begin; ++g) {
          ASSERT_EQ(slice.soft[part.soft_begin + g].missed, result.soft[all.soft_begin + g].missed);
          ASSERT_EQ(slice.soft[part.soft_begin + g].violations, result.soft[all.soft_begin + g].violations);
        }
      }
      starts += slice.starts;
      reserves += slice.reserves;
      pending += slice.pending;
      first = false;
      from = to;
    }
    ASSERT_EQ(pieces, whole) << "round " << round;
    ASSERT_EQ(std::make_tuple(starts, reserves, pending), std::make_tuple(result.starts, result.reserves, result.pending));
  }
}

// A first slice with no decisions still names the quota rule instances its
// running tasks' monitor lines refer to (fuzz_session once found it empty).
TEST(SessionStateTest, ASliceOfRunningTasksOnlyNamesTheirQuotaInstances) {
  auto snapshot = ReadSnapshot(
      "schedk-snapshot 1\nnow 1000\n"
      "begin sconf\nmax_reservation 10\nparams MONITOR=1\nend sconf\n"
      "begin exechost node1\ncomplex_values slots=4\nend exechost\n"
      "begin queue all.q\nhostlist node1\nslots 4\nend queue\n"
      "begin rqs peruser\nname peruser\nenabled TRUE\nlimit users {*} to slots=1\nend rqs\n"
      "job 1 owner=alice state=r start=900 granted=all.q@node1:1 l_hard=h_rt=1000\n",
      "running");
  ASSERT_TRUE(snapshot.ok()) << snapshot.status().ToString();
  const PriorityResult priorities = ComputePriorities(snapshot->cluster, snapshot->jobs);
  const QueueInstanceTable instances = QueueInstanceTable::Build(snapshot->cluster);
  const ScheduleResult result = ScheduleInterval(snapshot->cluster, snapshot->jobs, priorities, instances);
  ASSERT_TRUE(result.decisions.empty());
  auto write = [&](const ScheduleResult& r) {
    std::string out;
    WriteScheduleRecords(snapshot.value(), instances, r, ScheduleFormat::kText, [&](std::string_view s) {
      out.append(s);
      return true;
    });
    return out;
  };
  const std::string whole = write(result);
  EXPECT_NE(whole.find(":L:peruser:"), std::string::npos) << whole;
  EXPECT_EQ(write(ScheduleSlice(result, 0, 0, true)), whole);
}

// A session's schedule replies with the id taken out again.
std::string SessionRecords(const std::string& out, const std::string& id) {
  std::string records;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    const std::size_t space = line.find(' ');
    if (line.compare(space + 1, id.size() + 1, id + " ") != 0) continue;
    records += line.substr(0, space) + line.substr(space + 1 + id.size()) + "\n";
  }
  return WithoutTimes(records);
}

TEST(SessionStateTest, DecisionsEqualTheBatchScheduleOfTheDump) {
  GeneratorSpec spec;
  spec.jobs = 12000;  // tasks enough for the session to stream its records in several slices
  spec.hosts = 20;
  spec.seed = 11;
  spec.max_reservation = 20;
  const std::string snapshot = testing::GeneratedText(spec);
  // Load, change things the way a master does, then schedule.
  Transcript t = Converse(Requests({"h hello proto=1", "s snapshot"}) + snapshot +
                     Requests({"end snapshot", "1 schedule commit=assume", "2 advance 120",
                               "3 add job 900001 owner=user1 l_hard=h_rt=600 R=y", "4 hold 5", "5 del job 7",
                               "6 schedule", "x dump"}));
  std::string dump;
  std::istringstream lines(t.out);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("data x ", 0) == 0) dump += line.substr(7) + "\n";
  }
  ASSERT_FALSE(dump.empty());
  const std::string session = SessionRecords(t.out, "6");
  ASSERT_NE(session.find("done starts="), std::string::npos) << t.out.substr(0, 2000);
  EXPECT_EQ(session, BatchSchedule(dump));
}

// SessionOptions::stages hears each pass's kernel stages, in order, and
// changes no reply.
TEST(SessionStateTest, StageListenerHearsEachPassAndChangesNoReply) {
  GeneratorSpec spec;
  spec.jobs = 3000;
  spec.hosts = 10;
  spec.seed = 4;
  const std::string input = Requests({"h hello proto=1", "s snapshot"}) + testing::GeneratedText(spec) +
                            Requests({"end snapshot", "1 schedule", "2 priorities", "3 schedule"});
  auto converse = [&](const StageListener* stages) {
    SessionOptions options;
    options.stages = stages;
    std::string out;
    Session session(
        options, [&](std::string_view s) { return out.append(s), true; }, Session::Sink());
    Feed(session, input, 1 << 20);
    return WithoutPassTimes(out);
  };
  std::vector<Stage> heard;
  const StageListener listener = [&](Stage stage) { heard.push_back(stage); };
  EXPECT_EQ(converse(&listener), converse(nullptr));
  // Two schedule passes (the priorities' stages, then the interval's) around a priorities pass.
  const std::vector<Stage> priorities = {Stage::kClassify, Stage::kTickets, Stage::kUrgency, Stage::kTaskOrder,
                                         Stage::kDone};
  const std::vector<Stage> interval = {Stage::kIntervalSetup, Stage::kRunningBookings, Stage::kQueueList,
                                       Stage::kTaskRows,      Stage::kDispatchLoop,    Stage::kPendingRecords,
                                       Stage::kDone};
  std::vector<Stage> want;
  for (const auto* part : {&priorities, &interval, &priorities, &priorities, &interval}) {
    want.insert(want.end(), part->begin(), part->end());
  }
  EXPECT_EQ(heard, want);
}
}  // namespace
}  // namespace schedk::io
