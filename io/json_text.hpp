// json_text.hpp
// The pieces of JSON the writers emit: numbers in the shortest form that reads
// back to the same double (non-finite values as null, never "-0"), and string
// literals with the escapes JSON requires.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace schedk::io {

// Room a JSON number needs at `out` (WriteJsonNumber writes past its text).
inline constexpr std::size_t kJsonNumberRoom = 64;

void AppendJsonNumber(std::string& out, double value);
// AppendJsonNumber's text at `out`, which has kJsonNumberRoom chars; returns its end.
char* WriteJsonNumber(char* out, double value);
void AppendJsonString(std::string& out, std::string_view value);

}  // namespace schedk::io
