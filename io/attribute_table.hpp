// attribute_table.hpp
// Object block attributes declared as tables: one row {key, handler} per
// attribute, where the handler parses the attribute's value text into a field
// of the object being built (capturing the builder where it resolves names:
// projects, usersets, hostgroups, complex attributes) and returns why it
// refused the text, or nullopt. ApplyAttributeTable runs a block through its
// table in file order: a key without a row is kept with a warning, a refusal
// becomes the error naming file, line, block and attribute. Adding an
// attribute is one row, plus its parser where none of the reusable ones here
// fits.
// Invariants: a table spells each key once; a handler writes only the fields
// it was made for and warns, if at all, at its attribute's line; the reasons
// of the parsers here are whole messages that quote the refused text
// (", not '<text>'"), except where WithReason replaces them.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "io/ge_value.hpp"
#include "io/snapshot.hpp"
#include "io/status.hpp"
#include "io/untrusted_text.hpp"

namespace schedk::io {

// Parses the attribute's value into its field. It gets the whole attribute
// for the line a warning names; the key is the row's own.
using AttributeHandler = std::function<Reason(const Attribute& a)>;
// Parses text into `out`; the form per-host values and list items use.
template <class T>
using ValueParser = std::function<Reason(std::string_view text, T& out)>;

struct AttributeRow {
  std::string_view key;  // a string literal
  AttributeHandler handler;
};

// What a block does with a key it gives twice: each object kind keeps the
// rule it has always had (sconf, conf and queue refuse it; the others apply
// every line in order, so a later line wins or, for lists that append, adds).
enum class RepeatedKey : std::uint8_t { kApplied, kRefused };

struct AttributeTable {
  RepeatedKey repeated = RepeatedKey::kApplied;
  std::vector<AttributeRow> rows;
};

// The row for `key`, or nullptr.
const AttributeRow* FindAttributeRow(const AttributeTable& table, std::string_view key);
// Adds one row per key, all with `handler` (keys read alike, such as limits or text kept as written).
void AddRows(AttributeTable& table, std::span<const std::string_view> keys, const AttributeHandler& handler);

// "<kind>[ <name>]: attribute '<key>': <what>" at the attribute's line of s.source.
Status AttributeError(const Snapshot& s, const ObjectBlock& block, const Attribute& a, const std::string& what);

// Runs block's attributes through `table` in file order. A key given twice is
// an error where the table refuses repeats; a key without a row is warned
// about as "<who>: unknown attribute '<key>' kept but not interpreted" (who:
// "<kind> <name>", or the kind alone for the unnamed sconf and conf) and
// skipped; the first refusal is returned as AttributeError. Rows before a
// refusal have written their fields.
Status ApplyAttributeTable(Snapshot& s, const ObjectBlock& block, const AttributeTable& table, const std::string& who);

// --- reusable handlers ----------------------------------------------------------------------------

// Accepts anything: settings Grid Engine's daemons use and the scheduler does not (kept as written).
AttributeHandler KeptAsWritten();
// The block's own name repeated (qname, pe_name, hostname, ...): "does not match the block name" otherwise.
AttributeHandler SameAs(std::string name);
// The text as written.
AttributeHandler TextField(std::string& field);
// A finite Grid Engine number (not INFINITY): "expected a number".
AttributeHandler RealField(double& field);
// The same, above 0.
AttributeHandler PositiveRealField(double& field);
// TRUE or FALSE (ParseBool's spellings): "expected TRUE or FALSE".
AttributeHandler FlagField(bool& field);
// A time: "expected a time (seconds, h:m:s or INFINITY)".
AttributeHandler DurationField(Duration& field);
// "name=value<separator>name=value..." with Grid Engine numbers, or NONE (an empty list).
AttributeHandler UsageListField(std::vector<UsageValue>& field, char separator);
// Replaces the reason `handler` gives by `reason` (sconf's params words their own).
AttributeHandler WithReason(AttributeHandler handler, std::string reason);

// A whole decimal number from 0 to `most`, stored in an integer or (tickets,
// shares) a double field: "expected <expected>".
template <class T>
AttributeHandler CountField(T& field, std::string expected = "a non-negative integer",
                            std::uint64_t most = UINT32_MAX) {
  return [&field, expected = std::move(expected), most](const Attribute& a) -> Reason {
    auto v = ParseUnsigned(a.value);
    if (!v || *v > most) return "expected " + expected + ", not " + Quote(a.value);
    field = static_cast<T>(*v);
    return std::nullopt;
  };
}

// A number of tickets (sconf's weight_tickets_*, auto_user_*).
inline AttributeHandler TicketsField(double& field) {
  return CountField(field, "a non-negative integer number of tickets");
}

// "a, b or c": the words a reason offers.
std::string Alternatives(const std::vector<std::string_view>& words);

// One of `names` (any letter case) to its value: "expected <name>, <name> or <name>".
template <class T>
AttributeHandler EnumField(T& field, std::vector<std::pair<std::string_view, T>> names) {
  std::vector<std::string_view> words;
  for (const auto& name : names) words.push_back(name.first);
  return [&field, names = std::move(names), expected = Alternatives(words)](const Attribute& a) -> Reason {
    for (const auto& [name, value] : names) {
      if (EqualsIgnoreCase(a.value, name)) {
        field = value;
        return std::nullopt;
      }
    }
    return "expected " + expected + ", not " + Quote(a.value);
  };
}

// The value parser `parse` applied to the whole value.
template <class T>
AttributeHandler FieldFrom(T& field, std::type_identity_t<ValueParser<T>> parse) {
  return [&field, parse = std::move(parse)](const Attribute& a) { return parse(a.value, field); };
}

// --- reusable value parsers ----------------------------------------------------------------------

// A time: "expected a time (seconds, h:m:s or INFINITY), not '<text>'".
Reason DurationValue(std::string_view text, Duration& out);

}  // namespace schedk::io
