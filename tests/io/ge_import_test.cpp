// schedk import ge on captures of a real Son of Grid Engine 8.1.9 cell
// (tests/io/ge_capture/, made by make compat's scenarios urgency and
// dispatch-pe): the imported snapshot loads, its priorities are the digits
// qstat printed in the same scheduler run, its dispatch is the MONITOR
// section the cell wrote; and every way a capture can be wrong is an error
// naming the command. Also the live-cell runner on ordinary commands, and the
// session updates that move a fed session from one import to the next.
#include "io/ge_import/ge_import.hpp"

#include <gtest/gtest.h>
#include <pugixml.hpp>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "io/ge_import/qstat_xml.hpp"
#include "io/ge_import/share_usage.hpp"
#include "io/ge_import/snapshot_diff.hpp"
#include "io/priority_writer.hpp"
#include "io/schedule_writer.hpp"
#include "kernel/dispatch/schedule.hpp"
#include "tests/session_support.hpp"
#include "tests/test_support.hpp"

namespace schedk::io {
namespace {

namespace fs = std::filesystem;

std::string Fixture(const std::string& name) { return testing::SourceDir() + "/tests/io/ge_capture/" + name; }

using testing::ReadText;

// The qmaster's messages carry local times; the captures were made in UTC.
class ImportGeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* tz = std::getenv("TZ");
    saved_tz_ = tz ? tz : "";
    had_tz_ = tz != nullptr;
    setenv("TZ", "UTC", 1);
    tzset();
  }
  void TearDown() override {
    if (had_tz_) setenv("TZ", saved_tz_.c_str(), 1);
    else unsetenv("TZ");
    tzset();
    if (!scratch_.empty()) fs::remove_all(scratch_);
  }
  // A copy of a fixture capture that a test may change.
  std::string Copy(const std::string& name) {
    scratch_ = fs::temp_directory_path() / ("schedk-ge-" + std::to_string(::getpid()));
    fs::remove_all(scratch_);
    fs::copy(Fixture(name), scratch_);
    return scratch_;
  }
  static void Write(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }
  static Result<GeImport> Import(const std::string& dir) { return ImportGeCell(CaptureDirectory(dir), {}); }

  std::string saved_tz_;
  bool had_tz_ = false;
  std::string scratch_;
};

TEST_F(ImportGeTest, CaptureFileNamesAreReversibleAndReadable) {
  EXPECT_EQ(CaptureFileName({"qstat", "-j", "*", "-xml"}), "qstat_-j_%2A_-xml");
  EXPECT_EQ(CaptureFileName({"qconf", "-sq", "all.q"}), "qconf_-sq_all.q");
  EXPECT_EQ(CaptureFileName({"qconf", "-se", std::string("vm\0x", 4)}), "qconf_-se_vm%00x");  // not qconf_-se_vm
  EXPECT_EQ(CommandText({"qstat", "-u", "*", "-g", "t"}), "qstat -u '*' -g t");
}

// Compares every column qstat -g d -xml printed (`qstat_file`) in the run the
// capture was made in with schedk's priorities of the import; returns how
// many values were compared.
int CompareWithQstat(const Snapshot& s, const std::string& qstat_file) {
  std::map<std::pair<JobNumber, TaskNumber>, std::map<std::string, double>> ours;
  const PriorityResult result = ComputePriorities(s.cluster, s.jobs);
  std::string jsonl;
  EXPECT_TRUE(WritePriorities(s, result, PriorityFormat::kKeyValue, [&](std::string_view piece) {
    jsonl += piece;
    return true;
  }));
  std::istringstream lines(jsonl);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::map<std::string, double> row;
    for (std::string word; words >> word;) {
      const std::size_t eq = word.find('=');
      row[word.substr(0, eq)] = std::strtod(word.c_str() + eq + 1, nullptr);
    }
    ours[{static_cast<JobNumber>(row["job"]), static_cast<TaskNumber>(row["task"])}] = row;
  }
  pugi::xml_document qstat;
  EXPECT_TRUE(qstat.load_file(qstat_file.c_str())) << qstat_file;
  const std::pair<const char*, const char*> kColumns[] = {
      {"JAT_prio", "prio"},      {"JAT_ntix", "ntckts"},    {"JB_nppri", "npprior"}, {"JB_nurg", "nurg"},
      {"JB_rrcontr", "rrcontr"}, {"JB_wtcontr", "wtcontr"}, {"JB_dlcontr", "dlcontr"}, {"tickets", "tckts"},
      {"otickets", "otckt"},     {"ftickets", "ftckt"},     {"stickets", "stckt"},   {"JAT_share", "share"}};
  int compared = 0;
  for (const pugi::xpath_node& node : qstat.select_nodes("//job_list")) {
    const pugi::xml_node job = node.node();
    const JobNumber number = job.child("JB_job_number").text().as_uint();
    const TaskNumber task = job.child("tasks") ? job.child("tasks").text().as_uint() : 1;
    EXPECT_TRUE(ours.count({number, task})) << number << "." << task;
    for (const auto& [element, key] : kColumns) {
      const std::string printed = job.child(element).text().get();
      const double v = ours[{number, task}][key];
      const std::string_view k = key;
      char text[64];
      if (printed.find('.') != std::string::npos) std::snprintf(text, sizeof text, "%.5f", v);
      else if (k == "tckts" || k == "otckt" || k == "ftckt" || k == "stckt") std::snprintf(text, sizeof text, "%lld", static_cast<long long>(v));
      else std::snprintf(text, sizeof text, "%.0f", v);
      EXPECT_EQ(printed, text) << "job " << number << "." << task << " " << key;
      ++compared;
    }
  }
  return compared;
}

