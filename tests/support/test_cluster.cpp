#include "tests/support/test_cluster.hpp"

#include <utility>

namespace schedk::testing {

TestCluster::TestCluster(Time now) {
  cluster_.now = now;
  ComplexTable& complexes = cluster_.complexes;
  complexes.slots = Consumable(ValueType::kInt, 1, 1000);
  ComplexAttribute h_rt;
  h_rt.type = ValueType::kTime;
  h_rt.urgency_valid = true;
  complexes.h_rt = ComplexId(static_cast<std::uint32_t>(complexes.attributes.size()));
  complexes.attributes.push_back(h_rt);
}

ComplexId TestCluster::Consumable(ValueType type, double default_value, double urgency) {
  ComplexAttribute a;
  a.type = type;
  a.consumable = schedk::Consumable::kYes;
  a.default_value = default_value;
  a.urgency = urgency;
  a.urgency_valid = true;
  cluster_.complexes.attributes.push_back(a);
  return ComplexId(static_cast<std::uint32_t>(cluster_.complexes.attributes.size() - 1));
}

HostId TestCluster::Host(std::uint32_t slots, ComplexValueList more) {
  ExecHost host;
  host.declared = true;
  host.complex_values.push_back({cluster_.complexes.slots, static_cast<double>(slots), {}});
  for (ComplexValue& v : more) host.complex_values.push_back(std::move(v));
  cluster_.hosts.push_back(std::move(host));
  return HostId(static_cast<std::uint32_t>(cluster_.hosts.size() - 1));
}

std::vector<HostId> TestCluster::Hosts(std::size_t count, std::uint32_t slots, const ComplexValueList& more) {
  std::vector<HostId> hosts;
  for (std::size_t h = 0; h < count; ++h) hosts.push_back(Host(slots, more));
  return hosts;
}

QueueId TestCluster::Queue(const std::vector<HostId>& hosts, std::uint32_t slots) {
  ClusterQueue queue;
  queue.hosts = hosts;
  queue.slots = PerHost<std::uint32_t>(slots);
  cluster_.queues.push_back(std::move(queue));
  return QueueId(static_cast<std::uint32_t>(cluster_.queues.size() - 1));
}

}  // namespace schedk::testing
