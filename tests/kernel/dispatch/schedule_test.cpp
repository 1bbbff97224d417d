// One scheduling interval on small clusters: the dispatch test vectors of
// sge-algorithms.md §4 (T4.1 queue order, T4.3 load alarm, T4.5-T4.7 parallel
// placement, slot ranges and per-slot consumables) and §5.5's durations, with
// the serial and parallel queue-end-time iterations compared.
#include "kernel/dispatch/schedule.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "io/schedule_writer.hpp"
#include "kernel/dispatch/job_duration.hpp"
#include "tests/test_support.hpp"

namespace schedk {
namespace {

// The interval's records as `schedk schedule` prints them, without the done line.
std::string Records(const std::string& snapshot_text, Twin twin = Twin::kOptimised) {
  const io::Snapshot s = testing::Load(snapshot_text);
  const PriorityResult priorities = ComputePriorities(s.cluster, s.jobs);
  const QueueInstanceTable instances = QueueInstanceTable::Build(s.cluster);
  const ScheduleResult result = ScheduleInterval(s.cluster, s.jobs, priorities, instances, twin);
  std::string out;
  io::WriteSchedule(s, instances, result, io::ScheduleFormat::kText, 0, [&](std::string_view text) {
    out += text;
    return true;
  });
  return out.substr(0, out.rfind("done "));
}

// How often `what` occurs in `text`.
std::size_t Occurrences(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// Random running jobs on all.q of hosts h1..h<hosts>, up to `slots` - 1 each,
// numbered from 1, ending within 20-110 minutes of their start.
template <class Pick>
std::string RunningOnAllQ(int hosts, int slots, Pick& pick) {
  std::string jobs;
  int id = 1;
  for (int h = 1; h <= hosts; ++h) {
    for (int k = pick(slots); k > 0; --k) {
      jobs += "job " + std::to_string(id++) + " owner=u submit=9000 state=r start=" + std::to_string(9000 + pick(900)) +
              " granted=all.q@h" + std::to_string(h) + ":1 l_hard=h_rt=" + std::to_string(1200 + 60 * pick(90)) + "\n";
    }
  }
  return jobs;
}

// Exec hosts h1..h<hosts>, each with the complex values `values(h)` gives
// (called in host order), appended to `snapshot`; returns their host list.
template <class Values>
std::string AddExecHosts(std::string& snapshot, int hosts, Values values) {
  std::string hostlist;
  for (int h = 1; h <= hosts; ++h) {
    snapshot += "begin exechost h" + std::to_string(h) + "\ncomplex_values " + values(h) + "\nend exechost\n";
    hostlist += " h" + std::to_string(h);
  }
  return hostlist;
}

bool Has(const std::string& out, const std::string& line) { return out.find(line + "\n") != std::string::npos; }

// Three hosts whose all.q instances have seq_no 20, 0, 10 and np_load_avg
// 0.10, 0.50, 0.10; no load adjustments, so the order stays put.
std::string QueueOrderCluster(const std::string& sort_method) {
  return "schedk-snapshot 1\nnow 1000\n"
         "begin sconf\nqueue_sort_method " + sort_method + "\njob_load_adjustments NONE\nend sconf\n"
         "begin exechost h1\nend exechost\nbegin exechost h2\nend exechost\nbegin exechost h3\nend exechost\n"
         "begin queue all.q\nhostlist h1 h2 h3\nseq_no 0,[h1=20],[h2=0],[h3=10]\nslots 1\nend queue\n"
         "load h1 np_load_avg=0.10\nload h2 np_load_avg=0.50\nload h3 np_load_avg=0.10\n"
         "job 1 owner=u submit=900\njob 2 owner=u submit=901\njob 3 owner=u submit=902\n";
}

TEST(ScheduleTest, T4_1_QueueOrderByLoad) {
  // Host ranks h1 = h3 = 0, h2 = 1: order h3 (0, 10), h1 (0, 20), h2 (1, 0).
  const std::string out = Records(QueueOrderCluster("load"));
  EXPECT_TRUE(Has(out, "start 1.1 at=1000 dur=4294967295 slots=1 granted=all.q@h3:1")) << out;
  EXPECT_TRUE(Has(out, "start 2.1 at=1000 dur=4294967295 slots=1 granted=all.q@h1:1"));
  EXPECT_TRUE(Has(out, "start 3.1 at=1000 dur=4294967295 slots=1 granted=all.q@h2:1"));
}

TEST(ScheduleTest, T4_1_QueueOrderBySequenceNumber) {
  const std::string out = Records(QueueOrderCluster("seqno"));
  EXPECT_TRUE(Has(out, "start 1.1 at=1000 dur=4294967295 slots=1 granted=all.q@h2:1")) << out;
  EXPECT_TRUE(Has(out, "start 2.1 at=1000 dur=4294967295 slots=1 granted=all.q@h3:1"));
  EXPECT_TRUE(Has(out, "start 3.1 at=1000 dur=4294967295 slots=1 granted=all.q@h1:1"));
}

// T4.3: threshold np_load_avg=1.75, 4 processors reporting 1.5, adjustment
// 0.50 per slot: 1.625 after one start, 1.75 (alarm) after two; the queue
// instance then leaves the candidates, no free slot remains and the loop ends.
TEST(ScheduleTest, T4_3_LoadAlarmEndsTheLoop) {
  const std::string out = Records(
      "schedk-snapshot 1\nnow 1000\n"
      "begin sconf\njob_load_adjustments np_load_avg=0.50\nload_adjustment_decay_time 0:7:30\nend sconf\n"
      "begin exechost h1\nend exechost\n"
      "begin queue all.q\nhostlist h1\nslots 8\nload_thresholds np_load_avg=1.75\nend queue\n"
      "load h1 np_load_avg=1.5,num_proc=4\n"
      "job 1 owner=u submit=900\njob 2 owner=u submit=901\njob 3 owner=u submit=902\n");
  EXPECT_TRUE(Has(out, "start 1.1 at=1000 dur=4294967295 slots=1 granted=all.q@h1:1")) << out;
  EXPECT_TRUE(Has(out, "start 2.1 at=1000 dur=4294967295 slots=1 granted=all.q@h1:1"));
  EXPECT_NE(out.find("pending 3.1 reason=no-slots "), std::string::npos);
}

// T4.5: hosts h1, h2, h3 with 4, 2 and 8 free slots; 8 slots requested.
std::string PlacementCluster(const std::string& rule, const std::string& range = "8") {
  const std::size_t dash = range.find('-');
  const std::string min = range.substr(0, dash), max = dash == std::string::npos ? range : range.substr(dash + 1);
  return "schedk-snapshot 1\nnow 1000\n"
         "begin exechost h1\nend exechost\nbegin exechost h2\nend exechost\nbegin exechost h3\nend exechost\n"
         "begin pe par\nslots 100\nallocation_rule " + rule + "\nend pe\n"
         "begin queue all.q\nhostlist h1 h2 h3\nslots 0,[h1=4],[h2=2],[h3=8]\npe_list par\nend queue\n"
         "job 1 owner=u submit=900 pe_name=par pe_min=" + min + " pe_max=" + max + "\n";
}

TEST(ScheduleTest, T4_5_AllocationRules) {
  EXPECT_TRUE(Has(Records(PlacementCluster("$fill_up")),
                  "start 1.1 at=1000 dur=4294967295 slots=8 pe=par granted=all.q@h1:4,all.q@h2:2,all.q@h3:2"));
  EXPECT_TRUE(Has(Records(PlacementCluster("$round_robin")),
                  "start 1.1 at=1000 dur=4294967295 slots=8 pe=par granted=all.q@h1:3,all.q@h2:2,all.q@h3:3"));
  EXPECT_TRUE(Has(Records(PlacementCluster("4")),
                  "start 1.1 at=1000 dur=4294967295 slots=8 pe=par granted=all.q@h1:4,all.q@h3:4"));
  EXPECT_TRUE(Has(Records(PlacementCluster("$pe_slots")),
                  "start 1.1 at=1000 dur=4294967295 slots=8 pe=par granted=all.q@h3:8"));
  // Rule 3: 8 is not a multiple of 3; of the range 6-8 only 6 is.
  EXPECT_TRUE(Has(Records(PlacementCluster("3", "6-8")),
                  "start 1.1 at=1000 dur=4294967295 slots=6 pe=par granted=all.q@h1:3,all.q@h3:3"));
  EXPECT_NE(Records(PlacementCluster("3")).find("pending 1.1 reason=never:pe "), std::string::npos);
}

// T4.7: -pe mpi 4-12 with $fill_up and 14 free slots gets the largest count, 12.
TEST(ScheduleTest, T4_7_SlotRangeTakesTheLargest) {
  const std::string out = Records(
      "schedk-snapshot 1\nnow 1000\n"
      "begin exechost h1\nend exechost\nbegin exechost h2\nend exechost\n"
      "begin pe mpi\nslots 100\nallocation_rule $fill_up\nend pe\n"
      "begin queue all.q\nhostlist h1 h2\nslots 7\npe_list mpi\nend queue\n"
      "job 1 owner=u submit=900 pe_name=mpi pe_min=4 pe_max=12\n");
  EXPECT_TRUE(Has(out, "start 1.1 at=1000 dur=4294967295 slots=12 pe=mpi granted=all.q@h1:7,all.q@h2:5")) << out;
}

// T4.6: host mem 3.5G in total, 0.5G used, 1G per slot: floor(3.0 / 1.0) = 3 slots there.
TEST(ScheduleTest, T4_6_PerSlotConsumableLimitsTheHost) {
  const std::string out = Records(
      "schedk-snapshot 1\nnow 1000\n"
      "begin complex\nslots s INT <= YES YES 1 1000\nmem m MEMORY <= YES YES 0 0\nend complex\n"
      "begin exechost h1\ncomplex_values mem=3.5G\nend exechost\n"
      "begin pe mpi\nslots 100\nallocation_rule $pe_slots\nend pe\n"
      "begin queue all.q\nhostlist h1\nslots 8\npe_list mpi\nend queue\n"
      "job 1 owner=u submit=800 state=r start=990 granted=all.q@h1:1 l_hard=mem=0.5G\n"
      "job 2 owner=u submit=900 pe_name=mpi pe_min=1 pe_max=6 l_hard=mem=1G\n");
  EXPECT_TRUE(Has(out, "start 2.1 at=1000 dur=4294967295 slots=3 pe=mpi granted=all.q@h1:3")) << out;
}

// T6.5: a license defined globally (10, 6 used) and on h1 (2, 1 used): a job
// needing 2 cannot use h1, but h2, which has no host-level license, is fine.
TEST(ScheduleTest, T6_5_EveryLevelLimits) {
  const std::string out = Records(
      "schedk-snapshot 1\nnow 1000\n"
      "begin complex\nslots s INT <= YES YES 1 1000\nlic l INT <= YES YES 0 0\nend complex\n"
      "begin global\ncomplex_values lic=10\nend global\n"
      "begin exechost h1\ncomplex_values lic=2\nend exechost\nbegin exechost h2\nend exechost\n"
      "begin queue all.q\nhostlist h1 h2\nslots 4\nend queue\n"
      "job 1 owner=u submit=800 state=r start=990 granted=all.q@h1:1 l_hard=lic=1\n"
      "job 2 owner=u submit=800 state=r start=990 granted=all.q@h2:1 l_hard=lic=5\n"
      "job 3 owner=u submit=900 l_hard=lic=2\n");
  EXPECT_TRUE(Has(out, "start 3.1 at=1000 dur=4294967295 slots=1 granted=all.q@h2:1")) << out;
}

// A host too small for a job does not make it "never": h1 (64G, first in
// queue order) can never hold 100G, h2 (128G) can once job 1 ends, so job 2
// reserves h2 and job 3 waits for a resource. Only 200G exceeds every host.
TEST(ScheduleTest, NeverOnlyWhenNoInstanceCanEverHoldTheJob) {
  const std::string out = Records(
      "schedk-snapshot 1\nnow 1000\n"
      "begin complex\nslots s INT <= YES YES 1 1000\nmem m MEMORY <= YES YES 0 0\nend complex\n"
      "begin sconf\nqueue_sort_method seqno\nmax_reservation 10\ndefault_duration 1:0:0\nend sconf\n"
      "begin exechost h1\ncomplex_values mem=64G\nend exechost\n"
      "begin exechost h2\ncomplex_values mem=128G\nend exechost\n"
      "begin queue all.q\nhostlist h1 h2\nslots 1\nseq_no 0,[h1=0],[h2=1]\nend queue\n"
      "job 1 owner=u submit=800 state=r start=990 granted=all.q@h2:1\n"
      "job 2 owner=u submit=900 R=y l_hard=mem=100G\n"
      "job 3 owner=u submit=901 l_hard=mem=90G\n"
      "job 4 owner=u submit=902 l_hard=mem=200G\n");
  EXPECT_TRUE(Has(out, "reserve 2.1 at=4650 dur=3660 slots=1 granted=all.q@h2:1")) << out;  // 990 + 3600 + 60
  EXPECT_NE(out.find("pending 3.1 reason=resource:mem "), std::string::npos);  // h2's mem is reserved
  EXPECT_NE(out.find("pending 4.1 reason=never:capacity:mem "), std::string::npos);
}

// What a parallel job's room now found holds until the next booking, a
// reservation too. Job 2 (8 slots at 2G each) cannot start: h1 gives 2 (job
// 1 holds 4G of its 8G until 1040), h2 4; it reserves both hosts' memory
// from 1040. Job 3 asks the same but for its slot range: over its window
// [1000, 1100) that reservation leaves no memory, so it waits for `mem`,
// not for `slots` as job 2 did.
TEST(ScheduleTest, AReservationChangesWhyTheNextRoomFails) {
  const std::string cluster =
      "schedk-snapshot 1\nnow 1000\n"
      "begin complex\nslots s INT <= YES YES 1 1000\nmem m MEMORY <= YES YES 0 0\nh_rt h_rt TIME <= YES NO 0:0:0 0\n"
      "end complex\n"
      "begin sconf\nqueue_sort_method seqno\nmax_reservation 10\nparams DURATION_OFFSET=0\nend sconf\n"
      "begin exechost h1\ncomplex_values mem=8G\nend exechost\n"
      "begin exechost h2\ncomplex_values mem=8G\nend exechost\n"
      "begin pe fill\nslots 100\nallocation_rule $fill_up\nend pe\n"
      "begin queue all.q\nhostlist h1 h2\nslots 8\npe_list fill\nend queue\n"
      "job 1 owner=u0 submit=800 state=r start=990 granted=all.q@h1:1 l_hard=h_rt=50,mem=4G\n"
      "job 2 owner=u1 submit=900 R=y pe_name=fill pe_min=8 pe_max=8 l_hard=h_rt=100,mem=2G\n"
      "job 3 owner=u2 submit=901 pe_name=fill pe_min=8 pe_max=9 l_hard=h_rt=100,mem=2G\n";
  for (Twin twin : {Twin::kOptimised, Twin::kReference}) {
    const std::string out = Records(cluster, twin);
    EXPECT_TRUE(Has(out, "reserve 2.1 at=1040 dur=100 slots=8 pe=fill granted=all.q@h1:4,all.q@h2:4")) << out;
    EXPECT_NE(out.find("pending 3.1 reason=resource:mem "), std::string::npos) << out;
  }
}

// Access lists, -q and FORCED attributes decide which queue instances a job may use.
TEST(ScheduleTest, AccessListsQueueRequestsAndForcedAttributes) {
  const std::string cluster =
      "schedk-snapshot 1\nnow 1000\n"
      "begin complex\nslots s INT <= YES YES 1 1000\ngpu g BOOL == FORCED NO 0 0\nend complex\n"
      "begin department staff\ntype ACL\nentries alice\nend department\n"
      "begin exechost h1\nend exechost\nbegin exechost h2\ncomplex_values gpu=true\nend exechost\n"
      "begin queue a.q\nhostlist h1\nslots 1\nuser_lists staff\nend queue\n"
      "begin queue b.q\nhostlist h1 h2\nslots 1\nend queue\n";
  const std::string out = Records(cluster +
                                  "job 1 owner=bob submit=900\n"            // not in staff: b.q@h1
                                  "job 2 owner=alice submit=901\n"          // a.q@h1
                                  "job 3 owner=alice submit=902 l_hard=gpu=true\n"  // only h2 has it
                                  "job 4 owner=alice submit=903 q_hard=a.q\n");     // a.q is full
  EXPECT_TRUE(Has(out, "start 1.1 at=1000 dur=4294967295 slots=1 granted=b.q@h1:1")) << out;
  EXPECT_TRUE(Has(out, "start 2.1 at=1000 dur=4294967295 slots=1 granted=a.q@h1:1"));
  EXPECT_TRUE(Has(out, "start 3.1 at=1000 dur=4294967295 slots=1 granted=b.q@h2:1"));
  EXPECT_NE(out.find("pending 4.1 reason="), std::string::npos);
}

// maxujobs holds back the jobs of a user at the limit; an immediate job (-now y)
// that cannot start now never reserves, even with -R y; the next -R y job does.
// Its search does not sort the queue list (4.1's came first, and no load
// changed since), so it meets all.q@h2, which has a free slot, before the
// full all.q@h1: both give 4650, and the first wins. Job 3 would hold h2
// past 4650.
TEST(ScheduleTest, UserLimitAndImmediateJobs) {
  const std::string out = Records(
      "schedk-snapshot 1\nnow 1000\n"
      "begin complex\nslots s INT <= YES YES 1 1000\nlic l INT <= YES YES 0 0\nend complex\n"
      "begin sconf\nmaxujobs 1\nmax_reservation 10\ndefault_duration 1:0:0\nend sconf\n"
      "begin global\ncomplex_values lic=1\nend global\n"
      "begin exechost h1\nend exechost\nbegin exechost h2\nend exechost\n"
      "begin queue all.q\nhostlist h1 h2\nslots 1\nend queue\n"
      "job 1 owner=ann submit=800 state=r start=990 granted=all.q@h1:1 l_hard=lic=1\n"
      "job 2 owner=ann submit=900\n"                         // ann already runs one job
      "job 4 owner=cid submit=901 now=y R=y l_hard=lic=1\n"  // the license is in use: no reservation
      "job 5 owner=dan submit=902 R=y l_hard=lic=1\n"        // reserved when job 1 ends
      "job 3 owner=bob submit=903\n");                       // takes the last free slot
  EXPECT_NE(out.find("pending 2.1 reason=user-limit "), std::string::npos) << out;
  EXPECT_NE(out.find("pending 4.1 reason=never:immediate "), std::string::npos);
  EXPECT_TRUE(Has(out, "reserve 5.1 at=4650 dur=3660 slots=1 granted=all.q@h2:1")) << out;  // 990 + 3600 + 60
  EXPECT_NE(out.find("pending 3.1 reason=reservation-blocked "), std::string::npos);
}

// A wildcard PE request tries every matching PE in definition order; a later
// one replaces the best only with more slots (§4.7). JOB consumables are
// debited once, on the master (§4.4), per-slot ones once per slot.
TEST(ScheduleTest, WildcardPeAndJobConsumables) {
  const std::string out = Records(
      "schedk-snapshot 1\nnow 1000\n"
      "begin complex\nslots s INT <= YES YES 1 1000\nh_rt h_rt TIME <= YES NO 0 0\nlic l INT <= YES JOB 0 0\n"
      "mem m MEMORY <= YES YES 0 0\n"
      "end complex\n"
      "begin sconf\nmax_reservation 5\nparams MONITOR=1,DURATION_OFFSET=0\nend sconf\n"
      "begin global\ncomplex_values lic=1\nend global\n"
      "begin exechost h1\ncomplex_values mem=64G\nend exechost\nbegin exechost h2\ncomplex_values mem=64G\nend exechost\n"
      "begin pe mpi_small\nslots 3\nallocation_rule $fill_up\nend pe\n"
      "begin pe mpi_big\nslots 6\nallocation_rule $fill_up\nend pe\n"
      "begin queue all.q\nhostlist h1 h2\nslots 4\npe_list mpi_small mpi_big\nend queue\n"
      "job 1 owner=u submit=900 pe_name=mpi* pe_min=2 pe_max=8 l_hard=h_rt=100,lic=1,mem=1G\n"
      "job 2 owner=u submit=901 l_hard=h_rt=100,lic=1\n");
  EXPECT_TRUE(Has(out, "start 1.1 at=1000 dur=100 slots=6 pe=mpi_big granted=all.q@h1:4,all.q@h2:2")) << out;
  EXPECT_TRUE(Has(out, "sched 1:1:STARTING:1000:100:P:mpi_big:slots:6.000000"));
  EXPECT_TRUE(Has(out, "sched 1:1:STARTING:1000:100:G:global:lic:1.000000"));  // once, not 6 times
  EXPECT_TRUE(Has(out, "sched 1:1:STARTING:1000:100:H:h1:mem:4294967296.000000"));  // 4 slots x 1G
  EXPECT_TRUE(Has(out, "sched 1:1:STARTING:1000:100:H:h2:mem:2147483648.000000"));
  EXPECT_NE(out.find("pending 2.1 reason=resource:lic "), std::string::npos);  // the one license is taken
}

// Measured on a real Son of Grid Engine 8.1.9 cell (tests/compat scenario
// dispatch-pe): a $fill_up job over all.q (seq_no 0, 2 free) and p.q
// (seq_no 1, 4 free) on one host harvests all.q first, but the master host's
// queues come out reversed, so p.q is first and the master.
TEST(ScheduleTest, TheMasterHostsQueuesAreGrantedInReverse) {
  const std::string out = Records(
      "schedk-snapshot 1\nnow 1000\n"
      "begin sconf\nmax_reservation 5\nparams MONITOR=1,DURATION_OFFSET=60\nqueue_sort_method seqno\n"
      "job_load_adjustments NONE\nend sconf\n"
      "begin exechost vm\nend exechost\n"
      "begin pe fill\nslots 32\nallocation_rule $fill_up\nend pe\n"
      "begin queue all.q\nhostlist vm\nslots 3\nseq_no 0\npe_list fill\nend queue\n"
      "begin queue p.q\nhostlist vm\nslots 4\nseq_no 1\npe_list fill\nend queue\n"
      "job 145 owner=u1 submit=900 l_hard=h_rt=1000 state=r start=984 granted=all.q@vm:1 master=all.q@vm\n"
      "job 146 owner=u1 submit=988 l_hard=h_rt=300 pe_name=fill pe_min=4 pe_max=4\n");
  EXPECT_TRUE(Has(out, "start 146.1 at=1000 dur=360 slots=4 pe=fill granted=p.q@vm:2,all.q@vm:2")) << out;
  EXPECT_NE(out.find("sched 146:1:STARTING:1000:360:P:fill:slots:4.000000\n"
                     "sched 146:1:STARTING:1000:360:Q:p.q@vm:slots:2.000000\n"
                     "sched 146:1:STARTING:1000:360:Q:all.q@vm:slots:2.000000\n"),
            std::string::npos)
      << out;
}

// -masterq across hosts, worked by hand from parallel_tag_queues_suitable4job
// (make compat's dispatch-masterq checks the one-host cases on the real cell):
// a.q on h1 (4 slots, harvested first), m.q on h2 (2 slots). A $fill_up job of
// 4 with its master in m.q takes 3 on h1, leaving the slot that would have
// completed it for the master, then 1 in m.q on h2, granted first. A $pe_slots
// job of 3 finds no host that gives all 3 with the master among them. Without
// -masterq the same job takes a.q's 4.
TEST(ScheduleTest, MasterQueuesComeFromTheMasterqList) {
  auto snapshot = [](const std::string& job) {
    return "schedk-snapshot 1\nnow 1000\n"
           "begin sconf\nmax_reservation 5\nparams MONITOR=1,DURATION_OFFSET=60\nqueue_sort_method seqno\n"
           "job_load_adjustments NONE\nend sconf\n"
           "begin exechost h1\nend exechost\nbegin exechost h2\nend exechost\n"
           "begin pe fill\nslots 32\nallocation_rule $fill_up\nend pe\n"
           "begin pe one\nslots 32\nallocation_rule $pe_slots\nend pe\n"
           "begin queue a.q\nhostlist h1\nslots 4\nseq_no 0\npe_list fill one\nend queue\n"
           "begin queue m.q\nhostlist h2\nslots 2\nseq_no 1\npe_list fill one\nend queue\n" +
           job + "\n";
  };
  const std::string job = "job 1 owner=u1 submit=900 l_hard=h_rt=300 ";
  for (Twin twin : {Twin::kOptimised, Twin::kReference}) {
    const std::string fill = Records(snapshot(job + "masterq=m.q pe_name=fill pe_min=4 pe_max=4"), twin);
    EXPECT_TRUE(Has(fill, "start 1.1 at=1000 dur=360 slots=4 pe=fill granted=m.q@h2:1,a.q@h1:3")) << fill;
    const std::string pe_slots = Records(snapshot(job + "masterq=m.q pe_name=one pe_min=3 pe_max=3"), twin);
    EXPECT_EQ(pe_slots.find("start 1.1"), std::string::npos) << pe_slots;
    const std::string plain = Records(snapshot(job + "pe_name=fill pe_min=4 pe_max=4"), twin);
    EXPECT_TRUE(Has(plain, "start 1.1 at=1000 dur=360 slots=4 pe=fill granted=a.q@h1:4")) << plain;
  }
}

// Measured on the real cell (scenario dispatch-consumables): a queue
// instance books its complex_values consumables (here the JOB consumable jl,
// on the master queue only) before its slots.
TEST(ScheduleTest, QueueConsumablesAreBookedBeforeSlots) {
  const std::string out = Records(
      "schedk-snapshot 1\nnow 1000\n"
      "begin complex\nslots s INT <= YES YES 1 1000\nh_rt h_rt TIME <= YES NO 0 0\njl jl INT <= YES JOB 0 0\nend complex\n"
      "begin sconf\nmax_reservation 10\nparams MONITOR=1,DURATION_OFFSET=60\nqueue_sort_method seqno\nend sconf\n"
      "begin exechost vm\nend exechost\n"
      "begin pe fill\nslots 32\nallocation_rule $fill_up\nend pe\n"
      "begin queue all.q\nhostlist vm\nslots 4\nseq_no 0\npe_list fill\ncomplex_values jl=1\nend queue\n"
      "job 156 owner=u1 submit=900 l_hard=h_rt=300,jl=1 pe_name=fill pe_min=3 pe_max=3\n");
  EXPECT_NE(out.find("sched 156:1:STARTING:1000:360:P:fill:slots:3.000000\n"
                     "sched 156:1:STARTING:1000:360:Q:all.q@vm:jl:1.000000\n"
                     "sched 156:1:STARTING:1000:360:Q:all.q@vm:slots:3.000000\n"),
            std::string::npos)
      << out;
}

// HOST consumables are booked once on every host a job uses, however many
// slots it has there, and once on each of its queue instances; JOB ones only
// on the master's. Job 1 takes h1:4 and h2:2, so h2 has free slots left but
// no scratch, and job 2 (sequential) cannot start anywhere.
TEST(ScheduleTest, HostConsumablesAreBookedOnEveryHost) {
  const std::string out = Records(
      "schedk-snapshot 1\nnow 1000\n"
      "begin complex\nslots s INT <= YES YES 1 1000\nh_rt h_rt TIME <= YES NO 0 0\n"
      "scratch sc INT <= YES HOST 0 0\nlic l INT <= YES JOB 0 0\nend complex\n"
      "begin sconf\nmax_reservation 5\nparams MONITOR=1,DURATION_OFFSET=0\nend sconf\n"
      "begin exechost h1\ncomplex_values scratch=1,lic=1\nend exechost\n"
      "begin exechost h2\ncomplex_values scratch=1,lic=1\nend exechost\n"
      "begin pe mpi\nslots 8\nallocation_rule $fill_up\nend pe\n"
      "begin queue all.q\nhostlist h1 h2\nslots 4\npe_list mpi\nend queue\n"
      "job 1 owner=u submit=900 pe_name=mpi pe_min=6 pe_max=6 l_hard=h_rt=100,scratch=1,lic=1\n"
      "job 2 owner=u submit=901 l_hard=h_rt=100,scratch=1\n");
  EXPECT_TRUE(Has(out, "start 1.1 at=1000 dur=100 slots=6 pe=mpi granted=all.q@h1:4,all.q@h2:2")) << out;
  EXPECT_TRUE(Has(out, "sched 1:1:STARTING:1000:100:H:h1:scratch:1.000000"));  // once, not 4 times
  EXPECT_TRUE(Has(out, "sched 1:1:STARTING:1000:100:H:h2:scratch:1.000000"));  // the slave host too
  EXPECT_TRUE(Has(out, "sched 1:1:STARTING:1000:100:H:h1:lic:1.000000"));      // the master only
  EXPECT_EQ(out.find("H:h2:lic"), std::string::npos);
  EXPECT_NE(out.find("pending 2.1 reason=resource:scratch "), std::string::npos);
}

// A job holding two queue instances of one host books that host's HOST and
// EXCL consumables once: a.q and b.q each give 2 slots of h1 to job 1.
TEST(ScheduleTest, TwoQueueInstancesOnOneHostBookTheHostOnce) {
  const std::string out = Records(
      "schedk-snapshot 1\nnow 1000\n"
      "begin complex\nslots s INT <= YES YES 1 1000\nh_rt h_rt TIME <= YES NO 0 0\n"
      "scratch sc INT <= YES HOST 0 0\nexclusive excl BOOL EXCL YES YES 0 1000\nend complex\n"
      "begin sconf\nmax_reservation 5\nparams MONITOR=1,DURATION_OFFSET=0\nend sconf\n"
      "begin exechost h1\ncomplex_values scratch=1,exclusive=true\nend exechost\n"
      "begin pe smp\nslots 8\nallocation_rule $pe_slots\nend pe\n"
      "begin queue a.q\nhostlist h1\nslots 2\npe_list smp\nend queue\n"
      "begin queue b.q\nhostlist h1\nslots 2\npe_list smp\nend queue\n"
      "job 1 owner=u submit=900 pe_name=smp pe_min=4 pe_max=4 l_hard=h_rt=100,scratch=1,exclusive=true\n");
  EXPECT_NE(out.find("start 1.1 at=1000 dur=100 slots=4 pe=smp granted="), std::string::npos) << out;
  const std::string scratch = "sched 1:1:STARTING:1000:100:H:h1:scratch:1.000000";
  const std::string exclusive = "sched 1:1:STARTING:1000:100:H:h1:exclusive:1.000000";
  EXPECT_TRUE(Has(out, scratch));
  EXPECT_TRUE(Has(out, exclusive));
  EXPECT_EQ(out.find(scratch), out.rfind(scratch));
  EXPECT_EQ(out.find(exclusive), out.rfind(exclusive));
}

// Held and dependent jobs are reported, not scheduled; suspended tasks keep
// their slots and are booked as SUSPENDED.
TEST(ScheduleTest, HeldDependentAndSuspendedJobs) {
  const std::string out = Records(
      "schedk-snapshot 1\nnow 1000\n"
      "begin sconf\nmax_reservation 5\nparams MONITOR=1,DURATION_OFFSET=0\nend sconf\n"
      "begin exechost h1\nend exechost\nbegin queue all.q\nhostlist h1\nslots 2\nend queue\n"
      "job 1 owner=u submit=800 state=s start=900 granted=all.q@h1:1 l_hard=h_rt=1000\n"
      "job 2 owner=u submit=900 state=hqw\n"
      "job 3 owner=u submit=901 hold_jid=4\n"
      "job 4 owner=u submit=902 l_hard=h_rt=60\n");
  EXPECT_TRUE(Has(out, "sched 1:1:SUSPENDED:900:1000:Q:all.q@h1:slots:1.000000")) << out;
  EXPECT_TRUE(Has(out, "start 4.1 at=1000 dur=60 slots=1 granted=all.q@h1:1"));
  EXPECT_NE(out.find("pending 2.1 reason=hold "), std::string::npos);
  EXPECT_NE(out.find("pending 3.1 reason=dependency "), std::string::npos);
}

// §4.5 EXCL: a job requesting `exclusive` needs a host no other job uses and
// keeps others off it; other jobs share hosts that nobody holds exclusively.
std::string ExclusiveCluster(const std::string& normal_priority) {
  return "schedk-snapshot 1\nnow 1000\n"
         "begin complex\nslots s INT <= YES YES 1 1000\nexclusive excl BOOL EXCL YES YES 0 1000\nend complex\n"
         "begin sconf\nmax_reservation 5\nparams MONITOR=1,DURATION_OFFSET=0\ndefault_duration 100\nend sconf\n"
         "begin exechost h1\ncomplex_values exclusive=true\nend exechost\n"
         "begin exechost h2\ncomplex_values exclusive=true\nend exechost\n"
         "begin queue all.q\nhostlist h1 h2\nslots 4\nend queue\n"
         "job 1 owner=u submit=900 l_hard=exclusive=true\n"
         "job 2 owner=u submit=901 p=" + normal_priority + "\n"
         "job 3 owner=u submit=902 R=y l_hard=exclusive=true\n"
         "job 4 owner=u submit=903 p=" + normal_priority + "\n";
}

TEST(ScheduleTest, ExclusiveHostsFirst) {
  const std::string out = Records(ExclusiveCluster("0"));  // exclusive jobs rank first (urgency)
  EXPECT_TRUE(Has(out, "start 1.1 at=1000 dur=100 slots=1 granted=all.q@h1:1")) << out;
  EXPECT_TRUE(Has(out, "sched 1:1:STARTING:1000:100:H:h1:exclusive:1.000000"));
  EXPECT_TRUE(Has(out, "start 3.1 at=1000 dur=100 slots=1 granted=all.q@h2:1"));
  EXPECT_NE(out.find("pending 2.1 reason=resource:exclusive "), std::string::npos);
  EXPECT_NE(out.find("pending 4.1 reason=resource:exclusive "), std::string::npos);
}

TEST(ScheduleTest, ExclusiveJobsWaitForSharedHostsToEmpty) {
  const std::string out = Records(ExclusiveCluster("1000"));  // shared jobs rank first
  EXPECT_TRUE(Has(out, "start 2.1 at=1000 dur=100 slots=1 granted=all.q@h1:1")) << out;
  EXPECT_TRUE(Has(out, "start 4.1 at=1000 dur=100 slots=1 granted=all.q@h1:1"));  // h1 is shared
  EXPECT_TRUE(Has(out, "start 1.1 at=1000 dur=100 slots=1 granted=all.q@h2:1"));
  // Job 3 waits until h1 or h2 is empty again (both at 1100; h1 comes first).
  EXPECT_TRUE(Has(out, "reserve 3.1 at=1100 dur=100 slots=1 granted=all.q@h1:1"));
  // The shared jobs book the non-exclusive count, which the MONITOR file does not show.
  EXPECT_TRUE(Has(out, "sched 3:1:RESERVING:1100:100:H:h1:exclusive:1.000000"));
  EXPECT_EQ(out.find("H:h1:exclusive"), out.rfind("H:h1:exclusive"));
}

TEST(ScheduleTest, T5_5_Durations) {
  EXPECT_EQ(PendingJobDuration(3600, 3000, kInfiniteDuration, 60), 3060);  // min(h_rt, s_rt) + offset
  EXPECT_EQ(PendingJobDuration(std::nullopt, std::nullopt, 600, 60), 660);
  EXPECT_EQ(PendingJobDuration(std::nullopt, std::nullopt, kInfiniteDuration, 60), kInfiniteDuration);
  // A running task started at 100 with d 660 has overrun at now = 1000.
  EXPECT_EQ(RunningJobDuration(100, std::nullopt, 600, 60, 1000, 15), 915);
  EXPECT_EQ(RunningJobDuration(900, std::nullopt, 600, 60, 1000, 15), 660);
}

// A parallel reservation from the queue-end-time iteration: the same start with
// the serial descending walk and with the parallel evaluation of candidate times.
TEST(ScheduleTest, ParallelAndSerialQueueEndIterationAgree) {
  std::string snapshot =
      "schedk-snapshot 1\nnow 1000\n"
      "begin sconf\nmax_reservation 5\nparams DURATION_OFFSET=0\nend sconf\n"
      "begin exechost h1\nend exechost\nbegin exechost h2\nend exechost\n"
      "begin pe mpi\nslots 16\nallocation_rule $fill_up\nend pe\n"
      "begin queue all.q\nhostlist h1 h2\nslots 4\npe_list mpi\nend queue\n";
  for (int j = 0; j < 8; ++j) {
    snapshot += "job " + std::to_string(1 + j) + " owner=u submit=800 state=r start=" + std::to_string(900 + 10 * j) +
                " granted=all.q@h" + std::to_string(1 + j % 2) + ":1 l_hard=h_rt=" + std::to_string(200 + 150 * j) +
                "\n";
  }
  snapshot += "job 20 owner=u submit=900 R=y pe_name=mpi pe_min=6 pe_max=8 l_hard=h_rt=300\n";
  const std::string serial = Records(snapshot, Twin::kReference);
  EXPECT_EQ(serial, Records(snapshot, Twin::kOptimised));
  // All 8 slots are busy; the jobs end at 1100, 1260, 1420, 1580, 1740, 1900,
  // 2060 and 2220, alternating between h1 and h2. Six slots are free once six
  // have ended, at 1900 (3 on each host); the two still running until 2060 and
  // 2220 keep the count at 6 for the whole 300 s.
  EXPECT_TRUE(Has(serial, "reserve 20.1 at=1900 dur=300 slots=6 pe=mpi granted=all.q@h1:3,all.q@h2:3")) << serial;
}

}  // namespace
}  // namespace schedk

namespace schedk {
namespace {

// Grid Engine's queue list in a reservation search (docs/compat.md rule 12),
// the cell's dispatch-reservation-order scenario: b.q fills before all.q
// (seq_no 0), so the PE job, whose search does not sort the list, reserves
// b.q, where a sorted list gives all.q; job 7 waits for the license job 1
// holds (until 900 + 600 + 60), which every queue gives at 1560, and takes
// c.q, the one with a free slot, where a sorted list gives all.q.
TEST(ScheduleTest, AReservationMeetsTheFreeInstancesBeforeTheFullOnes) {
  const std::string snapshot =
      "schedk-snapshot 1\nnow 1000\n"
      "begin complex\nslots s INT <= YES YES 1 1000\nh_rt h_rt TIME <= YES NO 0 0\nlic l INT <= YES YES 0 0\n"
      "end complex\nbegin sconf\nmax_reservation 10\nweight_priority 1\nweight_urgency 0\nend sconf\n"
      "begin global\ncomplex_values lic=1\nend global\n"
      "begin exechost h1\nend exechost\n"
      "begin pe fill\nslots 8\nallocation_rule $fill_up\nend pe\n"
      "begin queue all.q\nhostlist h1\nslots 2\nseq_no 0\npe_list fill\nend queue\n"
      "begin queue b.q\nhostlist h1\nslots 2\nseq_no 1\npe_list fill\nend queue\n"
      "begin queue c.q\nhostlist h1\nslots 1\nseq_no 2\nend queue\n"
      "begin queue d.q\nhostlist h1\nslots 1\nseq_no 3\nend queue\n"
      "job 1 owner=u4 submit=800 state=r start=900 granted=d.q@h1:1 l_hard=h_rt=600,lic=1\n"
      "job 2 owner=u1 submit=901 q_hard=b.q l_hard=h_rt=100\n"
      "job 3 owner=u1 submit=902 q_hard=b.q l_hard=h_rt=100\n"
      "job 4 owner=u2 submit=903 l_hard=h_rt=100\n"
      "job 5 owner=u2 submit=904 l_hard=h_rt=100\n"
      "job 6 owner=u3 submit=905 p=-500 R=y pe_name=fill pe_min=2 pe_max=2 l_hard=h_rt=100\n"
      "job 7 owner=u3 submit=906 p=-600 R=y l_hard=h_rt=100,lic=1\n";
  for (Twin twin : {Twin::kOptimised, Twin::kReference}) {
    const std::string out = Records(snapshot, twin);
    EXPECT_TRUE(Has(out, "start 5.1 at=1000 dur=160 slots=1 granted=all.q@h1:1")) << out;
    EXPECT_TRUE(Has(out, "reserve 6.1 at=1160 dur=160 slots=2 pe=fill granted=b.q@h1:2")) << out;
    EXPECT_TRUE(Has(out, "reserve 7.1 at=1560 dur=160 slots=1 granted=c.q@h1:1")) << out;
  }
}

// The run's first search sorts the list: b.q and all.q are full from the
// start, b.q first in the snapshot (the list's order), and the PE job, tried
// first, reserves all.q (seq_no 0). Where a job tried before it has searched
// already (job 2 cannot get the license now), nothing sorts, and it gets b.q.
// (c.q, outside the PE, keeps a free slot, so the list is not empty after job
// 2 and the loop goes on.)
TEST(ScheduleTest, TheRunsFirstSearchSortsTheFullInstancesIn) {
  const std::string cluster =
      "schedk-snapshot 1\nnow 1000\n"
      "begin complex\nslots s INT <= YES YES 1 1000\nh_rt h_rt TIME <= YES NO 0 0\nlic l INT <= YES YES 0 0\n"
      "end complex\nbegin sconf\nmax_reservation 10\nweight_priority 1\nweight_urgency 0\nend sconf\n"
      "begin global\ncomplex_values lic=1\nend global\n"
      "begin exechost h1\nend exechost\n"
      "begin pe fill\nslots 8\nallocation_rule $fill_up\nend pe\n"
      "begin queue b.q\nhostlist h1\nslots 2\nseq_no 1\npe_list fill\nend queue\n"
      "begin queue all.q\nhostlist h1\nslots 2\nseq_no 0\npe_list fill\nend queue\n"
      "begin queue c.q\nhostlist h1\nslots 1\nseq_no 2\nend queue\n"
      "job 1 owner=u1 submit=800 state=r start=900 granted=b.q@h1:1 l_hard=h_rt=100,lic=1\n"
      "job 3 owner=u1 submit=800 state=r start=900 granted=b.q@h1:1 l_hard=h_rt=100\n"
      "job 4 owner=u1 submit=800 state=r start=900 granted=all.q@h1:2 l_hard=h_rt=100 pe_name=fill pe_min=2 pe_max=2\n"
      "job 6 owner=u3 submit=905 p=-500 R=y pe_name=fill pe_min=2 pe_max=2 l_hard=h_rt=100\n";
  for (Twin twin : {Twin::kOptimised, Twin::kReference}) {
    std::string out = Records(cluster, twin);
    EXPECT_TRUE(Has(out, "reserve 6.1 at=1060 dur=160 slots=2 pe=fill granted=all.q@h1:2")) << out;
    out = Records(cluster + "job 2 owner=u2 submit=901 l_hard=h_rt=100,lic=1\n", twin);
    EXPECT_NE(out.find("pending 2.1 reason="), std::string::npos) << out;
    EXPECT_TRUE(Has(out, "reserve 6.1 at=1060 dur=160 slots=2 pe=fill granted=b.q@h1:2")) << out;
  }
}

// The job loop ends once Grid Engine's queue list is empty. With every slot
// in use, a reserving job that can never run (job 3: 4 slots of 2) leaves the
// full instances in the list, so job 4 is tried and reserved; its split
// empties the list, and job 5 is not looked at.
TEST(ScheduleTest, TheLoopGoesOnWhileFullInstancesAreInTheList) {
  const std::string out = Records(
      "schedk-snapshot 1\nnow 1000\n"
      "begin sconf\nmax_reservation 10\nend sconf\n"
      "begin exechost h1\nend exechost\n"
      "begin pe fill\nslots 8\nallocation_rule $fill_up\nend pe\n"
      "begin queue all.q\nhostlist h1\nslots 2\npe_list fill\nend queue\n"
      "job 1 owner=u1 submit=800 state=r start=900 granted=all.q@h1:1 l_hard=h_rt=100\n"
      "job 2 owner=u1 submit=800 state=r start=900 granted=all.q@h1:1 l_hard=h_rt=100\n"
      "job 3 owner=u2 submit=901 R=y pe_name=fill pe_min=4 pe_max=4 l_hard=h_rt=100\n"
      "job 4 owner=u3 submit=902 R=y l_hard=h_rt=100\n"
      "job 5 owner=u4 submit=903 R=y l_hard=h_rt=100\n");
  EXPECT_NE(out.find("pending 3.1 reason=never:"), std::string::npos) << out;
  EXPECT_TRUE(Has(out, "reserve 4.1 at=1060 dur=160 slots=1 granted=all.q@h1:1")) << out;
  EXPECT_NE(out.find("pending 5.1 reason=no-slots "), std::string::npos) << out;
}

// §5.1/§5.2: a job that runs forever holds its slots to the queue end. The
// QETI's first candidate is U32MAX, where max() is the queue-end utilization,
// so a parallel job needing those slots gets no reservation at "forever" (it
// can never run); one that fits beside them is reserved when the finite job
// ends. Serial walk and parallel sweep agree.
TEST(ScheduleTest, NoParallelReservationAtTheEndOfTime) {
  const std::string snapshot =
      "schedk-snapshot 1\nnow 1000\n"
      "begin sconf\nmax_reservation 10\nend sconf\n"
      "begin exechost n1\ncomplex_values slots=4\nend exechost\n"
      "begin exechost n2\ncomplex_values slots=4\nend exechost\n"
      "begin pe mpi\nslots 8\nallocation_rule $fill_up\nend pe\n"
      "begin queue all.q\nhostlist n1 n2\nslots 4\npe_list mpi\nend queue\n"
      "job 1 owner=u1 p=1024 l_hard=h_rt=100\n"
      "job 2.1-5:2 owner=u2 pe_name=mpi pe_min=2 pe_max=6 R=y\n";
  for (Twin twin : {Twin::kOptimised, Twin::kReference}) {
    const std::string out = Records(snapshot, twin);
    // The default duration is INFINITY: 2.1 takes 6 slots forever, 2.3 the 2
    // that job 1 (100 s + DURATION_OFFSET 60) gives back at 1160. No load
    // changes, so 2.3's search does not sort the queue list: n2, with a free
    // slot, comes before the full n1 and takes the master task.
    EXPECT_TRUE(Has(out, "start 2.1 at=1000 dur=4294967295 slots=6 pe=mpi granted=all.q@n1:3,all.q@n2:3")) << out;
    EXPECT_TRUE(Has(out, "reserve 2.3 at=1160 dur=4294967295 slots=2 pe=mpi granted=all.q@n2:1,all.q@n1:1")) << out;
    EXPECT_NE(out.find("pending 2.5 reason=never:"), std::string::npos) << out;
    EXPECT_EQ(out.find("at=4294967295"), std::string::npos) << out;
  }
}

}  // namespace
}  // namespace schedk

namespace schedk {
namespace {

// A host with one queue instance books the same slots on both, so the parallel
// walk weighs only the instance's diagram when the host has at least the
// instance's slots; where the host has fewer, the host's own count limits and
// stays in the walk. h1 and h2 hold 2 slots each below queue instances of 4:
// job 1 uses both of h1's until 1050, job 2 one of h2's until 1250. Three
// slots are free from 1050 (2 on h1, 1 on h2); counting the instances' 4 would
// have found them at once.
TEST(ScheduleTest, HostSlotsBelowTheInstanceSlotsLimitTheWalk) {
  const std::string snapshot =
      "schedk-snapshot 1\nnow 1000\n"
      "begin sconf\nmax_reservation 5\nparams DURATION_OFFSET=0\nend sconf\n"
      "begin exechost h1\ncomplex_values slots=2\nend exechost\n"
      "begin exechost h2\ncomplex_values slots=2\nend exechost\n"
      "begin exechost h3\ncomplex_values slots=8\nend exechost\n"
      "begin pe mpi\nslots 16\nallocation_rule $fill_up\nend pe\n"
      "begin queue all.q\nhostlist h1 h2\nslots 4\npe_list mpi\nend queue\n"
      "begin queue big.q\nhostlist h3\nslots 4\npe_list mpi\nend queue\n"
      "job 1 owner=u submit=800 state=r start=950 granted=all.q@h1:2 l_hard=h_rt=100\n"
      "job 2 owner=u submit=800 state=r start=950 granted=all.q@h2:1 l_hard=h_rt=300\n"
      "job 3 owner=u submit=800 state=r start=950 granted=big.q@h3:4 l_hard=h_rt=400\n"
      "job 20 owner=u submit=900 p=1000 R=y pe_name=mpi pe_min=3 pe_max=3 l_hard=h_rt=100\n"
      "job 21 owner=u submit=901 R=y pe_name=mpi pe_min=7 pe_max=7 l_hard=h_rt=100\n";
  const std::string serial = Records(snapshot, Twin::kReference);
  EXPECT_EQ(serial, Records(snapshot, Twin::kOptimised));
  EXPECT_TRUE(Has(serial, "reserve 20.1 at=1050 dur=100 slots=3 pe=mpi granted=all.q@h1:2,all.q@h2:1")) << serial;
  // h3's 8 slots never limit its instance's 4. Job 21 needs 7: h1 and h2
  // give 4 from 1250 (job 20's reservation ends at 1150, job 2 at 1250) and h3
  // its 4 from 1350; $fill_up takes 2, 2 and 3.
  EXPECT_TRUE(Has(serial, "reserve 21.1 at=1350 dur=100 slots=7 pe=mpi granted=all.q@h1:2,all.q@h2:2,big.q@h3:3"))
      << serial;
}

}  // namespace
}  // namespace schedk

namespace schedk {
namespace {

// $pe_slots and a fixed allocation rule: the walk counts the hosts that can
// give the rule's per-host slots throughout the window, from the start times
// each host's diagrams deny. Three hosts of 4 slots (DURATION_OFFSET 0):
//   h1 busy until 1100, then 1 free, 2 from 1200, 3 from 1300, 4 from 1400;
//   h2 2 free now, 3 from 1150, 4 from 1500;
//   h3 1 free now, 2 from 1050, 3 from 1250, 4 from 1600.
// Job 20 (allocation_rule 2, 4 slots) needs two hosts with 2 free for 100 s:
// h2 and h3 from 1050. Job 21 ($pe_slots, 3-4 slots) then needs one host with
// 3 free: h2 from 1150, where it has 3 (4 only from 1500).
TEST(ScheduleTest, PeSlotsAndFixedRuleWalksCountHostsWithRoom) {
  std::string snapshot =
      "schedk-snapshot 1\nnow 1000\n"
      "begin sconf\nmax_reservation 5\nparams DURATION_OFFSET=0\nend sconf\n"
      "begin exechost h1\nend exechost\nbegin exechost h2\nend exechost\nbegin exechost h3\nend exechost\n"
      "begin pe two\nslots 16\nallocation_rule 2\nend pe\n"
      "begin pe smp\nslots 16\nallocation_rule $pe_slots\nend pe\n"
      "begin queue all.q\nhostlist h1 h2 h3\nslots 4\npe_list two smp\nend queue\n";
  const std::pair<int, int> running[] = {{1, 200}, {1, 300}, {1, 400}, {1, 500}, {2, 250},
                                         {2, 600}, {3, 150}, {3, 350}, {3, 700}};
  int id = 1;
  for (const auto& [host, h_rt] : running) {
    snapshot += "job " + std::to_string(id++) + " owner=u submit=800 state=r start=900 granted=all.q@h" +
                std::to_string(host) + ":1 l_hard=h_rt=" + std::to_string(h_rt) + "\n";
  }
  snapshot += "job 20 owner=u submit=900 p=1000 R=y pe_name=two pe_min=4 pe_max=4 l_hard=h_rt=100\n"
              "job 21 owner=u submit=901 R=y pe_name=smp pe_min=3 pe_max=4 l_hard=h_rt=100\n";
  const std::string serial = Records(snapshot, Twin::kReference);
  EXPECT_EQ(serial, Records(snapshot, Twin::kOptimised));
  EXPECT_TRUE(Has(serial, "reserve 20.1 at=1050 dur=100 slots=4 pe=two granted=all.q@h2:2,all.q@h3:2")) << serial;
  EXPECT_TRUE(Has(serial, "reserve 21.1 at=1150 dur=100 slots=3 pe=smp granted=all.q@h2:3")) << serial;
}

// Random clusters for the same walks: hosts whose own slots are sometimes
// below their queue instance's, jobs that run forever, and (every fourth seed)
// a host with a second queue instance, where the walk weighs hosts one by one.
// The serial descending walk and the parallel one agree on every record.
TEST(ScheduleTest, PeSlotsAndFixedRuleWalksMatchTheSerialWalk) {
  std::size_t reserves = 0, forever = 0;
  for (std::uint64_t seed = 1; seed <= 120; ++seed) {
    std::mt19937_64 rng(seed);
    const auto pick = [&](std::uint64_t n) { return static_cast<int>(rng() % n); };
    const int hosts = 3 + pick(5), slots = 4 + pick(4);
    std::string snapshot = "schedk-snapshot 1\nnow 10000\nbegin sconf\nmax_reservation 30\nparams DURATION_OFFSET=" +
                           std::to_string(pick(2) * 60) + "\nend sconf\n";
    const std::string hostlist =
        AddExecHosts(snapshot, hosts, [&](int) { return "slots=" + std::to_string(slots - 1 + pick(3)); });
    snapshot += "begin pe smp\nslots 999\nallocation_rule $pe_slots\nend pe\n"
                "begin pe two\nslots 999\nallocation_rule 2\nend pe\n"
                "begin pe three\nslots 999\nallocation_rule 3\nend pe\n"
                "begin queue all.q\nhostlist" + hostlist + "\nslots " + std::to_string(slots) +
                "\npe_list smp two three\nend queue\n";
    if (seed % 4 == 0) snapshot += "begin queue extra.q\nhostlist h1\nslots 2\npe_list smp two three\nend queue\n";
    int id = 1;
    for (int h = 1; h <= hosts; ++h) {
      for (int k = pick(slots + 1); k > 0; --k) {
        const bool endless = pick(12) == 0;
        forever += endless;
        snapshot += "job " + std::to_string(id++) + " owner=u submit=9000 state=r start=" +
                    std::to_string(9000 + pick(900)) + " granted=all.q@h" + std::to_string(h) + ":1" +
                    (endless ? std::string() : " l_hard=h_rt=" + std::to_string(1200 + 60 * pick(90))) + "\n";
      }
    }
    const char* pes[] = {"smp", "two", "three"};
    for (int j = 0; j < 12; ++j) {
      const int low = 1 + pick(slots + 1);
      snapshot += "job " + std::to_string(100 + j) + " owner=u submit=" + std::to_string(9500 + j) +
                  " R=y pe_name=" + pes[pick(3)] + " pe_min=" + std::to_string(low) +
                  " pe_max=" + std::to_string(low + pick(6)) +
                  (pick(10) == 0 ? std::string() : " l_hard=h_rt=" + std::to_string(300 + 60 * pick(60))) + "\n";
    }
    const std::string serial = Records(snapshot, Twin::kReference);
    ASSERT_EQ(serial, Records(snapshot, Twin::kOptimised)) << "seed " << seed << "\n" << snapshot;
    reserves += Occurrences(serial, "reserve ");
  }
  // The seeds reserve often and hold slots forever now and then.
  EXPECT_GT(reserves, 400u);
  EXPECT_GT(forever, 50u);
}

}  // namespace
}  // namespace schedk

namespace schedk {
namespace {

// A start moves its host in the load order, and a later parallel reservation
// takes hosts in the new order. Loads 0.1, 0.15 and 0.3 on h1, h2, h3 (4
// processors each; +0.125 per slot started). One slot is free on h1 and one
// on h2 (busy otherwise until 5000). Job 1 (3 slots, 100 s) is reserved at
// 1150, when h3's first job ends, one slot on each host; job 2 then starts on
// h1 (load 0.225: now between h2 and h3). Job 3 (2 slots) finds them from 1250
// on, where h2 has 1, h1 2 and h3 1: $fill_up takes h2's and one of h1's, h1
// being now the second host in load order.
TEST(ScheduleTest, ParallelReservationsFollowTheLoadOrderAfterAStart) {
  std::string snapshot =
      "schedk-snapshot 1\nnow 1000\n"
      "begin sconf\nmax_reservation 5\nqueue_sort_method load\njob_load_adjustments np_load_avg=0.50\n"
      "load_adjustment_decay_time 0:7:30\nparams DURATION_OFFSET=0\nend sconf\n"
      "begin exechost h1\nend exechost\nbegin exechost h2\nend exechost\nbegin exechost h3\nend exechost\n"
      "begin pe mpi\nslots 16\nallocation_rule $fill_up\nend pe\n"
      "begin queue all.q\nhostlist h1 h2 h3\nslots 4\npe_list mpi\nend queue\n"
      "load h1 np_load_avg=0.1,num_proc=4\nload h2 np_load_avg=0.15,num_proc=4\nload h3 np_load_avg=0.3,num_proc=4\n";
  const std::pair<int, int> running[] = {{1, 1200}, {1, 1300}, {1, 1400}, {2, 5000}, {2, 5000},
                                         {2, 5000}, {3, 1150}, {3, 1700}, {3, 1800}, {3, 1900}};
  int id = 100;
  for (const auto& [host, end] : running) {
    snapshot += "job " + std::to_string(id++) + " owner=u submit=800 state=r start=900 granted=all.q@h" +
                std::to_string(host) + ":1 l_hard=h_rt=" + std::to_string(end - 900) + "\n";
  }
  snapshot += "job 1 owner=u submit=900 p=1000 R=y pe_name=mpi pe_min=3 pe_max=3 l_hard=h_rt=100\n"
              "job 2 owner=u submit=900 p=500 l_hard=h_rt=50\n"
              "job 3 owner=u submit=900 R=y pe_name=mpi pe_min=2 pe_max=2 l_hard=h_rt=100\n";
  const std::string serial = Records(snapshot, Twin::kReference);
  EXPECT_EQ(serial, Records(snapshot, Twin::kOptimised));
  EXPECT_TRUE(Has(serial, "reserve 1.1 at=1150 dur=100 slots=3 pe=mpi granted=all.q@h1:1,all.q@h2:1,all.q@h3:1"))
      << serial;
  EXPECT_TRUE(Has(serial, "start 2.1 at=1000 dur=50 slots=1 granted=all.q@h1:1")) << serial;
  EXPECT_TRUE(Has(serial, "reserve 3.1 at=1250 dur=100 slots=2 pe=mpi granted=all.q@h2:1,all.q@h1:1")) << serial;
}

}  // namespace
}  // namespace schedk

namespace schedk {
namespace {

// Walk plans are kept between the parallel walks of one interval by what they
// depend on (the PE, the requests, h_rt only by its matches against the
// queues' limits, a consumable only as requested or not) and taken again
// while no host's alarms or mirrored slots changed. Random clusters where
// starts push hosts into load alarm between walks, jobs with the same key ask
// different amounts of memory, and a short queue on two hosts takes only jobs
// of up to an hour: the kept plans give what the serial walk does.
TEST(ScheduleTest, KeptWalkPlansMatchTheSerialWalk) {
  std::size_t reserves = 0, starts = 0;
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    std::mt19937_64 rng(seed);
    const auto pick = [&](std::uint64_t n) { return static_cast<int>(rng() % n); };
    const int hosts = 4 + pick(5), slots = 4 + pick(5);
    std::string snapshot =
        "schedk-snapshot 1\nnow 10000\n"
        "begin complex\nslots s INT <= YES YES 1 1000\nh_rt h_rt TIME <= YES NO 0:0:0 0\n"
        "mem m MEMORY <= YES YES 0 0\nnp_load_avg nla DOUBLE >= NO NO 0 0\nnum_proc p INT == YES NO 0 0\n"
        "end complex\n"
        "begin sconf\nmax_reservation 40\njob_load_adjustments np_load_avg=0.50\n"
        "load_adjustment_decay_time 0:7:30\nend sconf\n";
    const std::string hostlist = AddExecHosts(snapshot, hosts, [&](int) {
      return "slots=" + std::to_string(slots + 2) + ",mem=" + std::to_string(8 + pick(9)) + "G";
    });
    snapshot += "begin pe mpi\nslots 999\nallocation_rule $fill_up\nend pe\n"
                "begin pe rr\nslots 999\nallocation_rule $round_robin\nend pe\n"
                "begin pe smp\nslots 999\nallocation_rule $pe_slots\nend pe\n"
                "begin queue all.q\nhostlist" + hostlist + "\nslots " + std::to_string(slots) +
                "\npe_list mpi rr smp\nload_thresholds np_load_avg=1.75\nend queue\n"
                "begin queue short.q\nhostlist h1 h2\nslots 2\nh_rt 1:0:0\npe_list mpi rr smp\nend queue\n";
    for (int h = 1; h <= hosts; ++h) {
      snapshot += "load h" + std::to_string(h) + " np_load_avg=" + std::to_string(pick(6) * 0.25) + ",num_proc=4\n";
    }
    snapshot += RunningOnAllQ(hosts, slots, pick);
    const char* pes[] = {"mpi", "rr", "smp"};
    for (int j = 0; j < 24; ++j) {
      const int pe = pick(3), low = 1 + pick(pe == 2 ? slots : 2 * slots);
      std::string hard = "h_rt=" + std::to_string(600 + 300 * pick(20));  // some over the short queue's hour
      if (pick(2) == 0) hard += ",mem=" + std::to_string(1 + pick(3)) + "G";
      snapshot += "job " + std::to_string(100 + j) + " owner=u submit=" + std::to_string(9500 + j);
      if (pick(4) == 0) {  // a sequential job that may start, raising its host's load
        snapshot += " l_hard=" + hard + "\n";
        continue;
      }
      snapshot += " R=y pe_name=" + std::string(pes[pe]) + " pe_min=" + std::to_string(low) +
                  " pe_max=" + std::to_string(low + pick(4)) + " l_hard=" + hard + "\n";
    }
    const std::string serial = Records(snapshot, Twin::kReference);
    ASSERT_EQ(serial, Records(snapshot, Twin::kOptimised)) << "seed " << seed << "\n" << snapshot;
    reserves += Occurrences(serial, "reserve ");
    starts += Occurrences(serial, "start ");
  }
  EXPECT_GT(reserves, 300u);
  EXPECT_GT(starts, 100u);
}

}  // namespace
}  // namespace schedk