TEST_F(ImportGeTest, PrioritiesAreTheDigitsQstatPrinted) {
  auto imported = Import(Fixture("urgency"));
  ASSERT_TRUE(imported.ok()) << imported.status().ToString();
  EXPECT_EQ(imported->jobs, 12u);
  const Snapshot s = testing::Load(imported->snapshot);
  EXPECT_EQ(s.cluster.now, 1795652666);  // the cell's last scheduler run (PROFILE)
  EXPECT_EQ(CompareWithQstat(s, Fixture("urgency.qstat-gd.xml")), 180);  // 15 rows (12 jobs, array tasks one row each), 12 columns
}

// A run that ends in the second after it weighed urgency (seen under load):
// the cell's waiting-time urgency is of the earlier second, so `now` is.
TEST_F(ImportGeTest, NowIsWhenTheRunWeighedUrgencyNotWhenItEnded) {
  const std::string dir = Copy("urgency");
  const std::string messages = ReadText(dir + "/qmaster-messages");
  const std::size_t weighed = messages.rfind("|PROF: static urgency took");
  ASSERT_NE(weighed, std::string::npos);
  std::string later = messages.substr(0, weighed);
  std::istringstream rest(messages.substr(weighed));
  for (std::string line; std::getline(rest, line);) {
    const bool stamped = line.rfind("11/26/2026 00:24:26|", 0) == 0 && line.find("static urgency") == std::string::npos;
    later += (stamped ? "11/26/2026 00:24:27" + line.substr(19) : line) + "\n";
  }
  Write(dir + "/qmaster-messages", later);
  auto imported = Import(dir);
  ASSERT_TRUE(imported.ok()) << imported.status().ToString();
  ASSERT_TRUE(imported->run.has_value());
  EXPECT_EQ(imported->run->end, 1795652667);
  const Snapshot s = testing::Load(imported->snapshot);
  EXPECT_EQ(s.cluster.now, 1795652666);
  EXPECT_EQ(CompareWithQstat(s, Fixture("urgency.qstat-gd.xml")), 180);
}

// make compat's share-tree scenario: usage that CPU-burning jobs left, read
// with sge_share_mon; the pending jobs' share-tree tickets are qstat's.
TEST_F(ImportGeTest, ShareTreeUsageGivesTheTicketsQstatPrinted) {
  auto imported = Import(Fixture("share-tree"));
  ASSERT_TRUE(imported.ok()) << imported.status().ToString();
  const std::string& text = imported->snapshot;
  EXPECT_NE(text.find("usage user u1 cpu=5.399108,mem=0.006498,io=22.533252 at=1795662200\n"), std::string::npos);
  EXPECT_NE(text.find("usage user u3 cpu=2.748267,mem=0.002991,io=11.588320 at=1795662200 project=P1\n"), std::string::npos);
  EXPECT_NE(text.find("usage project P1 cpu=3.574196,mem=0.003776,io=14.491831 at=1795662200\n"), std::string::npos);
  const Snapshot s = testing::Load(text);
  EXPECT_EQ(CompareWithQstat(s, Fixture("share-tree.qstat-gd.xml")), 96);  // 8 pending jobs, 12 columns
  // Without the usage the tickets are those of an unused tree: not qstat's.
  std::string unused;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("usage ", 0) != 0) unused += line + "\n";
  }
  const Snapshot without = testing::Load(unused);
  const PriorityResult with_usage = ComputePriorities(s.cluster, s.jobs);
  const PriorityResult no_usage = ComputePriorities(without.cluster, without.jobs);
  ASSERT_EQ(with_usage.tickets.refs.size(), no_usage.tickets.refs.size());
  int differ = 0;
  for (std::size_t i = 0; i < with_usage.tickets.refs.size(); ++i) {
    differ += std::floor(with_usage.tickets.refs.stix[i]) != std::floor(no_usage.tickets.refs.stix[i]);
  }
  EXPECT_GT(differ, 0);
}

