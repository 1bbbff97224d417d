// complex_value.hpp
// A value bound to a complex attribute, as written in complex_values,
// load_values, load_thresholds and job requests: the attribute's id plus the
// value, numeric (already parsed with Grid Engine's number syntax) or textual.
// Invariant: `number` is meaningful for numeric attribute types, `text` for
// string types (STRING, CSTRING, RESTRING, HOST).
#pragma once

#include <string>
#include <vector>

#include "kernel/types.hpp"

namespace schedk {

struct ComplexValue {
  ComplexId complex;
  double number = 0;
  std::string text;
};

using ComplexValueList = std::vector<ComplexValue>;

// The value of `complex` in `values`, or nullptr if the list has none.
inline const ComplexValue* FindValue(const ComplexValueList& values, ComplexId complex) {
  for (const ComplexValue& v : values) {
    if (v.complex == complex) return &v;
  }
  return nullptr;
}

}  // namespace schedk
