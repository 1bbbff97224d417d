// complex.hpp
// The complex: Grid Engine's table of resource attributes (qconf -sc, complex(5)).
// Each attribute has a value type, a relational operator, whether jobs may or
// must request it, whether it is consumable (per slot, per job or per host), the
// default amount a consumable debits when not requested, and its urgency weight.
// Invariants: names and shortcuts are unique (checked by io/); `slots` is the id
// of the attribute named "slots", or None when the complex has no such row;
// likewise `num_proc`, `h_rt` and `s_rt`.
#pragma once

#include <string>
#include <vector>

#include "kernel/types.hpp"

namespace schedk {

enum class ValueType : std::uint8_t { kInt, kDouble, kTime, kMemory, kBool, kString, kCString, kReString, kHost, kRsmap };
enum class Relop : std::uint8_t { kEq, kNe, kLt, kLe, kGt, kGe, kExcl };
enum class Requestable : std::uint8_t { kNo, kYes, kForced };
enum class Consumable : std::uint8_t { kNo, kYes, kJob, kHost };

// Returns true for the types whose values are compared as numbers (complex(5)).
constexpr bool IsNumeric(ValueType t) {
  return t == ValueType::kInt || t == ValueType::kDouble || t == ValueType::kTime ||
         t == ValueType::kMemory || t == ValueType::kBool || t == ValueType::kRsmap;
}

struct ComplexAttribute {
  ValueType type = ValueType::kInt;
  Relop relop = Relop::kLe;
  Requestable requestable = Requestable::kYes;
  Consumable consumable = Consumable::kNo;
  double default_value = 0;      // numeric types: the parsed default
  std::string default_text;      // string types: the default as written (NONE = empty)
  // urgency: Grid Engine parses the column as a number and drops the
  // contribution when it cannot (centry_urgency_contribution).
  double urgency = 0;
  bool urgency_valid = false;
  // np_* load values are per processor: a job load adjustment of such an
  // attribute is divided by the host's processor count (correct_load).
  bool per_processor = false;
};

struct ComplexTable {
  std::vector<ComplexAttribute> attributes;  // indexed by ComplexId
  ComplexId slots;                           // the "slots" row, if present
  ComplexId num_proc;                        // the "num_proc" row (processors per host), if present
  ComplexId h_rt, s_rt;                      // the run-time limit rows, if present
  ComplexId qname, hostname;                 // a queue instance's built-in names, if present

  const ComplexAttribute& operator[](ComplexId id) const { return attributes[id.index()]; }
  std::size_t size() const { return attributes.size(); }
};

}  // namespace schedk
