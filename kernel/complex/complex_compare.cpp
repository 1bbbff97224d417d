#include "kernel/complex/complex_compare.hpp"

#include "kernel/complex/string_expression.hpp"

namespace schedk {

bool CompareNumbers(Relop relop, double request, double offered) {
  switch (relop) {
    case Relop::kEq:
      return request == offered;
    case Relop::kNe:
      return request != offered;
    case Relop::kLt:
      return request < offered;
    case Relop::kLe:
      return request <= offered;
    case Relop::kGt:
      return request > offered;
    case Relop::kGe:
      return request >= offered;
    case Relop::kExcl:
      return request == 0 || request <= offered;
  }
  return false;
}

bool CompareStrings(ValueType type, Relop relop, std::string_view request, std::string_view offered) {
  const int result = static_cast<int>(EvaluateStringExpression(type, request, offered));
  switch (relop) {
    case Relop::kEq:
      return result == 0;
    case Relop::kNe:
      return result != 0;
    case Relop::kLt:
      return result < 0;
    case Relop::kLe:
      return result <= 0;
    case Relop::kGt:
      return result > 0;
    case Relop::kGe:
      return result >= 0;
    case Relop::kExcl:
      return false;
  }
  return false;
}

bool MatchesNumericOffer(Relop relop, double request, std::uint32_t slots, const NumericOffer& offer) {
  const bool per_job = !offer.per_job || CompareNumbers(relop, request * slots, *offer.per_job);
  const bool per_slot = !offer.per_slot || CompareNumbers(relop, request, *offer.per_slot);
  return per_job && per_slot;
}

}  // namespace schedk
