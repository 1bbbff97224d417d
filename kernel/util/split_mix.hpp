// split_mix.hpp
// SplitMix64: a small, fast random number generator whose sequence is fully
// specified, so that a seed gives the same synthetic population or snapshot on
// every platform (unlike the standard library's distributions).
// Invariant: the sequence depends on the seed only.
#pragma once

#include <cstdint>

namespace schedk {

class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t Next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform enough in [0, n) for synthetic data; 0 when n is 0.
  std::uint64_t Below(std::uint64_t n) { return n == 0 ? 0 : Next() % n; }
  // True with probability p.
  bool Chance(double p) { return static_cast<double>(Next() >> 11) * 0x1.0p-53 < p; }

 private:
  std::uint64_t state_;
};

}  // namespace schedk
