// quota_set_reader.hpp
// The `rqs` blocks of a snapshot (what `qconf -srqs <name>` prints between its
// braces; docs/resource-quotas.md) as the Cluster's resource quota sets:
//   name         max_u_slots
//   description  NONE
//   enabled      TRUE
//   limit        name big users {a,@staff} hosts {@gpu,!n7} to slots=4,lic=$num_proc*2
// Filters resolve against every name the snapshot knows once its jobs are
// read (user names and patterns match job owners too): users by name,
// fnmatch pattern or `@userset` (its users and `@group`s), hosts by name,
// pattern or `@hostgroup`, projects, PEs and cluster queues by name or pattern.
// A name that matches nothing admits nothing; an unknown `@userset` or
// `@hostgroup` is an error.
// Invariants: the sets are in block order, each rule's limits in the order
// written; a dynamic limit (`$...`) is accepted only in a rule whose hosts
// filter is expanded; every error names the file, the line and the block.
#pragma once

#include "io/cluster_builder.hpp"
#include "io/snapshot.hpp"
#include "io/status.hpp"

namespace schedk::io {

// Builds snapshot.cluster.quota_sets from its `rqs` blocks (after FinishUsers).
Status BuildQuotaSets(Snapshot& snapshot, const ClusterBuilder& builder);

}  // namespace schedk::io
