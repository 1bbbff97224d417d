// request_set.hpp
// What a job asks for, as one interned combination: hard and soft resource
// requests (-l), the parallel environment with its slot range (-pe) and the
// queue lists (-q, -masterq). Jobs that ask for the same things share a RequestSet, so
// per-request work (urgency's rrcontr, later dispatch categories) is done once
// per distinct combination rather than once per job.
// Invariants: each complex appears at most once per list; for a PE request
// 1 <= pe_min <= pe_max, with pe_max == kOpenSlotRange for "n-".
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "kernel/model/complex_value.hpp"
#include "kernel/types.hpp"

namespace schedk {

inline constexpr std::uint32_t kOpenSlotRange = std::numeric_limits<std::uint32_t>::max();

struct PeRequest {
  std::vector<PeId> matching;  // PEs matching the requested name or wildcard, in definition order
  std::uint32_t min = 1;
  std::uint32_t max = 1;
  bool wildcard = false;

  bool single_value() const { return min == max; }
};

// One element of a -q list: a cluster queue (or any), on a host, a hostgroup, or anywhere.
struct QueueSelector {
  QueueId queue;        // None: any queue ("*@host")
  HostId host;          // None with group None: any host
  HostgroupId group;
};

struct RequestSet {
  ComplexValueList hard;  // in the order written
  ComplexValueList soft;
  bool has_pe = false;
  PeRequest pe;
  std::vector<QueueSelector> queue_hard;
  std::vector<QueueSelector> queue_soft;
  // -masterq: where a parallel job's master task may run. Its queues are
  // eligible beside -q's, and the master queue is one of them; empty: any.
  std::vector<QueueSelector> queue_master;
};

}  // namespace schedk
