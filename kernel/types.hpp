// types.hpp
// Vocabulary types shared by every kernel module: times, job and task numbers,
// and strong ids for interned names. The kernel never holds an object's name;
// io/ interns names into these dense ids and keeps the strings.
// Invariants: an Id is either a dense index (0..n-1 into its table) or None.
#pragma once

#include <compare>
#include <cstdint>
#include <functional>
#include <limits>

namespace schedk {

// Seconds since the epoch. Grid Engine 6.2 keeps 32-bit unsigned seconds; the
// kernel converts to that width exactly where Grid Engine's arithmetic depends on it.
using Time = std::int64_t;
using Duration = std::int64_t;
using JobNumber = std::uint32_t;
using TaskNumber = std::uint32_t;

inline constexpr Duration kInfiniteDuration = std::numeric_limits<std::uint32_t>::max();

// A dense index into one kind of table, distinct in type from every other kind.
template <class Tag>
struct Id {
  static constexpr std::uint32_t kNoneValue = std::numeric_limits<std::uint32_t>::max();
  std::uint32_t value = kNoneValue;

  constexpr Id() = default;
  constexpr explicit Id(std::uint32_t v) : value(v) {}
  static constexpr Id None() { return Id(); }
  constexpr bool valid() const { return value != kNoneValue; }
  constexpr std::uint32_t index() const { return value; }
  friend constexpr bool operator==(Id, Id) = default;
  friend constexpr auto operator<=>(Id, Id) = default;
};

using UserId = Id<struct UserTag>;              // job owners and user objects
using GroupId = Id<struct GroupTag>;            // UNIX groups of job owners
using ProjectId = Id<struct ProjectTag>;
using UsersetId = Id<struct UsersetTag>;        // access lists and departments (qconf -su)
using JobNameId = Id<struct JobNameTag>;
using ComplexId = Id<struct ComplexTag>;        // complex attributes (qconf -sc rows)
using HostId = Id<struct HostTag>;
using HostgroupId = Id<struct HostgroupTag>;
using QueueId = Id<struct QueueTag>;            // cluster queues
using PeId = Id<struct PeTag>;                  // parallel environments
using RequestSetId = Id<struct RequestSetTag>;  // a distinct combination of job requests
using ShareNodeId = Id<struct ShareNodeTag>;
using QosId = Id<struct QosTag>;                // Maui quality-of-service names (job key qos=)

struct IdHash {
  template <class Tag>
  std::size_t operator()(Id<Tag> id) const noexcept {
    return std::hash<std::uint32_t>{}(id.value);
  }
};

}  // namespace schedk