namespace schedk {
namespace {

// Whether a parallel job is kept out by reservations only (reservation-blocked)
// is known, per PE, key and amounts, from the least slot counts that fitted
// and failed since the last start. Random clusters where a few reservations
// block, sequential jobs start in between, and parallel jobs of one key ask
// different slot ranges and amounts of memory: the reasons are the serial
// twin's, which asks every job afresh.
TEST(ScheduleTest, KnownFitsIgnoringThePlanMatchTheSerialTwin) {
  std::size_t blocked = 0, resource = 0;
  for (std::uint64_t seed = 1; seed <= 120; ++seed) {
    std::mt19937_64 rng(seed);
    const auto pick = [&](std::uint64_t n) { return static_cast<int>(rng() % n); };
    const int hosts = 3 + pick(4), slots = 4 + pick(5);
    std::string snapshot =
        "schedk-snapshot 1\nnow 10000\n"
        "begin complex\nslots s INT <= YES YES 1 1000\nh_rt h_rt TIME <= YES NO 0:0:0 0\n"
        "mem m MEMORY <= YES YES 0 0\nend complex\n"
        "begin sconf\nmax_reservation " + std::to_string(1 + pick(3)) + "\nend sconf\n";
    const std::string hostlist =
        AddExecHosts(snapshot, hosts, [&](int) { return "mem=" + std::to_string(6 + pick(6)) + "G"; });
    snapshot += "begin pe mpi\nslots 999\nallocation_rule $fill_up\nend pe\n"
                "begin pe smp\nslots 999\nallocation_rule $pe_slots\nend pe\n"
                "begin queue all.q\nhostlist" + hostlist + "\nslots " + std::to_string(slots) +
                "\npe_list mpi smp\nend queue\n";
    snapshot += RunningOnAllQ(hosts, slots, pick);
    for (int j = 0; j < 40; ++j) {
      std::string hard = "h_rt=" + std::to_string(600 + 600 * pick(6));
      if (pick(2) == 0) hard += ",mem=" + std::to_string(1 + pick(2)) + "G";
      snapshot += "job " + std::to_string(100 + j) + " owner=u submit=" + std::to_string(9500 + j);
      if (pick(5) == 0) {  // a sequential job: its start changes what is in use now
        snapshot += " l_hard=" + hard + "\n";
        continue;
      }
      const int low = 1 + pick(slots + 2);
      snapshot += std::string(pick(3) == 0 ? " R=y" : "") + " pe_name=" + (pick(2) == 0 ? "mpi" : "smp") +
                  " pe_min=" + std::to_string(low) + " pe_max=" + std::to_string(low + pick(3)) + " l_hard=" + hard +
                  "\n";
    }
    const std::string serial = Records(snapshot, Twin::kReference);
    ASSERT_EQ(serial, Records(snapshot, Twin::kOptimised)) << "seed " << seed << "\n" << snapshot;
    blocked += Occurrences(serial, "reason=reservation");
    resource += Occurrences(serial, "reason=resource");
  }
  EXPECT_GT(blocked, 200u);
  EXPECT_GT(resource, 400u);
}

// max_aj_instances 3 with task 1 running: tasks 2 and 3 are the run's, and
// one slot is free; 4 to 6 wait for the limit, as on the real cell.
TEST(ScheduleTest, ArrayTasksBeyondTheirLimitWaitWithTheirReason) {
  const std::string out = Records(R"(schedk-snapshot 1
now 1795674100
begin conf
max_aj_instances 3
end conf
begin exechost h1
complex_values slots=2
end exechost
begin queue all.q
hostlist h1
slots 2
end queue
job 1.1 owner=u1 submit=1795674000 state=r start=1795674050 granted=all.q@h1:1
job 1.2-6 owner=u1 submit=1795674000
)");
  EXPECT_NE(out.find("start 1.2 "), std::string::npos) << out;
  EXPECT_NE(out.find("pending 1.3 reason=no-slots"), std::string::npos) << out;
  for (const char* t : {"1.4", "1.5", "1.6"}) {
    EXPECT_NE(out.find(std::string("pending ") + t + " reason=array-task-limit"), std::string::npos) << out;
  }
}

}  // namespace
}  // namespace schedk
