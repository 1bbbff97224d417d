// share_tree_policy.hpp
// The share-tree ticket policy (share_tree(5), sgeee.c). Each interval:
//   1. every job task is attached to the node of its user (under its project's
//      node if it has a project), a user without a node of its own getting a
//      temporary copy of the "default" leaf (search_userprj_node);
//   2. node usage is the users' and projects' decayed usage, combined with
//      usage_weight_list; internal nodes sum their children, project nodes use
//      the project's usage (sge_calc_node_usage);
//   3. among the active children of a node (those with jobs below them),
//      long-term targets follow the shares and short-term targets correct them
//      for past usage, limited by compensation_factor (sge_calc_node_targets);
//   4. running tasks get a leaf's overall short-term target times
//      weight_tickets_share, split by job share or evenly;
//   5. pending tasks are ranked inside each node and get
//      stt / (running jobs below + rank) of the tickets (sge_sort_pending_job_nodes);
//      under SHARE_TREE_PENDING=8.1, Son of Grid Engine 8.1.9's rule
//      (sge_sort_job_nodes): running tasks rank first and each task dilutes
//      the entitlement of those after it by its job's minimum slot count.
// Thread-safety: a workspace belongs to one ticket computation. PendingTickets
// ranks sibling subtrees in parallel (share_tree_ranking.hpp);
// PendingTicketsReference is its twin.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "kernel/execution_mode.hpp"
#include "kernel/util/flat_id_map.hpp"
#include "kernel/model/cluster.hpp"
#include "kernel/priority/ticket_refs.hpp"

namespace schedk {

// Pending refs are in job-list order: job, then each row's tasks. That is
// (job, task) order unless rows of one job interleave their tasks (1-9:2 and
// 2-10:2). Returns each pending ref's place in (job, task) order then, and
// nothing when the ref order is that order already (the share tree's tie-break).
std::vector<std::uint32_t> TaskOrderPlaces(const TicketRefs& refs);

class ShareTreeWorkspace {
 public:
  explicit ShareTreeWorkspace(const Cluster& cluster);

  bool empty() const { return nodes_.empty(); }

  // Returns the node for a job of `user` in `project` (None: no node), creating
  // the user's copy of a "default" leaf on first use.
  ShareNodeId NodeFor(UserId user, ProjectId project);

  // The node of every ref: NodeFor in ref order, so that temporary nodes are
  // created in Grid Engine's order. A small per-user table answers the repeated
  // pairs; NodesOfReference, its twin, asks NodeFor for every ref.
  std::vector<ShareNodeId> NodesOf(const TicketRefs& refs);
  std::vector<ShareNodeId> NodesOfReference(const TicketRefs& refs);

  // Computes every node's combined usage. Call once, after all NodeFor calls.
  // Nodes' own records are weighed in parallel unless `mode` is kSerial.
  void ComputeUsage(ExecutionMode mode);

  // Counts the refs on their nodes (running refs always, pending refs when
  // `with_pending`) and computes the targets of every active node.
  // `mode` kSerial counts in one loop; the default counts chunks in parallel.
  void ComputeTargets(const TicketRefs& refs, const std::vector<ShareNodeId>& ref_node, bool with_pending,
                      ExecutionMode mode);

  // Share-tree tickets of the running refs, from the current targets.
  void RunningTickets(const std::vector<ShareNodeId>& ref_node, double total_tickets, TicketRefs& refs) const;

  // The pending refs laid out in depth-first order of their nodes, so that the
  // pending tasks below any node form one range: each node's bucket, and where
  // each chunk of the refs writes its own into it (keeping ref order). It reads
  // only the refs' nodes, job and task numbers and job shares, which no policy
  // pass writes, so it can be made beside the pass before the share tree's.
  struct PendingLayout {
    std::vector<std::uint32_t> places;  // TaskOrderPlaces(refs)
    std::vector<std::uint32_t> pre;     // by node: its depth-first index, which is its bucket
    std::vector<std::uint32_t> size;    // by node: the nodes in its subtree
    std::size_t chunks = 1;
    std::vector<std::vector<std::uint32_t>> chunk_fill;  // by chunk, by bucket: where its next ref goes
    std::vector<std::uint32_t> bucket_start;             // by bucket, then the total
    std::vector<std::uint64_t> job_shares;  // by pending ref, a bit each: whether its job has a share (-js)
  };
  // `mode` kSerial makes one chunk; the result places the refs the same way.
  PendingLayout LayOutPending(const TicketRefs& refs, const std::vector<ShareNodeId>& ref_node,
                              ExecutionMode mode) const;

