// report.hpp
// How the CLI reports a refused input or a warning on stderr, and which exit
// code a Status gives: 2 for bad input (file:line: message), 1 for any other
// failure. Every message leaves through PrintableMessage, so no byte of the
// input that is not printable text reaches the terminal.
#pragma once

#include <cstdio>
#include <vector>

#include "io/status.hpp"
#include "io/untrusted_text.hpp"

namespace schedk::tools {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitBadInput = 2;

inline int Fail(const io::Status& status) {
  std::fprintf(stderr, "schedk: %s\n", io::PrintableMessage(status.ToString()).c_str());
  return status.code() == io::Status::Code::kInvalidInput ? kExitBadInput : kExitFailure;
}

inline void PrintWarning(const io::Warning& warning) {
  std::fprintf(stderr, "schedk: %s\n", io::PrintableMessage(warning.ToString()).c_str());
}

}  // namespace schedk::tools