// make compat's share-tree-pe scenario: parallel jobs, running and pending,
// under a share tree; the cell's tickets are those of 8.1.9's pending rule.
TEST_F(ImportGeTest, SharedTreeTicketsOfParallelJobsFollow819sRule) {
  auto imported = Import(Fixture("share-tree-pe"));
  ASSERT_TRUE(imported.ok()) << imported.status().ToString();
  std::string text = imported->snapshot;
  const std::string params = "MONITOR=1,PROFILE=1\n";
  const std::size_t at = text.find(params);
  ASSERT_NE(at, std::string::npos);
  text.insert(at + params.size() - 1, ",SHARE_TREE_PENDING=8.1");
  const Snapshot s = testing::Load(text);
  EXPECT_EQ(CompareWithQstat(s, Fixture("share-tree-pe.qstat-gd.xml")), 120);  // 10 jobs, 12 columns
}

// make compat's array-limits scenario: max_aj_instances 3, -tc 2, a held
// task beside running ones, a rescheduled task pending as a task object. The
// tasks the limit holds back show qstat's template, or zeros.
TEST_F(ImportGeTest, ArrayTaskLimitsGiveTheValuesQstatPrinted) {
  auto imported = Import(Fixture("array-limits"));
  ASSERT_TRUE(imported.ok()) << imported.status().ToString();
  const std::string& text = imported->snapshot;
  EXPECT_NE(text.find("job 31520.2 owner=u1 group=u1 name=sleep submit=1795675070 l_hard=h_rt=3000 enrolled=y\n"),
            std::string::npos);
  EXPECT_NE(text.find("job 31520.4-6 owner=u1 group=u1 name=sleep submit=1795675070 l_hard=h_rt=3000\n"),
            std::string::npos);
  EXPECT_NE(text.find("job 31523.1-6:1 owner=u2 group=u2 name=sleep submit=1795675069 l_hard=h_rt=3000 tc=2\n"),
            std::string::npos);
  const Snapshot s = testing::Load(text);
  EXPECT_EQ(s.cluster.config.max_aj_instances, 3u);
  EXPECT_EQ(CompareWithQstat(s, Fixture("array-limits.qstat-gd.xml")), 240);  // 20 tasks, 12 columns
}

// The capture was made with every queue disabled; opened at the time of the
// cell's next run, the interval writes the MONITOR section the cell wrote.
// The import of a capture made with every queue disabled, opened at the time
// of the cell's next run (its STARTING lines' time): the snapshot to schedule.
Snapshot OpenedAtTheNextRun(const std::string& imported, const std::string& cell_monitor) {
  const std::size_t at = cell_monitor.find(":STARTING:") + 10;
  const std::string run_time = cell_monitor.substr(at, cell_monitor.find(':', at) - at);
  std::string open;
  std::istringstream lines(imported);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("states ", 0) == 0) continue;
    open += (line.rfind("now ", 0) == 0 ? "now " + run_time : line) + "\n";
  }
  return testing::Load(open);
}

std::string MonitorSection(const Snapshot& s) {
  const QueueInstanceTable instances = QueueInstanceTable::Build(s.cluster);
  const ScheduleResult result = ScheduleInterval(s.cluster, s.jobs, ComputePriorities(s.cluster, s.jobs), instances);
  return MonitorFileSection(s, instances, result);
}

