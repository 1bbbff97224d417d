#include "io/json_text.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>

#include "io/double_text.hpp"

namespace schedk::io {

void AppendJsonNumber(std::string& out, double value) {
  char buffer[kJsonNumberRoom];
  out.append(buffer, WriteJsonNumber(buffer, value));
}

char* WriteJsonNumber(char* out, double value) {
  static_assert(kJsonNumberRoom >= kShortestRoom);
  if (!std::isfinite(value)) {
    std::memcpy(out, "null", 4);
    return out + 4;
  }
  if (value == 0) value = 0;  // no "-0"
  return WriteShortest(out, value);
}

void AppendJsonString(std::string& out, std::string_view value) {
  out += '"';
  for (char c : value) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buffer[8];
          std::snprintf(buffer, sizeof buffer, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
          out += buffer;
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

}  // namespace schedk::io
