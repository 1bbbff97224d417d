// string_expression.hpp
// Grid Engine's wildcard boolean expressions for string requests
// (sge_eval_expression, complex(5), sge_types(1)): `-l arch="lx*&!*86"` is
// matched against the value a host or queue offers.
//
//   expression := or;  or := and ('|' and)*;  and := simple ('&' simple)*;
//   simple := '!' simple | '(' or ')' | pattern
//
// A pattern runs up to the next `!|&()`, blank or end and is an fnmatch glob
// (`*`, `?`, `[...]`). An expression holding none of `*?[]&|!()` is compared
// as a plain string instead. STRING and RESTRING compare case-sensitively;
// CSTRING and HOST ignore case. Grid Engine's own quirks are kept: the
// tokenizer cuts at `|` before any bracket is closed, so `lx2[4|6]-x86`
// means "lx2[4" or "6]-x86"; `!` applied to a malformed sub-expression
// yields a match, which the error at the top level then overrides.
// Nesting ('(' and '!') deeper than kMaxStringExpressionDepth is an error, so
// the recursive descent's depth never depends on the input; readers refuse
// such requests where they enter (StringExpressionTooDeep).
// Invariant: the result depends only on (type, expression, value).
#pragma once

#include <cstdint>
#include <string_view>

#include "kernel/model/complex.hpp"

namespace schedk {

// sge_eval_expression's tri-state, with its values (0 = match).
enum class ExpressionResult : std::int8_t { kMatch = 0, kNoMatch = 1, kError = -1 };

inline constexpr int kMaxStringExpressionDepth = 64;

ExpressionResult EvaluateStringExpression(ValueType type, std::string_view expression, std::string_view value);

// True when `expression` is to be parsed as an expression (sge_is_expression).
bool IsStringExpression(std::string_view expression);

// True when `expression` nests '(' and '!' deeper than kMaxStringExpressionDepth.
bool StringExpressionTooDeep(std::string_view expression);

}  // namespace schedk
