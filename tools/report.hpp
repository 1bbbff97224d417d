// report.hpp
// How the CLI reports a refused input or a warning on stderr, and which exit
// code a Status gives: 2 for bad input (file:line: message), 1 for any other
// failure. Every message leaves through PrintableMessage, so no byte of the
// input that is not printable text reaches the terminal. Results go to
// standard output through WriteStandardOutput; a failed write is exit code 1.
// A one-shot command over a large snapshot ends through EndOneShot.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string_view>
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

inline void PrintWarnings(const std::vector<io::Warning>& warnings) {
  for (const io::Warning& w : warnings) PrintWarning(w);
}

// A writer's sink for standard output: false once a write fails.
inline bool WriteStandardOutput(std::string_view text) {
  return std::fwrite(text.data(), 1, text.size(), stdout) == text.size();
}

inline int FailStandardOutput() {
  std::fprintf(stderr, "schedk: cannot write to standard output\n");
  return kExitFailure;
}

// Whether this is a sanitizer build (GCC's macros, Clang's features).
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool kSanitized = true;
#elif defined(__has_feature)
inline constexpr bool kSanitized = __has_feature(address_sanitizer) || __has_feature(thread_sanitizer);
#else
inline constexpr bool kSanitized = false;
#endif

// Ends a one-shot command whose output is written and flushed, without
// freeing its snapshot and results: the kernel takes the address space back
// at once, where freeing them block by block unmaps them one at a time, on
// one thread (docs/performance.md, "Scaling to more cores"). Sanitizer builds
// return the code, so that their leak checks still run at exit.
inline int EndOneShot(int code) {
  if constexpr (kSanitized) return code;
  std::fflush(nullptr);
  std::_Exit(code);
}

}  // namespace schedk::tools
