// The snapshot reader: what it builds from each part of docs/protocol.md §1, and
// one test per category of bad input, checking the message and the line.
#include "io/snapshot_reader.hpp"

#include <gtest/gtest.h>

#include "kernel/dispatch/schedule.hpp"
#include "tests/test_support.hpp"

namespace schedk::io {
namespace {

using schedk::testing::Load;
using schedk::testing::LoadError;

const std::string kHeader = "schedk-snapshot 1\nnow 1000\n";

void ExpectError(const std::string& text, int line, const std::string& fragment) {
  const Status st = LoadError(text);
  ASSERT_FALSE(st.ok()) << "expected an error containing '" << fragment << "'";
  EXPECT_EQ(st.code(), Status::Code::kInvalidInput);
  EXPECT_EQ(st.line(), line) << st.ToString();
  EXPECT_NE(st.ToString().find(fragment), std::string::npos) << st.ToString();
  EXPECT_EQ(st.ToString().rfind("bad.snap:" + std::to_string(line) + ": ", 0), 0u) << st.ToString();
}

TEST(SnapshotReaderTest, UnknownBlockKind) {
  ExpectError(kHeader + "begin frobnicate x\nend\n", 3, "unknown block kind 'frobnicate'");
}

TEST(SnapshotReaderTest, MalformedValueNamesTheAttribute) {
  ExpectError(kHeader + "begin sconf\nweight_urgency abc\nend sconf\n", 4, "attribute 'weight_urgency'");
  ExpectError(kHeader + "begin queue q\nhostlist h1\nslots 4,[h1=lots]\nend\n", 5, "attribute 'slots'");
  ExpectError(kHeader + "begin complex\nslots s INT <= YES YES 1 1000\nlic l INT <= YES YES 0 abc\nend\n", 5,
              "malformed urgency");
  ExpectError(kHeader + "begin exechost h1\ncomplex_values slots=x\nend\n", 4, "attribute 'complex_values'");
}

TEST(SnapshotReaderTest, UnknownComplexInARequest) {
  ExpectError(kHeader + "job 1 owner=u\njob 2 owner=u l_hard=nosuch=1\n", 4, "unknown complex attribute 'nosuch'");
  ExpectError(kHeader + "job 1 owner=u l_hard=load_avg=1\n", 3, "not requestable");
  ExpectError(kHeader + "job 1 owner=u l_hard=slots=2\n", 3, "slots cannot be requested");
}

// -masterq (masterq=) names queues like -q, and only a parallel job may give
// it: qsub refuses it otherwise.
TEST(SnapshotReaderTest, MasterQueueList) {
  const std::string cell = kHeader + "begin pe fill\nslots 8\nallocation_rule $fill_up\nend pe\n" +
                           "begin queue all.q\nhostlist h1\nslots 4\npe_list fill\nend queue\n";
  const Snapshot s = Load(cell + "job 1 owner=u masterq=all.q@h1 pe_name=fill pe_min=2 pe_max=2\n");
  const RequestSet& requests = s.jobs.requests(s.jobs.shards()[0].requests[0]);
  ASSERT_EQ(requests.queue_master.size(), 1u);
  EXPECT_TRUE(requests.queue_master[0].queue.valid() && requests.queue_master[0].host.valid());
  EXPECT_TRUE(requests.queue_hard.empty());
  ExpectError(cell + "job 1 owner=u masterq=all.q\n", 12, "masterq: only for parallel jobs");
  ExpectError(cell + "job 1 owner=u masterq=nosuch.q pe_name=fill pe_min=2 pe_max=2\n", 12, "masterq: unknown queue");
}

// -tc and the tasks that exist as objects: tc= is the job's and must agree
// across its rows; enrolled= marks rows, never running ones. Rows the limit
// cuts keep their line.
TEST(SnapshotReaderTest, TcAndEnrolledTasks) {
  const std::string cell = kHeader + "begin conf\nmax_aj_instances 3\nend conf\nbegin queue all.q\nhostlist h1\nend queue\n";
  const Snapshot s = Load(cell + "job 7.1-2 owner=u tc=2 enrolled=y\njob 7.3-9 owner=u tc=2\n");
  const JobShard& shard = s.jobs.shards()[s.jobs.ShardOf(7)];
  ASSERT_EQ(shard.size(), 2u);
  EXPECT_EQ(shard.task_concurrency(0), 2u);
  EXPECT_EQ(shard.flags[0], kJobEnrolled);
  EXPECT_EQ(shard.flags[1], kJobBeyondTaskLimit);  // two objects already: -tc 2 leaves no room
  const Snapshot cut = Load(cell + "job 7.1 owner=u state=r start=900 granted=all.q@h1:1\njob 7.2-9 owner=u\n");
  const JobShard& rows = cut.jobs.shards()[cut.jobs.ShardOf(7)];
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows.task_last[1], 3u);
  EXPECT_EQ(rows.task_first[2], 4u);
  EXPECT_EQ(cut.job_lines[cut.jobs.ShardOf(7)], (std::vector<int>{9, 10, 10}));
  ExpectError(cell + "job 7.1-2 owner=u tc=2\njob 7.3 owner=u\n", 10, "tc differs from line 9");
  ExpectError(cell + "job 7.1 owner=u tc=-1\n", 9, "job key 'tc'");
  ExpectError(cell + "job 7.1 owner=u enrolled=y state=r start=900 granted=all.q@h1:1\n", 9, "enrolled=");
}

TEST(SnapshotReaderTest, BadTime) {
  ExpectError("schedk-snapshot 1\nnow yesterday\n", 2, "now: expected epoch seconds");
  // Grid Engine's times are unsigned 32-bit seconds: before 1970 or at 2^32 - 1 ("forever") is no time.
  ExpectError("schedk-snapshot 1\nnow -1\n", 2, "now: expected epoch seconds");
  ExpectError("schedk-snapshot 1\nnow 4294967295\n", 2, "now: expected epoch seconds");
  ExpectError(kHeader + "job 1 owner=u state=r start=-5 granted=q@h1:1\n", 3, "job key 'start'");
  ExpectError(kHeader + "job 1 owner=u submit=2004-02-27T17:36:56\n", 3, "job key 'submit'");
  ExpectError(kHeader + "begin sconf\ndefault_duration 1:30\nend\n", 4, "attribute 'default_duration'");
}

// The cluster configuration, pasted as qconf -sconf prints it: the scheduler
// reads its auto_user_* keys, keeps the execution side's keys unread and
// silent, and refuses a key the sconf block gives too.
TEST(SnapshotReaderTest, ClusterConfigurationBlock) {
  const io::Snapshot s = Load(kHeader + "begin conf\n#global:\nexecd_spool_dir /var/spool/gridengine/execd\n"
                                        "reporting_params accounting=true \\\n   flush_time=00:00:15\n"
                                        "auto_user_fshare 100\nauto_user_oticket 7\nmax_aj_instances 2000\nend conf\n");
  EXPECT_EQ(s.cluster.config.auto_user_fshare, 100);
  EXPECT_EQ(s.cluster.config.auto_user_oticket, 7);
  EXPECT_TRUE(s.warnings.empty()) << s.warnings.front().ToString();
  ExpectError(kHeader + "begin sconf\nauto_user_fshare 5\nend sconf\nbegin conf\nauto_user_fshare 100\nend conf\n", 7,
              "is also given in the sconf block");
  ExpectError(kHeader + "begin conf\nauto_user_oticket lots\nend conf\n", 4, "attribute 'auto_user_oticket'");
  EXPECT_EQ(s.cluster.config.max_aj_instances, 2000u);
  EXPECT_EQ(Load(kHeader + "begin conf\nmax_aj_instances 0\nend conf\n").cluster.config.max_aj_instances, 0u);
  ExpectError(kHeader + "begin conf\nmax_aj_instances -1\nend conf\n", 4, "attribute 'max_aj_instances'");
  const io::Snapshot unknown = Load(kHeader + "begin conf\nno_such_key 1\nend conf\n");
  ASSERT_EQ(unknown.warnings.size(), 1u);
  EXPECT_NE(unknown.warnings[0].message.find("conf: unknown attribute 'no_such_key'"), std::string::npos);
}

// A queue's `states` attribute: qstat's letters per host. d D s S C P E u o
// close the instance (no job starts or is reserved there); a A c do not.
TEST(SnapshotReaderTest, QueueInstanceStates) {
  const std::string cluster = kHeader +
                              "begin exechost h1\nend exechost\nbegin exechost h2\nend exechost\n"
                              "begin queue all.q\nhostlist h1 h2\nslots 1\nstates ";
  const io::Snapshot s = Load(cluster + "NONE,[h1=du],[h2=a]\nend queue\njob 1 owner=u\njob 2 owner=u\n");
  const QueueInstanceTable instances = QueueInstanceTable::Build(s.cluster);
  ASSERT_EQ(instances.size(), 2u);
  EXPECT_EQ(instances.closed[0], 1);
  EXPECT_EQ(instances.closed[1], 0);
  const ScheduleResult result = ScheduleInterval(s.cluster, s.jobs, ComputePriorities(s.cluster, s.jobs), instances);
  ASSERT_EQ(result.decisions.size(), 2u);
  EXPECT_EQ(result.decisions[0].kind, DecisionKind::kStart);
  EXPECT_EQ(result.grants[result.decisions[0].grant_begin].instance, 1u);  // all.q@h2
  EXPECT_EQ(result.decisions[1].kind, DecisionKind::kPending);
  ExpectError(cluster + "NONE,[h1=x]\nend queue\n", 10, "expected qstat's state letters");
}

TEST(SnapshotReaderTest, DuplicateObject) {
  ExpectError(kHeader + "begin queue all.q\nend\nbegin queue all.q\nend\n", 5, "duplicate object");
  ExpectError(kHeader + "job 7.1-10 owner=u\njob 7.5 owner=u\n", 4, "duplicate object");
  // 1, 8, 15, ... and 3, 14, 25, ... first meet at 36.
  ExpectError(kHeader + "job 7.1-9999999:7 owner=u\njob 7.3-9999999:11 owner=u\n", 4, "a task is also on line 3");
  ExpectError(kHeader + "now 2000\n", 3, "duplicate object");
}

TEST(SnapshotReaderTest, JobLineErrors) {
  ExpectError(kHeader + "job 1 submit=5\n", 3, "no owner");
  ExpectError(kHeader + "job 1 owner=u colour=blue\n", 3, "unknown job key 'colour'");
  ExpectError(kHeader + "job 1.5-2 owner=u\n", 3, "malformed task range");
  ExpectError(kHeader + "job 1.1-4000000000 owner=u\n", 3, "more than 10000000 tasks");
  ExpectError(kHeader + "job x owner=u\n", 3, "malformed job id");
  ExpectError(kHeader + "job 1 owner=u state=running\n", 3, "job key 'state'");
  ExpectError(kHeader + "job 1 owner=u p=2000\n", 3, "job key 'p'");
  ExpectError(kHeader + "job 1 owner=u owner=v\n", 3, "given twice");
  ExpectError(kHeader + "job 1 owner=u project=nope\n", 3, "unknown project 'nope'");
  ExpectError(kHeader + "job 1 owner=u state=r start=5\n", 3, "needs granted=");
  ExpectError(kHeader + "begin queue q\nhostlist h1\nend\njob 1 owner=u state=r start=5 granted=q@h2:1\n", 6,
              "not in the hostlist");
  ExpectError(kHeader + "job 1 owner=u pe_name=nope pe_min=2\n", 3, "no parallel environment matches");
  ExpectError(kHeader + "job 1 owner=u name=\"unterminated\n", 3, "unterminated quoted value");
  ExpectError(kHeader + "job 1 owner=u\njob 1.2 owner=v\n", 4, "owner differs from line 3");
}

TEST(SnapshotReaderTest, StructureErrors) {
  ExpectError("now 5\n", 1, "not a schedk snapshot");
  ExpectError(kHeader + "begin sconf\nmaxujobs 1\n", 3, "has no matching 'end'");
  ExpectError(kHeader + "end sconf\n", 3, "without a matching 'begin'");
  ExpectError(kHeader + "begin sconf\nend queue\n", 4, "closes a 'sconf' block");
  ExpectError(kHeader + "frobnicate 1\n", 3, "unknown record 'frobnicate'");
  ExpectError(kHeader + "begin queue\nend\n", 3, "needs a name");
  const Status no_now = LoadError("schedk-snapshot 1\njob 1 owner=u\n");
  EXPECT_NE(no_now.ToString().find("no 'now"), std::string::npos);
}

TEST(SnapshotReaderTest, ErrorsInLaterParallelChunksReportTheirLine) {
  std::string text = kHeader;
  for (int i = 1; i <= 30000; ++i) text += "job " + std::to_string(i) + " owner=u" + std::to_string(i % 7) + "\n";
  text += "job 30001 owner=u bogus=1\n";
  for (int i = 30002; i <= 40000; ++i) text += "job " + std::to_string(i) + " owner=u\n";
  text += "job 40001 owner=u state=nope\n";
  ExpectError(text, 30003, "unknown job key 'bogus'");
}

TEST(SnapshotReaderTest, ReadsManyJobsIntoShards) {
  std::string text = kHeader;
  for (int i = 1; i <= 100000; ++i) text += "job " + std::to_string(i) + " owner=u" + std::to_string(i % 13) + "\n";
  const Snapshot s = Load(text);
  EXPECT_EQ(s.jobs.rows(), 100000u);
  EXPECT_EQ(s.names.users.size(), 13u);
  std::size_t used_shards = 0, total_lines = 0;
  for (const JobShard& shard : s.jobs.shards()) used_shards += shard.size() > 0;
  for (const auto& lines : s.job_lines) total_lines += lines.size();
  EXPECT_GT(used_shards, s.jobs.shards().size() / 2);  // blocks of 1024 job numbers spread over the shards
  EXPECT_EQ(total_lines, 100000u);
  for (std::size_t sh = 0; sh < s.jobs.shards().size(); ++sh) {
    for (std::size_t r = 0; r < s.jobs.shards()[sh].size(); ++r) {
      ASSERT_EQ(s.jobs.ShardOf(s.jobs.shards()[sh].number[r]), sh);
    }
  }
}

// Rows of one job whose task ranges interleave without sharing a task: odd
// tasks 1, 7, 13, ... and even tasks 2, 6, 10, ...; and 3, 9, 15, ... (step 6)
// against 5, 11, 17, ... (also step 6), which never meet.
TEST(SnapshotReaderTest, InterleavedTaskRangesOfOneJobAreAccepted) {
  const Snapshot s = Load(kHeader + "begin conf\nmax_aj_instances 0\nend conf\njob 7.1-9999997:6 owner=u\njob 7.2-9999998:4 owner=u\n"
                                    "job 7.3-9999999:6 owner=u\njob 7.5-9999995:6 owner=u\n");
  EXPECT_EQ(s.jobs.rows(), 4u);
  std::uint64_t tasks = 0;
  for (const JobShard& shard : s.jobs.shards()) {
    for (std::size_t r = 0; r < shard.size(); ++r) tasks += shard.task_count(r);
  }
  EXPECT_EQ(tasks, 1666667u + 2500000u + 1666667u + 1666666u);
}

TEST(SnapshotReaderTest, ContinuationsCommentsAndCarriageReturns) {
  const Snapshot s = Load("# comment\r\nschedk-snapshot 1\r\nnow 2004-02-27T17:36:56Z\r\n"
                          "begin queue all.q\r\nhostlist a \\\r\n  b\r\nslots 4\r\nend\r\n"
                          "job 1 owner=u \\\nname=\"two words \\\"quoted\\\"\"\n");
  EXPECT_EQ(s.cluster.now, 1077903416);
  ASSERT_EQ(s.cluster.queues.size(), 1u);
  EXPECT_EQ(s.cluster.queues[0].hosts.size(), 2u);
  ASSERT_EQ(s.jobs.rows(), 1u);
  EXPECT_TRUE(s.names.job_names.Find("two words \"quoted\"").has_value());
}

TEST(SnapshotReaderTest, PerHostOverridesAndHostgroups) {
  const Snapshot s = Load(kHeader + R"(
begin hostgroup @big
hostlist n2 @huge
end hostgroup
begin hostgroup @huge
hostlist n3
end hostgroup
begin queue all.q
hostlist n1 @big
slots 16,[@big=32],[n3=64]
seq_no 0,[@huge=5]
end queue
)");
  const ClusterQueue& q = s.cluster.queues[0];
  auto host = [&](const char* name) { return HostId(*s.names.hosts.Find(name)); };
  EXPECT_EQ(q.hosts.size(), 3u);
  EXPECT_EQ(q.slots.For(host("n1"), s.cluster.hostgroups), 16u);
  EXPECT_EQ(q.slots.For(host("n2"), s.cluster.hostgroups), 32u);
  EXPECT_EQ(q.slots.For(host("n3"), s.cluster.hostgroups), 64u);  // host beats hostgroup
  EXPECT_EQ(q.seq_no.For(host("n3"), s.cluster.hostgroups), 5);
}

TEST(SnapshotReaderTest, DefaultsAndDerivedJobFields) {
  const Snapshot s = Load(kHeader + R"(
begin project bio
fshare 10
end project
begin user alice
default_project bio
end user
begin department physics
entries bob,@chem
end department
job 1 owner=alice
job 2 owner=bob
job 3 owner=carol group=chem
job 4 owner=dave
job 5.1-9:4 owner=dave state=hqw
)");
  const JobTable& jobs = s.jobs;
  auto row = [&](JobNumber n) {
    const JobShard& shard = jobs.shards()[jobs.ShardOf(n)];
    for (std::size_t r = 0; r < shard.size(); ++r) {
      if (shard.number[r] == n) return std::pair<const JobShard*, std::size_t>{&shard, r};
    }
    return std::pair<const JobShard*, std::size_t>{nullptr, 0};
  };
  auto [s1, r1] = row(1);
  EXPECT_EQ(s.names.projects.Name(s1->project[r1].index()), "bio");  // the user's default project
  EXPECT_EQ(s1->submit[r1], 1000);                                   // submit defaults to now
  auto [s2, r2] = row(2);
  EXPECT_EQ(s.names.usersets.Name(s2->department[r2].index()), "physics");
  auto [s3, r3] = row(3);
  EXPECT_EQ(s.names.usersets.Name(s3->department[r3].index()), "physics");  // through the group
  auto [s4, r4] = row(4);
  EXPECT_EQ(s.names.usersets.Name(s4->department[r4].index()), "defaultdepartment");
  auto [s5, r5] = row(5);
  EXPECT_EQ(s5->task_count(r5), 3u);  // 1, 5, 9
  EXPECT_EQ(s5->task_last[r5], 9u);
  EXPECT_EQ(s.cluster.complexes.size(), 52u);  // Grid Engine's default complex
}

// sge-algorithms.md §0: keys left out of sconf take the install template's values.
TEST(SnapshotReaderTest, SchedulerConfigDefaultsAreTheInstallTemplate) {
  const Snapshot s = Load(kHeader);
  const SchedulerConfig& c = s.cluster.config;
  EXPECT_EQ(c.weight_priority, 1.0);
  EXPECT_EQ(c.weight_urgency, 0.1);
  EXPECT_EQ(c.weight_ticket, 0.01);
  EXPECT_EQ(c.weight_waiting_time, 0.0);
  EXPECT_EQ(c.weight_deadline, 3600000.0);
  EXPECT_EQ(c.weight_user, 0.25);
  EXPECT_EQ(c.weight_job, 0.25);
  EXPECT_EQ(c.weight_tickets_functional, 0.0);
  EXPECT_EQ(c.weight_tickets_share, 0.0);
  EXPECT_TRUE(c.share_override_tickets);
  EXPECT_TRUE(c.share_functional_shares);
  EXPECT_EQ(c.max_functional_jobs_to_schedule, 200u);
  EXPECT_TRUE(c.report_pjob_tickets);
  EXPECT_EQ(c.max_pending_tasks_per_job, 50u);
  ASSERT_EQ(c.policy_hierarchy.size(), 3u);
  EXPECT_EQ(c.policy_hierarchy[0], TicketPolicy::kOverride);
  EXPECT_EQ(c.policy_hierarchy[2], TicketPolicy::kShareTree);
  EXPECT_EQ(c.halftime_hours, 168);
  ASSERT_EQ(c.usage_weight_list.size(), 3u);
  EXPECT_EQ(c.usage_weight_list[0].value, 1.0);
  EXPECT_EQ(c.compensation_factor, 5.0);
  EXPECT_EQ(c.max_reservation, 0u);
  EXPECT_EQ(c.default_duration, kInfiniteDuration);
  EXPECT_EQ(c.duration_offset, 60);
  EXPECT_EQ(c.queue_sort_method, QueueSortMethod::kLoad);
  ASSERT_EQ(c.job_load_adjustments.size(), 1u);  // np_load_avg=0.50
  EXPECT_EQ(c.job_load_adjustments[0].second, 0.5);
  EXPECT_EQ(c.load_adjustment_decay_time, 450);
}

TEST(SnapshotReaderTest, SchedulerConfigValues) {
  const Snapshot s = Load(kHeader + R"(begin sconf
policy_hierarchy            FS
halflife_decay_list         cpu=60:mem=-1
usage_weight_list           cpu=0.5,mem=0.5,io=0
params                      MONITOR=1,DURATION_OFFSET=0:1:0,PE_RANGE_ALG=bin
default_duration            0:10:0
max_reservation             20
share_functional_shares     FALSE
queue_sort_method           seqno
end sconf
)");
  const SchedulerConfig& c = s.cluster.config;
  ASSERT_EQ(c.policy_hierarchy.size(), 2u);
  EXPECT_EQ(c.policy_hierarchy[0], TicketPolicy::kFunctional);
  ASSERT_EQ(c.halflife_decay_list.size(), 2u);
  EXPECT_EQ(c.halflife_decay_list[1].name, "mem");
  EXPECT_EQ(c.halflife_decay_list[1].value, -1);
  EXPECT_EQ(c.usage_weight_list[1].value, 0.5);
  EXPECT_TRUE(c.monitor);
  EXPECT_EQ(c.duration_offset, 60);
  EXPECT_EQ(c.pe_range_alg, "bin");
  EXPECT_EQ(c.default_duration, 600);
  EXPECT_EQ(c.max_reservation, 20u);
  EXPECT_FALSE(c.share_functional_shares);
  EXPECT_EQ(c.queue_sort_method, QueueSortMethod::kSeqNo);
  ExpectError(kHeader + "begin sconf\npolicy_hierarchy OFO\nend\n", 4, "attribute 'policy_hierarchy'");
  ExpectError(kHeader + "begin sconf\nparams DURATION_OFFSET=soon\nend\n", 4, "attribute 'params'");
}

TEST(SnapshotReaderTest, UnknownAttributesAreKeptWithAWarning) {
  const Snapshot s = Load(kHeader + "begin pe mpi\nslots 8\nfancy_new_key 1\nend\n");
  ASSERT_EQ(s.warnings.size(), 1u);
  EXPECT_EQ(s.warnings[0].line, 5);
  EXPECT_NE(s.warnings[0].message.find("fancy_new_key"), std::string::npos);
  EXPECT_EQ(s.blocks[0].attributes.size(), 2u);
}

}  // namespace
}  // namespace schedk::io
