// sort_key.hpp
// Order-preserving integer images of doubles, so that sorts over (double, ids)
// tuples compare one 128-bit integer instead of a chain of fields.
// Invariant: for finite a, b: a < b  <=>  AscendingBits(a) < AscendingBits(b),
// and a == b (including 0.0 == -0.0) <=> equal images.
#pragma once

#include <bit>
#include <cstdint>

namespace schedk {

inline std::uint64_t AscendingBits(double value) {
  const std::uint64_t bits = std::bit_cast<std::uint64_t>(value + 0.0);  // + 0.0 turns -0.0 into +0.0
  return (bits >> 63) ? ~bits : bits | (std::uint64_t{1} << 63);
}

// Larger values map to smaller images: sorting ascending gives descending values.
inline std::uint64_t DescendingBits(double value) { return ~AscendingBits(value); }

// The value whose image DescendingBits gave (-0.0 comes back as +0.0).
inline double FromDescendingBits(std::uint64_t image) {
  const std::uint64_t ascending = ~image;
  return std::bit_cast<double>((ascending >> 63) ? ascending & ~(std::uint64_t{1} << 63) : ~ascending);
}

__extension__ using Uint128 = unsigned __int128;

// A 128-bit sort key: `high` compared first, then `low`.
struct SortKey128 {
  std::uint64_t high;
  std::uint64_t low;
  // The key as one integer, which orders keys as operator< does.
  Uint128 wide() const { return (Uint128{high} << 64) | low; }
  friend bool operator<(const SortKey128& a, const SortKey128& b) {
    return a.high != b.high ? a.high < b.high : a.low < b.low;
  }
  friend bool operator==(const SortKey128&, const SortKey128&) = default;
};

// operator< without a branch: one comparison of 128-bit integers (a compare
// and a subtract with borrow).
struct SortKey128Before {
  bool operator()(const SortKey128& a, const SortKey128& b) const { return a.wide() < b.wide(); }
};

}  // namespace schedk
