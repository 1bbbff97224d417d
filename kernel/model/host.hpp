// host.hpp
// Execution hosts (qconf -se), the cluster-wide "global" host, and hostgroups
// (qconf -shgrp). A host carries capacities (complex_values), reported load
// values (its load_values attribute plus `load` records), load scaling factors
// and access lists.
// Invariants: hosts are indexed by HostId; a hostgroup's `hosts` is its fully
// resolved member set (nested groups expanded, no duplicates, sorted by id).
#pragma once

#include <utility>
#include <vector>

#include "kernel/model/complex_value.hpp"
#include "kernel/types.hpp"

namespace schedk {

struct ExecHost {
  ComplexValueList complex_values;
  ComplexValueList load_values;
  std::vector<std::pair<ComplexId, double>> load_scaling;
  std::uint32_t processors = 0;
  std::vector<UsersetId> user_lists;
  std::vector<UsersetId> xuser_lists;
  std::vector<ProjectId> projects;
  std::vector<ProjectId> xprojects;
  bool declared = false;  // false: named only by a queue's hostlist or a record
  bool down = false;      // the master says the host is down: its queue instances take no jobs
};

struct GlobalHost {
  ComplexValueList complex_values;
  ComplexValueList load_values;
  std::vector<UsersetId> user_lists;
  std::vector<UsersetId> xuser_lists;
  std::vector<ProjectId> projects;
  std::vector<ProjectId> xprojects;
};

struct Hostgroup {
  std::vector<HostId> hosts;  // resolved, sorted, unique
};

}  // namespace schedk
