// complex_compare.hpp
// Whether an offered attribute value satisfies a request (compare_complexes,
// resource_cmp and string_cmp in sge_complex_schedd.c).
// Numbers hold iff `request RELOP offered`; EXCL holds iff the request is 0 or
// fits. At one level an attribute may offer a per-job amount (a load value or
// what is left of a consumable), compared against request x slots, and a
// per-slot fixed value (complex_values, a queue limit), compared against the
// request alone; where both exist both must hold. Strings go through the
// wildcard expression evaluator, whose tri-state Grid Engine then compares with
// the relop as if it were strcmp's result, so `==` is "matches", `!=` is "does
// not match" (or is malformed) and `>=` holds for everything well formed.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "kernel/model/complex.hpp"

namespace schedk {

// resource_cmp.
bool CompareNumbers(Relop relop, double request, double offered);

// string_cmp over sge_eval_expression.
bool CompareStrings(ValueType type, Relop relop, std::string_view request, std::string_view offered);

// A numeric attribute as one level (global, host or queue) offers it.
struct NumericOffer {
  std::optional<double> per_job;   // compared against request * slots
  std::optional<double> per_slot;  // compared against request
};

// compare_complexes for numeric types in request matching (not thresholds).
bool MatchesNumericOffer(Relop relop, double request, std::uint32_t slots, const NumericOffer& offer);

}  // namespace schedk