TEST_F(ImportGeTest, DispatchIsTheMonitorSectionTheCellWrote) {
  auto imported = Import(Fixture("dispatch-pe"));
  ASSERT_TRUE(imported.ok()) << imported.status().ToString();
  std::string text = imported->snapshot;
  EXPECT_NE(text.find("states NONE,[vm=d]\n"), std::string::npos);
  Snapshot closed = testing::Load(text);
  const QueueInstanceTable closed_instances = QueueInstanceTable::Build(closed.cluster);
  const ScheduleResult none =
      ScheduleInterval(closed.cluster, closed.jobs, ComputePriorities(closed.cluster, closed.jobs), closed_instances);
  for (const Decision& d : none.decisions) EXPECT_NE(d.kind, DecisionKind::kStart) << d.job;
  const std::string cell = ReadText(Fixture("dispatch-pe.monitor"));
  EXPECT_EQ(MonitorSection(OpenedAtTheNextRun(text, cell)), cell);
}

// make compat's dispatch-masterq: -masterq with and without -q, a master queue
// named by -masterq alone, and $pe_slots; the cell granted each job's master
// queue first and left one slot for it where another queue would have
// completed the job.
TEST_F(ImportGeTest, MasterQueuesAreTheCellsGrants) {
  auto imported = Import(Fixture("dispatch-masterq"));
  ASSERT_TRUE(imported.ok()) << imported.status().ToString();
  EXPECT_NE(imported->snapshot.find(" q_hard=all.q masterq=m.q pe_name=fill pe_min=4"), std::string::npos);
  const std::string cell = ReadText(Fixture("dispatch-masterq.monitor"));
  EXPECT_NE(cell.find(":STARTING:"), std::string::npos);
  EXPECT_EQ(MonitorSection(OpenedAtTheNextRun(imported->snapshot, cell)), cell);
}

// Without PROFILE lines the clock is the capture's `date +%s` (a newline
// after the digits, as date prints it), and the import says so.
TEST_F(ImportGeTest, WithoutProfileTheClockIsTheCapturesDate) {
  const std::string dir = Copy("urgency");
  Write(dir + "/qmaster-messages", "11/26/2026 00:24:26|worker|vm|I|no profile lines here\n");
  Write(dir + "/date", "1795652700\n");
  auto imported = Import(dir);
  ASSERT_TRUE(imported.ok()) << imported.status().ToString();
  EXPECT_NE(imported->snapshot.find("\nnow 1795652700\n"), std::string::npos);
  ASSERT_FALSE(imported->notes.empty());
  EXPECT_NE(imported->notes.front().find("the time of the capture"), std::string::npos) << imported->notes.front();
}

TEST_F(ImportGeTest, AMissingOutputNamesTheCommand) {
  const std::string dir = Copy("urgency");
  fs::remove(dir + "/qstat_-u_%2A_-g_t_-xml");
  auto imported = Import(dir);
  ASSERT_FALSE(imported.ok());
  EXPECT_EQ(imported.status().file(), "qstat -u '*' -g t -xml");
  EXPECT_NE(imported.status().message().find("holds no output of it (file qstat_-u_%2A_-g_t_-xml)"), std::string::npos)
      << imported.status().ToString();
}

// With schedd_job_info true, qstat -j lists the scheduler's messages after
// the jobs, naming some job lists `<job ids>` (seen on the 8.1.9 cell for
// message 44, "cannot run on host ... until clean up of a previous run has
// finished"): not XML, and not read. The import is the same without them.
TEST_F(ImportGeTest, TheSchedulersMessagesInQstatJAreNotRead) {
  const std::string dir = Copy("urgency");
  const std::string file = dir + "/qstat_-j_%2A_-xml";
  std::string xml = ReadText(file);
  const std::size_t messages = xml.find("<MES_job_number_list>");
  ASSERT_NE(messages, std::string::npos);
  const std::size_t open = xml.find("<ulong_sublist>", messages), close = xml.find("</ulong_sublist>", messages);
  ASSERT_LT(open, close);
  xml.replace(close, std::strlen("</ulong_sublist>"), "</job ids>");
  xml.replace(open, std::strlen("<ulong_sublist>"), "<job ids>");
  Write(file, xml);
  auto with = Import(dir);
  ASSERT_TRUE(with.ok()) << with.status().ToString();
  auto without = Import(Fixture("urgency"));
  ASSERT_TRUE(without.ok());
  EXPECT_EQ(with->snapshot, without->snapshot);
  // The jobs' own part is still checked: the same element there is an error at its line.
  const std::size_t job = xml.find("<JB_job_number>");
  xml.replace(job, std::strlen("<JB_job_number>"), "<JB job_number>");
  Write(file, xml);
  auto broken = Import(dir);
  ASSERT_FALSE(broken.ok());
  EXPECT_EQ(broken.status().line(), 1 + static_cast<int>(std::count(xml.begin(), xml.begin() + job, '\n')));
}

