// Soft requests (-soft -l, -soft -q) in a scheduling interval, hand-worked
// from Grid Engine 8.1.9's sge_select_queue.c as docs/resource-quotas.md
// states it: violations counted level by level, the fewest winning in queue
// order, a parallel job's hosts ordered by them, a PE with fewer violations
// preferred, and reservations where only the global host's start lets them
// decide. (The real cell's own run: datasets/soft-requests.snap.)
#include <gtest/gtest.h>

#include <string>

#include "io/schedule_writer.hpp"
#include "io/snapshot_reader.hpp"
#include "kernel/dispatch/schedule.hpp"
#include "tests/test_support.hpp"

namespace schedk {
namespace {

struct SoftRun {
  io::Snapshot snapshot;
  QueueInstanceTable instances;
  ScheduleResult result;
  std::string records;  // as `schedk schedule` prints them, without dur= and the done line
};

// The interval's records, with both twins: they must agree.
SoftRun Schedule(const std::string& snapshot_text) {
  SoftRun run{testing::Load(snapshot_text), {}, {}, {}};
  const PriorityResult priorities = ComputePriorities(run.snapshot.cluster, run.snapshot.jobs);
  run.instances = QueueInstanceTable::Build(run.snapshot.cluster);
  auto records = [&](const ScheduleResult& result) {
    std::string out;
    io::WriteSchedule(run.snapshot, run.instances, result, io::ScheduleFormat::kText, 0, [&](std::string_view text) {
      out += text;
      return true;
    });
    out = out.substr(0, out.rfind("done "));
    for (std::size_t at = out.find(" dur="); at != std::string::npos; at = out.find(" dur=", at)) {
      out.erase(at, out.find(' ', at + 1) - at);
    }
    return out;
  };
  run.result = ScheduleInterval(run.snapshot.cluster, run.snapshot.jobs, priorities, run.instances);
  run.records = records(run.result);
  const ScheduleResult reference =
      ScheduleInterval(run.snapshot.cluster, run.snapshot.jobs, priorities, run.instances, Twin::kReference);
  EXPECT_EQ(records(reference), run.records) << "the reference twin";
  return run;
}

bool Has(const std::string& out, const std::string& line) { return out.find(line + "\n") != std::string::npos; }

const char* kComplex =
    "begin complex\n"
    "slots s INT <= YES YES 1 1000\n"
    "lic lic INT <= YES YES 0 0\n"
    "sa sa INT == YES NO 0 0\n"
    "sb sb INT == YES NO 0 0\n"
    "h_rt h_rt TIME <= YES NO 0:0:0 0\n"
    "qname q RESTRING == YES NO NONE 0\n"
    "hostname h HOST == YES NO NONE 0\n"
    "end complex\n";

std::string Header(const std::string& sconf = "") {
  return std::string("schedk-snapshot 1\nnow 1000\n") + kComplex +
         "begin sconf\njob_load_adjustments NONE\nqueue_sort_method seqno\n" + sconf + "end sconf\n";
}

std::string Queue(const std::string& name, int seq_no, int slots, const std::string& more = "",
                  const std::string& hosts = "h1") {
  return "begin queue " + name + "\nhostlist " + hosts + "\nseq_no " + std::to_string(seq_no) + "\nslots " +
         std::to_string(slots) + "\n" + more + "end queue\n";
}

// Host h1 offers sb=0; b.q (seq_no 0) nothing, c.q (1) sb=1, a.q (2) sa=1,
// so queue order alone would put every job in b.q. With -soft -l sa=1,sb=1,
// c.q misses sa where no level defines it (1) and sb at the host (1); a.q
// misses sb at the host and again at the queue, which lacks it (2); b.q
// misses sa (1) and sb twice (3). c.q and a.q tie at 2: the first in queue
// order wins. Once c.q is full, -soft -q a.q,c.q misses one entry at a.q
// and two at b.q; once a.q is full too, every queue misses sa=1 and queue
// order picks b.q.
TEST(SoftRequestTest, TheFewestViolationsWinInQueueOrder) {
  const SoftRun run =
      Schedule(Header() + "begin exechost h1\ncomplex_values sb=0\nend exechost\n" + Queue("b.q", 0, 2) +
               Queue("c.q", 1, 2, "complex_values sb=1\n") + Queue("a.q", 2, 3, "complex_values sa=1\n") +
               "job 1 owner=u submit=900 l_soft=sa=1,sb=1\n"
               "job 2 owner=u submit=901 l_soft=sb=1\n"
               "job 3 owner=u submit=902 q_soft=a.q,c.q\n"
               "job 4 owner=u submit=903 q_soft=a.q\n"
               "job 5 owner=u submit=904 l_soft=sa=1\n"
               "job 6 owner=u submit=905 l_soft=sa=1\n");
  const std::string& out = run.records;
  EXPECT_TRUE(Has(out, "start 1.1 at=1000 slots=1 granted=c.q@h1:1")) << out;
  EXPECT_TRUE(Has(out, "start 2.1 at=1000 slots=1 granted=c.q@h1:1")) << out;  // 1 there, 2 elsewhere
  EXPECT_TRUE(Has(out, "start 3.1 at=1000 slots=1 granted=a.q@h1:1")) << out;  // c.q is full
  EXPECT_TRUE(Has(out, "start 4.1 at=1000 slots=1 granted=a.q@h1:1")) << out;
  EXPECT_TRUE(Has(out, "start 5.1 at=1000 slots=1 granted=a.q@h1:1")) << out;
  EXPECT_TRUE(Has(out, "start 6.1 at=1000 slots=1 granted=b.q@h1:1")) << out;  // a.q is full: all miss sa
  // What each grant met, as the session's explain shows it, from the whole
  // result and from a slice of it.
  EXPECT_EQ(io::SoftRequestLines(run.snapshot, run.instances, run.result, 1),
            "soft 1.1 granted=c.q@h1 violations=2 met=- missed=sa=1,sb=1\n");
  EXPECT_EQ(io::SoftRequestLines(run.snapshot, run.instances, run.result, 3, "x"),
            "soft x 3.1 granted=a.q@h1 violations=1 met=q:a.q missed=q:c.q\n");
  EXPECT_EQ(io::SoftRequestLines(run.snapshot, run.instances, run.result, 5),
            "soft 5.1 granted=a.q@h1 violations=0 met=sa=1 missed=-\n");
  const ScheduleResult slice = ScheduleSlice(run.result, 2, run.result.decisions.size(), false);
  EXPECT_EQ(io::SoftRequestLines(run.snapshot, run.instances, slice, 5),
            "soft 5.1 granted=a.q@h1 violations=0 met=sa=1 missed=-\n");
}

// A queue instance's built-in qname and hostname answer hard and soft requests.
TEST(SoftRequestTest, QnameAndHostnameAreTheInstancesOwn) {
  const std::string out = Schedule(Header() + "begin exechost h1\nend exechost\nbegin exechost h2\nend exechost\n" +
                                   Queue("a.q", 0, 4, "", "h1 h2") + Queue("b.q", 1, 4, "", "h1 h2") +
                                   "job 1 owner=u submit=900 l_hard=hostname=h2\n"
                                   "job 2 owner=u submit=901 l_soft=hostname=h2\n"
                                   "job 3 owner=u submit=902 l_hard=qname=b.q\n"
                                   "job 4 owner=u submit=903 l_soft=qname=b*\n"
                                   "job 5 owner=u submit=904 l_hard=qname=c.q\n")
                              .records;
  EXPECT_TRUE(Has(out, "start 1.1 at=1000 slots=1 granted=a.q@h2:1")) << out;
  EXPECT_TRUE(Has(out, "start 2.1 at=1000 slots=1 granted=a.q@h2:1")) << out;
  EXPECT_TRUE(Has(out, "start 3.1 at=1000 slots=1 granted=b.q@h1:1")) << out;
  EXPECT_TRUE(Has(out, "start 4.1 at=1000 slots=1 granted=b.q@h1:1")) << out;
  EXPECT_NE(out.find("pending 5.1 reason=never:no-queue"), std::string::npos) << out;
}

// A parallel job's hosts come in the order of their first instance sorted by
// violations: h2 first for -soft -q all.q@h2, so $fill_up takes its 2 slots
// there and the third on h1. A wildcard PE with fewer violations wins even
// with fewer slots: pb's 2 slots in b.q over pa's 4 in a.q.
TEST(SoftRequestTest, ParallelJobsTakeTheirHostsAndPeByViolations) {
  const std::string pes =
      "begin pe fill\nslots 64\nallocation_rule $fill_up\nend pe\n"
      "begin pe pa\nslots 64\nallocation_rule $fill_up\nend pe\n"
      "begin pe pb\nslots 64\nallocation_rule $fill_up\nend pe\n";
  const std::string out = Schedule(Header() + "begin exechost h1\nend exechost\nbegin exechost h2\nend exechost\n" +
                                   pes + Queue("all.q", 0, 2, "pe_list fill\n", "h1 h2") +
                                   Queue("a.q", 1, 4, "pe_list pa\n") + Queue("b.q", 2, 2, "pe_list pb\n") +
                                   "job 1 owner=u submit=900 pe_name=fill pe_min=3 pe_max=3 q_soft=all.q@h2\n"
                                   "job 2 owner=u submit=901 pe_name=p* pe_min=2 pe_max=4 q_soft=b.q\n"
                                   "job 3 owner=u submit=902 pe_name=p* pe_min=2 pe_max=4\n")
                              .records;
  EXPECT_TRUE(Has(out, "start 1.1 at=1000 slots=3 pe=fill granted=all.q@h2:2,all.q@h1:1")) << out;
  EXPECT_TRUE(Has(out, "start 2.1 at=1000 slots=2 pe=pb granted=b.q@h1:2")) << out;
  EXPECT_TRUE(Has(out, "start 3.1 at=1000 slots=4 pe=pa granted=a.q@h1:4")) << out;
}

// Reservations: the earliest start wins; at the same start fewer violations
// win only where the global host sets it. Job 3's start is the global lic's
// (b.q, as its soft -q asks); job 4's is the queues' own (both free at 2060:
// the first in queue order, a.q), and the quotas' own in the last case. The
// running jobs end at 900 + 1100 plus
// the default DURATION_OFFSET of 60.
TEST(SoftRequestTest, AtTheSameStartOnlyTheGlobalHostLetsViolationsDecide) {
  const std::string base = Header("max_reservation 10\n") + "begin global\ncomplex_values lic=1\nend global\n" +
                           "begin exechost h1\nend exechost\n";
  const std::string by_global = Schedule(base + Queue("a.q", 0, 2) + Queue("b.q", 1, 2) +
                                         "job 1 owner=u submit=800 state=r start=900 granted=a.q@h1:1 "
                                         "l_hard=lic=1,h_rt=1100\n"
                                         "job 3 owner=u submit=900 R=y l_hard=lic=1,h_rt=100 q_soft=b.q\n")
                                    .records;
  EXPECT_TRUE(Has(by_global, "reserve 3.1 at=2060 slots=1 granted=b.q@h1:1")) << by_global;
  const std::string by_queues =
      Schedule(base + Queue("a.q", 0, 1) + Queue("b.q", 1, 1) +
               "job 1 owner=u submit=800 state=r start=900 granted=a.q@h1:1 l_hard=h_rt=1100\n"
               "job 2 owner=u submit=800 state=r start=900 granted=b.q@h1:1 l_hard=h_rt=1100\n"
               "job 4 owner=u submit=900 R=y l_hard=h_rt=100 q_soft=b.q\n")
          .records;
  EXPECT_TRUE(Has(by_queues, "reserve 4.1 at=2060 slots=1 granted=a.q@h1:1")) << by_queues;
  // As job 3's case, but a quota holds b.q to the slot job 2 uses until 2060:
  // b.q's quota time is not before the start, so a.q keeps the reservation.
  const std::string by_quota = Schedule(base + Queue("a.q", 0, 2) + Queue("b.q", 1, 2) +
                                        "begin rqs q\nname q\ndescription NONE\nenabled TRUE\n"
                                        "limit queues b.q to slots=1\nend rqs\n"
                                        "job 1 owner=u submit=800 state=r start=900 granted=a.q@h1:1 "
                                        "l_hard=lic=1,h_rt=1100\n"
                                        "job 2 owner=u submit=800 state=r start=900 granted=b.q@h1:1 l_hard=h_rt=1100\n"
                                        "job 3 owner=u submit=900 R=y l_hard=lic=1,h_rt=100 q_soft=b.q\n")
                                   .records;
  EXPECT_TRUE(Has(by_quota, "reserve 3.1 at=2060 slots=1 granted=a.q@h1:1")) << by_quota;
}

// A parallel search with soft requests that finds nothing leaves Grid
// Engine's queue list in its violation order (b.q, which its -soft -q names,
// first) until a search sorts it again: the parallel and the sequential job
// after it, without soft requests, start in b.q although all.q comes first
// in queue order. (The real cell does the same: scenario dispatch-soft-order.)
TEST(SoftRequestTest, AFailedSoftParallelSearchLeavesItsOrder) {
  const std::string jobs =
      "job 1 owner=u1 submit=900 l_hard=h_rt=100\n"
      "job 2 owner=u1 submit=900 p=-500 l_hard=h_rt=100 pe_name=fill pe_min=10 pe_max=10%s\n"
      "job 3 owner=u3 submit=900 p=-700 l_hard=h_rt=100 pe_name=fill pe_min=2 pe_max=2\n"
      "job 4 owner=u2 submit=900 p=-1000 l_hard=h_rt=100\n";
  const std::string cluster = Header("weight_urgency 0\nweight_priority 1\n") + "begin exechost h1\nend exechost\n" +
                              "begin pe fill\nslots 32\nallocation_rule $fill_up\nend pe\n" +
                              Queue("all.q", 0, 4, "pe_list fill\n") + Queue("b.q", 1, 4, "pe_list fill\n");
  auto with = [&](const char* soft) {
    std::string text = jobs;
    text.replace(text.find("%s"), 2, soft);
    return Schedule(cluster + text).records;
  };
  const std::string leaked = with(" q_soft=b.q");
  EXPECT_TRUE(Has(leaked, "start 1.1 at=1000 slots=1 granted=all.q@h1:1")) << leaked;
  EXPECT_NE(leaked.find("pending 2.1 "), std::string::npos) << leaked;
  EXPECT_TRUE(Has(leaked, "start 3.1 at=1000 slots=2 pe=fill granted=b.q@h1:2")) << leaked;
  EXPECT_TRUE(Has(leaked, "start 4.1 at=1000 slots=1 granted=b.q@h1:1")) << leaked;
  const std::string plain = with("");  // the same without the soft request: queue order
  EXPECT_TRUE(Has(plain, "start 3.1 at=1000 slots=2 pe=fill granted=all.q@h1:2")) << plain;
  EXPECT_TRUE(Has(plain, "start 4.1 at=1000 slots=1 granted=all.q@h1:1")) << plain;
}

// A soft consumable request (qsub refuses one, but a complex can become
// consumable later) is met where that much is free now, and books nothing:
// a.q's lic=1 is in use, b.q's is free.
TEST(SoftRequestTest, ASoftConsumableIsMetWhereItIsFree) {
  const std::string out =
      Schedule(Header() + "begin exechost h1\nend exechost\n" + Queue("a.q", 0, 4, "complex_values lic=1\n") +
               Queue("b.q", 1, 4, "complex_values lic=1\n") +
               "job 1 owner=u submit=800 state=r start=900 granted=a.q@h1:1 l_hard=lic=1\n"
               "job 2 owner=u submit=900 l_soft=lic=1\n"
               "job 3 owner=u submit=901 l_soft=lic=1\n")
          .records;
  EXPECT_TRUE(Has(out, "start 2.1 at=1000 slots=1 granted=b.q@h1:1")) << out;
  EXPECT_TRUE(Has(out, "start 3.1 at=1000 slots=1 granted=b.q@h1:1")) << out;  // still free: nothing booked
}

}  // namespace
}  // namespace schedk
