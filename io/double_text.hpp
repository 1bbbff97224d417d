// double_text.hpp
// The shortest decimal text that reads back to the same double, byte for byte
// what std::to_chars(first, last, value) writes: its plain overload, which
// picks fixed or scientific notation, whichever is shorter (fixed on a tie),
// and writes "-0" for -0.0. The writers' JSON numbers and key=value amounts
// are this text, for millions of values a pass.
// WriteShortest takes the digits from Dragonbox (libfmt's, whose own output
// switches notation at other exponents) and lays them out itself;
// WriteShortestReference, its twin and the test oracle, is std::to_chars.
// Magnitudes of 2^53 and more (whose fixed form std::to_chars writes with the
// value's exact digits), infinities and NaNs go to std::to_chars.
// Contract: `out` has room for kShortestRoom chars; the text is at most 24 of
// them, the layout writes whole blocks past its end. Both return its end.
#pragma once

#include <cstddef>

namespace schedk::io {

inline constexpr std::size_t kShortestRoom = 64;

char* WriteShortest(char* out, double value);
char* WriteShortestReference(char* out, double value);

}  // namespace schedk::io