// A cell with a share tree is read with its usage, or not at all.
TEST_F(ImportGeTest, AShareTreeWithoutItsUsageStopsTheImport) {
  const std::string dir = Copy("share-tree");
  const std::string capture = ShareUsageCommand("sge_share_mon").capture;
  fs::remove(dir + "/" + capture);
  auto imported = Import(dir);
  ASSERT_FALSE(imported.ok());
  EXPECT_EQ(imported.status().file().rfind("sge_share_mon -c 1", 0), 0u) << imported.status().ToString();
  EXPECT_NE(imported.status().message().find("holds no output of it"), std::string::npos);
  // Live, where no sge_share_mon is found.
  GeImportOptions live;
  live.live = true;
  live.now = 1795662200;
  auto unfound = ImportGeCell(CaptureDirectory(Fixture("share-tree")), live);
  ASSERT_FALSE(unfound.ok());
  EXPECT_EQ(unfound.status().file(), "sge_share_mon");
  EXPECT_NE(unfound.status().message().find("not found"), std::string::npos);
}

TEST_F(ImportGeTest, OutputThatDoesNotParseNamesCommandAndLine) {
  const std::string dir = Copy("urgency");
  const std::string tasks = ReadText(dir + "/qstat_-u_%2A_-g_t_-xml");
  Write(dir + "/qstat_-u_%2A_-g_t_-xml", tasks.substr(0, tasks.size() / 2));
  auto imported = Import(dir);
  ASSERT_FALSE(imported.ok());
  EXPECT_EQ(imported.status().code(), Status::Code::kInvalidInput);
  EXPECT_EQ(imported.status().file(), "qstat -u '*' -g t -xml");
  EXPECT_GT(imported.status().line(), 1);
  EXPECT_NE(imported.status().message().find("not well-formed XML"), std::string::npos);
}

// qconf -srqs as the real 8.1.9 cell prints a set: in braces, indented.
TEST_F(ImportGeTest, QuotaSetsArePastedWithoutTheirBraces) {
  const std::string dir = Copy("urgency");
  Write(dir + "/qconf_-srqsl", "max_slots\n");
  Write(dir + "/qconf_-srqs_max%5Fslots",
        "{\n   name         max_slots\n   description  NONE\n   enabled      TRUE\n"
        "   limit        users {*} to slots=2\n}\n");
  auto imported = Import(dir);
  ASSERT_TRUE(imported.ok()) << imported.status().ToString();
  EXPECT_NE(imported->snapshot.find("begin rqs max_slots\nname         max_slots\ndescription  NONE\n"
                                    "enabled      TRUE\nlimit        users {*} to slots=2\nend rqs\n"),
            std::string::npos)
      << imported->snapshot;
  auto snapshot = ReadSnapshot(imported->snapshot, "import");
  ASSERT_TRUE(snapshot.ok()) << snapshot.status().ToString();
  ASSERT_EQ(snapshot->cluster.quota_sets.size(), 1u);
  EXPECT_TRUE(snapshot->cluster.quota_sets[0].enabled);
  EXPECT_TRUE(snapshot->cluster.quota_sets[0].rules[0].users.expand);
}

TEST_F(ImportGeTest, WhatASnapshotCannotHoldStopsTheImport) {
  const std::string dir = Copy("urgency");
  Write(dir + "/qrstat_-u_%2A",
        "ar-id   name       owner        state start at             end at               duration\n"
        "----------------------------------------------------------------------------------------\n"
        "      1            u1           r     11/27/2026 10:00:00  11/27/2026 11:00:00  01:00:00\n");
  auto ar = Import(dir);
  ASSERT_FALSE(ar.ok());
  EXPECT_NE(ar.status().ToString().find("the cell uses advance reservations"), std::string::npos)
      << ar.status().ToString();
  Write(dir + "/qrstat_-u_%2A", "");

  std::string jobs = ReadText(dir + "/qstat_-j_%2A_-xml");
  const std::size_t first = jobs.find("<JB_pe>");
  ASSERT_NE(first, std::string::npos);
  jobs.insert(first, "<JB_checkpoint_name>ck</JB_checkpoint_name>");
  Write(dir + "/qstat_-j_%2A_-xml", jobs);
  auto ckpt = Import(dir);
  ASSERT_FALSE(ckpt.ok());
  EXPECT_NE(ckpt.status().message().find("uses -ckpt, which a schedk snapshot cannot hold yet"), std::string::npos)
      << ckpt.status().ToString();
}

