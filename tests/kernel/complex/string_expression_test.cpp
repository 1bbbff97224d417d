// Wildcard string expressions: the T6.4 vectors of sge-algorithms.md §6, every
// example of complex(5) (seed 001) including its `lx2[4|6]-x86` quirk, and
// Grid Engine's own expression test cases (test_eval_expression.c).
#include "kernel/complex/string_expression.hpp"

#include <gtest/gtest.h>

namespace schedk {
namespace {

constexpr auto kMatch = ExpressionResult::kMatch;
constexpr auto kNoMatch = ExpressionResult::kNoMatch;
constexpr auto kError = ExpressionResult::kError;

ExpressionResult Str(const char* expression, const char* value) {
  return EvaluateStringExpression(ValueType::kString, expression, value);
}
ExpressionResult CStr(const char* expression, const char* value) {
  return EvaluateStringExpression(ValueType::kCString, expression, value);
}
ExpressionResult Host(const char* expression, const char* value) {
  return EvaluateStringExpression(ValueType::kHost, expression, value);
}

TEST(StringExpressionTest, T6_4) {
  EXPECT_EQ(Str("lx*", "lx-amd64"), kMatch);
  EXPECT_EQ(Str("!lx*", "lx-amd64"), kNoMatch);
  EXPECT_EQ(Str("sol*|lx-a*", "lx-amd64"), kMatch);
  EXPECT_EQ(Str("(lx*|sol*)&!*86", "lx-amd64"), kMatch);
  EXPECT_EQ(Str("lx2[4-6]-x86", "lx-amd64"), kNoMatch);
  EXPECT_EQ(CStr("linux", "Linux"), kMatch);
  EXPECT_EQ(Str("linux", "Linux"), kNoMatch);
}

TEST(StringExpressionTest, ComplexManPageExamples) {
  for (const char* v : {"lx24-x86", "lx24-amd64", "sol-sparc", "sol-sparc64", "sol-x86"}) {
    EXPECT_EQ(Str("*x24*|sol*", v), kMatch) << v;
  }
  EXPECT_EQ(Str("*x24*|sol*", "lx26-amd64"), kNoMatch);
  EXPECT_EQ(Str("sol-x??", "sol-x86"), kMatch);
  EXPECT_EQ(Str("sol-x??", "sol-x64"), kMatch);
  EXPECT_EQ(Str("sol-x??", "sol-sparc"), kNoMatch);
  for (const char* v : {"lx22-x86", "lx24-x86", "lx26-x86"}) EXPECT_EQ(Str("lx2[246]-x86", v), kMatch) << v;
  EXPECT_EQ(Str("lx2[246]-x86", "lx25-x86"), kNoMatch);
  for (const char* v : {"lx24-x86", "lx25-x86", "lx26-x86"}) EXPECT_EQ(Str("lx2[4-6]-x86", v), kMatch) << v;
  EXPECT_EQ(Str("lx2[4-6]-x86", "lx22-x86"), kNoMatch);
  for (const char* v : {"lx22-x86", "lx24-x86", "lx25-x86", "lx26-x86"}) {
    EXPECT_EQ(Str("lx2[24-6]-x86", v), kMatch) << v;
  }
  EXPECT_EQ(Str("lx2[24-6]-x86", "lx23-x86"), kNoMatch);
  EXPECT_EQ(Str("!lx24-x86&!sol-sparc", "lx24-x86"), kNoMatch);
  EXPECT_EQ(Str("!lx24-x86&!sol-sparc", "sol-sparc"), kNoMatch);
  EXPECT_EQ(Str("!lx24-x86&!sol-sparc", "lx26-x86"), kMatch);
}

// "results in arch=lx2[4 OR arch=6...": `|` splits the bracket, and each half is
// an fnmatch pattern whose unclosed `[` or stray `]` stands for itself.
TEST(StringExpressionTest, BracketCutByOrIsTheManPageQuirk) {
  EXPECT_EQ(Str("lx2[4|6]-x86", "lx2[4"), kMatch);
  EXPECT_EQ(Str("lx2[4|6]-x86", "6]-x86"), kMatch);
  EXPECT_EQ(Str("lx2[4|6]-x86", "lx24-x86"), kNoMatch);
  EXPECT_EQ(Str("lx2[4|6]-x86", "lx26-x86"), kNoMatch);
}

TEST(StringExpressionTest, GridEngineBooleanCases) {
  EXPECT_EQ(Str("a & b", "a"), kNoMatch);
  EXPECT_EQ(Str("a* & b*", "b"), kNoMatch);
  EXPECT_EQ(Str("a & !b", "a"), kMatch);
  EXPECT_EQ(Str("a* & !b*", "b"), kNoMatch);
  EXPECT_EQ(Str("a", "a"), kMatch);
  EXPECT_EQ(Str("a*", "a"), kMatch);
  EXPECT_EQ(Str("!a & b", "b"), kMatch);
  EXPECT_EQ(Str("!a* & b*", "a"), kNoMatch);
  EXPECT_EQ(Str("(!a & b) | (a & !b)", "a"), kMatch);
  EXPECT_EQ(Str("(!a* & b*) | (a* & !b*)", "b"), kMatch);
  EXPECT_EQ(Str("a | b", "b"), kMatch);
  EXPECT_EQ(Str("!(a | b)", "a"), kNoMatch);
  EXPECT_EQ(Str("(!a | b) & (a | !b)", "a"), kNoMatch);
  EXPECT_EQ(Str("(!a* | b*) & (a* | !b*)", "b"), kNoMatch);
  EXPECT_EQ(Str("a | !b", "b"), kNoMatch);
  EXPECT_EQ(Str("!a | b", "a"), kNoMatch);
  EXPECT_EQ(Str("!(a & b)", "a"), kMatch);
  EXPECT_EQ(Str("!(a* & b*)", "b"), kMatch);
}

TEST(StringExpressionTest, GridEngineCaseAndHostCases) {
  EXPECT_EQ(CStr("solaris", "solaris"), kMatch);
  EXPECT_EQ(CStr("!solaris", "solaris"), kNoMatch);
  EXPECT_EQ(CStr("*amd64&sol*", "sol-amd64"), kMatch);
  EXPECT_EQ(CStr("(sol-*64|linux|hp*)&!sol-sparc", "hp11"), kMatch);
  EXPECT_EQ(CStr("(sol-*64|linux|hp*)&!sol-sparc", "sol-sparc64"), kMatch);
  EXPECT_EQ(CStr("(sol-*64|linux|hp*)&!sol-sparc", "sol-sparc"), kNoMatch);
  EXPECT_EQ(CStr("!(sola*|lin*|hp*)&!sola*&!*sparc64&(!sole*|!lin*|!hp*)", "sol-sparc"), kMatch);
  EXPECT_EQ(CStr("(((test)))", "test"), kMatch);
  EXPECT_EQ(CStr("(((test)&pet*))", "test"), kNoMatch);
  EXPECT_EQ(CStr("a", "A"), kMatch);
  EXPECT_EQ(CStr("A*", "a"), kMatch);
  EXPECT_EQ(CStr("A&B|A", "a"), kMatch);
  EXPECT_EQ(CStr("a*&b*|a*", "A"), kMatch);
  EXPECT_EQ(Host("Latte*", "latte3.czech.sun.com"), kMatch);
  EXPECT_EQ(Host("latte* & !*3.czech.sun.com", "latte3.czech.sun.com"), kNoMatch);
  EXPECT_EQ(Host("Latte* | Mocca*", "latte3.czech.sun.com"), kMatch);
  EXPECT_EQ(Host("NODE01", "node01"), kMatch);  // plain host names compare without case
}

TEST(StringExpressionTest, MalformedExpressionsAreErrors) {
  EXPECT_EQ(Str("(sol-*64|linux|hp*)&!sol-sparc!&", "sol-sparc"), kError);
  EXPECT_EQ(Str("a|b c", "a"), kError);
  EXPECT_EQ(Str("a&", "a"), kError);
  EXPECT_EQ(Str("a|", "a"), kError);
  EXPECT_EQ(Str("a&a&", "a"), kError);
  EXPECT_EQ(Str("a|a|", "a"), kError);
  EXPECT_EQ(Str("(a b c", "a"), kError);
  EXPECT_EQ(Str("a)&b", "a"), kError);
  EXPECT_EQ(Str("(a)&b)|c", "a"), kError);
  // Without any operator or glob character the text is compared as a whole.
  EXPECT_EQ(Str("a b c", "      "), kNoMatch);
  EXPECT_EQ(Str("a b c", "a b c"), kMatch);
  // Only string types have expressions.
  EXPECT_EQ(EvaluateStringExpression(ValueType::kInt, "1", "1"), kError);
}

}  // namespace
}  // namespace schedk
