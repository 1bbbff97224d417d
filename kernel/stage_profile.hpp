// stage_profile.hpp
// The stages of a priority pass and of a scheduling interval, for a caller
// that times them (`schedk schedule --profile`). The kernel reads no clock:
// it tells a listener where each stage begins, and kDone where the call
// returns; a stage lasts until the next call of the listener. Every stage is
// declared once, in kStages, with the name a profile prints.
// Invariants: a listener changes no result; within one call, the stages come
// in kStages' order, each at most once, and kDone last.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>

namespace schedk {

enum class Stage : std::uint8_t {
  // ComputePriorities
  kClassify,
  kTickets,
  kUrgency,
  kTaskOrder,
  // ScheduleInterval
  kIntervalSetup,
  kRunningBookings,
  kQueueList,
  kTaskRows,
  kDispatchLoop,
  kPendingRecords,
  kDone,  // the call returns
};

inline constexpr std::array<std::string_view, static_cast<std::size_t>(Stage::kDone) + 1> kStages = {
    "priorities: classify",
    "priorities: tickets",
    "priorities: urgency",
    "priorities: task order",
    "interval: setup",
    "interval: running bookings",
    "interval: queue list",
    "interval: task rows",
    "interval: dispatch loop",
    "interval: pending records",
    "done",
};

inline std::string_view StageName(Stage stage) { return kStages[static_cast<std::size_t>(stage)]; }

// Called on the calling thread as each stage begins (and with kDone).
using StageListener = std::function<void(Stage)>;

inline void EnterStage(const StageListener* listener, Stage stage) {
  if (listener != nullptr) (*listener)(stage);
}

}  // namespace schedk
