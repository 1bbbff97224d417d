#include "kernel/complex/string_expression.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <cctype>
#include <string>

namespace schedk {
namespace {

enum class Token : std::uint8_t { kNot, kOr, kAnd, kOpen, kClose, kEnd, kPattern, kError };

// `!|&()`, blank and end of text end a pattern; a blank reads as the end.
bool EndsPattern(char c) {
  return c == '!' || c == '|' || c == '&' || c == '(' || c == ')' || c == ' ' || c == '\0';
}
bool IsGlobCharacter(char c) { return c == '*' || c == '?' || c == '[' || c == ']'; }
bool IgnoresCase(ValueType type) { return type == ValueType::kCString || type == ValueType::kHost; }

std::string Lowered(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); });
  return out;
}

// Results use Grid Engine's integers: 0 match, 1 no match, -1 error; `!`
// is C's logical not on them.
class Evaluator {
 public:
  Evaluator(ValueType type, std::string_view expression, std::string value)
      : type_(type), text_(expression), value_(std::move(value)) {}

  int Run() {
    int result = Or(false);
    if (token_ != Token::kEnd || position_ < text_.size()) result = Fail();
    return result;
  }
  bool too_deep() const { return too_deep_; }

 private:
  char At(std::size_t i) const { return i < text_.size() ? text_[i] : '\0'; }

  void Advance(bool skipping) {
    if (token_ == Token::kError) return;
    while (At(position_) == ' ') ++position_;
    const char c = At(position_);
    switch (c) {
      case '\0':
      case ' ':
        token_ = Token::kEnd;
        return;
      case '!':
        token_ = Token::kNot;
        break;
      case '|':
        token_ = Token::kOr;
        break;
      case '&':
        token_ = Token::kAnd;
        break;
      case '(':
        token_ = Token::kOpen;
        break;
      case ')':
        token_ = Token::kClose;
        break;
      default: {
        token_ = Token::kPattern;
        const std::size_t begin = position_;
        while (!EndsPattern(At(position_))) ++position_;
        if (!skipping) {
          pattern_ = std::string(text_.substr(begin, position_ - begin));
          if (IgnoresCase(type_)) pattern_ = Lowered(pattern_);
          pattern_has_glob_ = std::any_of(pattern_.begin(), pattern_.end(), IsGlobCharacter);
        }
        return;
      }
    }
    ++position_;
  }

  int Fail() {
    token_ = Token::kError;
    return -1;
  }

  int Or(bool skipping) {
    Advance(skipping);
    int result = And(skipping);
    while (token_ == Token::kOr) {
      Advance(skipping);
      if (result == 0) {
        And(true);  // already true: the rest is only parsed
      } else {
        result = And(skipping);
      }
    }
    return result;
  }

  int And(bool skipping) {
    int result = Simple(skipping);
    while (token_ == Token::kAnd) {
      Advance(skipping);
      if (result != 0) {
        Simple(true);  // already false (or failed): the rest is only parsed
      } else {
        result = Simple(skipping);
      }
    }
    return result;
  }

  int Simple(bool skipping) {
    switch (token_) {
      case Token::kError:
        return -1;
      case Token::kOpen: {
        if (!Deeper()) return Fail();
        const int result = Or(skipping);
        --depth_;
        if (token_ != Token::kClose) return Fail();
        Advance(skipping);
        return result;
      }
      case Token::kPattern: {
        const int result = skipping ? -1 : MatchPattern();
        Advance(skipping);
        return result;
      }
      case Token::kNot: {
        if (!Deeper()) return Fail();
        Advance(skipping);
        const int result = !Simple(skipping);
        --depth_;
        return result;
      }
      default:
        return Fail();
    }
  }

  // The recursion goes one level deeper for each '(' and '!': past
  // kMaxStringExpressionDepth the expression is an error, not a stack overflow.
  bool Deeper() {
    if (++depth_ <= kMaxStringExpressionDepth) return true;
    too_deep_ = true;
    return false;
  }

  int MatchPattern() const {
    int differs = 0;
    if (pattern_has_glob_) {
      differs = ::fnmatch(pattern_.c_str(), value_.c_str(), 0);
    } else if (IgnoresCase(type_)) {
      differs = pattern_ != value_;  // both lowered already
    } else {
      differs = pattern_ != value_;
    }
    return differs == 0 ? 0 : 1;
  }

  ValueType type_;
  std::string_view text_;
  std::string value_;  // lowered for CSTRING and HOST
  std::size_t position_ = 0;
  Token token_ = Token::kEnd;
  std::string pattern_;
  bool pattern_has_glob_ = false;
  int depth_ = 0;
  bool too_deep_ = false;
};

bool IsStringType(ValueType type) {
  return type == ValueType::kString || type == ValueType::kCString || type == ValueType::kReString ||
         type == ValueType::kHost;
}

}  // namespace

bool IsStringExpression(std::string_view expression) {
  return expression.find_first_of("*?[]&|!()") != std::string_view::npos;
}

bool StringExpressionTooDeep(std::string_view expression) {
  if (!IsStringExpression(expression)) return false;
  Evaluator evaluator(ValueType::kString, expression, std::string());
  evaluator.Run();
  return evaluator.too_deep();
}

ExpressionResult EvaluateStringExpression(ValueType type, std::string_view expression, std::string_view value) {
  if (!IsStringType(type)) return ExpressionResult::kError;
  int result = 0;
  if (IsStringExpression(expression)) {
    result = Evaluator(type, expression, IgnoresCase(type) ? Lowered(value) : std::string(value)).Run();
  } else if (IgnoresCase(type)) {
    result = Lowered(expression) == Lowered(value) ? 0 : 1;
  } else {
    result = expression == value ? 0 : 1;
  }
  return static_cast<ExpressionResult>(result < 0 ? -1 : result);
}

}  // namespace schedk
