// fuzz_checks.hpp
// Helpers shared by the fuzzers: failing a property (a message on stderr, then
// abort(), which libFuzzer records as a crash with the input), text checks
// for output lines, and running a step under a fixed number of threads.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include <tbb/task_arena.h>

namespace schedk::fuzz {

// At most this many bytes of a text go into a failure message.
inline constexpr std::size_t kShownBytes = 400;

// `text` cut to kShownBytes, with non-printable bytes as \xNN.
inline std::string Shown(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size() && i < kShownBytes; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    }
  }
  if (text.size() > kShownBytes) out += "...(" + std::to_string(text.size()) + " bytes)";
  return out;
}

// Where two texts first differ, with a little of each from the start of that line.
inline std::string FirstDifference(std::string_view a, std::string_view b) {
  std::size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
  const std::size_t line = a.rfind('\n', i == 0 ? 0 : i - 1);
  const std::size_t from = line == std::string_view::npos ? 0 : line + 1;
  return "at byte " + std::to_string(i) + ": " + Shown(a.substr(from, 200)) + " vs " + Shown(b.substr(from, 200));
}

// Reports a failed property and aborts: libFuzzer saves the input as a crash.
[[noreturn]] inline void Fail(std::string_view property, std::string_view detail) {
  std::fprintf(stderr, "\n==FUZZ PROPERTY FAILED== %.*s\n  %.*s\n", static_cast<int>(property.size()),
               property.data(), static_cast<int>(detail.size()), detail.data());
  std::fflush(stderr);
  std::abort();
}

// FUZZ_IGNORE="text,text": properties whose name contains one of the texts
// are not checked, so that a run can look past a known, unfixed class.
inline bool Ignored(std::string_view property) {
  static const std::string ignore = [] {
    const char* e = std::getenv("FUZZ_IGNORE");
    return e == nullptr ? std::string() : std::string(e);
  }();
  std::string_view list = ignore;
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    const std::string_view item = list.substr(0, comma);
    if (!item.empty() && property.find(item) != std::string_view::npos) return true;
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return false;
}

inline void Check(bool ok, std::string_view property, std::string_view detail = {}) {
  if (!ok && !Ignored(property)) Fail(property, detail);
}

// The offset of the first byte that breaks UTF-8 (overlong forms, surrogates
// and code points above U+10FFFF included), or npos when `text` is valid.
inline std::size_t InvalidUtf8At(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::size_t n = 0;
    std::uint32_t cp = 0, min = 0;
    if ((c & 0xE0) == 0xC0) {
      n = 1, cp = c & 0x1F, min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
      n = 2, cp = c & 0x0F, min = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
      n = 3, cp = c & 0x07, min = 0x10000;
    } else {
      return i;
    }
    if (i + n >= text.size()) return i;  // truncated sequence
    for (std::size_t k = 1; k <= n; ++k) {
      const auto d = static_cast<unsigned char>(text[i + k]);
      if ((d & 0xC0) != 0x80) return i;
      cp = (cp << 6) | (d & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return i;
    i += n + 1;
  }
  return std::string_view::npos;
}

// The offset of the first control byte (below 0x20, or DEL) other than the
// allowed ones, or npos.
inline std::size_t ControlByteAt(std::string_view text, std::string_view allowed = {}) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if ((c < 0x20 || c == 0x7f) && allowed.find(static_cast<char>(c)) == std::string_view::npos) return i;
  }
  return std::string_view::npos;
}

// Checks that `line` (one output line, without its newline) is valid UTF-8
// with no control bytes.
inline void CheckCleanLine(std::string_view line, std::string_view what) {
  if (const std::size_t at = InvalidUtf8At(line); at != std::string_view::npos) {
    Check(false, std::string(what) + ": invalid UTF-8", "at byte " + std::to_string(at) + ": " + Shown(line));
  }
  if (const std::size_t at = ControlByteAt(line); at != std::string_view::npos) {
    Check(false, std::string(what) + ": control byte", "at byte " + std::to_string(at) + ": " + Shown(line));
  }
}

// Calls each line of `text` (split at '\n'; a last line without one included).
template <class F>
void ForEachLine(std::string_view text, F&& f) {
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    f(text.substr(0, end));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
}

// Runs f() with oneTBB limited to `threads` threads.
template <class F>
void WithThreads(int threads, F&& f) {
  tbb::task_arena arena(threads);
  arena.execute(f);
}

// The input as text.
inline std::string_view AsText(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace schedk::fuzz
