// The writers' JSON pieces (io/json_text.hpp), against texts worked out by
// hand from RFC 8259: numbers in std::to_chars's shortest form, null where
// JSON has no number, never "-0"; strings with the escapes JSON requires and
// every other byte (UTF-8 included) as it is.
#include "io/json_text.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

namespace schedk::io {
namespace {

std::string Number(double value) {
  std::string out;
  AppendJsonNumber(out, value);
  return out;
}

std::string String(std::string_view value) {
  std::string out = "x";  // appends after what is there
  AppendJsonString(out, value);
  return out;
}

TEST(JsonTextTest, NumbersAreShortestAndNeverMinusZeroOrNonFinite) {
  EXPECT_EQ(Number(0.6437446263774065), "0.6437446263774065");
  EXPECT_EQ(Number(87158.18), "87158.18");
  EXPECT_EQ(Number(6.799661494848461e-07), "6.799661494848461e-07");
  EXPECT_EQ(Number(-0.0), "0");
  EXPECT_EQ(Number(-2.5), "-2.5");
  EXPECT_EQ(Number(HUGE_VAL), "null");
  EXPECT_EQ(Number(-HUGE_VAL), "null");
  EXPECT_EQ(Number(std::numeric_limits<double>::quiet_NaN()), "null");
  char buffer[kJsonNumberRoom];
  EXPECT_EQ(std::string(buffer, WriteJsonNumber(buffer, 1e-5)), "1e-05");
}

TEST(JsonTextTest, StringsEscapeQuotesBackslashesAndControls) {
  EXPECT_EQ(String("user440"), "x\"user440\"");
  EXPECT_EQ(String(""), "x\"\"");
  EXPECT_EQ(String("a\"b"), "x\"a\\\"b\"");
  EXPECT_EQ(String("a\\b"), "x\"a\\\\b\"");
  EXPECT_EQ(String("l1\nl2\tt\rr"), "x\"l1\\nl2\\tt\\rr\"");
  EXPECT_EQ(String(std::string("\x01z\x1f", 3)), "x\"\\u0001z\\u001f\"");
  EXPECT_EQ(String("gr\xc3\xbc\xc3\x9f"), "x\"gr\xc3\xbc\xc3\x9f\"");  // UTF-8 stays as it is
  EXPECT_EQ(String("\x7f"), "x\"\x7f\"");                            // DEL needs no escape in JSON
}

}  // namespace
}  // namespace schedk::io
