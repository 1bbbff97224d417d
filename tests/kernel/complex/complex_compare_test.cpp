// Request matching against offered values: sge-algorithms.md §6 T6.2 and T6.3,
// EXCL, and how Grid Engine applies relops to string expressions.
#include "kernel/complex/complex_compare.hpp"

#include <gtest/gtest.h>

namespace schedk {
namespace {

constexpr double kG = 1024.0 * 1024 * 1024;

TEST(ComplexCompareTest, T6_2_Relops) {
  // h_vmem (<=): the queue offers 4G per slot, the job requests 3G.
  EXPECT_TRUE(MatchesNumericOffer(Relop::kLe, 3 * kG, 1, NumericOffer{std::nullopt, 4 * kG}));
  EXPECT_FALSE(MatchesNumericOffer(Relop::kLe, 5 * kG, 1, NumericOffer{std::nullopt, 4 * kG}));
  // np_load_avg (>=): requested 0.8, the host reports 0.5.
  EXPECT_TRUE(MatchesNumericOffer(Relop::kGe, 0.8, 1, NumericOffer{0.5, std::nullopt}));
  EXPECT_FALSE(MatchesNumericOffer(Relop::kGe, 0.4, 1, NumericOffer{0.5, std::nullopt}));
}

TEST(ComplexCompareTest, T6_3_PerJobAgainstRequestTimesSlots) {
  // Consumable mem: host total 8G, 2G used, so 6G left for the whole job.
  const NumericOffer left{6 * kG, std::nullopt};
  EXPECT_TRUE(MatchesNumericOffer(Relop::kLe, 1 * kG, 4, left));   // 4G <= 6G
  EXPECT_FALSE(MatchesNumericOffer(Relop::kLe, 2 * kG, 4, left));  // 8G > 6G
  // With a per-slot limit as well, both must hold.
  EXPECT_FALSE(MatchesNumericOffer(Relop::kLe, 1 * kG, 4, NumericOffer{6 * kG, 0.5 * kG}));
}

TEST(ComplexCompareTest, NumericRelops) {
  EXPECT_TRUE(CompareNumbers(Relop::kEq, 2, 2));
  EXPECT_FALSE(CompareNumbers(Relop::kNe, 2, 2));
  EXPECT_TRUE(CompareNumbers(Relop::kLt, 1, 2));
  EXPECT_FALSE(CompareNumbers(Relop::kGt, 1, 2));
  EXPECT_TRUE(CompareNumbers(Relop::kExcl, 0, 0));  // not requesting exclusivity always fits
  EXPECT_TRUE(CompareNumbers(Relop::kExcl, 1, 1));
  EXPECT_FALSE(CompareNumbers(Relop::kExcl, 1, 0));
}

TEST(ComplexCompareTest, StringRelopsReadTheTriStateAsStrcmp) {
  EXPECT_TRUE(CompareStrings(ValueType::kString, Relop::kEq, "lx*", "lx-amd64"));
  EXPECT_FALSE(CompareStrings(ValueType::kString, Relop::kNe, "lx*", "lx-amd64"));
  EXPECT_TRUE(CompareStrings(ValueType::kString, Relop::kNe, "sol*", "lx-amd64"));
  // >= holds for any well-formed expression, match or not; < only for malformed ones.
  EXPECT_TRUE(CompareStrings(ValueType::kString, Relop::kGe, "sol*", "lx-amd64"));
  EXPECT_FALSE(CompareStrings(ValueType::kString, Relop::kLt, "sol*", "lx-amd64"));
  EXPECT_TRUE(CompareStrings(ValueType::kString, Relop::kLt, "a&", "a"));
  EXPECT_FALSE(CompareStrings(ValueType::kString, Relop::kEq, "a&", "a"));
  EXPECT_TRUE(CompareStrings(ValueType::kString, Relop::kNe, "a&", "a"));
}

}  // namespace
}  // namespace schedk
