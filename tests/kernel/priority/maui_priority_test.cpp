// Maui's multi-factor priority (kernel/priority/maui_priority) against seed
// 003's own numbers and hand-worked values for every cap, target kind and
// credential fallback.
#include <gtest/gtest.h>

#include <cmath>

#include <tbb/global_control.h>

#include "kernel/priority/maui_priority.hpp"
#include "tests/support/population.hpp"
#include "tests/test_support.hpp"

namespace schedk {
namespace {

using testing::Load;

// A two-host cluster (128 slots, 128G of mem_free) under the Maui policy.
std::string MauiSnapshot(const std::string& maui, const std::string& rest) {
  return "schedk-snapshot 1\nnow 2024-01-01T12:00:00Z\n"
         "begin sconf\nparams PRIORITY_POLICY=maui\nend sconf\n"
         "begin exechost node1\ncomplex_values slots=64,mem_free=64G\nend exechost\n"
         "begin exechost node2\ncomplex_values slots=64,mem_free=64G\nend exechost\n"
         "begin pe mpi\nslots 128\nallocation_rule $fill_up\nend pe\n"
         "begin queue all.q\nhostlist node1 node2\nslots 64\npe_list mpi\nend queue\n"
         "begin queue short.q\nhostlist node1\nslots 8\nend queue\n"
         "begin project physics\nend project\nbegin project chemistry\nend project\n"
         "begin maui\n" + maui + "end maui\n" + rest;
}

// The factors of job `job` (its first row).
MauiFactors FactorsOf(const io::Snapshot& s, JobNumber job) {
  const MauiPriorityContext context(s.cluster, s.jobs);
  const std::vector<RowRole> roles = ClassifyRows(s.jobs);
  const RowIndex index(s.jobs);
  for (std::uint32_t flat = 0; flat < s.jobs.rows(); ++flat) {
    const JobShard& shard = s.jobs.shards()[index.shard(flat)];
    if (shard.number[index.row(flat)] == job) return context.Factors(shard, index.row(flat), roles[flat]);
  }
  ADD_FAILURE() << "no job " << job;
  return {};
}

double Priority(const io::Snapshot& s, JobNumber job = 1) { return FactorsOf(s, job).priority; }

// Job numbers in dispatch order (first task of each row).
std::vector<JobNumber> Order(const io::Snapshot& s, const PriorityResult& r) {
  const RowIndex index(s.jobs);
  std::vector<JobNumber> jobs;
  for (const DispatchEntry& e : r.order) jobs.push_back(s.jobs.shards()[index.shard(e.row)].number[index.row(e.row)]);
  return jobs;
}

constexpr double kFsExample = -25000;

TEST(MauiPriorityTest, SeedFairShareExample) {
  // 100 * (10*5 + 20*0 + 30*(-10) + 40*0 + 0*0): user A 5 below target, group
  // B without a target, account C 10 above, QOS D above its floor, class E 0-weighted.
  auto read = io::ReadSnapshotFile(testing::SourceDir() + "/datasets/maui-fairshare.snap");
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  const io::Snapshot& s = read.value();
  const MauiFactors f = FactorsOf(s, 1);
  EXPECT_DOUBLE_EQ(f.factor[static_cast<std::size_t>(MauiSub::kFsUser)], 5.0);
  EXPECT_DOUBLE_EQ(f.factor[static_cast<std::size_t>(MauiSub::kFsGroup)], 0.0);
  EXPECT_DOUBLE_EQ(f.factor[static_cast<std::size_t>(MauiSub::kFsAccount)], -10.0);
  EXPECT_DOUBLE_EQ(f.factor[static_cast<std::size_t>(MauiSub::kFsQos)], 0.0);
  EXPECT_DOUBLE_EQ(f.factor[static_cast<std::size_t>(MauiSub::kFsClass)], 0.0);
  EXPECT_DOUBLE_EQ(f.Contribution(s.cluster.maui, MauiComponent::kFairShare), kFsExample);
  EXPECT_EQ(f.priority, kFsExample);
}

// The seed's example with other target kinds on the same usage.
std::string FairShareVariant(const std::string& targets, const std::string& extra = "",
                             const std::string& policy = "DEDICATEDPS") {
  return MauiSnapshot("CREDWEIGHT 0\nSERVWEIGHT 0\nRESWEIGHT 0\nFSWEIGHT 100\nFSUSERWEIGHT 10\nFSACCOUNTWEIGHT 30\n"
                      "FSQOSWEIGHT 40\nFSPOLICY " + policy + "\nENABLENEGJOBPRIORITY TRUE\n" + targets + extra,
                      "usage user A dps=45\nusage user other dps=55\n"
                      "usage project physics dps=35\nusage project chemistry dps=65\n"
                      "usage qos D dps=25\nusage qos other dps=75\n"
                      "job 1 owner=A project=physics qos=D submit=2024-01-01T11:00:00Z\n");
}

TEST(MauiPriorityTest, FloorAndCeilingTargets) {
  // A plain QOS target counts above it too: 40 * (10 - 25) adds -600 to the sum.
  EXPECT_EQ(Priority(Load(FairShareVariant("USERCFG[A] FSTARGET=50\nACCOUNTCFG[physics] FSTARGET=25\n"
                                           "QOSCFG[D] FSTARGET=10\n")), 1), 100 * (50 - 300 - 600));
  // A ceiling on the user (usage 45 is under 50) counts nothing; one at 40 counts -5.
  EXPECT_EQ(Priority(Load(FairShareVariant("USERCFG[A] FSTARGET=50-\n"))), 0);
  EXPECT_EQ(Priority(Load(FairShareVariant("USERCFG[A] FSTARGET=40-\n"))), 100 * 10 * -5);
  // A floor on the account (usage 35 over 25) counts nothing; one at 40 counts +5.
  EXPECT_EQ(Priority(Load(FairShareVariant("ACCOUNTCFG[physics] FSTARGET=25+\n"))), 0);
  EXPECT_EQ(Priority(Load(FairShareVariant("ACCOUNTCFG[physics] FSTARGET=40+\n"))), 100 * 30 * 5);
  // A user without a target of its own takes USERCFG[DEFAULT]'s.
  EXPECT_EQ(Priority(Load(FairShareVariant("USERCFG[DEFAULT] FSTARGET=60\n"))), 100 * 10 * 15);
  // FSPOLICY NONE turns fair share off.
  EXPECT_EQ(Priority(Load(FairShareVariant("USERCFG[A] FSTARGET=50\n", "", "NONE"))), 0);
}

TEST(MauiPriorityTest, FairShareCapsBoundTheComponentAndSubcomponents) {
  // User 5 below target: FS = 10*5 = 50 before the cap.
  EXPECT_EQ(Priority(Load(FairShareVariant("USERCFG[A] FSTARGET=50\n", "FSCAP 20\n"))), 100 * 20);
  EXPECT_EQ(Priority(Load(FairShareVariant("USERCFG[A] FSTARGET=50\n", "FSUSERCAP 3\n"))), 100 * 10 * 3);
  // Caps bound from above only (Maui's MIN): a negative component stays.
  EXPECT_EQ(Priority(Load(FairShareVariant("ACCOUNTCFG[physics] FSTARGET=25\n", "FSCAP 20\n"))), 100 * 30 * -10);
}

TEST(MauiPriorityTest, FairShareWindowsDecay) {
  EXPECT_DOUBLE_EQ(FairShareUsage(std::vector<double>{10, 20, 40}, 0.5, 8), 10 + 20 * 0.5 + 40 * 0.25);
  EXPECT_DOUBLE_EQ(FairShareUsage(std::vector<double>{10, 20, 40}, 0.5, 2), 10 + 20 * 0.5);
  EXPECT_DOUBLE_EQ(FairShareUsage({}, 0.5, 8), 0);
  // User A: 30 now and 40 one window back (decay 0.5 -> 50); user B: 50 two
  // windows back stamped one interval ago (three back: 50/8). Total 56.25.
  const io::Snapshot s = Load(MauiSnapshot(
      "CREDWEIGHT 0\nSERVWEIGHT 0\nRESWEIGHT 0\nFSWEIGHT 1\nFSUSERWEIGHT 1000000\nFSPOLICY DEDICATEDPS\n"
      "FSDECAY 0.5\nFSINTERVAL 1:00:00\nENABLENEGJOBPRIORITY TRUE\nUSERCFG[A] FSTARGET=50\n",
      "usage user A dps=30,dps.1=40\nusage user B dps.2=50 at=2024-01-01T10:59:00Z\n"
      "job 1 owner=A submit=2024-01-01T11:00:00Z\n"));
  const double usage_percent = 50.0 / 56.25 * 100.0;
  EXPECT_DOUBLE_EQ(FactorsOf(s, 1).factor[static_cast<std::size_t>(MauiSub::kFsUser)], 50.0 - usage_percent);
  EXPECT_EQ(Priority(s, 1), std::trunc(1000000 * (50.0 - usage_percent)));
}

TEST(MauiPriorityTest, SeedExpansionFactorTable) {
  // XFACTOR = 1 + queue time / wallclock limit, seed 003's table.
  const double hours[] = {1, 2, 4, 8, 16};
  const double one_hour_job[] = {2.00, 3.00, 5.00, 9.00, 17.0};
  const double four_hour_job[] = {1.25, 1.50, 2.00, 3.00, 5.0};
  for (int i = 0; i < 5; ++i) {
    EXPECT_DOUBLE_EQ(ExpansionFactor(hours[i] * 3600, 3600, 0), one_hour_job[i]);
    EXPECT_DOUBLE_EQ(ExpansionFactor(hours[i] * 3600, 4 * 3600, 0), four_hour_job[i]);
  }
  // XFMINWCLIMIT keeps very short jobs from swamping the rest.
  EXPECT_DOUBLE_EQ(ExpansionFactor(3600, 60, 1800), 3.0);
  EXPECT_DOUBLE_EQ(ExpansionFactor(3600, 0, 0), 1.0);  // no limit: no expansion

  // End to end: XFACTORWEIGHT 100, the same ten jobs as the table.
  std::string jobs;
  for (int i = 0; i < 5; ++i) {
    const Time submit = 1704110400 - static_cast<Time>(hours[i] * 3600);
    jobs += "job " + std::to_string(i + 1) + " owner=u l_hard=h_rt=1:0:0 submit=" + std::to_string(submit) + "\n";
    jobs += "job " + std::to_string(i + 6) + " owner=u l_hard=h_rt=4:0:0 submit=" + std::to_string(submit) + "\n";
  }
  const io::Snapshot s = Load(MauiSnapshot("QUEUETIMEWEIGHT 0\nXFACTORWEIGHT 100\n", jobs));
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(Priority(s, static_cast<JobNumber>(i + 1)), 100 * one_hour_job[i]);
    EXPECT_EQ(Priority(s, static_cast<JobNumber>(i + 6)), 100 * four_hour_job[i]);
  }
  // 1700, 900, then pairs of equal priority: the earlier submission first
  // (job 10 at 16 h before job 3 at 4 h, job 9 at 8 h before job 2 at 2 h, ...).
  const PriorityResult r = ComputePriorities(s.cluster, s.jobs);
  EXPECT_EQ(Order(s, r), (std::vector<JobNumber>{5, 4, 10, 3, 9, 2, 8, 1, 7, 6}));
  // XFACTORCAP bounds the subcomponent.
  const io::Snapshot capped = Load(MauiSnapshot("QUEUETIMEWEIGHT 0\nXFACTORWEIGHT 100\nXFACTORCAP 4\n", jobs));
  EXPECT_EQ(Priority(capped, 5), 400);
  EXPECT_EQ(Priority(capped, 6), 125);
  // XFMINWCLIMIT 2:00:00: the 1-hour job after 4 hours counts 1 + 4/2 = 3; the 4-hour job is unchanged.
  const io::Snapshot floored = Load(MauiSnapshot("QUEUETIMEWEIGHT 0\nXFACTORWEIGHT 100\nXFMINWCLIMIT 2:00:00\n", jobs));
  EXPECT_EQ(Priority(floored, 3), 300);
  EXPECT_EQ(Priority(floored, 8), 200);
}

TEST(MauiPriorityTest, SeedCredentialExample) {
  // CREDWEIGHT 1, USERWEIGHT 1, GROUPWEIGHT 1; john 2000, paul -1000, staff 10000.
  const io::Snapshot s = Load(MauiSnapshot(
      "QUEUETIMEWEIGHT 0\nUSERWEIGHT 1\nGROUPWEIGHT 1\nUSERCFG[john] PRIORITY=2000\nUSERCFG[paul] PRIORITY=-1000\n"
      "GROUPCFG[staff] PRIORITY=10000\nUSERCFG[DEFAULT] PRIORITY=5\n",
      "job 1 owner=john group=staff\njob 2 owner=paul group=staff\njob 3 owner=ringo group=staff\n"
      "job 4 owner=paul group=guests\n"));
  EXPECT_EQ(Priority(s, 1), 12000);
  EXPECT_EQ(Priority(s, 2), 9000);
  EXPECT_EQ(Priority(s, 3), 10005);  // no USERCFG of his own: DEFAULT's
  EXPECT_EQ(Priority(s, 4), 1);      // -1000 is clipped to 1 without ENABLENEGJOBPRIORITY
}

TEST(MauiPriorityTest, NegativePriorities) {
  const std::string jobs = "job 1 owner=paul submit=2024-01-01T11:00:00Z\njob 2 owner=john submit=2024-01-01T11:30:00Z\n";
  const std::string cfg = "QUEUETIMEWEIGHT 1\nUSERWEIGHT 1\nUSERCFG[paul] PRIORITY=-1000\n";
  // Clipped: paul's -940 becomes 1, john's 30 stays.
  const io::Snapshot clipped = Load(MauiSnapshot(cfg, jobs));
  EXPECT_EQ(Priority(clipped, 1), 1);
  EXPECT_EQ(Priority(clipped, 2), 30);
  const io::Snapshot negative = Load(MauiSnapshot(cfg + "ENABLENEGJOBPRIORITY TRUE\n", jobs));
  EXPECT_EQ(Priority(negative, 1), -940);
  const PriorityResult r = ComputePriorities(negative.cluster, negative.jobs);
  EXPECT_EQ(r.dispatchable_tasks, 2u);
  EXPECT_EQ(Order(negative, r), (std::vector<JobNumber>{2, 1}));
  // REJECTNEGPRIOJOBS: the negative job is not dispatched at all.
  const io::Snapshot rejected = Load(MauiSnapshot(cfg + "REJECTNEGPRIOJOBS TRUE\n", jobs));
  const PriorityResult rr = ComputePriorities(rejected.cluster, rejected.jobs);
  EXPECT_EQ(rr.dispatchable_tasks, 1u);
  EXPECT_EQ(Order(rejected, rr), (std::vector<JobNumber>{2, 1}));
}

TEST(MauiPriorityTest, QueueTimeWeightsAndTargetsOfTheQos) {
  // Queue time 60 minutes. QOS special adds 5000 to QUEUETIMEWEIGHT (seed 003).
  const std::string jobs = "job 1 owner=u qos=special submit=2024-01-01T11:00:00Z\n"
                           "job 2 owner=u submit=2024-01-01T11:00:00Z\n"
                           "job 3 owner=u qos=urgent submit=2024-01-01T11:00:00Z\n";
  const io::Snapshot s = Load(MauiSnapshot(
      "QOSCFG[special] QTWEIGHT=5000\nTARGETQUEUETIMEWEIGHT 3600000\nQOSCFG[urgent] QTTARGET=2:00:00 PRIORITY=7\n"
      "QOSWEIGHT 1\n", jobs));
  EXPECT_EQ(Priority(s, 1), 5001 * 60);
  EXPECT_EQ(Priority(s, 2), 60);
  // 60 minutes before a 120-minute target: (120 - 60)^-2 * 3600000 = 1000, plus queue time 60 and QOS 7.
  EXPECT_EQ(Priority(s, 3), 1000 + 60 + 7);
  // A missed target stays at its ceiling, 0.0001^-2 (10^8 less a rounding error,
  // so 100000059 after truncation); TARGETQUEUETIMECAP bounds it.
  const std::string late = "job 4 owner=u qos=late submit=2024-01-01T11:00:00Z\n";
  EXPECT_EQ(Priority(Load(MauiSnapshot("TARGETQUEUETIMEWEIGHT 1\nQOSCFG[late] QTTARGET=0:30:00\n", late)), 4),
            std::trunc(std::pow(0.0001, -2.0) + 60));
  EXPECT_EQ(Priority(Load(MauiSnapshot("TARGETQUEUETIMEWEIGHT 1\nTARGETQUEUETIMECAP 5\nQOSCFG[late] QTTARGET=0:30:00\n",
                                       late)), 4),
            5 + 60);
  // XFTARGET: XFACTOR 1 + 60/120 = 1.5 against a target of 2 -> 0.5^-2 = 4.
  const io::Snapshot xf = Load(MauiSnapshot("TARGETXFACTORWEIGHT 25\nQOSCFG[urgent] XFTARGET=2\n",
                                            "job 3 owner=u qos=urgent l_hard=h_rt=2:0:0 submit=2024-01-01T11:00:00Z\n"));
  EXPECT_EQ(Priority(xf, 3), 25 * 4 + 60);
}

TEST(MauiPriorityTest, JobPrioAccrualPolicy) {
  // Submitted two hours ago, eligible one hour ago (released from a hold).
  const std::string job = "job 1 owner=u submit=2024-01-01T10:00:00Z eligible=2024-01-01T11:00:00Z\n"
                          "job 2 owner=u submit=2024-01-01T10:00:00Z state=hqw\n";
  EXPECT_EQ(Priority(Load(MauiSnapshot("", job)), 1), 60);
  EXPECT_EQ(Priority(Load(MauiSnapshot("JOBPRIOACCRUALPOLICY FULLPOLICY\n", job)), 1), 60);
  EXPECT_EQ(Priority(Load(MauiSnapshot("JOBPRIOACCRUALPOLICY ALWAYS\n", job)), 1), 120);
  // A held job accrues nothing under the queue policies, everything under ALWAYS.
  EXPECT_EQ(FactorsOf(Load(MauiSnapshot("", job)), 2).factor[static_cast<std::size_t>(MauiSub::kQueueTime)], 0);
  EXPECT_EQ(Priority(Load(MauiSnapshot("JOBPRIOACCRUALPOLICY ALWAYS\n", job)), 2), 120);
}

TEST(MauiPriorityTest, ResourceFactorsAndProcessorEquivalents) {
  // 32 of 128 processors (25%) and 32 * 2G = 64G of 128G memory (50%): seed
  // 003's example, PE = max(25%, 50%) * 128 = 64. (node1's 72 queue slots
  // count as its 64 processors.)
  const std::string job = "job 1 owner=u pe_name=mpi pe_min=32 pe_max=32 l_hard=mem_free=2G,h_rt=1:0:0\n";
  const io::Snapshot s = Load(MauiSnapshot(
      "QUEUETIMEWEIGHT 0\nNODEWEIGHT 1\nPROCWEIGHT 10\nMEMWEIGHT 1\nPEWEIGHT 1000\nPSWEIGHT 0\nWALLTIMEWEIGHT 0\n", job));
  const MauiFactors f = FactorsOf(s, 1);
  EXPECT_DOUBLE_EQ(f.factor[static_cast<std::size_t>(MauiSub::kNode)], 32);  // $fill_up: at most one slot a host
  EXPECT_DOUBLE_EQ(f.factor[static_cast<std::size_t>(MauiSub::kProc)], 32);
  EXPECT_DOUBLE_EQ(f.factor[static_cast<std::size_t>(MauiSub::kMem)], 65536);
  EXPECT_DOUBLE_EQ(f.factor[static_cast<std::size_t>(MauiSub::kProcSeconds)], 32 * 3600);
  EXPECT_DOUBLE_EQ(f.factor[static_cast<std::size_t>(MauiSub::kProcEquivalent)], 64);
  EXPECT_DOUBLE_EQ(f.factor[static_cast<std::size_t>(MauiSub::kWalltime)], 3600);
  EXPECT_EQ(f.priority, 32 + 320 + 65536 + 64000);
  // RESCAP bounds the component.
  EXPECT_EQ(Priority(Load(MauiSnapshot("QUEUETIMEWEIGHT 0\nPROCWEIGHT 10\nRESCAP 100\n", job)), 1), 100);
}

TEST(MauiPriorityTest, UsageOfRunningJobs) {
  // Running 30 minutes of a 2-hour limit on 4 slots.
  const io::Snapshot s = Load(MauiSnapshot(
      "USAGECONSUMEDWEIGHT 1\nUSAGEREMAININGWEIGHT 2\nUSAGEPERCENTWEIGHT 100\nUSAGEEXECUTIONTIMEWEIGHT 10\n"
      "QUEUETIMEWEIGHT 0\n",
      "job 1 owner=u state=r l_hard=h_rt=2:0:0 submit=2024-01-01T11:00:00Z start=2024-01-01T11:30:00Z "
      "granted=all.q@node1:4\njob 2 owner=u l_hard=h_rt=2:0:0\n"));
  const MauiFactors f = FactorsOf(s, 1);
  EXPECT_DOUBLE_EQ(f.factor[static_cast<std::size_t>(MauiSub::kConsumed)], 4 * 1800);
  EXPECT_DOUBLE_EQ(f.factor[static_cast<std::size_t>(MauiSub::kRemaining)], 4 * 5400);
  EXPECT_DOUBLE_EQ(f.factor[static_cast<std::size_t>(MauiSub::kPercent)], 25);
  EXPECT_DOUBLE_EQ(f.factor[static_cast<std::size_t>(MauiSub::kExecutionTime)], 1800);
  EXPECT_EQ(f.priority, 7200 + 2 * 21600 + 2500 + 18000);
  EXPECT_EQ(Priority(s, 2), 1);  // USAGE counts for running jobs only
}

TEST(MauiPriorityTest, ClassIsTheRequestedQueueAndBypassCounts) {
  const io::Snapshot s = Load(MauiSnapshot(
      "QUEUETIMEWEIGHT 0\nCLASSWEIGHT 1\nCLASSCFG[short.q] PRIORITY=300\nCLASSCFG[DEFAULT] PRIORITY=2\nBYPASSWEIGHT 50\n",
      "job 1 owner=u q_hard=short.q\njob 2 owner=u q_hard=all.q bypass=3\njob 3 owner=u\n"));
  EXPECT_EQ(Priority(s, 1), 300);
  EXPECT_EQ(Priority(s, 2), 2 + 150);
  EXPECT_EQ(Priority(s, 3), 2);
}

struct BadMaui {
  std::string line;
  std::string message;
};

TEST(MauiPriorityTest, MalformedLinesAreErrorsNamingTheLine) {
  const BadMaui cases[] = {
      {"FOOWEIGHT 3", "maui: FOOWEIGHT: unknown Maui parameter"},
      {"CREDWEIGHT many", "maui: CREDWEIGHT: expected a whole number, not 'many'"},
      {"FSCAP -5", "a cap must not be negative"},
      {"USERCFG[x] MAXJOB=4", "unknown credential attribute 'MAXJOB'"},
      {"USERCFG[x] QTWEIGHT=4", "QTWEIGHT is a QOSCFG attribute"},
      {"USERCFG[x] FSTARGET=150", "expected a percentage from 0 to 100"},
      {"USERCFG[x] PRIORITY", "expected ATTRIBUTE=value"},
      {"ACCOUNTCFG[nope] PRIORITY=3", "ACCOUNTCFG[nope]: unknown project"},
      {"CLASSCFG[nope.q] PRIORITY=3", "CLASSCFG[nope.q]: unknown queue"},
      {"FSDEPTH 40", "expected a number of windows from 1 to 32"},
      {"FSPOLICY SOMETIMES", "expected NONE, DEDICATEDPS, DEDICATEDPES or UTILIZEDPS"},
      {"NODECFGX[a] SPEED=2", "unknown credential kind"},
      {"MEMRESOURCE no_such_thing", "expected a complex attribute or NONE"},
  };
  for (const BadMaui& c : cases) {
    const io::Status st = testing::LoadError(MauiSnapshot(c.line + "\n", "job 1 owner=u\n"));
    ASSERT_FALSE(st.ok()) << c.line;
    // The maui block opens on line 29; its first line is 30.
    EXPECT_EQ(st.ToString().rfind("bad.snap:30: ", 0), 0u) << st.ToString();
    EXPECT_NE(st.ToString().find(c.message), std::string::npos) << st.ToString();
  }
  const io::Status twice = testing::LoadError(MauiSnapshot("FSWEIGHT 1\nFSWEIGHT 2\n", "job 1 owner=u\n"));
  EXPECT_EQ(twice.ToString().rfind("bad.snap:31: maui: FSWEIGHT: given twice", 0), 0u) << twice.ToString();
  // Parameters of other Maui subsystems are kept with a warning.
  const io::Snapshot warned = Load(MauiSnapshot("BACKFILLPOLICY FIRSTFIT\n", "job 1 owner=u\n"));
  ASSERT_EQ(warned.warnings.size(), 1u);
  EXPECT_NE(warned.warnings[0].message.find("does not bear on priority"), std::string::npos);
}

TEST(MauiPriorityTest, ParallelPassEqualsItsSerialTwinAndThreadCountsAgree) {
  const io::Snapshot p = GeneratePopulation({.jobs = 120000,
                                             .hosts = 1000,
                                             .users = 10000,
                                             .projects = 100,
                                             .departments = 20,
                                             .array_fraction = 0.05,
                                             .running_tasks = 5000,
                                             .policies = io::PolicyMix::kMaui,  // every component weighted
                                             .random_submit = true});
  const PriorityResult parallel = ComputePriorities(p.cluster, p.jobs, Twin::kOptimised);
  const PriorityResult serial = ComputePriorities(p.cluster, p.jobs, Twin::kReference);
  PriorityResult one;
  {
    tbb::global_control single(tbb::global_control::max_allowed_parallelism, 1);
    one = ComputePriorities(p.cluster, p.jobs);
  }
  ASSERT_GT(parallel.dispatchable_tasks, 100000u);
  for (const PriorityResult* other : {&serial, static_cast<const PriorityResult*>(&one)}) {
    ASSERT_EQ(parallel.order.size(), other->order.size());
    EXPECT_EQ(parallel.dispatchable_tasks, other->dispatchable_tasks);
    for (std::size_t i = 0; i < parallel.order.size(); ++i) {
      ASSERT_EQ(parallel.order[i].row, other->order[i].row) << i;
      ASSERT_EQ(parallel.order[i].task, other->order[i].task) << i;
    }
  }
  // The order really is by priority.
  const MauiPriorityContext context(p.cluster, p.jobs);
  const RowIndex index(p.jobs);
  double previous = kMauiMaxPriority;
  for (std::size_t i = 0; i < parallel.dispatchable_tasks; ++i) {
    const DispatchEntry& e = parallel.order[i];
    const double prio = context.Factors(p.jobs.shards()[index.shard(e.row)], index.row(e.row), RowRole::kDispatchable).priority;
    ASSERT_LE(prio, previous) << i;
    previous = prio;
  }
}

}  // namespace
}  // namespace schedk
