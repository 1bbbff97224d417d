// damage.hpp
// Seeded damage of text input for the robustness tests: one call drops,
// doubles, swaps or cuts a line, truncates the text, or replaces a token (or
// the value after its '=' or ',') by a hostile one (empty, negative, huge,
// not a number, a separator, a wildcard). The same seed gives the same damage.
#pragma once

#include <iterator>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "kernel/util/split_mix.hpp"

namespace schedk::testing {

inline const char* const kHostileTokens[] = {
    "",         "-1",       "0",          "-0",         "1e309",   "-1e309",  "nan",   "inf",   "INFINITY",
    "NONE",     "TRUE",     "4294967296", "18446744073709551616", "99999999999999999999", "0x10",  "1:2:3:4",
    "::",       "=",        "==",         ",",          "@",       "@/",      "*",     "!",     "(",
    "\\",       "a=b=c",    "1-0",        "5-1:0",      "0-0",     "1.5",     "-5:00", "2G",    "2GG",
    "-2G",      "1k",       "1-",         "#",          "9007199254740992", "10000000", "2147483648"};

inline std::vector<std::string> TextLines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

inline std::string DamagedText(const std::string& text, SplitMix64& rng) {
  std::vector<std::string> lines = TextLines(text);
  if (lines.empty()) return text;
  const std::size_t at = rng.Below(lines.size());
  switch (rng.Below(7)) {
    case 0:  // a line dropped
      lines.erase(lines.begin() + static_cast<std::ptrdiff_t>(at));
      break;
    case 1:  // a line doubled
      lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(at), lines[at]);
      break;
    case 2:  // two lines swapped
      std::swap(lines[at], lines[rng.Below(lines.size())]);
      break;
    case 3:  // a line cut short
      lines[at].resize(rng.Below(lines[at].size() + 1));
      break;
    case 4:  // the text truncated
      return text.substr(0, rng.Below(text.size() + 1));
    default: {  // a token, or the value after its '=' or ',', replaced
      std::string& line = lines[at];
      std::vector<std::size_t> starts;
      for (std::size_t i = 0; i < line.size(); ++i) {
        if (line[i] != ' ' && (i == 0 || line[i - 1] == ' ')) starts.push_back(i);
      }
      if (starts.empty()) break;
      std::size_t begin = starts[rng.Below(starts.size())];
      std::size_t end = line.find(' ', begin);
      if (end == std::string::npos) end = line.size();
      const std::size_t cut = line.find_first_of("=,", begin);
      if (cut < end && rng.Below(2) == 0) begin = cut + 1;
      line.replace(begin, end - begin, kHostileTokens[rng.Below(std::size(kHostileTokens))]);
    }
  }
  std::string out;
  for (const std::string& line : lines) out += line + "\n";
  return out;
}

}  // namespace schedk::testing