  // Share-tree tickets of the pending refs, from the current targets (computed
  // with pending refs) and `layout` (LayOutPending, taken before: the job and
  // task columns are not read). A `dependent` pass ranks by the earlier
  // policies' refs.tickets; `add_to_tickets` adds its tickets to them, for a
  // later dependent policy (no later step reads them otherwise).
  // `slot_dilution` (by ref: its job's minimum slot count) selects 8.1.9's
  // rule; empty, 6.2's.
  void PendingTickets(const std::vector<ShareNodeId>& ref_node, PendingLayout layout, double total_tickets,
                      bool dependent, bool add_to_tickets, const std::vector<std::uint32_t>& slot_dilution,
                      TicketRefs& refs) const;
  void PendingTicketsReference(const std::vector<ShareNodeId>& ref_node, PendingLayout layout, double total_tickets,
                               bool dependent, bool add_to_tickets, const std::vector<std::uint32_t>& slot_dilution,
                               TicketRefs& refs) const;

  // Node values, for tests and explanations.
  struct NodeState {
    std::uint32_t shares = 0;
    std::vector<std::uint32_t> children;
    std::uint32_t parent = kNoNode;
    UserId user;
    ProjectId project;
    bool is_default = false;
    bool is_temporary = false;
    // Per pass.
    std::uint32_t job_ref_count = 0;         // running + counted pending tasks below
    std::uint32_t active_job_ref_count = 0;  // running tasks below
    std::uint64_t sum_priority = 0;          // job shares of running tasks on the node
    double combined_usage = 0;
    double finished_jobs = 0;                // decayed "finished_jobs" usage
    double ltt = 0, oltt = 0, stt = 0, ostt = 0, shr = 0;
    double adjusted_current_proportion = 0;
  };
  static constexpr std::uint32_t kNoNode = UINT32_MAX;
  const NodeState& node(ShareNodeId id) const { return nodes_[id.index()]; }
  ShareNodeId root() const { return ShareNodeId(0); }

 private:
  struct Scope {
    std::unordered_map<std::uint32_t, std::uint32_t> user_node;  // user id -> first node in scope
    std::uint32_t default_node = kNoNode;
  };
  const Scope& ScopeOf(std::uint32_t scope_root);
  struct LookupHash {
    std::uint64_t operator()(std::uint64_t key) const {
      key ^= key >> 33;  // murmur3's 64-bit finaliser
      key *= 0xff51afd7ed558ccdull;
      key ^= key >> 33;
      key *= 0xc4ceb9fe1a85ec53ull;
      return key ^ (key >> 33);
    }
  };
  void BuildScope(std::uint32_t scope_root, Scope& scope) const;
  // NodeFor's search, without its cache: the node's index or kNoNode. Needs a
  // valid user or project.
  std::uint32_t Search(UserId user, ProjectId project);
  // A node's own usage (its decayed record, weighted) and finished jobs.
  struct OwnUsage {
    double usage = 0;
    double finished_jobs = 0;
  };
  // The record each node's own usage comes from: a leaf's user (in its
  // project's context below a project node), a project node's project.
  void SelectRecords(std::uint32_t n, ProjectId context, std::vector<const UsageRecord*>& records) const;
  OwnUsage RecordUsage(const UsageRecord& record) const;
  double NodeUsage(std::uint32_t n, ProjectId context, const std::vector<OwnUsage>& own);
  void Targets(std::uint32_t n);

  const Cluster& cluster_;
  std::vector<NodeState> nodes_;  // node 0 is the root; temporary nodes are appended
  std::unordered_map<std::uint32_t, std::uint32_t> project_node_;  // project id -> reachable project node
  std::unordered_map<std::uint32_t, Scope> scopes_;               // by scope root node
  FlatIdMap<std::uint64_t, LookupHash> temporary_{UINT64_MAX};  // (user, parent) -> node
  // (user, project) -> node or kNoNode: one probe per task on the hot path.
  // The key of (no user, no project) marks free slots; NodeFor answers it directly.
  FlatIdMap<std::uint64_t, LookupHash> lookup_{UINT64_MAX};
};

}  // namespace schedk
