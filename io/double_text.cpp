#include "io/double_text.hpp"

#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>

// Dragonbox with its full table of powers of ten (about 10 KiB), compiled
// into this file alone: the compressed table costs a multiplication a value.
#define FMT_USE_FULL_CACHE_DRAGONBOX 1
#include <fmt/format.h>

namespace schedk::io {
namespace {

constexpr char kPairs[] =
    "0001020304050607080910111213141516171819202122232425262728293031323334353637383940414243444546474849"
    "5051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899";

constexpr auto kPowersOfTen = [] {
  std::array<std::uint64_t, 20> powers{};
  powers[0] = 1;
  for (std::size_t k = 1; k < powers.size(); ++k) powers[k] = powers[k - 1] * 10;
  return powers;
}();

// 2^53: from here on a double's fixed form is not its shortest digits padded with zeros.
constexpr double kExactIntegers = 9007199254740992.0;

int DigitCount(std::uint64_t v) {
  const int guess = (std::bit_width(v) * 1233) >> 12;  // 1233 / 4096 ~ log10(2)
  return guess + (v >= kPowersOfTen[guess]);
}

// Exactly eight digits of v < 10^8.
void WriteEight(char* out, std::uint32_t v) {
  const std::uint32_t high = v / 10000, low = v % 10000;
  std::memcpy(out, kPairs + 2 * (high / 100), 2);
  std::memcpy(out + 2, kPairs + 2 * (high % 100), 2);
  std::memcpy(out + 4, kPairs + 2 * (low / 100), 2);
  std::memcpy(out + 6, kPairs + 2 * (low % 100), 2);
}

// The scientific form: d.ddde+XX (at least two exponent digits, as printf's %e).
char* WriteScientific(char* out, const char* digits, int count, int exponent) {
  out[0] = digits[0];
  out[1] = '.';
  std::memcpy(out + 2, digits + 1, 16);
  out += count > 1 ? count + 1 : 1;
  out[0] = 'e';
  out[1] = exponent < 0 ? '-' : '+';
  out += 2;
  int magnitude = exponent < 0 ? -exponent : exponent;
  if (magnitude >= 100) {
    *out++ = static_cast<char>('0' + magnitude / 100);
    magnitude %= 100;
  }
  std::memcpy(out, kPairs + 2 * magnitude, 2);
  return out + 2;
}

}  // namespace

char* WriteShortest(char* out, double value) {
  if (value == 0) {
    if (std::signbit(value)) *out++ = '-';
    *out = '0';
    return out + 1;
  }
  if (!(std::fabs(value) < kExactIntegers)) return WriteShortestReference(out, value);
  const auto decimal = fmt::detail::dragonbox::to_decimal(value);  // significand * 10^exponent, no trailing zeros
  const std::uint64_t significand = decimal.significand;
  const int exponent = decimal.exponent;
  *out = '-';
  out += value < 0;
  // The digits right-aligned at [24 - count, 24), zeros after them for the
  // fixed form's padding; every copy below is a whole block inside the buffer.
  char buffer[48];
  const std::uint64_t high = significand / 100000000;
  WriteEight(buffer, static_cast<std::uint32_t>(high / 100000000));
  WriteEight(buffer + 8, static_cast<std::uint32_t>(high % 100000000));
  WriteEight(buffer + 16, static_cast<std::uint32_t>(significand % 100000000));
  std::memset(buffer + 24, '0', 24);
  const int count = DigitCount(significand);
  const char* digits = buffer + 24 - count;
  const int scientific_exponent = exponent + count - 1;
  const int scientific = count + (count > 1) + 2 + (std::abs(scientific_exponent) >= 100 ? 3 : 2);
  const int fixed = exponent >= 0 ? count + exponent : (-exponent < count ? count + 1 : 2 - exponent);
  if (scientific < fixed) return WriteScientific(out, digits, count, scientific_exponent);
  if (exponent >= 0) {  // an integer: its digits and zeros, at most 23 chars (fixed <= scientific)
    std::memcpy(out, digits, 24);
    return out + fixed;
  }
  if (-exponent < count) {  // the point among the digits
    const int whole = count + exponent;
    std::memcpy(out, digits, 16);
    out[whole] = '.';
    std::memcpy(out + whole + 1, digits + whole, 16);
    return out + fixed;
  }
  const int zeros = -exponent - count;  // 0.000ddd, at most 23 chars
  out[0] = '0';
  out[1] = '.';
  std::memset(out + 2, '0', static_cast<std::size_t>(zeros));
  std::memcpy(out + 2 + zeros, digits, 24);
  return out + fixed;
}

char* WriteShortestReference(char* out, double value) { return std::to_chars(out, out + kShortestRoom, value).ptr; }

}  // namespace schedk::io
