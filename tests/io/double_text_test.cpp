// WriteShortest against its twin, std::to_chars (WriteShortestReference), on
// every kind of double: the values a priority pass prints, every power of two
// and of ten and their neighbours, integers up to and past 2^53, the
// notation switch points, subnormals, and random bit patterns.
#include "io/double_text.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace schedk::io {
namespace {

std::string Shortest(double value) {
  char buffer[kShortestRoom];
  return std::string(buffer, WriteShortest(buffer, value));
}

std::string Reference(double value) {
  char buffer[kShortestRoom];
  return std::string(buffer, WriteShortestReference(buffer, value));
}

// The first few values whose texts differ, or "" if none does.
std::string Differences(const std::vector<double>& values) {
  std::string out;
  int shown = 0;
  for (double v : values) {
    const std::string got = Shortest(v), want = Reference(v);
    if (got != want && shown++ < 5) out += want + " written as " + got + "\n";
  }
  return out;
}

TEST(DoubleTextTest, PrintsWhatToCharsPrints) {
  // Hand-checked texts: the shorter notation wins, fixed on a tie (1200000, 0.0012).
  const std::pair<double, const char*> cases[] = {
      {0.0, "0"},
      {-0.0, "-0"},
      {1.0, "1"},
      {-2.5, "-2.5"},
      {86800, "86800"},
      {100000, "1e+05"},
      {120000, "120000"},
      {1200000, "1200000"},
      {12000000, "1.2e+07"},
      {0.001, "0.001"},
      {0.0012, "0.0012"},
      {0.0001, "1e-04"},
      {0.00001, "1e-05"},
      {0.00012, "0.00012"},
      {1.5e-5, "1.5e-05"},
      {358.18, "358.18"},
      {1e100, "1e+100"},
      {1.25e-300, "1.25e-300"},
      {0.6437446263774065, "0.6437446263774065"},
      {6.799661494848461e-07, "6.799661494848461e-07"},
      {5e-324, "5e-324"},
      {9007199254740991.0, "9007199254740991"},
      {9007199254740992.0, "9007199254740992"},
      {1.2345678901234568e20, "123456789012345683968"},  // past 2^53 fixed prints the exact value
  };
  for (const auto& [value, text] : cases) {
    EXPECT_EQ(Reference(value), text) << value;
    EXPECT_EQ(Shortest(value), text) << value;
  }
}

TEST(DoubleTextTest, PowersAndTheirNeighboursMatchTheTwin) {
  std::vector<double> values;
  for (int k = -1074; k <= 1023; ++k) {
    for (double sign : {1.0, -1.0}) {
      const double p = sign * std::ldexp(1.0, k);
      values.insert(values.end(), {p, std::nextafter(p, 0.0), std::nextafter(p, sign * HUGE_VAL)});
    }
  }
  for (int k = -325; k <= 308; ++k) {
    const double p = std::pow(10.0, k);
    values.insert(values.end(), {p, std::nextafter(p, 0.0), std::nextafter(p, HUGE_VAL), 3 * p, 9.5 * p});
  }
  values.insert(values.end(), {std::numeric_limits<double>::max(), std::numeric_limits<double>::min(),
                               std::numeric_limits<double>::denorm_min(), HUGE_VAL, -HUGE_VAL,
                               std::numeric_limits<double>::quiet_NaN()});
  EXPECT_EQ(Differences(values), "");
}

TEST(DoubleTextTest, RandomValuesMatchTheTwin) {
  std::mt19937_64 random(20261207);
  std::uniform_real_distribution<double> unit(0, 1);
  std::vector<double> values;
  for (int i = 0; i < 300000; ++i) {
    const std::uint64_t bits = random();
    double v;
    std::memcpy(&v, &bits, sizeof v);
    values.push_back(v);                                                       // any exponent
    values.push_back(unit(random) * std::pow(10.0, int(random() % 44) - 22));  // a pass's scales
    values.push_back(static_cast<double>(static_cast<std::int64_t>(random() % 2000001) - 1000000) /
                     std::pow(10.0, int(random() % 9)));                 // few digits
    values.push_back(static_cast<double>(random() >> (random() % 64)));  // integers, past 2^53 too
  }
  EXPECT_EQ(Differences(values), "");
}

}  // namespace
}  // namespace schedk::io
