// ge_value.hpp
// Grid Engine's value syntax (sge_parse_num_val, sge_types(1), docs/protocol.md §1.1):
// numbers with the one-letter multipliers k=10^3 K=2^10 m=10^6 M=2^20 g=10^9
// G=2^30; octal and hex when a number starts with 0; h:m:s times with exactly
// two colons and empty fields allowed; TRUE/FALSE; INFINITY; NONE. Also the
// snapshot's time stamps: epoch seconds or ISO-8601 with Z or an offset.
// Every function returns nullopt (or false) on malformed input; callers add
// the place and the attribute to the error.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kernel/model/complex.hpp"
#include "kernel/types.hpp"

namespace schedk::io {

// A number as sge_parse_num_val reads it: true/false, infinity (DBL_MAX), h:m:s,
// decimal with optional multiplier, 0-prefixed octal/hex. The whole string must be used.
std::optional<double> ParseGeNumber(std::string_view text);

// The largest usage value (cpu, mem, io, ...) and consumable request schedk
// takes. Sums of many of them (a share tree adds its users' usage; a parallel
// job debits its request once per slot) then stay finite, which Grid Engine's
// own doubles do not promise.
inline constexpr double kLargestAmount = 1e300;

// A number valid for `type`: INT must be integral; BOOL must be 0 or 1; a
// TIME above kInfiniteDuration seconds (INFINITY too) becomes kInfiniteDuration.
std::optional<double> ParseTypedNumber(std::string_view text, ValueType type);

// A TIME value as a whole number of seconds; INFINITY is kInfiniteDuration.
std::optional<Duration> ParseDuration(std::string_view text);

// An unsigned integer (decimal), e.g. a job number or a share count.
std::optional<std::uint64_t> ParseUnsigned(std::string_view text);
std::optional<std::int64_t> ParseInteger(std::string_view text);

// Grid Engine booleans: TRUE/FALSE, true/false, 1/0, y/n, yes/no.
std::optional<bool> ParseBool(std::string_view text);

// Grid Engine keeps times as unsigned 32-bit seconds; the largest, 2^32 - 1
// (kDiagramForever), means "forever", so the last time it can express is one
// second before (in 2106).
inline constexpr Time kLastTime = std::numeric_limits<std::uint32_t>::max() - 1;
inline bool InTimeRange(std::int64_t t) { return t >= 0 && t <= kLastTime; }

// A point in time: epoch seconds, or ISO-8601 "YYYY-MM-DDThh:mm:ss[.f](Z|+hh:mm|-hh:mm|+hhmm)",
// from 0 (1970) to kLastTime.
std::optional<Time> ParseTime(std::string_view text);

// Returns true for NONE (case-insensitive) or an empty value.
bool IsNone(std::string_view text);

// Splits on commas and blanks, dropping empty items and a lone NONE.
std::vector<std::string_view> SplitList(std::string_view text);

// Splits on blanks and tabs only (the columns of `qconf -sc`, the attributes of a maui.cfg line).
std::vector<std::string_view> SplitWords(std::string_view text);

// Trims blanks and tabs from both ends.
std::string_view Trim(std::string_view text);

bool EqualsIgnoreCase(std::string_view a, std::string_view b);

}  // namespace schedk::io
