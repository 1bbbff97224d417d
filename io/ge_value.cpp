#include "io/ge_value.hpp"

#include <cctype>
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

namespace schedk::io {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
std::optional<double> ParseGeNumberOrOverflow(std::string_view t);

std::optional<double> Multiplier(char c) {
  switch (c) {
    case 'k': return 1e3;
    case 'K': return 1024.0;
    case 'm': return 1e6;
    case 'M': return 1048576.0;
    case 'g': return 1e9;
    case 'G': return 1073741824.0;
    default: return std::nullopt;
  }
}

// [+-]?(digits)(.digits)?([eE][+-]?digits)? with at least one digit; returns its length.
std::size_t DecimalLength(std::string_view t) {
  std::size_t i = 0;
  if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
  std::size_t digits = 0;
  while (i < t.size() && IsDigit(t[i])) ++i, ++digits;
  if (i < t.size() && t[i] == '.') {
    ++i;
    while (i < t.size() && IsDigit(t[i])) ++i, ++digits;
  }
  if (digits == 0) return 0;
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    std::size_t j = i + 1;
    if (j < t.size() && (t[j] == '+' || t[j] == '-')) ++j;
    std::size_t exp_digits = 0;
    while (j < t.size() && IsDigit(t[j])) ++j, ++exp_digits;
    if (exp_digits > 0) i = j;
  }
  return i;
}

// Applies an optional trailing multiplier; everything must be consumed.
std::optional<double> WithSuffix(double value, std::string_view rest) {
  if (rest.empty()) return value;
  if (rest.size() == 1) {
    if (auto m = Multiplier(rest[0])) return value * *m;
  }
  return std::nullopt;
}

std::optional<double> ParseClock(std::string_view t) {
  double fields[3] = {0, 0, 0};
  int field = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= t.size(); ++i) {
    if (i == t.size() || t[i] == ':') {
      if (field > 2) return std::nullopt;
      const std::string_view part = t.substr(start, i - start);
      if (!part.empty()) {
        if (DecimalLength(part) != part.size() || part[0] == '-' || part[0] == '+') return std::nullopt;
        fields[field] = std::strtod(std::string(part).c_str(), nullptr);
      }
      ++field;
      start = i + 1;
    }
  }
  if (field != 3) return std::nullopt;
  return fields[0] * 3600 + fields[1] * 60 + fields[2];
}

std::int64_t DaysFromCivil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

int DaysInMonth(int year, int month) {
  constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  return month == 2 && leap ? 29 : kDays[month - 1];
}

std::optional<int> Digits(std::string_view t, std::size_t pos, std::size_t n) {
  if (pos + n > t.size()) return std::nullopt;
  int v = 0;
  for (std::size_t i = pos; i < pos + n; ++i) {
    if (!IsDigit(t[i])) return std::nullopt;
    v = v * 10 + (t[i] - '0');
  }
  return v;
}

}  // namespace

std::string_view Trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  }
  return true;
}

bool IsNone(std::string_view text) { return text.empty() || EqualsIgnoreCase(text, "NONE"); }

std::vector<std::string_view> SplitList(std::string_view text) {
  std::vector<std::string_view> items;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == ',' || text[i] == ' ' || text[i] == '\t') {
      if (i > start) items.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  if (items.size() == 1 && EqualsIgnoreCase(items[0], "NONE")) items.clear();
  return items;
}

namespace {

std::optional<double> ParseGeNumberOrOverflow(std::string_view t) {
  if (t.empty()) return std::nullopt;
  if (EqualsIgnoreCase(t, "true")) return 1.0;
  if (EqualsIgnoreCase(t, "false")) return 0.0;
  if (EqualsIgnoreCase(t, "infinity")) return DBL_MAX;
  if (t.find(':') != std::string_view::npos) return ParseClock(t);
  if (t.find('.') != std::string_view::npos || t[0] != '0') {
    const std::size_t n = DecimalLength(t);
    if (n == 0) return std::nullopt;
    const double value = std::strtod(std::string(t.substr(0, n)).c_str(), nullptr);
    return WithSuffix(value, t.substr(n));
  }
  // A leading 0 without a decimal point: octal, or hex after 0x.
  std::size_t i = 1;
  unsigned long long value = 0;
  if (t.size() > 2 && (t[1] == 'x' || t[1] == 'X')) {
    i = 2;
    const std::size_t first = i;
    while (i < t.size() && std::isxdigit(static_cast<unsigned char>(t[i]))) {
      const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(t[i])));
      value = value * 16 + static_cast<unsigned>(IsDigit(c) ? c - '0' : c - 'a' + 10);
      ++i;
    }
    if (i == first) return std::nullopt;
  } else {
    while (i < t.size() && t[i] >= '0' && t[i] <= '7') value = value * 8 + static_cast<unsigned>(t[i++] - '0');
  }
  // Beyond 64 bits the digits would wrap around: refused, not wrapped.
  if (t.size() > 2 && (t[1] == 'x' || t[1] == 'X') ? i - 2 > 16 : i - 1 > 21) return std::nullopt;
  return WithSuffix(static_cast<double>(value), t.substr(i));
}

}  // namespace

std::optional<double> ParseGeNumber(std::string_view t) {
  // Values beyond the range of a double (1e309, 1e308G) are refused: Grid
  // Engine spells infinity INFINITY (DBL_MAX), and every number kept is finite.
  const std::optional<double> v = ParseGeNumberOrOverflow(t);
  return v && std::isfinite(*v) ? v : std::nullopt;
}

