// cluster.hpp
// Everything a scheduling interval needs except the jobs: the complex, the
// scheduler configuration, hosts, hostgroups, queues, parallel environments,
// users/projects/usersets, the share tree, resource quota sets, the Maui
// priority configuration and the interval's clock.
// Invariants: every id stored anywhere in a Cluster or a JobTable built against
// it indexes the matching table here.
#pragma once

#include <string>
#include <vector>

#include "kernel/model/complex.hpp"
#include "kernel/model/entities.hpp"
#include "kernel/model/host.hpp"
#include "kernel/model/maui_config.hpp"
#include "kernel/model/parallel_environment.hpp"
#include "kernel/model/queue.hpp"
#include "kernel/model/resource_quota.hpp"
#include "kernel/model/scheduler_config.hpp"
#include "kernel/model/share_tree.hpp"
#include "kernel/types.hpp"

namespace schedk {

struct Cluster {
  Time now = 0;
  ComplexTable complexes;
  SchedulerConfig config;
  GlobalHost global;
  std::vector<ExecHost> hosts;          // indexed by HostId
  std::vector<Hostgroup> hostgroups;    // indexed by HostgroupId
  std::vector<ClusterQueue> queues;     // indexed by QueueId
  std::vector<ParallelEnvironment> pes; // indexed by PeId
  EntityTables entities;
  ShareTree share_tree;
  std::vector<ResourceQuotaSet> quota_sets;  // the `rqs` blocks in file order
  // Host and cluster queue names by id: what the qname and hostname built-ins
  // of a queue instance offer to a request.
  std::vector<std::string> host_names, queue_names;
  MauiConfig maui;  // the `maui` block; used when config.priority_policy is kMaui
};

}  // namespace schedk
