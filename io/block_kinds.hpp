// block_kinds.hpp
// The kinds of element a snapshot holds (docs/protocol.md §4), declared once.
// Object blocks (`begin <kind> [<name>]`, attribute lines, `end <kind>`)
// describe the cluster; records are one line each. The snapshot reader
// accepts exactly these kinds (and names them in its messages from here), the
// cluster builder interns every block's name into the table given here before
// it builds anything, and the session's `del` and `dump` take these kinds. A
// new block kind is a row here plus its step in ClusterBuilder::Build.
// Invariants: every kind is spelled once, across both tables; a kind with a
// name table is named.
#pragma once

#include <string>
#include <string_view>

#include "io/snapshot.hpp"

namespace schedk::io {

struct BlockKind {
  std::string_view kind;
  bool named;  // `begin <kind> <name>`; else `begin <kind>` alone
  // Where the builder interns the block's name first, so that references
  // resolve whatever the block order; nullptr: nowhere.
  NameTable Names::*names;
};

inline constexpr BlockKind kBlockKinds[] = {
    {"complex", false, nullptr},           {"sconf", false, nullptr},
    {"conf", false, nullptr},              {"global", false, nullptr},
    {"exechost", true, &Names::hosts},     {"hostgroup", true, &Names::hostgroups},
    {"queue", true, &Names::queues},       {"pe", true, &Names::pes},
    {"sharetree", false, nullptr},         {"user", true, nullptr},
    {"project", true, &Names::projects},   {"department", true, &Names::usersets},
    {"maui", false, nullptr},              {"rqs", true, nullptr},
};

// The one-line records, in the order the reader's messages list them. `job`
// rows are the jobs; the others are configuration the session keeps beside
// its blocks.
inline constexpr std::string_view kJobRecord = "job";
inline constexpr std::string_view kRecordKinds[] = {"now", "load", "usage", "hoststate", kJobRecord};

inline const BlockKind* FindBlockKind(std::string_view kind) {
  for (const BlockKind& k : kBlockKinds) {
    if (kind == k.kind) return &k;
  }
  return nullptr;
}

inline bool IsRecordKind(std::string_view kind) {
  for (std::string_view k : kRecordKinds) {
    if (kind == k) return true;
  }
  return false;
}

// A record other than `job`: the configuration records.
inline bool IsConfigRecord(std::string_view kind) { return kind != kJobRecord && IsRecordKind(kind); }

// A block or a record kind.
inline bool IsSnapshotKind(std::string_view kind) { return FindBlockKind(kind) != nullptr || IsRecordKind(kind); }

// "begin, now, load, usage, hoststate or job": what may start a line outside a block.
inline std::string LineStarts() {
  std::string text = "begin";
  const std::size_t n = std::size(kRecordKinds);
  for (std::size_t i = 0; i < n; ++i) text += (i + 1 == n ? " or " : ", ") + std::string(kRecordKinds[i]);
  return text;
}

}  // namespace schedk::io