TEST_F(ImportGeTest, AQueueCalendarOrABlockLineStopsTheImport) {
  const std::string dir = Copy("urgency");
  const std::string queue = ReadText(dir + "/qconf_-sq_all.q");
  std::string with_calendar = queue;
  with_calendar.replace(with_calendar.find("calendar              NONE"), 26, "calendar              night");
  Write(dir + "/qconf_-sq_all.q", with_calendar);
  auto calendar = Import(dir);
  ASSERT_FALSE(calendar.ok());
  EXPECT_NE(calendar.status().message().find("uses a calendar"), std::string::npos) << calendar.status().ToString();
  Write(dir + "/qconf_-sq_all.q", queue + "end queue\n");
  auto block = Import(dir);
  ASSERT_FALSE(block.ok());
  EXPECT_NE(block.status().message().find("cannot be pasted into a snapshot block"), std::string::npos);
}

// Whatever the cell prints goes into snapshot records and command lines only
// as the words it may be (found by fuzz_ge_import): a state that would close
// the states attribute and open a block, a running task that is no number, a
// listed name with a tab or of 5000 bytes, an owner with a newline.
TEST_F(ImportGeTest, OutputThatWouldBreakTheSnapshotIsRefused) {
  const std::string dir = Copy("urgency");
  const std::string queues = ReadText(dir + "/qstat_-f_-xml");
  std::string injected = queues;
  injected.insert(injected.find("</name>") + 7, "<state>d]\nend queue\nbegin queue evil</state>");
  Write(dir + "/qstat_-f_-xml", injected);
  auto state = Import(dir);
  ASSERT_FALSE(state.ok());
  EXPECT_EQ(state.status().file(), "qstat -f -xml");
  EXPECT_NE(state.status().message().find("state: unexpected"), std::string::npos) << state.status().ToString();
  Write(dir + "/qstat_-f_-xml", queues);

  const std::string tasks = ReadText(dir + "/qstat_-u_%2A_-g_t_-xml");
  std::string bad_task = tasks;
  bad_task.insert(bad_task.find("<slots>"), "<tasks>x</tasks>");
  Write(dir + "/qstat_-u_%2A_-g_t_-xml", bad_task);
  auto task = Import(dir);
  ASSERT_FALSE(task.ok());
  EXPECT_NE(task.status().message().find("a running task's number must be one whole number"), std::string::npos)
      << task.status().ToString();
  Write(dir + "/qstat_-u_%2A_-g_t_-xml", tasks);

  for (const std::string& name : {std::string("a\tb"), std::string(5000, 'a')}) {
    Write(dir + "/qconf_-spl", name + "\n");
    auto listed = Import(dir);
    ASSERT_FALSE(listed.ok());
    EXPECT_EQ(listed.status().file(), "qconf -spl");
    EXPECT_NE(listed.status().message().find("is not an object name"), std::string::npos);
    EXPECT_LT(listed.status().ToString().size(), 200u);
  }
  Write(dir + "/qconf_-spl", ReadText(Fixture("urgency") + "/qconf_-spl"));

  std::string jobs = ReadText(dir + "/qstat_-j_%2A_-xml");
  jobs.replace(jobs.find("<JB_owner>u1</JB_owner>"), 23, "<JB_owner>u1\njob 99 owner=x</JB_owner>");
  Write(dir + "/qstat_-j_%2A_-xml", jobs);
  auto owner = Import(dir);
  ASSERT_FALSE(owner.ok());
  EXPECT_NE(owner.status().message().find("JB_owner: a control character"), std::string::npos) << owner.status().ToString();
}

