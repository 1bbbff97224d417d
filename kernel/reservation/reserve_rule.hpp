// reserve_rule.hpp
// Grid Engine's reservation rule (is_reserve in 8.1.9's select_assign_debit):
// which tasks of the dispatch loop get a reservation search where they cannot
// start. A task does where the scheduler reserves at all (max_reservation > 0),
// fewer reservations than max_reservation were made so far in the interval,
// its job asked for one (-R y), it is not immediate (-now y), and no task of
// its category failed a reservation search in this interval (a category that
// cannot reserve once cannot later in the same interval: nothing is released).
#pragma once

#include <cstdint>

#include "kernel/model/scheduler_config.hpp"

namespace schedk::dispatch_detail {

inline bool MayReserve(const SchedulerConfig& config, std::uint32_t reservations_made, bool requested, bool immediate,
                       bool category_failed_to_reserve) {
  return config.max_reservation > 0 && reservations_made < config.max_reservation && requested && !immediate &&
         !category_failed_to_reserve;
}

}  // namespace schedk::dispatch_detail
