// normalize.hpp
// Grid Engine's normalisation of raw priority inputs to [0, 1]
// (sge_normalize_value in sge_urgency.c): min-max scaling, except that a range
// narrower than SGE_EPSILON (1e-5) maps every value to 0.5.
#pragma once

namespace schedk {

inline constexpr double kSgeEpsilon = 1e-5;

// Returns (value - min) / (max - min), or 0.5 when max - min < 1e-5.
inline double NormalizeValue(double value, double min, double max) {
  if (max - min < kSgeEpsilon) return 0.5;
  return (value - min) / (max - min);
}

// npprior: the POSIX priority -1023..1024 is stored as ppri + 1024 and
// normalised over the fixed range 0..2048 (Grid Engine 6.2, since 2004-03).
inline double NormalizePosixPriority(int posix_priority) {
  return NormalizeValue(static_cast<double>(posix_priority + 1024), 0.0, 2048.0);
}

}  // namespace schedk
