// json_text.hpp
// The pieces of JSON the writers emit: numbers in the shortest form that reads
// back to the same double (non-finite values as null, never "-0"), and string
// literals with the escapes JSON requires.
#pragma once

#include <string>
#include <string_view>

namespace schedk::io {

void AppendJsonNumber(std::string& out, double value);
void AppendJsonString(std::string& out, std::string_view value);

}  // namespace schedk::io