TEST(QstatXmlTest, TasksJobsAndQueuesAsQstatPrintsThem) {
  const std::string tasks =
      "<?xml version='1.0'?>\n<job_info>\n <queue_info>\n"
      "  <job_list state=\"running\"><JB_job_number>7</JB_job_number><state>r</state>"
      "<queue_name>all.q@vm</queue_name><master>MASTER</master><slots>1</slots></job_list>\n"
      "  <job_list state=\"running\"><JB_job_number>7</JB_job_number><state>r</state>"
      "<queue_name>all.q@vm</queue_name><master>SLAVE</master><slots>1</slots></job_list>\n"
      " </queue_info>\n <job_info>\n"
      "  <job_list state=\"pending\"><JB_job_number>9</JB_job_number><state>hqw</state><queue_name></queue_name>"
      "<master></master><slots>1</slots><tasks>1-5:2</tasks></job_list>\n"
      " </job_info>\n</job_info>\n";
  auto rows = ParseQstatTasks(tasks, "qstat -g t");
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 3u);
  EXPECT_TRUE(rows.value()[0].master);
  EXPECT_FALSE(rows.value()[1].master);
  EXPECT_EQ(rows.value()[2].tasks, "1-5:2");
  EXPECT_EQ(rows.value()[2].state, "hqw");
  EXPECT_EQ(rows.value()[2].line, 8);

  const std::string jobs =
      "<detailed_job_info><djob_info><element><JB_job_number>4</JB_job_number><JB_owner>u</JB_owner>"
      "<JB_submission_time>100</JB_submission_time><JB_priority>1014</JB_priority><JB_reserve>true</JB_reserve>"
      "<JB_jid_predecessor_list><job_predecessors><JRE_job_number>1</JRE_job_number></job_predecessors>"
      "</JB_jid_predecessor_list><JB_pe>mpi</JB_pe><JB_pe_range><ranges><RN_min>2</RN_min><RN_max>4</RN_max>"
      "<RN_step>1</RN_step></ranges></JB_pe_range></element></djob_info></detailed_job_info>";
  auto parsed = ParseQstatJobs(jobs, "qstat -j");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  ASSERT_EQ(parsed->size(), 1u);
  const CellJob& j = parsed->front();
  EXPECT_EQ(j.posix_priority, -10);  // qstat stores -p + 1024
  EXPECT_TRUE(j.reserve);
  EXPECT_EQ(j.predecessors, std::vector<std::uint64_t>{1});
  EXPECT_EQ(j.pe_min, 2u);
  EXPECT_EQ(j.pe_max, 4u);
  EXPECT_TRUE(j.unsupported.empty());
  auto none = ParseQstatJobs("<unknown_jobs/>", "qstat -j");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());

  auto queues = ParseQstatQueues("<job_info><queue_info><Queue-List><name>all.q@vm</name><state>du</state>"
                                 "</Queue-List></queue_info></job_info>",
                                 "qstat -f");
  ASSERT_TRUE(queues.ok());
  EXPECT_EQ(queues->front().state, "du");
}

TEST(LiveCellTest, RunsCommandsAndReportsFailuresTimeoutsAndEmptyListings) {
  const CellCommands cell = LiveCell(2);
  auto echo = cell(Command({"echo", "all.q"}));
  ASSERT_TRUE(echo.ok()) << echo.status().ToString();
  EXPECT_EQ(echo.value(), "all.q\n");
  auto empty = cell(Command({"sh", "-c", "echo 'no cluster queue list defined' >&2; exit 1"}));
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_EQ(empty.value(), "");
  auto failed = cell(Command({"sh", "-c", "echo 'error: commlib error: can not connect' >&2; exit 1"}));
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().ToString(),
            "sh -c 'echo 'error: commlib error: can not connect' >&2; exit 1': failed (exit status 1): "
            "'error: commlib error: can not connect'");
  auto slow = cell(Command({"sleep", "30"}));
  ASSERT_FALSE(slow.ok());
  EXPECT_NE(slow.status().message().find("did not answer within 2 s"), std::string::npos);
  auto missing = cell(Command({"schedk-no-such-command"}));
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("cannot run it"), std::string::npos) << missing.status().ToString();
}

}  // namespace
}  // namespace schedk::io

