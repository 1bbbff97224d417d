// Test vector T6.1 of sge-algorithms.md §6 (Grid Engine number syntax) and the
// snapshot's time stamps.
#include "io/ge_value.hpp"

#include <gtest/gtest.h>

#include <limits>

#include <cfloat>

namespace schedk::io {
namespace {

TEST(GeValueTest, NumbersWithMultipliers) {  // T6.1
  EXPECT_EQ(*ParseGeNumber("4G"), 4294967296.0);
  EXPECT_EQ(*ParseGeNumber("4g"), 4e9);
  EXPECT_EQ(*ParseGeNumber("512M"), 536870912.0);
  EXPECT_EQ(*ParseGeNumber("1.5K"), 1536.0);
  EXPECT_EQ(*ParseGeNumber("1.5k"), 1500.0);
  EXPECT_EQ(*ParseGeNumber("2k"), 2000.0);
  EXPECT_EQ(*ParseGeNumber("1e3"), 1000.0);
}

TEST(GeValueTest, Times) {
  EXPECT_EQ(*ParseGeNumber("2:00:00"), 7200.0);
  EXPECT_EQ(*ParseGeNumber("0:0:90"), 90.0);
  EXPECT_EQ(*ParseGeNumber("::30"), 30.0);
  EXPECT_EQ(*ParseGeNumber("1:30:00"), 5400.0);
  EXPECT_FALSE(ParseGeNumber("1:30").has_value());
  EXPECT_EQ(*ParseDuration("1:0:0"), 3600);
  EXPECT_EQ(*ParseDuration("INFINITY"), kInfiniteDuration);
  EXPECT_FALSE(ParseDuration("-5").has_value());
}

TEST(GeValueTest, OctalAndHex) {
  EXPECT_EQ(*ParseGeNumber("010"), 8.0);
  EXPECT_EQ(*ParseGeNumber("0x1f"), 31.0);
  EXPECT_EQ(*ParseGeNumber("0"), 0.0);
  EXPECT_FALSE(ParseGeNumber("09").has_value());
}

TEST(GeValueTest, BooleansAndInfinity) {
  EXPECT_EQ(*ParseGeNumber("TRUE"), 1.0);
  EXPECT_EQ(*ParseGeNumber("false"), 0.0);
  EXPECT_EQ(*ParseGeNumber("INFINITY"), DBL_MAX);
  EXPECT_EQ(*ParseTypedNumber("true", ValueType::kBool), 1.0);
  EXPECT_FALSE(ParseTypedNumber("2", ValueType::kBool).has_value());
  EXPECT_FALSE(ParseTypedNumber("1.5", ValueType::kInt).has_value());
}

TEST(GeValueTest, Malformed) {
  for (const char* bad : {"", "abc", "4GB", "1.2.3", "--1", "4 G"}) {
    EXPECT_FALSE(ParseGeNumber(bad).has_value()) << bad;
  }
}

TEST(GeValueTest, TimeStamps) {
  EXPECT_EQ(*ParseTime("1077903416"), 1077903416);
  EXPECT_EQ(*ParseTime("2004-02-27T17:36:56Z"), 1077903416);
  EXPECT_EQ(*ParseTime("2004-02-27T18:36:56+01:00"), 1077903416);
  EXPECT_EQ(*ParseTime("2004-02-27T12:36:56-0500"), 1077903416);
  EXPECT_EQ(*ParseTime("2004-02-27T17:36:56.75Z"), 1077903416);
  EXPECT_FALSE(ParseTime("2004-02-27T17:36:56").has_value());  // no zone: refused
  EXPECT_FALSE(ParseTime("2004-13-27T17:36:56Z").has_value());
  EXPECT_FALSE(ParseTime("yesterday").has_value());
  // Grid Engine's range: unsigned 32-bit seconds, the largest meaning "forever".
  EXPECT_EQ(*ParseTime("0"), 0);
  EXPECT_EQ(*ParseTime("4294967294"), 4294967294);
  EXPECT_FALSE(ParseTime("-1").has_value());
  EXPECT_FALSE(ParseTime("4294967295").has_value());
  EXPECT_FALSE(ParseTime("1969-12-31T23:59:59Z").has_value());
  EXPECT_EQ(*ParseTime("1970-01-01T01:00:00+01:00"), 0);
}

TEST(GeValueTest, IntegersAtTheEdgesOfTheirRange) {
  EXPECT_EQ(*ParseUnsigned("18446744073709551615"), 18446744073709551615ull);
  EXPECT_FALSE(ParseUnsigned("18446744073709551616").has_value());  // 2^64
  EXPECT_FALSE(ParseUnsigned("99999999999999999999").has_value());
  EXPECT_FALSE(ParseUnsigned("100000000000000000000").has_value());
  EXPECT_EQ(*ParseInteger("9223372036854775807"), std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(*ParseInteger("-9223372036854775808"), std::numeric_limits<std::int64_t>::min());
  EXPECT_FALSE(ParseInteger("9223372036854775808").has_value());
  EXPECT_FALSE(ParseInteger("-9223372036854775809").has_value());
  EXPECT_EQ(*ParseInteger("+12"), 12);
  EXPECT_EQ(*ParseInteger("-12"), -12);
}

TEST(GeValueTest, Lists) {
  EXPECT_EQ(SplitList("a,b c").size(), 3u);
  EXPECT_TRUE(SplitList("NONE").empty());
  EXPECT_TRUE(IsNone("none"));
}

}  // namespace
}  // namespace schedk::io
