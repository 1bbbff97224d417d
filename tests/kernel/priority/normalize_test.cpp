// Test vectors T1.1 and T1.4 of sge-algorithms.md §1.
#include "kernel/priority/normalize.hpp"

#include <gtest/gtest.h>

namespace schedk {
namespace {

TEST(NormalizeTest, PosixPriorityUsesTheFixedRange) {  // T1.1
  EXPECT_DOUBLE_EQ(NormalizePosixPriority(-1023), 0.00048828125);
  EXPECT_DOUBLE_EQ(NormalizePosixPriority(-512), 0.25);
  EXPECT_DOUBLE_EQ(NormalizePosixPriority(0), 0.5);
  EXPECT_DOUBLE_EQ(NormalizePosixPriority(512), 0.75);
  EXPECT_DOUBLE_EQ(NormalizePosixPriority(1024), 1.0);
  EXPECT_NEAR(NormalizePosixPriority(100), 0.5488, 1e-4);  // every job at -p 100
}

TEST(NormalizeTest, TicketsNormaliseAgainstZero) {  // T1.4
  const double max = 500000;
  EXPECT_DOUBLE_EQ(NormalizeValue(250000, 0, max), 0.5);
  EXPECT_DOUBLE_EQ(NormalizeValue(500000, 0, max), 1.0);
  EXPECT_NEAR(NormalizeValue(41666.67, 0, max), 0.083333, 1e-6);
  EXPECT_NEAR(NormalizeValue(83333.33, 0, max), 0.166667, 1e-6);
  EXPECT_DOUBLE_EQ(NormalizeValue(1000, 0, 1000), 1.0);  // equal non-zero totals give 1.0
  EXPECT_DOUBLE_EQ(NormalizeValue(0, 0, 0), 0.5);        // no tickets anywhere
}

TEST(NormalizeTest, NarrowRangeGivesOneHalf) {
  EXPECT_DOUBLE_EQ(NormalizeValue(7, 7, 7 + 0.9e-5), 0.5);
  EXPECT_DOUBLE_EQ(NormalizeValue(7, 7, 7 + 2e-5), 0.0);
}

}  // namespace
}  // namespace schedk