namespace schedk::io {
namespace {

// The digest a session reaches from `input` (the reply lines must hold no `err`).
std::string DigestAfter(const std::string& input) {
  const Transcript t = Converse(input, 1 << 20);
  EXPECT_EQ(t.out.find("\nerr "), std::string::npos) << t.out;
  return Field(LastLine(t.out), "hash");
}

// Writes `before` and `after` as <name>-before.snap and <name>-after.snap in
// the test's temporary folder; checks that a session loaded with `before` and
// fed `updates` has the digest of one loaded with `after`.
void ExpectFedSessionReaches(const std::string& name, const std::string& before, const std::string& after,
                             const std::vector<std::string>& updates) {
  const std::string dir = ::testing::TempDir();
  std::ofstream(dir + "/" + name + "-before.snap") << before;
  std::ofstream(dir + "/" + name + "-after.snap") << after;
  std::string fed = "h hello proto=1\nl load " + dir + "/" + name + "-before.snap\n";
  for (std::size_t i = 0; i < updates.size(); ++i) fed += "u" + std::to_string(i) + " " + updates[i] + "\n";
  const std::string hash = DigestAfter(fed + "d digest\n");
  EXPECT_FALSE(hash.empty());
  EXPECT_EQ(hash, DigestAfter("h hello proto=1\nl load " + dir + "/" + name + "-after.snap\nd digest\n"));
}

// A session fed a snapshot and then SessionUpdates(snapshot, next) holds what
// a session loaded with `next` holds: jobs added, gone, started and re-ranged,
// objects added, changed and removed, the clock moved.
TEST(SnapshotDiffTest, UpdatesMoveASessionToTheNextSnapshot) {
  const std::string cluster = std::string(kSmallCluster).substr(std::string(kSmallCluster).find("begin sconf"));
  const std::string before = "schedk-snapshot 1\nnow 1000\n" + cluster +
                             "begin pe old\nslots 2\nend pe\n"
                             "job 1 owner=a submit=900 l_hard=h_rt=100\n"
                             "job 2 owner=b submit=901 l_hard=h_rt=100\n"
                             "job 3.1-4 owner=c submit=902 l_hard=h_rt=100\n";
  std::string next_cluster = cluster;
  next_cluster.replace(next_cluster.find("slots 8"), 7, "slots 6");
  const std::string after = "schedk-snapshot 1\nnow 1060\n" + next_cluster +
                            "begin pe big\nslots 64\nallocation_rule $round_robin\nend pe\n"
                            "job 2 owner=b submit=901 l_hard=h_rt=100 state=r start=1000 granted=all.q@n1:1\n"
                            "job 3.1 owner=c submit=902 l_hard=h_rt=100 state=r start=1000 granted=all.q@n2:1\n"
                            "job 3.2-4 owner=c submit=902 l_hard=h_rt=100\n"
                            "job 4 owner=d submit=1030 pe_name=big pe_min=2 pe_max=4\n";
  const std::vector<std::string> updates = SessionUpdates(before, after);
  EXPECT_EQ(updates.front(), "clock 1060");
  EXPECT_EQ(updates.back(), "del pe old");
  ExpectFedSessionReaches("diff", before, after, updates);
  EXPECT_TRUE(SessionUpdates(after, after).empty());
}

// A rescheduled task, pending as a task object, and -tc reach a fed session:
// the job comes again with `mod job n.t enrolled=y`. A job id refuses the key.
TEST(SnapshotDiffTest, TaskObjectsAndTcReachTheSession) {
  const std::string cluster = std::string(kSmallCluster).substr(std::string(kSmallCluster).find("begin sconf"));
  const std::string before = "schedk-snapshot 1\nnow 1000\n" + cluster + "job 3.1-4 owner=c submit=902 tc=2\n";
  const std::string after = "schedk-snapshot 1\nnow 1060\n" + cluster +
                            "job 3.1 owner=c submit=902 tc=2 state=r start=1000 granted=all.q@n2:1\n"
                            "job 3.2 owner=c submit=902 tc=2 enrolled=y\n"
                            "job 3.3-4 owner=c submit=902 tc=2\n";
  const std::vector<std::string> updates = SessionUpdates(before, after);
  EXPECT_NE(std::find(updates.begin(), updates.end(), "mod job 3.2 enrolled=y"), updates.end());
  ExpectFedSessionReaches("objects", before, after, updates);
  const Transcript refused = Converse("h hello proto=1\nl load " + ::testing::TempDir() + "/objects-after.snap\n"
                                      "m mod job 3 enrolled=y\nr mod job 3.1 enrolled=y\n", 1 << 20);
  EXPECT_NE(refused.out.find("err m 422"), std::string::npos) << refused.out;
  EXPECT_NE(refused.out.find("err r 409"), std::string::npos) << refused.out;
}

}  // namespace
}  // namespace schedk::io
