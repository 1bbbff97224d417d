// parallel_environment.hpp
// Parallel environments (qconf -sp, sge_pe(5)): how many slots a PE offers,
// how slots are spread over hosts, and which slot count the urgency policy
// assumes for a job that requests a slot range (urgency_slots).
// Invariant: for AllocationRule::kFixed, `slots_per_host` > 0.
#pragma once

#include <cstdint>
#include <vector>

#include "kernel/types.hpp"

namespace schedk {

enum class AllocationRule : std::uint8_t { kPeSlots, kFillUp, kRoundRobin, kFixed };
enum class UrgencySlots : std::uint8_t { kMin, kMax, kAvg, kFixed };

struct ParallelEnvironment {
  std::uint32_t slots = 0;
  AllocationRule allocation_rule = AllocationRule::kPeSlots;
  std::uint32_t slots_per_host = 0;  // kFixed only
  UrgencySlots urgency_slots = UrgencySlots::kMin;
  std::uint32_t urgency_slots_fixed = 0;  // kFixed only
  bool control_slaves = false;
  bool job_is_first_task = true;
  bool accounting_summary = false;
  std::vector<UsersetId> user_lists;
  std::vector<UsersetId> xuser_lists;
};

}  // namespace schedk
