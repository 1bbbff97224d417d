// Test vector T3.6 of sge-algorithms.md §3.4 (usage decay).
#include "kernel/priority/usage_decay.hpp"

#include <gtest/gtest.h>

namespace schedk {
namespace {

TEST(UsageDecayTest, DecayConstants) {
  EXPECT_NEAR(DecayConstant(168 * 60), 0.999931235, 1e-9);
  EXPECT_NEAR(DecayConstant(24 * 60), 0.999518648, 1e-9);
  EXPECT_DOUBLE_EQ(DecayConstant(0), 1.0);
  EXPECT_DOUBLE_EQ(DecayConstant(-1), 0.0);
}

TEST(UsageDecayTest, HalftimeInHours) {
  SchedulerConfig config;
  UsageRecord record{{{"cpu", 1000}}, 1000};
  EXPECT_NEAR(DecayedUsage(record, 1000 + 604800, config)[0].value, 499.988, 1e-3);
  EXPECT_NEAR(DecayedUsage(record, 1000 + 3600, config)[0].value, 995.88, 1e-2);
  config.halftime_hours = 24;
  EXPECT_NEAR(DecayedUsage(record, 1000 + 86400, config)[0].value, 499.917, 1e-3);
}

TEST(UsageDecayTest, FinishedJobsVanishWithoutADecayList) {
  SchedulerConfig config;
  UsageRecord record{{{"finished_jobs", 3}, {"cpu", 10}}, 1000};
  const auto decayed = DecayedUsage(record, 1060, config);
  ASSERT_EQ(decayed.size(), 2u);
  EXPECT_EQ(decayed[0].name, "cpu");  // cpu, mem, io first
  EXPECT_DOUBLE_EQ(decayed[1].value, 0);
  config.halflife_decay_list = {{"cpu", 0}, {"mem", -1}};
  const auto listed = DecayedUsage(UsageRecord{{{"cpu", 10}, {"mem", 5}, {"finished_jobs", 3}}, 1000}, 1060, config);
  EXPECT_DOUBLE_EQ(listed[0].value, 10);  // 0: no decay
  EXPECT_DOUBLE_EQ(listed[1].value, 0);   // -1: only current usage counts
  EXPECT_NEAR(listed[2].value, 3 * DecayConstant(168 * 60), 1e-12);  // not listed: the halftime
}

TEST(UsageDecayTest, UnstampedOrFutureUsageIsNotDecayed) {
  SchedulerConfig config;
  EXPECT_DOUBLE_EQ(DecayedUsage(UsageRecord{{{"cpu", 7}}, 0}, 5000, config)[0].value, 7);
  EXPECT_DOUBLE_EQ(DecayedUsage(UsageRecord{{{"cpu", 7}}, 6000}, 5000, config)[0].value, 7);
}

}  // namespace
}  // namespace schedk
