// proc_status.hpp
// The stress programs' view of their own memory: fields of /proc/self/status
// (VmRSS, VmHWM) in kB, and the reset of the peak (VmHWM) through clear_refs.
#pragma once

#include <cstdlib>
#include <fstream>
#include <string>

namespace schedk::bench {

// The value of `key` ("VmRSS:", "VmHWM:") in kB, or -1 when it is missing.
inline long StatusKb(const char* key) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind(key, 0) == 0) return std::strtol(line.c_str() + std::string(key).size(), nullptr, 10);
  }
  return -1;
}

// Starts VmHWM afresh from the current resident set.
inline void ResetPeak() { std::ofstream("/proc/self/clear_refs") << "5"; }

}  // namespace schedk::bench