std::optional<double> ParseTypedNumber(std::string_view text, ValueType type) {
  if (type == ValueType::kBool) {
    if (auto b = ParseBool(text)) return *b ? 1.0 : 0.0;
    return std::nullopt;
  }
  auto v = ParseGeNumber(text);
  if (!v) return std::nullopt;
  if (type == ValueType::kInt && *v != DBL_MAX && std::floor(*v) != *v) return std::nullopt;
  // A time beyond 2^32 - 1 seconds (INFINITY among them) is infinite: the
  // kernel keeps durations as whole seconds and kInfiniteDuration means "no limit".
  if (type == ValueType::kTime && *v > static_cast<double>(kInfiniteDuration)) return static_cast<double>(kInfiniteDuration);
  return v;
}

std::optional<Duration> ParseDuration(std::string_view text) {
  if (EqualsIgnoreCase(text, "infinity")) return kInfiniteDuration;
  auto v = ParseGeNumber(text);
  if (!v || *v < 0 || std::floor(*v) != *v || *v > static_cast<double>(kInfiniteDuration)) return std::nullopt;
  return static_cast<Duration>(*v);
}

std::optional<std::uint64_t> ParseUnsigned(std::string_view text) {
  if (text.empty() || text.size() > 20) return std::nullopt;
  std::uint64_t v = 0;
  for (char c : text) {
    if (!IsDigit(c)) return std::nullopt;
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (v > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) return std::nullopt;  // beyond 2^64 - 1
    v = v * 10 + digit;
  }
  return v;
}

std::optional<std::int64_t> ParseInteger(std::string_view text) {
  bool negative = false;
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) {
    negative = text[0] == '-';
    text.remove_prefix(1);
  }
  auto v = ParseUnsigned(text);
  constexpr auto kMax = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  if (!v || *v > kMax + (negative ? 1 : 0)) return std::nullopt;
  if (negative && *v == kMax + 1) return std::numeric_limits<std::int64_t>::min();
  return negative ? -static_cast<std::int64_t>(*v) : static_cast<std::int64_t>(*v);
}

std::optional<bool> ParseBool(std::string_view t) {
  for (std::string_view yes : {"true", "1", "y", "yes"}) {
    if (EqualsIgnoreCase(t, yes)) return true;
  }
  for (std::string_view no : {"false", "0", "n", "no"}) {
    if (EqualsIgnoreCase(t, no)) return false;
  }
  return std::nullopt;
}

namespace {

std::optional<Time> IfInTimeRange(std::int64_t t) { return InTimeRange(t) ? std::optional<Time>(t) : std::nullopt; }

}  // namespace

std::optional<Time> ParseTime(std::string_view t) {
  if (t.empty()) return std::nullopt;
  if (t.find('-') == std::string_view::npos || t.find('T') == std::string_view::npos) {
    if (auto v = ParseInteger(t)) return IfInTimeRange(*v);
    return std::nullopt;
  }
  // YYYY-MM-DDThh:mm:ss
  auto year = Digits(t, 0, 4), month = Digits(t, 5, 2), day = Digits(t, 8, 2);
  auto hour = Digits(t, 11, 2), minute = Digits(t, 14, 2), second = Digits(t, 17, 2);
  if (!year || !month || !day || !hour || !minute || !second || t.size() < 20 || t[4] != '-' || t[7] != '-' ||
      t[10] != 'T' || t[13] != ':' || t[16] != ':') {
    return std::nullopt;
  }
  if (*month < 1 || *month > 12 || *day < 1 || *day > DaysInMonth(*year, *month) || *hour > 23 || *minute > 59 ||
      *second > 60) {
    return std::nullopt;  // a day that does not exist (2026-02-30) is refused, not rolled over
  }
  std::size_t pos = 19;
  if (pos < t.size() && t[pos] == '.') {  // fractions of a second are dropped
    ++pos;
    const std::size_t first = pos;
    while (pos < t.size() && IsDigit(t[pos])) ++pos;
    if (pos == first) return std::nullopt;
  }
  std::int64_t offset = 0;
  const std::string_view zone = t.substr(pos);
  if (zone == "Z") {
    offset = 0;
  } else if (!zone.empty() && (zone[0] == '+' || zone[0] == '-')) {
    auto zh = Digits(zone, 1, 2);
    std::optional<int> zm;
    if (zone.size() == 6 && zone[3] == ':') zm = Digits(zone, 4, 2);
    else if (zone.size() == 5) zm = Digits(zone, 3, 2);
    if (!zh || !zm || *zh > 23 || *zm > 59) return std::nullopt;
    offset = (*zh * 3600 + *zm * 60) * (zone[0] == '-' ? -1 : 1);
  } else {
    return std::nullopt;  // zone-less times are ambiguous and refused
  }
  const std::int64_t days = DaysFromCivil(*year, static_cast<unsigned>(*month), static_cast<unsigned>(*day));
  return IfInTimeRange(days * 86400 + *hour * 3600 + *minute * 60 + *second - offset);
}

std::vector<std::string_view> SplitWords(std::string_view text) {
  std::vector<std::string_view> words;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    const std::size_t start = i;
    while (i < text.size() && text[i] != ' ' && text[i] != '\t') ++i;
    if (i > start) words.push_back(text.substr(start, i - start));
  }
  return words;
}

}  // namespace schedk::io
