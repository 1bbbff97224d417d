// execution_mode.hpp
// Whether a kernel step runs in parallel (oneTBB, the default) or as its serial
// twin, the plain single-threaded version that tests hold the parallel one to.
#pragma once

#include <cstdint>

namespace schedk {

enum class ExecutionMode : std::uint8_t { kParallel, kSerial };

}  // namespace schedk
