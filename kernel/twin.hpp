// twin.hpp
// Which of a step's two implementations runs. Every optimised step has a
// reference twin beside it in its header (named …Reference): the plain
// version, close to Grid Engine's own code, that the tests hold it to. A
// pipeline (ComputePriorities, ScheduleInterval, the replay) takes a Twin and
// hands it to each step that has two; the reference pipeline also runs on one
// thread (ThreadsFor). How many threads a step uses is ExecutionMode's
// business alone (execution_mode.hpp): neither ever changes a result.
#pragma once

#include <cstdint>

#include "kernel/execution_mode.hpp"

namespace schedk {

enum class Twin : std::uint8_t { kOptimised, kReference };

// The threads a pipeline of `twin` runs its steps on: oneTBB's for the
// optimised steps, this thread alone for the reference.
inline ExecutionMode ThreadsFor(Twin twin) {
  return twin == Twin::kOptimised ? ExecutionMode::kParallel : ExecutionMode::kSerial;
}

}  // namespace schedk
