#include "io/attribute_table.hpp"

#include <cfloat>
#include <cmath>
#include <set>

namespace schedk::io {

const AttributeRow* FindAttributeRow(const AttributeTable& table, std::string_view key) {
  for (const AttributeRow& row : table.rows) {
    if (row.key == key) return &row;
  }
  return nullptr;
}

void AddRows(AttributeTable& table, std::span<const std::string_view> keys, const AttributeHandler& handler) {
  for (std::string_view key : keys) table.rows.push_back({key, handler});
}

Status AttributeError(const Snapshot& s, const ObjectBlock& block, const Attribute& a, const std::string& what) {
  std::string where = block.kind;
  if (!block.name.empty()) where += " " + block.name;
  return Status::InvalidInput(s.source, a.line, where + ": attribute " + Quote(a.key) + ": " + what);
}

Status ApplyAttributeTable(Snapshot& s, const ObjectBlock& block, const AttributeTable& table, const std::string& who) {
  std::set<std::string_view> seen;
  for (const Attribute& a : block.attributes) {
    if (table.repeated == RepeatedKey::kRefused && !seen.insert(a.key).second) {
      return AttributeError(s, block, a, "given twice");
    }
    const AttributeRow* row = FindAttributeRow(table, a.key);
    if (row == nullptr) {
      const std::string message = who + ": unknown attribute " + Quote(a.key) + " kept but not interpreted";
      s.warnings.push_back({s.source, a.line, message});
      continue;
    }
    if (Reason why = row->handler(a)) return AttributeError(s, block, a, *why);
  }
  return Status::Ok();
}

std::string Alternatives(const std::vector<std::string_view>& words) {
  std::string text;
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (i > 0) text += i + 1 == words.size() ? " or " : ", ";
    text += words[i];
  }
  return text;
}

AttributeHandler KeptAsWritten() {
  return [](const Attribute&) -> Reason { return std::nullopt; };
}

AttributeHandler SameAs(std::string name) {
  return [name = std::move(name)](const Attribute& a) -> Reason {
    if (a.value != name) return "does not match the block name";
    return std::nullopt;
  };
}

AttributeHandler TextField(std::string& field) {
  return [&field](const Attribute& a) -> Reason {
    field = a.value;
    return std::nullopt;
  };
}

AttributeHandler RealField(double& field) {
  return [&field](const Attribute& a) -> Reason {
    auto d = ParseGeNumber(a.value);
    if (!d || !std::isfinite(*d) || *d == DBL_MAX) return "expected a number, not " + Quote(a.value);
    field = *d;
    return std::nullopt;
  };
}

AttributeHandler PositiveRealField(double& field) {
  return [&field](const Attribute& a) -> Reason {
    auto d = ParseGeNumber(a.value);
    if (!d || !std::isfinite(*d) || *d <= 0 || *d == DBL_MAX) {
      return "expected a positive number, not " + Quote(a.value);
    }
    field = *d;
    return std::nullopt;
  };
}

AttributeHandler FlagField(bool& field) {
  return [&field](const Attribute& a) -> Reason {
    auto b = ParseBool(a.value);
    if (!b) return "expected TRUE or FALSE, not " + Quote(a.value);
    field = *b;
    return std::nullopt;
  };
}

Reason DurationValue(std::string_view text, Duration& out) {
  auto d = ParseDuration(text);
  if (!d) return "expected a time (seconds, h:m:s or INFINITY), not " + Quote(text);
  out = *d;
  return std::nullopt;
}

AttributeHandler DurationField(Duration& field) { return FieldFrom(field, DurationValue); }

AttributeHandler UsageListField(std::vector<UsageValue>& field, char separator) {
  return [&field, separator](const Attribute& a) -> Reason {
    const std::string_view v = a.value;
    field.clear();
    if (IsNone(v)) return std::nullopt;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= v.size(); ++i) {
      if (i < v.size() && v[i] != separator) continue;
      const std::string_view item = Trim(v.substr(start, i - start));
      start = i + 1;
      const std::size_t eq = item.find('=');
      if (eq == std::string_view::npos) return "expected name=value items, not " + Quote(v);
      auto d = ParseGeNumber(Trim(item.substr(eq + 1)));
      if (!d) return "malformed value in " + Quote(item) + ", not " + Quote(v);
      field.push_back({std::string(Trim(item.substr(0, eq))), *d});
    }
    return std::nullopt;
  };
}

AttributeHandler WithReason(AttributeHandler handler, std::string reason) {
  return [handler = std::move(handler), reason = std::move(reason)](const Attribute& a) -> Reason {
    if (handler(a)) return reason;
    return std::nullopt;
  };
}

}  // namespace schedk::io
