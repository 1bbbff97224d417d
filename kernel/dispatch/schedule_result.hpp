// schedule_result.hpp
// What one scheduling interval decided (docs/protocol.md §2.1), with ids only;
// io/ turns it into records. Decisions come in decision order: the dispatch
// order of the interval, then the jobs the loop never examined, then held,
// waiting and error-state jobs in job order. Monitor records are the
// MONITOR `schedule` file's lines in the order Grid Engine writes them:
// running and suspended tasks first, then each start or reservation, per job
// P, G, then per granted queue instance (master first) H and Q, then per
// granted queue instance the L lines of its quota debits.
// Invariant: a decision's grants are grants[grant_begin, grant_end) and its
// monitor lines monitor[monitor_begin, monitor_end).
#pragma once

#include <cstdint>
#include <type_traits>
#include <vector>

#include "kernel/dispatch/resource_ledger.hpp"
#include "kernel/model/resource_quota.hpp"
#include "kernel/types.hpp"
#include "kernel/util/column.hpp"

namespace schedk {

enum class DecisionKind : std::uint8_t { kStart, kReserve, kPending };

// docs/protocol.md's reason codes. `object` in the decision names what the code
// refers to: a complex (kResource, kNever with a resource), a cluster queue
// (kQueue), a PE (kPe) or a queue instance (kLoadThreshold).
enum class PendingReason : std::uint8_t {
  kNone,
  kHold,
  kDependency,
  kNoSlots,             // the loop ended: no queue instance had a free slot
  kResource,            // a resource is short now
  kQueue,               // no queue instance of the job's -q list fits
  kPe,                  // the parallel environment's slots are short
  kLoadThreshold,       // every fitting queue instance is in load alarm
  kUserLimit,           // maxujobs
  kArrayTaskLimit,      // beyond the array job's max_aj_instances or -tc (array_task_limit.hpp)
  kReservationBlocked,  // it would fit now but for reservations of higher-priority jobs
  kQuota,               // a resource quota limit (object: its index in quota_excesses)
  kNever,
};

// Why a job can never run (reason kNever).
enum class NeverCause : std::uint8_t {
  kNone,
  kNoQueue,           // no queue instance matches its static requests and access
  kExceedsCapacity,   // a request is more than the resource's total (object: the complex)
  kBookedOut,         // booked out until the end of the plan (object: the complex)
  kNoPe,              // no parallel environment can give its slot range
  kImmediate,         // -now y and it could not start now
  kErrorState,        // the job is in error state
};

struct Grant {
  std::uint32_t instance = 0;  // queue instance index (QueueInstanceTable)
  std::uint32_t slots = 0;
};

struct Decision {
  JobNumber job = 0;
  TaskNumber task = 0;
  DecisionKind kind = DecisionKind::kPending;
  Time at = 0;
  Duration duration = 0;
  std::uint32_t slots = 0;
  PeId pe;
  std::uint32_t grant_begin = 0, grant_end = 0;
  std::uint32_t monitor_begin = 0, monitor_end = 0;  // its STARTING or RESERVING lines
  std::uint32_t soft_begin = UINT32_MAX;             // a job with soft requests: its grants' entries in `soft`
  PendingReason reason = PendingReason::kNone;
  NeverCause never = NeverCause::kNone;
  std::uint32_t object = UINT32_MAX;
};

enum class UsageState : std::uint8_t { kRunning, kSuspended, kStarting, kReserving };

// What one grant of a job with soft requests met: bit r of `missed` is the
// r-th soft -l request, bit soft.size() + k the k-th soft -q entry (the first
// 64); `violations` counts as Grid Engine does, per level.
struct SoftOutcome {
  std::uint64_t missed = 0;
  std::uint32_t violations = 0;
};

// The state beside the resource, not after the task: 48 bytes, not 56 (a
// goal interval with quotas holds about 3 million lines).
struct MonitorRecord {
  JobNumber job = 0;
  TaskNumber task = 0;
  Time start = 0;
  Duration duration = 0;
  ContainerRef container;  // object: PeId, global, HostId, queue instance or quota rule instance (L)
  ComplexId resource;
  UsageState state = UsageState::kRunning;
  double amount = 0;
};

// Column<MonitorRecord> and Column<Decision> leave a resize's records unwritten only for trivially copyable ones.
static_assert(std::is_trivially_copyable_v<MonitorRecord> && std::is_trivially_destructible_v<MonitorRecord>);
static_assert(std::is_trivially_copyable_v<Decision> && std::is_trivially_destructible_v<Decision>);

struct ScheduleResult {
  Column<Decision> decisions;  // its storage can be touched first in parallel, before the loop appends
  std::vector<Grant> grants;
  Column<MonitorRecord> monitor;  // sized, then written in parallel chunks, without a serial fill first
  // Resource quota rule instances that monitor records (level kQuota) and
  // pending decisions (kQuota, with the limit) name, by index.
  std::vector<QuotaInstance> quota_keys;
  std::vector<QuotaExcess> quota_excesses;
  std::vector<SoftOutcome> soft;      // per grant of the decisions with soft_begin set
  std::uint32_t running_monitor = 0;  // monitor[0, running_monitor): RUNNING and SUSPENDED lines
  std::uint32_t starts = 0, reserves = 0, pending = 0;
};

}  // namespace schedk
