// Resource quota sets in a scheduling interval, hand-worked from
// sge_resource_quota(5) and docs/resource-quotas.md: the first matching rule
// of a set, every enabled set at once, {} expansion, negated filters, dynamic
// limits, jobs started earlier in the same interval, parallel jobs cut to
// what a shared limit leaves, reservations that wait for a quota, and the
// `rqs` block's errors. (The real cell's own runs: datasets/quota-*.snap.)
#include <gtest/gtest.h>
#include <tbb/global_control.h>
#include <tbb/task_arena.h>

#include <string>

#include "io/schedule_writer.hpp"
#include "io/snapshot_reader.hpp"
#include "kernel/dispatch/schedule.hpp"
#include "kernel/quota/quota_usage.hpp"
#include "tests/test_support.hpp"

namespace schedk {
namespace {

// The interval's records as `schedk schedule` prints them, without the done
// line and, where `durations` is false, without the start and reserve lines' dur=.
std::string Records(const std::string& snapshot_text, bool durations = false, Twin twin = Twin::kOptimised) {
  const io::Snapshot s = testing::Load(snapshot_text);
  const PriorityResult priorities = ComputePriorities(s.cluster, s.jobs);
  const QueueInstanceTable instances = QueueInstanceTable::Build(s.cluster);
  const ScheduleResult result = ScheduleInterval(s.cluster, s.jobs, priorities, instances, twin);
  std::string out;
  io::WriteSchedule(s, instances, result, io::ScheduleFormat::kText, 0, [&](std::string_view text) {
    out += text;
    return true;
  });
  out = out.substr(0, out.rfind("done "));
  for (std::size_t at = out.find(" dur="); !durations && at != std::string::npos; at = out.find(" dur=", at)) {
    out.erase(at, out.find(' ', at + 1) - at);
  }
  return out;
}

bool Has(const std::string& out, const std::string& line) { return out.find(line + "\n") != std::string::npos; }

// Hosts h1 and h2 with all.q at 4 slots each (8 in all), a $fill_up PE, and `rqs` blocks.
std::string Cluster(const std::string& quota_blocks, const std::string& sconf = "") {
  return "schedk-snapshot 1\nnow 1000\n"
         "begin sconf\njob_load_adjustments NONE\nqueue_sort_method seqno\n" +
         sconf +
         "end sconf\n"
         "begin exechost h1\nend exechost\nbegin exechost h2\nend exechost\n"
         "begin pe fill\nslots 64\nallocation_rule $fill_up\nend pe\n"
         "begin queue all.q\nhostlist h1 h2\nslots 4\npe_list fill\nend queue\n"
         "load h1 num_proc=2\nload h2 num_proc=3\n" +
         quota_blocks;
}

std::string Set(const std::string& name, const std::string& limits, bool enabled = true) {
  return "begin rqs " + name + "\nname " + name + "\ndescription NONE\nenabled " + (enabled ? "TRUE" : "FALSE") + "\n" +
         limits + "end rqs\n";
}

// u1 matches the first rule (1 slot); u2 the second (3 slots, shared: not
// expanded). Jobs started earlier in the interval count: u2's fourth waits.
TEST(QuotaDispatchTest, TheFirstMatchingRuleAndEarlierStartsOfTheInterval) {
  const std::string out = Records(Cluster(Set("s", "limit users u1 to slots=1\nlimit users * to slots=3\n")) +
                                  "job 1 owner=u1 submit=900\njob 2 owner=u1 submit=901\n"
                                  "job 3 owner=u2 submit=902\njob 4 owner=u2 submit=903\n"
                                  "job 5 owner=u2 submit=904\njob 6 owner=u2 submit=905\n");
  EXPECT_TRUE(Has(out, "start 1.1 at=1000 slots=1 granted=all.q@h1:1")) << out;
  EXPECT_TRUE(Has(out,
                  "pending 2.1 reason=rqs:s/1 \"cannot run because it exceeds limit \\\"/////\\\" in rule "
                  "\\\"s/1\\\"\""))
      << out;
  for (const char* job : {"3", "4", "5"}) EXPECT_NE(out.find(std::string("start ") + job + ".1 "), std::string::npos);
  EXPECT_NE(out.find("pending 6.1 reason=rqs:s/2 "), std::string::npos) << out;
}

// Every enabled set applies; a disabled one limits nothing. With `users {*}`
// each user has a counter of their own: u1 and u2 get 2 each.
TEST(QuotaDispatchTest, EveryEnabledSetAndOneCounterPerExpandedValue) {
  const std::string out =
      Records(Cluster(Set("off", "limit users * to slots=0\n", false) + Set("total", "limit users * to slots=6\n") +
                      Set("each", "limit users {*} to slots=2\n")) +
              "job 1 owner=u1 submit=900\njob 2 owner=u1 submit=901\njob 3 owner=u1 submit=902\n"
              "job 4 owner=u2 submit=903\njob 5 owner=u2 submit=904\njob 6 owner=u2 submit=905\n");
  for (const char* job : {"1", "2", "4", "5"}) {
    EXPECT_NE(out.find(std::string("start ") + job + ".1 "), std::string::npos);
  }
  EXPECT_NE(out.find("pending 3.1 reason=rqs:each/1 \"cannot run because it exceeds limit \\\"u1/////\\\""),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("pending 6.1 reason=rqs:each/1 \"cannot run because it exceeds limit \\\"u2/////\\\""),
            std::string::npos);
}

// `hosts {*}` with a dynamic limit: $num_proc is 2 on h1, 3 on h2, so 5 of
// six one-slot jobs start; `users !u3` leaves u3 alone.
TEST(QuotaDispatchTest, ADynamicPerHostLimitAndANegatedFilter) {
  const std::string out = Records(Cluster(Set("cores", "limit users !u3 hosts {*} to slots=$num_proc\n")) +
                                  "job 1 owner=u1 submit=900\njob 2 owner=u1 submit=901\njob 3 owner=u1 submit=902\n"
                                  "job 4 owner=u1 submit=903\njob 5 owner=u1 submit=904\njob 6 owner=u1 submit=905\n"
                                  "job 7 owner=u3 submit=906\n");
  auto count = [&](const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = out.find(what); at != std::string::npos; at = out.find(what, at + 1)) ++n;
    return n;
  };
  const std::size_t h1 = count("granted=all.q@h1"), h2 = count("granted=all.q@h2");
  EXPECT_EQ(h1, 3u) << out;  // two of u1's and u3's
  EXPECT_EQ(h2, 3u) << out;
  // The reason names the first queue instance in queue order whose limit is in the way.
  EXPECT_NE(out.find("pending 6.1 reason=rqs:cores/1 \"cannot run because it exceeds limit \\\"////h1/\\\""),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("start 7.1 "), std::string::npos);
}

// A parallel job takes what a shared limit leaves: 5 of 3-8 slots under
// `users {*} to slots=5`, across both hosts; with `hosts {*} to slots=1`
// each host gives one slot only.
TEST(QuotaDispatchTest, AParallelJobGetsWhatTheLimitsLeave) {
  const std::string user = Records(Cluster(Set("u", "limit users {*} to slots=5\n")) +
                                   "job 1 owner=u1 submit=900 pe_name=fill pe_min=3 pe_max=8\n");
  EXPECT_TRUE(Has(user, "start 1.1 at=1000 slots=5 pe=fill granted=all.q@h1:4,all.q@h2:1")) << user;
  const std::string host = Records(Cluster(Set("h", "limit hosts {*} to slots=1\n")) +
                                   "job 1 owner=u1 submit=900 pe_name=fill pe_min=2 pe_max=8\n");
  EXPECT_TRUE(Has(host, "start 1.1 at=1000 slots=2 pe=fill granted=all.q@h1:1,all.q@h2:1")) << host;
}

// The limits are debited host by host as Grid Engine 8.1.9 does
// (parallel_tag_queues_suitable4job): a host too small for a $pe_slots job
// takes nothing from them, and a fixed rule takes its per-host count from a
// host, not all the host could give. u1 may hold 4 slots; h1 comes first
// and has 2 free (u9 runs on the other 2) or 4.
TEST(QuotaDispatchTest, HostsDebitTheLimitsAsTheAllocationRuleTakesThem) {
  auto cluster = [](const std::string& pe, const std::string& jobs) {
    return "schedk-snapshot 1\nnow 1000\nbegin sconf\njob_load_adjustments NONE\nqueue_sort_method seqno\n"
           "end sconf\nbegin exechost h1\nend exechost\nbegin exechost h2\nend exechost\n" +
           pe + "begin queue all.q\nhostlist h1 h2\nslots 4\nseq_no 0,[h1=0],[h2=1]\npe_list p\nend queue\n" +
           Set("u", "limit users {*} to slots=4\n") + jobs;
  };
  const std::string pe_slots =
      Records(cluster("begin pe p\nslots 64\nallocation_rule $pe_slots\nend pe\n",
                      "job 1 owner=u9 submit=800 state=r start=900 granted=all.q@h1:2 pe_name=p pe_min=2 pe_max=2\n"
                      "job 2 owner=u1 submit=900 pe_name=p pe_min=4 pe_max=4\n"));
  EXPECT_TRUE(Has(pe_slots, "start 2.1 at=1000 slots=4 pe=p granted=all.q@h2:4")) << pe_slots;
  const std::string fixed = Records(cluster("begin pe p\nslots 64\nallocation_rule 2\nend pe\n",
                                            "job 2 owner=u1 submit=900 pe_name=p pe_min=4 pe_max=4\n"));
  EXPECT_TRUE(Has(fixed, "start 2.1 at=1000 slots=4 pe=p granted=all.q@h1:2,all.q@h2:2")) << fixed;
}

// The quotas answer each job's requests: u1's jobs asking for 2 and 1 of
// `lic` under a limit of 3 are not told apart by owner alone (job 3 follows
// job 2's refusal with no booking between them, and fits: 2 + 1 <= 3).
TEST(QuotaDispatchTest, JobsOfOneOwnerAreAnsweredByWhatTheyRequest) {
  const std::string out = Records(
      "schedk-snapshot 1\nnow 1000\n"
      "begin complex\nslots s INT <= YES YES 1 1000\nlic l INT <= YES YES 0 0\nend complex\n"
      "begin sconf\nqueue_sort_method seqno\nend sconf\n"
      "begin global\ncomplex_values lic=10\nend global\n"
      "begin exechost h1\nend exechost\n"
      "begin queue all.q\nhostlist h1\nslots 4\nend queue\n" +
      Set("l", "limit users {*} to lic=3\n") +
      "job 1 owner=u1 submit=900 l_hard=lic=2\njob 2 owner=u1 submit=901 l_hard=lic=2\n"
      "job 3 owner=u1 submit=902 l_hard=lic=1\njob 4 owner=u1 submit=903 l_hard=lic=1\n");
  EXPECT_TRUE(Has(out, "start 1.1 at=1000 slots=1 granted=all.q@h1:1")) << out;
  EXPECT_NE(out.find("pending 2.1 reason=rqs:l/1 "), std::string::npos) << out;
  EXPECT_TRUE(Has(out, "start 3.1 at=1000 slots=1 granted=all.q@h1:1")) << out;
  EXPECT_NE(out.find("pending 4.1 reason=rqs:l/1 "), std::string::npos) << out;
}

// A placement's check weighs a per-job amount once, at the master, a
// fractional per-slot amount per slot, and a limit on a non-consumable
// against the request itself; both twins agree. u1 holds scr (JOB) 5 and
// mem 7.5: job 1 takes scr 3 and mem 2 x 1.5; job 2's scr 3 more exceeds 5
// whatever its slots; job 3's scr 1 fits and mem leaves it 3 slots (4.5 /
// 1.5), h1's last 2 and one of h2's. u2 may ask for at most nproc=2.
TEST(QuotaDispatchTest, APlacementWeighsPerJobAndFractionalAmountsAndTheRequestItself) {
  const std::string snapshot =
      "schedk-snapshot 1\nnow 1000\n"
      "begin complex\nslots s INT <= YES YES 1 1000\nscr scr INT <= YES JOB 0 0\nmem mem DOUBLE <= YES YES 0 0\n"
      "nproc nproc INT <= YES NO 0 0\nend complex\n"
      "begin sconf\njob_load_adjustments NONE\nqueue_sort_method seqno\nend sconf\n"
      "begin global\ncomplex_values scr=100,mem=100\nend global\n"
      "begin exechost h1\ncomplex_values nproc=8\nend exechost\nbegin exechost h2\ncomplex_values nproc=8\nend "
      "exechost\n"
      "begin pe fill\nslots 64\nallocation_rule $fill_up\nend pe\n"
      "begin queue all.q\nhostlist h1 h2\nslots 4\npe_list fill\nend queue\n" +
      Set("j", "limit users {*} to scr=5,mem=7.5\n") + Set("n", "limit users u2 to nproc=2\n") +
      "job 1 owner=u1 submit=900 pe_name=fill pe_min=2 pe_max=2 l_hard=scr=3,mem=1.5\n"
      "job 2 owner=u1 submit=901 pe_name=fill pe_min=2 pe_max=4 l_hard=scr=3,mem=1.5\n"
      "job 3 owner=u1 submit=902 pe_name=fill pe_min=2 pe_max=4 l_hard=scr=1,mem=1.5\n"
      "job 4 owner=u2 submit=903 pe_name=fill pe_min=2 pe_max=2 l_hard=nproc=4\n";
  const std::string out = Records(snapshot);
  EXPECT_TRUE(Has(out, "start 1.1 at=1000 slots=2 pe=fill granted=all.q@h1:2")) << out;
  EXPECT_NE(out.find("pending 2.1 reason=rqs:j/1 "), std::string::npos) << out;
  EXPECT_TRUE(Has(out, "start 3.1 at=1000 slots=3 pe=fill granted=all.q@h1:2,all.q@h2:1")) << out;
  EXPECT_NE(out.find("pending 4.1 reason=rqs:n/1 "), std::string::npos) << out;
  EXPECT_EQ(out, Records(snapshot, false, Twin::kReference));
}

// With max_reservation, a sequential job reserves for when its quota frees
// up (u1's running job ends at 1500), and the L lines follow the Q line.
TEST(QuotaDispatchTest, AReservationWaitsForTheQuota) {
  const std::string out =
      Records(Cluster(Set("u", "limit users {*} to slots=1\n"), "max_reservation 10\n") +
                  "job 1 owner=u1 submit=800 l_hard=h_rt=500 state=r start=1000 granted=all.q@h1:1\n"
                  "job 2 owner=u1 submit=900 l_hard=h_rt=100 R=y\n",
              true);
  EXPECT_TRUE(Has(out, "sched 1:1:RUNNING:1000:560:L:u:u1/////:1.000000")) << out;
  EXPECT_TRUE(Has(out, "reserve 2.1 at=1560 dur=160 slots=1 granted=all.q@h1:1")) << out;
  EXPECT_TRUE(Has(out,
                  "sched 2:1:RESERVING:1560:160:Q:all.q@h1:slots:1.000000\n"
                  "sched 2:1:RESERVING:1560:160:L:u:u1/////:1.000000"))
      << out;
}

// A parallel job's reservation takes its room under the quotas too:
// `hosts {*} to slots=1` leaves one slot on each host when both free up.
TEST(QuotaDispatchTest, AParallelReservationTakesWhatTheLimitsLeave) {
  const std::string out =
      Records(Cluster(Set("h", "limit hosts {*} to slots=1\n"), "max_reservation 10\n") +
                  "job 1 owner=u1 submit=800 l_hard=h_rt=500 state=r start=1000 granted=all.q@h1:1\n"
                  "job 2 owner=u1 submit=800 l_hard=h_rt=500 state=r start=1000 granted=all.q@h2:1\n"
                  "job 3 owner=u2 submit=900 l_hard=h_rt=100 R=y pe_name=fill pe_min=2 pe_max=2\n",
              true);
  EXPECT_TRUE(Has(out, "reserve 3.1 at=1560 dur=160 slots=2 pe=fill granted=all.q@h1:1,all.q@h2:1")) << out;
}

// A reservation's room walks on past a quota class the hosts so far closed
// while another class the PE reaches is open: u1 may hold 3 slots, 2 of
// them on @r's h3. When the running jobs end, h1 gives 3, which closes the
// class of h1 and h2; h2 then gives nothing, h3 its 2 (a walk that ended at
// the first closed class would reserve 3).
TEST(QuotaDispatchTest, AReservationRoomWalksPastAClosedQuotaClassToAnOpenOne) {
  const std::string out = Records(
      "schedk-snapshot 1\nnow 1000\nbegin sconf\njob_load_adjustments NONE\nqueue_sort_method seqno\n"
      "max_reservation 10\nend sconf\n"
      "begin exechost h1\nend exechost\nbegin exechost h2\nend exechost\nbegin exechost h3\nend exechost\n"
      "begin hostgroup @r\nhostlist h3\nend hostgroup\n"
      "begin pe fill\nslots 64\nallocation_rule $fill_up\nend pe\n"
      "begin queue all.q\nhostlist h1 h2 h3\nslots 4\nseq_no 0,[h1=0],[h2=1],[h3=2]\npe_list fill\nend queue\n" +
      Set("u", "limit users {*} hosts @r to slots=2\nlimit users {*} to slots=3\n") +
      "job 1 owner=u9 submit=800 l_hard=h_rt=500 state=r start=1000 granted=all.q@h1:4\n"
      "job 2 owner=u9 submit=800 l_hard=h_rt=500 state=r start=1000 granted=all.q@h2:4\n"
      "job 3 owner=u9 submit=800 l_hard=h_rt=500 state=r start=1000 granted=all.q@h3:4\n"
      "job 4 owner=u1 submit=900 l_hard=h_rt=100 R=y pe_name=fill pe_min=1 pe_max=8\n");
  EXPECT_TRUE(Has(out, "reserve 4.1 at=1560 slots=5 pe=fill granted=all.q@h1:3,all.q@h3:2")) << out;
}

// A parallel job the quotas keep from starting names the resource of the
// first instance in queue order that lacked one, even where the walk's
// later hosts could only note one: u1 may hold 1 slot, which h1 gives, and
// then every quota class is closed. All hosts are at the same load, so the
// walk meets h2 (lacking m1) before h3 (lacking m2), whose lower seq_no puts
// it first in the queue list.
TEST(QuotaDispatchTest, AJobTheQuotasCutNamesTheFirstResourceInQueueOrder) {
  const std::string out = Records(
      "schedk-snapshot 1\nnow 1000\nbegin complex\nslots s INT <= YES YES 1 1000\nm1 m1 INT <= YES YES 0 0\n"
      "m2 m2 INT <= YES YES 0 0\nend complex\nbegin sconf\njob_load_adjustments NONE\nend sconf\n"
      "begin exechost h1\ncomplex_values m1=10,m2=10\nend exechost\n"
      "begin exechost h2\ncomplex_values m1=0,m2=10\nend exechost\n"
      "begin exechost h3\ncomplex_values m1=10,m2=0\nend exechost\n"
      "begin pe fill\nslots 64\nallocation_rule $fill_up\nend pe\n"
      "begin queue all.q\nhostlist h1 h2 h3\nslots 4\nseq_no 0,[h1=0],[h2=2],[h3=1]\npe_list fill\nend queue\n" +
      Set("u", "limit users {*} to slots=1\n") + Set("h", "limit hosts h3 to slots=100\n") +
      "job 4 owner=u1 submit=900 l_hard=m1=1,m2=1 pe_name=fill pe_min=2 pe_max=2\n");
  EXPECT_NE(out.find("pending 4.1 reason=resource:m2 "), std::string::npos) << out;
}

// A -masterq job's reservation room under $pe_slots walks on past a host
// that holds as many slots as any (h1: all.q and o.q, 8) to one with its
// master queue (h2: all.q and m.q): a limit that never binds only puts the
// room on the quotas' walk.
TEST(QuotaDispatchTest, AMasterqReservationWalksPastTheFullestHostToItsMasterQueue) {
  const std::string out = Records(
      "schedk-snapshot 1\nnow 1000\nbegin sconf\njob_load_adjustments NONE\nqueue_sort_method seqno\n"
      "max_reservation 10\nend sconf\nbegin exechost h1\nend exechost\nbegin exechost h2\nend exechost\n"
      "begin pe one\nslots 64\nallocation_rule $pe_slots\nend pe\n"
      "begin queue all.q\nhostlist h1 h2\nslots 4\nseq_no 0\npe_list one\nend queue\n"
      "begin queue o.q\nhostlist h1\nslots 4\nseq_no 1\npe_list one\nend queue\n"
      "begin queue m.q\nhostlist h2\nslots 4\nseq_no 2\npe_list one\nend queue\n" +
      Set("big", "limit users {*} to slots=1000\n") +
      "job 1 owner=u9 submit=800 l_hard=h_rt=500 state=r start=1000 granted=all.q@h1:4\n"
      "job 2 owner=u9 submit=800 l_hard=h_rt=500 state=r start=1000 granted=o.q@h1:4\n"
      "job 3 owner=u9 submit=800 l_hard=h_rt=500 state=r start=1000 granted=all.q@h2:4\n"
      "job 4 owner=u9 submit=800 l_hard=h_rt=500 state=r start=1000 granted=m.q@h2:4\n"
      "job 5 owner=u1 submit=900 l_hard=h_rt=100 R=y masterq=m.q pe_name=one pe_min=2 pe_max=2\n");
  EXPECT_TRUE(Has(out, "reserve 5.1 at=1560 slots=2 pe=one granted=m.q@h2:1,all.q@h2:1")) << out;
}

// A walk that begins before now (u1's job fits now but for the quota, so
// without it the walk reaches down to job 1's start at 700): a window that
// began there would end before u1's job 2 starts at 900, and the quota would
// admit it; the walk from the latest candidate down stops at 1760, where job
// 2 still runs, and reserves when it ends (tests/compat: dispatch-quotas-past).
TEST(QuotaDispatchTest, AReservationWalkFromBeforeNowStopsWhereTheQuotaRefuses) {
  const std::string out =
      Records(Cluster(Set("u", "limit users {*} to slots=4\n"), "max_reservation 10\n") +
                  "job 1 owner=u2 submit=600 l_hard=h_rt=1000 state=r start=700 granted=all.q@h1:1\n"
                  "job 2 owner=u1 submit=800 l_hard=h_rt=1000 pe_name=fill pe_min=2 pe_max=2 state=r start=900 "
                  "granted=all.q@h2:2\n"
                  "job 3 owner=u1 submit=900 l_hard=h_rt=5 R=y pe_name=fill pe_min=3 pe_max=3\n",
              true);
  EXPECT_NE(out.find("reserve 3.1 at=1960 dur=65 slots=3 pe=fill "), std::string::npos) << out;
}

// Reservations whose rooms span more hosts than a walk takes one by one
// (tuning::kRoomHostsOneByOne, 256): 700 one-slot hosts, h1-h100 busy until
// 3060, h101-h700 until 1560. u2 may use none of @few (h301-h310, a quota
// class closed from the start). 500 slots of $fill_up fit from 1560 on
// h101-h300 and h311-h610: the walk ends inside its second block, having
// passed over @few. With four threads the hosts past the 256th are read in
// parallel blocks; one thread walks them one by one, to the same reservation.
TEST(QuotaDispatchTest, AReservationOverHundredsOfHostsReadsThemInBlocks) {
  std::string text =
      "schedk-snapshot 1\nnow 1000\nbegin sconf\njob_load_adjustments NONE\nqueue_sort_method seqno\n"
      "max_reservation 10\nend sconf\nbegin pe fill\nslots 1000\nallocation_rule $fill_up\nend pe\n" +
      Set("u", "limit users u2 hosts @few to slots=0\n");
  std::string hostlist, few, running, granted;
  for (int h = 1; h <= 700; ++h) {
    const std::string name = "h" + std::to_string(h);
    text += "begin exechost " + name + "\nend exechost\n";
    hostlist += " " + name;
    if (h > 300 && h <= 310) few += " " + name;
    running += "job " + std::to_string(h) + " owner=u3 submit=800 l_hard=h_rt=" + (h <= 100 ? "2000" : "500") +
               " state=r start=1000 granted=all.q@" + name + ":1\n";
    if (h > 100 && h <= 610 && (h <= 300 || h > 310)) {
      granted += std::string(h > 101 ? "," : "") + "all.q@" + name + ":1";
    }
  }
  text += "begin hostgroup @few\nhostlist" + few + "\nend hostgroup\n";
  text += "begin queue all.q\nhostlist" + hostlist + "\nslots 1\npe_list fill\nend queue\n" + running +
          "job 1000 owner=u2 submit=900 l_hard=h_rt=100 R=y pe_name=fill pe_min=500 pe_max=500\n";
  std::string out;
  tbb::task_arena(4).execute([&] { out = Records(text, true); });
  EXPECT_TRUE(Has(out, "reserve 1000.1 at=1560 dur=160 slots=500 pe=fill granted=" + granted)) << out;
  tbb::global_control one(tbb::global_control::max_allowed_parallelism, 1);
  EXPECT_EQ(Records(text, true), out);
}

// A host whose slots are all in use at a reservation's start gives its
// room nothing, and the walk passes over it unread; but a host is full only
// while each of its queue instances is: h1's a.q stays busy until 5060, its
// b.q frees up at 1560 with h2's, so the two slots fit at 1560.
TEST(QuotaDispatchTest, AHostIsFullOnlyWhileEachOfItsQueueInstancesIs) {
  const std::string text =
      "schedk-snapshot 1\nnow 1000\nbegin sconf\njob_load_adjustments NONE\nqueue_sort_method seqno\n"
      "max_reservation 10\nend sconf\nbegin exechost h1\nend exechost\nbegin exechost h2\nend exechost\n"
      "begin pe fill\nslots 64\nallocation_rule $fill_up\nend pe\n"
      "begin queue a.q\nhostlist h1\nslots 1\nend queue\n"
      "begin queue b.q\nhostlist h1 h2\nslots 1\npe_list fill\nend queue\n" +
      Set("u", "limit users {*} to slots=10\n") +
      "job 1 owner=u1 submit=800 l_hard=h_rt=4000 state=r start=1000 granted=a.q@h1:1\n"
      "job 2 owner=u1 submit=800 l_hard=h_rt=500 state=r start=1000 granted=b.q@h1:1\n"
      "job 3 owner=u1 submit=800 l_hard=h_rt=500 state=r start=1000 granted=b.q@h2:1\n"
      "job 4 owner=u2 submit=900 l_hard=h_rt=100 R=y pe_name=fill pe_min=2 pe_max=2\n";
  const std::string out = Records(text, true);
  EXPECT_TRUE(Has(out, "reserve 4.1 at=1560 dur=160 slots=2 pe=fill granted=b.q@h1:1,b.q@h2:1")) << out;
}

// A sequential job's walk asks each quota class for its verdict as it meets
// the class's instances, and stops once every class refuses. u1's jobs 2
// and 3 pass over all.q (set q: one slot there) to short.q; job 4 meets set
// t's total of 3 on short.q too, so every class refuses, and the first
// instance in queue order names the limit; u2 is held by none of u1's counters.
TEST(QuotaDispatchTest, ASequentialWalkPassesOverRefusingClassesUntilAllRefuse) {
  const std::string text =
      "schedk-snapshot 1\nnow 1000\nbegin sconf\njob_load_adjustments NONE\nqueue_sort_method seqno\nend sconf\n"
      "begin exechost h1\nend exechost\nbegin exechost h2\nend exechost\n"
      "begin queue all.q\nhostlist h1 h2\nslots 4\nseq_no 0\nend queue\n"
      "begin queue short.q\nhostlist h1 h2\nslots 4\nseq_no 1\nend queue\n" +
      Set("q", "limit users {*} queues all.q to slots=1\n") + Set("t", "limit users {*} to slots=3\n") +
      "job 1 owner=u1 submit=900\njob 2 owner=u1 submit=901\njob 3 owner=u1 submit=902\n"
      "job 4 owner=u1 submit=903\njob 5 owner=u2 submit=904\n";
  const std::string out = Records(text);
  EXPECT_TRUE(Has(out, "start 1.1 at=1000 slots=1 granted=all.q@h1:1")) << out;
  EXPECT_TRUE(Has(out, "start 2.1 at=1000 slots=1 granted=short.q@h1:1")) << out;
  EXPECT_TRUE(Has(out, "start 3.1 at=1000 slots=1 granted=short.q@h1:1")) << out;
  EXPECT_TRUE(Has(out,
                  "pending 4.1 reason=rqs:q/1 \"cannot run because it exceeds limit \\\"u1/////\\\" in rule "
                  "\\\"q/1\\\"\""))
      << out;
  EXPECT_TRUE(Has(out, "start 5.1 at=1000 slots=1 granted=all.q@h1:1")) << out;
}

// The `rqs` block: filters as qconf prints them, and what is wrong named at its line.
TEST(QuotaSetReaderTest, FiltersResolveAgainstTheSnapshotsNames) {
  const io::Snapshot s = testing::Load(
      Cluster("begin department staff\nentries u2,@grp\nend department\n"
              "begin hostgroup @two\nhostlist h1 h2\nend hostgroup\n" +
              Set("s", "limit name big users {@staff,!u3} hosts {@two,!h2} to slots=4\nlimit users u* to slots=2\n")) +
      "job 1 owner=u1 submit=900\njob 2 owner=u2 submit=900\njob 3 owner=u3 group=grp submit=900\n"
      "job 4 owner=u4 group=grp submit=900\n");
  ASSERT_EQ(s.cluster.quota_sets.size(), 1u);
  const ResourceQuotaSet& set = s.cluster.quota_sets[0];
  ASSERT_EQ(set.rules.size(), 2u);
  const QuotaRule& big = set.rules[0];
  EXPECT_EQ(big.name, "big");
  EXPECT_TRUE(big.users.expand);
  EXPECT_EQ(big.users.text, "@staff,!u3");
  auto user = [&](const char* name) { return *s.names.users.Find(name); };
  const GroupId grp(*s.names.groups.Find("grp"));
  EXPECT_FALSE(QuotaFilterAdmits(big.users, user("u1")));
  EXPECT_TRUE(QuotaFilterAdmits(big.users, user("u2")));
  EXPECT_FALSE(QuotaFilterAdmits(big.users, user("u3"), grp));  // excluded by name before the group counts
  EXPECT_TRUE(QuotaFilterAdmits(big.users, user("u4"), grp));   // through @grp in staff
  EXPECT_TRUE(QuotaFilterAdmits(big.hosts, *s.names.hosts.Find("h1")));
  EXPECT_FALSE(QuotaFilterAdmits(big.hosts, *s.names.hosts.Find("h2")));
  for (const char* u : {"u1", "u2", "u3", "u4"}) EXPECT_TRUE(QuotaFilterAdmits(set.rules[1].users, user(u))) << u;
  EXPECT_EQ(set.rules[1].limits[0].value, 2);
}

TEST(QuotaSetReaderTest, MistakesAreNamedAtTheirLine) {
  struct Case {
    std::string limit;
    std::string message;
  };
  const Case cases[] = {
      {"limit users u1 to slots=$num_proc\n", "the dynamic limit 'slots=$num_proc' needs an expanded hosts filter"},
      {"limit hosts {@none} to slots=1\n", "unknown hostgroup '@none'"},
      {"limit users {@nobody} to slots=1\n", "unknown userset '@nobody'"},
      {"limit users u1 to\n", "expected 'to <attribute>=<limit>,...' at the end"},
      {"limit users u1 to nothing=1\n", "unknown complex attribute 'nothing'"},
      {"limit users u1 to slots=many\n", "malformed limit 'slots=many'"},
      {"limit people u1 to slots=1\n", "expected name, users, projects, pes, queues, hosts or to, not 'people'"},
      {"limit users {u1 to slots=1\n", "unterminated '{'"},
  };
  for (const Case& c : cases) {
    const std::string text = Cluster(Set("s", c.limit)) + "job 1 owner=u1 submit=900\n";
    const io::Result<io::Snapshot> read = io::ReadSnapshot(text, "q.snap");
    ASSERT_FALSE(read.ok()) << c.limit;
    EXPECT_NE(read.status().ToString().find("q.snap:26: rqs s: attribute 'limit': " + c.message), std::string::npos)
        << read.status().ToString();
  }
  const io::Result<io::Snapshot> empty = io::ReadSnapshot(Cluster(Set("s", "")), "q.snap");
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.status().ToString().find("q.snap:22: rqs s: a resource quota set needs at least one limit"),
            std::string::npos)
      << empty.status().ToString();
}

}  // namespace
}  // namespace schedk
