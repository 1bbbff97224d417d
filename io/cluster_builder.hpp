// cluster_builder.hpp
// Turns the object blocks and records of a snapshot into the kernel's Cluster:
// the complex (Grid Engine's default complex when the snapshot has none),
// scheduler configuration with install-template defaults, usersets and
// departments, projects, users, hostgroups, hosts, parallel environments,
// queues with per-host overrides, and the share tree. Attributes left out take
// Grid Engine's template defaults; unknown attributes are kept with a warning;
// a malformed value is an error naming file, line and attribute. Each object
// kind declares its attributes in one AttributeTable (io/attribute_table.hpp).
// Usage: the blocks in snapshot.blocks in file order, then Build(), then (after
// the jobs are read, so every job owner exists) FinishUsers() and
// BuildShareTree(), possibly on a copy of the built snapshot with a builder of
// its own (the builder keeps no state of its own between the steps).
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "io/attribute_table.hpp"
#include "io/snapshot.hpp"
#include "io/status.hpp"

namespace schedk::io {

// The records outside blocks that describe the cluster rather than jobs.
// Usage of users and projects feeds the share tree and Maui's fair share;
// usage of groups, QOS and classes (queues) only Maui's fair share.
enum class UsageKind : std::uint8_t { kUser, kProject, kGroup, kQos, kClass };
const char* UsageKindName(UsageKind kind);
struct UsageLine {
  int line = 0;
  UsageKind kind = UsageKind::kUser;
  std::string name;
  std::string values;   // cpu=..,mem=..,io=..
  std::string project;  // for per-project user usage, else empty
  Time at = 0;          // 0: as of now
};
struct LoadLine {
  int line = 0;
  std::string host;
  std::string values;
};
struct HostStateLine {
  int line = 0;
  std::string host;
  bool down = false;
};

class ClusterBuilder {
 public:
  explicit ClusterBuilder(Snapshot& snapshot) : s_(snapshot) {}

  // Builds every object kind from the blocks collected in snapshot.blocks.
  Status Build();
  // Applies `load` records (after Build).
  Status ApplyLoad(const std::vector<LoadLine>& loads);
  // Applies `hoststate <host> up|down` records (after Build).
  Status ApplyHostStates(const std::vector<HostStateLine>& states);
  // Creates user objects for job owners and usage records, applies usage (after the jobs are read).
  Status FinishUsers(const std::vector<UsageLine>& usage);
  // Resolves the share tree's node names (after FinishUsers).
  Status BuildShareTree();

  // Reads sconf's load_formula against the complex (scaled_mixed_load's tokens).
  LoadFormula ReadLoadFormula(std::string_view text) const;
  // Resolves a complex attribute by name or shortcut.
  std::optional<ComplexId> FindComplex(std::string_view name) const;

 private:
  struct ShareStanza;  // one `id=` stanza of the sharetree block

  // The steps of Build, one builder per object kind, and the share tree's.
  void InternNames();
  Status BuildComplex(const ObjectBlock* block);
  Status BuildSchedulerConfig(const ObjectBlock& block);
  AttributeTable SchedulerConfigTable(SchedulerConfig& c, bool& job_load_adjustments_given);
  Status BuildClusterConfig(const ObjectBlock& block);
  Status BuildUserset(const ObjectBlock& block);
  Status BuildProject(const ObjectBlock& block);
  Status BuildUser(const ObjectBlock& block);
  // A hostgroup block's direct members; ResolveHostgroups then expands the
  // nesting (rejecting cycles) once every hostgroup block is read.
  Status ReadHostgroup(const ObjectBlock& block);
  Status ResolveHostgroups();
  Status HostgroupCycle(std::uint32_t group) const;  // the error naming the group's block
  Status BuildHost(const ObjectBlock& block);        // an exechost or the global block
  Status BuildPe(const ObjectBlock& block);
  Status BuildQueue(const ObjectBlock& block);
  Status ReadShareStanzas(const ObjectBlock& block, std::vector<ShareStanza>& stanzas);
  Status CheckShareTreeReach(const ObjectBlock& block, const std::vector<ShareStanza>& stanzas) const;

  Status Error(int line, std::string message) const {
    return Status::InvalidInput(s_.source, line, std::move(message));
  }
  void Warn(int line, std::string message) { s_.warnings.push_back({s_.source, line, std::move(message)}); }

  // Value lists of attributes; each returns what is wrong, for the caller to place.
  Reason ComplexValuesFrom(std::string_view text, ComplexValueList& out) const;
  Reason UsersetsFrom(std::string_view text, std::vector<UsersetId>& out) const;
  Reason ProjectsFrom(std::string_view text, std::vector<ProjectId>& out) const;
  Reason PesFrom(std::string_view text, std::vector<PeId>& out) const;
  Reason QueueHostsFrom(std::string_view text, std::vector<HostId>& out);
  Reason JobLoadAdjustmentsFrom(std::string_view text, std::vector<std::pair<ComplexId, double>>& out) const;
  Reason LoadScalingFrom(std::string_view text, std::vector<std::pair<ComplexId, double>>& out) const;
  // These two also warn, at the attribute's line.
  Reason LoadValuesFrom(const Attribute& a, const std::string& who, ComplexValueList& out);
  Reason SchedulerParamsFrom(const Attribute& a, SchedulerConfig& c);
  Status ParseUsage(int line, std::string_view text, UsageRecord& out) const;
  // The same as table handlers (the attribute's whole value); ProjectField takes NONE as no project.
  AttributeHandler ComplexValuesField(ComplexValueList& field) const;
  AttributeHandler UsersetsField(std::vector<UsersetId>& field) const;
  AttributeHandler ProjectsField(std::vector<ProjectId>& field) const;
  AttributeHandler ProjectField(ProjectId& field) const;

  Snapshot& s_;
  std::set<std::string, std::less<>> seen_auto_user_;  // auto_user_* keys the sconf block gave
  // By hostgroup: the subgroups and hosts its hostlist names (ReadHostgroup).
  std::vector<std::vector<std::uint32_t>> direct_subgroups_;
  std::vector<std::vector<HostId>> direct_hosts_;
};

}  // namespace schedk::io
