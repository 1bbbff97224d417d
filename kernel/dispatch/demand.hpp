// demand.hpp
// What a job needs from one ledger entry: room for `amount` (per slot, once per
// job, once per host or once per container) and `debit` booked when it runs
// (the same, except for the EXCL entries, where some demands only check and
// others only book). A container is booked once however many of the job's
// queue instances it holds: a host with two of them counts once.
#pragma once

#include <cstdint>

namespace schedk::dispatch_detail {

enum class DemandKind : std::uint8_t {
  kPerSlot,       // consumable YES
  kPerJob,        // consumable JOB: on the master's containers only (and globally)
  kPerHost,       // consumable HOST: once on every host the job uses, on each of its queue instances, once globally
  kPerContainer,  // EXCL: on every container the job uses
};

struct Demand {
  std::uint32_t entry = 0;  // the ledger entry
  double amount = 0;
  double debit = 0;
  DemandKind kind = DemandKind::kPerSlot;
};

}  // namespace schedk::dispatch_detail
