// AppendFixedAmount (io/schedule_writer.hpp), which prints each monitor line's
// amount: the same characters as printf's %f, which Grid Engine's
// schedd_serf_record_func uses, for every kind of double.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "io/schedule_writer.hpp"

namespace schedk::io {
namespace {

std::string Printf(double amount) {
  char text[512];
  std::snprintf(text, sizeof text, "%f", amount);
  return text;
}

std::string Appended(double amount) {
  std::string out = "x:";  // appends, keeping what is there
  AppendFixedAmount(out, amount);
  return out;
}

TEST(MonitorAmountTest, TheRealCellsAmounts) {
  // As they appear in the cell's MONITOR file (tests/compat).
  EXPECT_EQ(Appended(1), "x:1.000000");
  EXPECT_EQ(Appended(4), "x:4.000000");
  EXPECT_EQ(Appended(1073741824), "x:1073741824.000000");
  EXPECT_EQ(Appended(0.5), "x:0.500000");
}

TEST(MonitorAmountTest, AgreesWithPrintfOnEdgesAndRoundings) {
  const std::vector<double> amounts = {
      0.0,      -0.0,    1.0 / 3,        2.0 / 3, 0.0000005,          0.0000015, 0.0000025, 1e-7,
      -1e-7,    0.1,     123456.7890125, 1e15,    9007199254740993.0, 1e22,      1e300,     DBL_MAX,
      -DBL_MAX, DBL_MIN, DBL_TRUE_MIN,   -2.5,    4294967295.0,       HUGE_VAL,  -HUGE_VAL};
  for (double amount : amounts) EXPECT_EQ(Appended(amount), "x:" + Printf(amount)) << amount;
}

TEST(MonitorAmountTest, AgreesWithPrintfOnRandomDoubles) {
  std::mt19937_64 bits(20261206);
  std::uniform_real_distribution<double> amounts(-1e6, 1e6);
  for (int k = 0; k < 20000; ++k) {
    double any;  // any bit pattern but NaN
    const std::uint64_t pattern = bits();
    std::memcpy(&any, &pattern, sizeof any);
    if (!std::isnan(any)) {
      ASSERT_EQ(Appended(any), "x:" + Printf(any)) << pattern;
    }
    const double near = amounts(bits);
    ASSERT_EQ(Appended(near), "x:" + Printf(near)) << near;
  }
}

}  // namespace
}  // namespace schedk::io
