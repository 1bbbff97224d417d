// snapshot.hpp
// A loaded cluster snapshot (docs/protocol.md §1): the kernel's Cluster and
// JobTable, the names behind every id, the object blocks as written (for dump
// and later importers), warnings, and the source line of every job row.
// Invariants: every id in `cluster` and `jobs` has its name in `names`;
// job_lines[shard][row] is the line of that row's job record.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "io/name_table.hpp"
#include "io/status.hpp"
#include "kernel/model/cluster.hpp"
#include "kernel/model/job_table.hpp"

namespace schedk::io {

struct Names {
  NameTable users;
  NameTable groups;
  NameTable projects;
  NameTable usersets;
  NameTable job_names;
  NameTable complexes;  // by attribute name (shortcuts resolve through complex_shortcuts)
  NameTable complex_shortcuts;
  std::vector<ComplexId> shortcut_target;  // complex_shortcuts id -> attribute
  NameTable hosts;
  NameTable hostgroups;
  NameTable queues;
  NameTable pes;
  NameTable qos;  // Maui QOS names, from job keys and the maui block
  std::vector<std::string> share_nodes;  // by ShareNodeId
};

// One attribute line of an object block, as written.
struct Attribute {
  std::string key;
  std::string value;
  int line = 0;
};

// An object block (begin <kind> [<name>] ... end) as written.
struct ObjectBlock {
  std::string kind;
  std::string name;
  int line = 0;  // of the begin line
  std::vector<Attribute> attributes;
  std::vector<std::string> unknown;  // keys kept but not interpreted
  std::string source;  // the file it was read from, when not the snapshot's own (messages name it)
};

struct Snapshot {
  std::string source;  // file name used in messages
  Cluster cluster;
  JobTable jobs;
  Names names;
  std::vector<ObjectBlock> blocks;
  std::vector<std::vector<int>> job_lines;  // [shard][row]
  std::vector<Warning> warnings;
};

}  // namespace schedk::io
