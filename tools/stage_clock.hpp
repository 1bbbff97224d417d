// stage_clock.hpp
// `--profile`: the wall time of each stage of a command, the kernel's
// (kernel/stage_profile.hpp) and the command's own (reading the snapshot,
// writing the output), printed to standard error once the command is done,
// one `profile:` line per stage in the order they ran, with the threads
// oneTBB allowed. bench/scaling.py reads these lines.
// Invariant: timing a command changes none of its output.
#pragma once

#include <chrono>
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <tbb/global_control.h>

#include "kernel/stage_profile.hpp"

namespace schedk::tools {

class StageClock {
 public:
  StageClock() = default;
  StageClock(const StageClock&) = delete;  // the listener refers to this clock
  StageClock& operator=(const StageClock&) = delete;
  // The listener to hand the kernel: each stage it enters begins here, kDone stops the clock.
  const StageListener* listener() const { return &listener_; }
  // A stage of the command's own, from here to the next stage or Stop.
  void Begin(std::string_view name) {
    Stop();
    stages_.emplace_back(std::string(name), 0.0);
    began_ = std::chrono::steady_clock::now();
    running_ = true;
  }
  void Stop() {
    if (!running_) return;
    stages_.back().second =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - began_).count();
    running_ = false;
  }
  void Print() const {
    std::fprintf(stderr, "profile: threads %zu\n",
                 tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism));
    for (const auto& [name, ms] : stages_) std::fprintf(stderr, "profile: %-30s %10.1f ms\n", name.c_str(), ms);
  }

 private:
  std::vector<std::pair<std::string, double>> stages_;  // name, wall ms, in the order they ran
  std::chrono::steady_clock::time_point began_;
  bool running_ = false;
  StageListener listener_ = [this](Stage stage) {
    if (stage == Stage::kDone) {
      Stop();
    } else {
      Begin(StageName(stage));
    }
  };
};

}  // namespace schedk::tools
