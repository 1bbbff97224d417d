// Resource quota rule instances, hand-worked from sge_resource_quota(5) and
// Grid Engine 8.1.9's rules (docs/resource-quotas.md): which rule of a set
// applies, the usage keys of expanded filters, exclusions before inclusions,
// missing projects and PEs, JOB consumables at the master queue only, and every
// enabled set applying at once.
#include "kernel/quota/quota_usage.hpp"

#include <gtest/gtest.h>

#include <initializer_list>
#include <random>

namespace schedk {
namespace {

constexpr ComplexId kSlots(0), kLicense(1), kScratch(2), kArch(3);

// slots (INT <= YES YES 1), license (INT <= YES YES 0), scratch (INT <= YES JOB 0), a numeric non-consumable.
ComplexTable Complexes() {
  ComplexTable t;
  t.attributes.resize(4);
  t.attributes[0].consumable = Consumable::kYes;
  t.attributes[0].default_value = 1;
  t.attributes[1].consumable = Consumable::kYes;
  t.attributes[2].consumable = Consumable::kJob;
  t.attributes[3].relop = Relop::kLe;
  t.slots = kSlots;
  return t;
}

// A present filter admitting the ids `in` and refusing `out` (ids < 8).
QuotaFilter Filter(std::initializer_list<std::uint32_t> in, std::initializer_list<std::uint32_t> out = {},
                   bool expand = false) {
  QuotaFilter f;
  f.present = true;
  f.expand = expand;
  f.positive = in.size() > 0;
  f.in.assign(8, 0);
  f.out.assign(8, 0);
  for (std::uint32_t id : in) f.in[id] = 1;
  for (std::uint32_t id : out) f.out[id] = 1;
  return f;
}
// `*` and `{*}`: every id.
QuotaFilter All(bool expand = false) { return Filter({0, 1, 2, 3, 4, 5, 6, 7}, {}, expand); }

// A rule with static limits (attribute, value).
QuotaRule Rule(std::vector<std::pair<ComplexId, double>> limits) {
  QuotaRule r;
  for (const auto& [attribute, value] : limits) {
    QuotaLimit l;
    l.attribute = attribute;
    l.value = value;
    r.limits.push_back(l);
  }
  return r;
}

ResourceQuotaSet Set(std::vector<QuotaRule> rules, bool enabled = true) {
  return ResourceQuotaSet{"set", enabled, std::move(rules)};
}

QuotaSubject Subject(std::uint32_t user, std::uint32_t project = UserId::kNoneValue, std::uint32_t host = 0) {
  return {UserId(user), GroupId(0), ProjectId(project), PeId::None(), QueueId(0), HostId(host)};
}

RequestSet Asking(ComplexValueList hard = {}) {
  RequestSet r;
  r.hard = std::move(hard);
  return r;
}

// `limit users u0 to slots=2` before `limit users * to slots=10`: u0's set rule is the first.
TEST(QuotaUsageTest, TheFirstMatchingRuleOfASetApplies) {
  QuotaRule only_u0 = Rule({{kSlots, 2}});
  only_u0.users = Filter({0});
  QuotaRule everyone = Rule({{kSlots, 10}});
  everyone.users = All();
  const std::vector<ResourceQuotaSet> sets = {Set({only_u0, everyone})};
  EXPECT_EQ(MatchingQuotaRule(sets[0], Subject(0)), 0u);
  EXPECT_EQ(MatchingQuotaRule(sets[0], Subject(1)), 1u);
  const ComplexTable complexes = Complexes();
  QuotaUsage usage(sets, complexes);
  usage.Debit(Subject(0), Asking(), 2, true);
  const auto excess = usage.Excess(Subject(0), Asking(), 1, true);
  ASSERT_TRUE(excess.has_value());
  EXPECT_EQ(excess->instance.rule, 0u);
  EXPECT_FALSE(usage.Excess(Subject(1), Asking(), 10, true).has_value());  // u1 counts under rule 2
  EXPECT_TRUE(usage.Excess(Subject(1), Asking(), 11, true).has_value());
}

// `users {*}` keeps a counter per user (key userA/////); `users *` one for all (/////).
TEST(QuotaUsageTest, AnExpandedFilterKeepsOneCounterPerValue) {
  const ComplexTable complexes = Complexes();
  for (const bool expand : {true, false}) {
    QuotaRule r = Rule({{kSlots, 3}});
    r.users = All(expand);
    const std::vector<ResourceQuotaSet> sets = {Set({r})};
    QuotaUsage usage(sets, complexes);
    usage.Debit(Subject(0), Asking(), 2, true);
    usage.Debit(Subject(1), Asking(), 1, true);
    EXPECT_EQ(usage.instances().size(), expand ? 2u : 1u);
    const QuotaInstance u0 = QuotaInstanceOf(sets, 0, 0, Subject(0));
    EXPECT_EQ(u0.user, expand ? UserId(0) : UserId::None());
    EXPECT_EQ(usage.Used(u0, 0), expand ? 2 : 3);
    // u1 may take 2 more of its own 3, or none of the shared 3.
    EXPECT_EQ(usage.Excess(Subject(1), Asking(), 2, true).has_value(), !expand);
  }
}

// `users @staff,!roland,roland` never matches roland: exclusions win.
TEST(QuotaUsageTest, ExclusionsAreCheckedBeforeInclusions) {
  const QuotaFilter f = Filter({1, 2}, {1});
  EXPECT_FALSE(QuotaFilterAdmits(f, 1));
  EXPECT_TRUE(QuotaFilterAdmits(f, 2));
  EXPECT_FALSE(QuotaFilterAdmits(f, 3));
  // Only exclusions: everything else is admitted.
  EXPECT_TRUE(QuotaFilterAdmits(Filter({}, {1}), 3));
  // Through a userset listing @group: the job's group admits or excludes its owner.
  QuotaFilter by_group = Filter({}, {});
  by_group.positive = true;
  by_group.group_in = {0, 1};
  EXPECT_TRUE(QuotaFilterAdmits(by_group, 5, GroupId(1)));
  EXPECT_FALSE(QuotaFilterAdmits(by_group, 5, GroupId(0)));
  by_group.group_out = {0, 1};
  EXPECT_FALSE(QuotaFilterAdmits(by_group, 5, GroupId(1)));
}

// `projects *` means jobs with a project, `projects !*` jobs without; no
// filter, all. A sequential job's PE is missing the same way.
TEST(QuotaUsageTest, AMissingProjectOrPeMeetsNoEntry) {
  const std::uint32_t none = ProjectId::kNoneValue;
  EXPECT_FALSE(QuotaFilterAdmits(All(), none));
  EXPECT_TRUE(QuotaFilterAdmits(All(), 2));
  const QuotaFilter without = Filter({}, {0, 1, 2, 3, 4, 5, 6, 7});  // !*
  EXPECT_TRUE(QuotaFilterAdmits(without, none));
  EXPECT_FALSE(QuotaFilterAdmits(without, 2));
  EXPECT_TRUE(QuotaFilterAdmits(QuotaFilter{}, none));
  QuotaRule parallel_only = Rule({{kSlots, 1}});
  parallel_only.pes = All();
  const ResourceQuotaSet set = Set({parallel_only});
  EXPECT_FALSE(MatchingQuotaRule(set, Subject(0)).has_value());  // sequential: PE None
  QuotaSubject parallel = Subject(0);
  parallel.pe = PeId(1);
  EXPECT_EQ(MatchingQuotaRule(set, parallel), 0u);
}

// A matching rule whose limits do not concern the request still is the set's
// rule: `users u0 to license=1` shields u0 from `users * to slots=1`.
TEST(QuotaUsageTest, ARuleThatDoesNotConcernTheRequestStillTakesTheMatch) {
  QuotaRule licenses = Rule({{kLicense, 1}});
  licenses.users = Filter({0});
  QuotaRule slots = Rule({{kSlots, 1}});
  slots.users = All();
  const std::vector<ResourceQuotaSet> sets = {Set({licenses, slots})};
  const ComplexTable complexes = Complexes();
  QuotaUsage usage(sets, complexes);
  EXPECT_FALSE(usage.Excess(Subject(0), Asking(), 64, true).has_value());
  EXPECT_TRUE(usage.Excess(Subject(0), Asking({{kLicense, 2, {}}}), 1, true).has_value());
  EXPECT_TRUE(usage.Excess(Subject(1), Asking(), 2, true).has_value());
}

// A per-job consumable counts once, at the master queue instance; a per-slot
// one slots times; a non-consumable limit bounds the request itself.
TEST(QuotaUsageTest, DebitsPerSlotPerJobAndLimitsOnTheRequest) {
  QuotaRule r = Rule({{kSlots, 100}, {kLicense, 100}, {kScratch, 100}, {kArch, 4}});
  r.hosts = All(true);
  const std::vector<ResourceQuotaSet> sets = {Set({r})};
  const ComplexTable complexes = Complexes();
  QuotaUsage usage(sets, complexes);
  const RequestSet asking = Asking({{kLicense, 2, {}}, {kScratch, 3, {}}});
  usage.Debit(Subject(0, UserId::kNoneValue, 0), asking, 4, true);   // master on host 0
  usage.Debit(Subject(0, UserId::kNoneValue, 1), asking, 5, false);  // the rest on host 1
  const QuotaInstance host0 = QuotaInstanceOf(sets, 0, 0, Subject(0, UserId::kNoneValue, 0));
  const QuotaInstance host1 = QuotaInstanceOf(sets, 0, 0, Subject(0, UserId::kNoneValue, 1));
  EXPECT_EQ(host0.host, HostId(0));
  EXPECT_EQ(usage.Used(host0, 0), 4);
  EXPECT_EQ(usage.Used(host0, 1), 8);
  EXPECT_EQ(usage.Used(host0, 2), 3);
  EXPECT_EQ(usage.Used(host1, 0), 5);
  EXPECT_EQ(usage.Used(host1, 1), 10);
  EXPECT_EQ(usage.Used(host1, 2), 0);
  EXPECT_EQ(usage.Used(host0, 3), 0);  // non-consumable: never counted
  const auto too_long = usage.Excess(Subject(0), Asking({{kArch, 5, {}}}), 1, true);
  ASSERT_TRUE(too_long.has_value());
  EXPECT_EQ(too_long->limit, 3u);
  EXPECT_FALSE(usage.Excess(Subject(0), Asking({{kArch, 4, {}}}), 1, true).has_value());
}

// Every enabled set applies; a disabled one limits nothing.
TEST(QuotaUsageTest, EveryEnabledSetApplies) {
  QuotaRule total = Rule({{kSlots, 4}});
  QuotaRule per_user = Rule({{kSlots, 1}});
  per_user.users = All(true);
  const ComplexTable complexes = Complexes();
  for (const bool enabled : {true, false}) {
    const std::vector<ResourceQuotaSet> sets = {Set({total}), Set({per_user}, enabled)};
    QuotaUsage usage(sets, complexes);
    usage.Debit(Subject(0), Asking(), 1, true);
    const auto excess = usage.Excess(Subject(0), Asking(), 1, true);
    ASSERT_EQ(excess.has_value(), enabled);
    if (enabled) {
      EXPECT_EQ(excess->instance.set, 1u);
    }
    EXPECT_FALSE(usage.Excess(Subject(1), Asking(), 1, true).has_value());
    const auto over = usage.Excess(Subject(1), Asking(), 4, true);  // 1 + 4 above the total of 4
    ASSERT_TRUE(over.has_value());
    EXPECT_EQ(over->instance.set, 0u);
  }
}

// DebitAll gives each counter the usage now and the diagram that one Debit
// after another gives (the running tasks' debits go in at once).
TEST(QuotaUsageTest, DebitAllIsEveryDebitInItsOrder) {
  QuotaRule per_user = Rule({{kSlots, 100}, {kLicense, 100}});
  per_user.users = All(true);
  QuotaRule per_host = Rule({{kSlots, 100}});
  per_host.hosts = All(true);
  const std::vector<ResourceQuotaSet> sets = {Set({per_user}), Set({per_host})};
  const ComplexTable complexes = Complexes();
  std::mt19937 rng(11);
  std::vector<QuotaUsage::PendingDebit> debits;
  for (int k = 0; k < 3000; ++k) {
    const std::uint32_t who = rng() % 8;
    const QuotaInstance instance = QuotaInstanceOf(sets, k % 2, 0, Subject(who, UserId::kNoneValue, who));
    const std::uint32_t limit = k % 2 == 0 ? static_cast<std::uint32_t>(rng() % 2) : 0;
    const QuotaWindow window{static_cast<Time>(rng() % 1000), static_cast<Duration>(rng() % 3 == 0 ? 0 : rng() % 500)};
    debits.push_back({instance, limit, 0.1 * static_cast<double>(1 + rng() % 7), window});  // sums depend on the order
  }
  QuotaUsage one_by_one(sets, complexes, {}, true);
  for (const QuotaUsage::PendingDebit& d : debits) one_by_one.Debit(d.instance, d.limit, d.amount, d.window);
  for (const ExecutionMode mode : {ExecutionMode::kSerial, ExecutionMode::kParallel}) {
    QuotaUsage at_once(sets, complexes, {}, true);
    std::vector<const QuotaUsage::PendingDebit*> in_order;
    for (const QuotaUsage::PendingDebit& d : debits) in_order.push_back(&d);
    at_once.DebitAll(in_order, mode);
    ASSERT_EQ(at_once.instances().size(), one_by_one.instances().size());
    for (const auto& [instance, counter] : one_by_one.instances()) {
      const QuotaUsage::Counter* same = at_once.CounterFor(instance);
      ASSERT_NE(same, nullptr);
      EXPECT_EQ(same->now, counter.now);
      ASSERT_EQ(same->over_time.size(), counter.over_time.size());
      for (std::size_t l = 0; l < counter.over_time.size(); ++l) {
        EXPECT_TRUE(same->over_time[l].SameSteps(counter.over_time[l]));
      }
    }
  }
}

// An answer's reads hold until one of its counters is debited or reserved,
// or one of its absent instances gets a counter; other counters may change.
// Its peaks hold for every duration while none rises after the start.
TEST(QuotaUsageTest, ReadsHoldUntilTheirCountersChange) {
  QuotaRule per_user = Rule({{kSlots, 10}});
  per_user.users = All(true);
  const std::vector<ResourceQuotaSet> sets = {Set({per_user})};
  const ComplexTable complexes = Complexes();
  QuotaUsage usage(sets, complexes, {}, true);
  const QuotaInstance u0 = QuotaInstanceOf(sets, 0, 0, Subject(0));
  const QuotaInstance u2 = QuotaInstanceOf(sets, 0, 0, Subject(2));
  usage.Debit(u0, 0, 2, {0, 100});
  const QuotaWindow window{50, 10};
  const std::vector<QuotaLimitKey> u0_slots = {{u0, 0}};
  std::vector<double> peaks(1);
  QuotaReads reads = usage.PeaksOf(u0_slots, window, peaks);
  EXPECT_EQ(peaks[0], 2);
  EXPECT_TRUE(reads.any_duration);  // 2 at 50, and never more after
  usage.Debit(QuotaInstanceOf(sets, 0, 0, Subject(1)), 0, 4, {0, 100});
  EXPECT_TRUE(usage.Unchanged(reads));
  usage.Reserve(u0, 0, 5, {200, 100});
  EXPECT_FALSE(usage.Unchanged(reads));
  EXPECT_FALSE(usage.PeaksOf(u0_slots, window, peaks).any_duration);  // a longer window meets the reservation
  EXPECT_EQ(peaks[0], 2);                                             // this one does not
  EXPECT_EQ(usage.PeaksOf(u0_slots, QuotaWindow{50, 200}, peaks).read.size(), 1u);
  EXPECT_EQ(peaks[0], 5);  // the debit's 2 ends at 100, the reservation's 5 starts at 200
  EXPECT_EQ(usage.PeaksOf(u0_slots, std::nullopt, peaks).read.size(), 1u);
  EXPECT_EQ(peaks[0], 2);  // without a window: the usage now

  const std::vector<QuotaLimitKey> u2_slots = {{u2, 0}};
  QuotaReads none = usage.PeaksOf(u2_slots, window, peaks);
  EXPECT_EQ(peaks[0], 0);
  ASSERT_EQ(none.absent.size(), 1u);
  usage.Debit(QuotaInstanceOf(sets, 0, 0, Subject(3)), 0, 1, {0, 100});  // a counter made, not u2's
  EXPECT_TRUE(usage.Unchanged(none));
  usage.Debit(u2, 0, 1, {0, 100});
  EXPECT_FALSE(usage.Unchanged(none));
}

// Running and suspended tasks' grants are debited; pending rows are not.
TEST(QuotaUsageTest, RunningUsageDebitsEveryGrantOfRunningTasks) {
  Cluster cluster;
  cluster.complexes = Complexes();
  QuotaRule r = Rule({{kSlots, 10}});
  r.users = All(true);
  const std::vector<ResourceQuotaSet> sets = {Set({r})};
  JobTable jobs;
  jobs.request_sets().emplace_back();
  JobShard& shard = jobs.shards()[0];
  shard.Resize(3);
  const JobState states[] = {JobState::kRunning, JobState::kSuspended, JobState::kPending};
  for (std::uint32_t row = 0; row < 3; ++row) {
    shard.number[row] = row + 1;
    shard.state[row] = states[row];
    shard.owner[row] = UserId(row == 2 ? 0 : 1);
    shard.requests[row] = RequestSetId(0);
    if (row == 2) continue;
    JobExtras extras;
    extras.granted = {{QueueId(0), HostId(0), 2}, {QueueId(0), HostId(1), 3}};
    shard.extras_index[row] = static_cast<std::uint32_t>(shard.extras.size());
    shard.extras.push_back(extras);
  }
  const QuotaUsage usage = RunningQuotaUsage(cluster, sets, jobs);
  ASSERT_EQ(usage.instances().size(), 1u);
  EXPECT_EQ(usage.Used(QuotaInstanceOf(sets, 0, 0, Subject(1)), 0), 10);
}

}  // namespace
}  // namespace schedk
