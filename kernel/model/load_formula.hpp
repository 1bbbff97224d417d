// load_formula.hpp
// sched_conf's load_formula as Grid Engine reads it (scaled_mixed_load in
// sort_hosts.c): the text is cut at every `+` and `-` into terms (a leading
// `-` negates the first); a term is `A` or `A op B` with op one of `* / & | ^`
// (the bit operators work on unsigned 32-bit values), only the first operator
// counts; A and B are numbers or complex attribute names (a `$` prefix is
// ignored). A name the complex does not know never yields a value, so the
// formula gives 9999 (ERROR_LOAD_VAL) for every host.
// Invariant: `terms` is never empty for a formula read from text.
#pragma once

#include <vector>

#include "kernel/types.hpp"

namespace schedk {

// The value a load formula gets when a lookup fails (ERROR_LOAD_VAL): the host sorts last.
inline constexpr double kErrorLoadValue = 9999;

struct LoadFormulaOperand {
  bool is_number = false;
  double number = 0;
  ComplexId attribute;  // None with !is_number: an unknown name
};

struct LoadFormulaTerm {
  bool negative = false;
  LoadFormulaOperand left;
  char op = 0;  // 0: the term is `left` alone
  LoadFormulaOperand right;
};

struct LoadFormula {
  std::vector<LoadFormulaTerm> terms;
};

}  // namespace schedk
