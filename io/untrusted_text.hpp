// untrusted_text.hpp
// Text that users control (every `qsub -l` value ends up in a snapshot or a
// session line) as it enters and as messages echo it back:
//   * FindNonText: the contract says input is UTF-8 text, so a reader refuses
//     anything else (invalid sequences, control characters) at its line, and
//     no writer (JSON Lines above all) ever meets an invalid byte sequence;
//   * Quote: the one way a message quotes input: between single quotes, at
//     most kQuoteLimit bytes of it (cut at a character boundary, "..." added),
//     every byte that is not printable ASCII or part of valid UTF-8 written as
//     \xNN, and a backslash as \\. A message therefore has a bounded size
//     whatever the input, and holds no control byte;
//   * PrintableMessage: the same escaping for a whole message, applied where
//     errors leave the process (stderr, protocol replies) as a last guard.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace schedk::io {

inline constexpr std::size_t kQuoteLimit = 60;

// The length of the valid UTF-8 sequence at text[i] (1 to 4), or 0 when the
// bytes there are not one: overlong forms, surrogates and values above
// U+10FFFF are invalid, as RFC 3629 says.
inline std::size_t Utf8SequenceLength(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char c = byte(i);
  if (c < 0x80) return 1;
  std::size_t n = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // the allowed range of the second byte
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (i + n > text.size() || byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  }
  return n;
}

// The offset of the first byte that is not text, or npos: invalid UTF-8, or
// a control character other than tab, newline, and carriage return before a
// newline or at the end. Records join their request lists with 0x1f, and a
// terminal obeys escapes: neither may come from the input. Eight printable
// ASCII bytes are skipped at a time.
inline std::size_t FindNonText(std::string_view text) {
  constexpr std::uint64_t kHigh = 0x8080808080808080ULL, kSpaces = 0x2020202020202020ULL;
  std::size_t i = 0;
  while (i < text.size()) {
    if (i + 8 <= text.size()) {
      std::uint64_t word;
      std::memcpy(&word, text.data() + i, 8);
      if ((((word - kSpaces) & ~word) | word) & kHigh) {
        // a byte below 0x20 or above 0x7f: looked at one by one below
      } else {
        i += 8;
        continue;
      }
    }
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      const std::size_t n = Utf8SequenceLength(text, i);
      if (n == 0) return i;
      i += n;
      continue;
    }
    if (c < 0x20 && c != '\t' && c != '\n' && !(c == '\r' && (i + 1 == text.size() || text[i + 1] == '\n'))) {
      return i;
    }
    ++i;
  }
  return std::string_view::npos;
}

// What FindNonText found at `offset`, for a message: "invalid UTF-8 at byte
// N" or "control character \xNN at byte N", N counted from 1.
inline std::string NonTextMessage(std::string_view text, std::size_t offset) {
  static constexpr char kHex[] = "0123456789abcdef";
  const auto c = static_cast<unsigned char>(text[offset]);
  const std::string at = " at byte " + std::to_string(offset + 1);
  if (c >= 0x80) return "invalid UTF-8" + at;
  return std::string("control character \\x") + kHex[c >> 4] + kHex[c & 15] + at;
}

// Appends `text` with every byte outside printable ASCII and valid UTF-8
// (and, with `backslashes`, every backslash) escaped, stopping before `limit`
// bytes of `text` have been used; returns how many were used.
inline std::size_t AppendEscaped(std::string& out, std::string_view text, std::size_t limit, bool backslashes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    const std::size_t n = c >= 0x80 ? Utf8SequenceLength(text, i) : 1;
    if (i + std::max<std::size_t>(n, 1) > limit) break;
    if (c == '\\' && backslashes) {
      out += "\\\\";
    } else if (n >= 2 || (c >= 0x20 && c < 0x7F)) {
      out.append(text.substr(i, n));
      i += n;
      continue;
    } else {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
    ++i;
  }
  return i;
}

// 'text', escaped, at most kQuoteLimit bytes of it, then "..." if cut.
inline std::string Quote(std::string_view text) {
  std::string out = "'";
  const std::size_t used = AppendEscaped(out, text, kQuoteLimit, true);
  if (used < text.size()) out += "...";
  out += '\'';
  return out;
}

// A whole message with its non-printable bytes escaped (its backslashes are
// kept: quoted parts are escaped already), and cut at `limit` bytes with "..." (a message
// built only from quoted input stays far below it).
inline std::string PrintableMessage(std::string_view message, std::size_t limit = 2000) {
  std::string out;
  const std::size_t used = AppendEscaped(out, message, limit, false);
  if (used < message.size()) out += "...";
  return out;
}

}  // namespace schedk::io
