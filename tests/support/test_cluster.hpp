// test_cluster.hpp
// A small builder of clusters for kernel unit tests, without io/: a complex
// holding Grid Engine's `slots` (INT <= YES YES 1 1000) and `h_rt` rows, any
// further consumables a test asks for, execution hosts with their capacities,
// and queues over them. Ids are handed out in order of creation, as the
// snapshot reader interns names in order of appearance, so a test that once
// read a snapshot keeps its ids. What a test does not set keeps the model's
// defaults, which are also the reader's for an absent attribute.
#pragma once

#include <cstdint>
#include <vector>

#include "kernel/model/cluster.hpp"

namespace schedk::testing {

class TestCluster {
 public:
  explicit TestCluster(Time now);

  // A consumable row (consumable YES, requestable YES, relop <=) of `type`.
  ComplexId Consumable(ValueType type, double default_value, double urgency);
  // An execution host with `slots=n` and `more` in its complex_values.
  HostId Host(std::uint32_t slots, ComplexValueList more = {});
  // `count` hosts of `slots` each.
  std::vector<HostId> Hosts(std::size_t count, std::uint32_t slots, const ComplexValueList& more = {});
  // A cluster queue over `hosts` with `slots` per instance.
  QueueId Queue(const std::vector<HostId>& hosts, std::uint32_t slots);

  SchedulerConfig& config() { return cluster_.config; }
  const Cluster& cluster() const { return cluster_; }

 private:
  Cluster cluster_;
};

}  // namespace schedk::testing
