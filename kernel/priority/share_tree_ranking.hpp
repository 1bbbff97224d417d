// share_tree_ranking.hpp
// Step 5 of the share-tree policy (share_tree_policy.hpp): the pending tasks
// are ranked inside each node, bottom-up, and the k-th under a node gets
// stt / (running jobs below + finished jobs + k) of the tickets
// (sge_sort_pending_job_nodes); under SHARE_TREE_PENDING=8.1, 8.1.9's rule
// (sge_sort_job_nodes): stt / (1 + the slot dilution of the running tasks
// below and of the tasks ahead).
//
// Invariants: one ranking serves one PendingTickets call. Entries live in the
// layout's buckets (one per node, in depth-first order), so a node's subtree
// is one contiguous range; a node is ranked after all its children, and
// sibling subtrees touch disjoint ranges (the parallel walk relies on that).
// Ties break on the task's place in (job, task) order, then its ref, so every
// sort gives one order. RankAll is the optimised walk (sibling subtrees as
// tasks, nearly sorted leaves by insertion, the rest by bucket sort);
// RankAllReference, its twin, walks in order and sorts with std::sort.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "kernel/execution_mode.hpp"
#include "kernel/priority/share_tree_policy.hpp"
#include "kernel/priority/ticket_refs.hpp"
#include "kernel/util/column.hpp"

namespace schedk {

class ShareTreeRanking {
 public:
  using NodeState = ShareTreeWorkspace::NodeState;
  struct Settings {
    double total_tickets = 0;  // weight_tickets_share, or what the earlier policies left
    bool dependent = false;    // rank by the earlier policies' tickets
    // By ref: its job's minimum slot count (8.1.9's rule); empty: 6.2's.
    const std::vector<std::uint32_t>* slot_dilution = nullptr;
  };

  // `nodes` non-empty, with this pass's counts and targets; `layout` from
  // LayOutPending over the same refs and nodes.
  ShareTreeRanking(const std::vector<NodeState>& nodes, const std::vector<ShareNodeId>& ref_node,
                   ShareTreeWorkspace::PendingLayout& layout, const Settings& settings, TicketRefs& refs);

  // Puts every pending task with a node into its node's bucket, keyed by its
  // job share (or earlier tickets). False when there is none to rank.
  bool PlaceEntries(ExecutionMode mode);
  // Ranks the subtree of the effective root and writes refs.stix of each
  // ranked task.
  void RankAll();
  void RankAllReference();
  // refs.tickets += refs.stix for the pending refs with a node.
  void AddToTickets(ExecutionMode mode);

 private:
  // A pending task's entry: the sort key of the current level (descending),
  // then its place in (job, task) order above its ref.
  struct Entry {
    std::uint64_t key;
    std::uint64_t place_and_ref;
    std::uint32_t ref() const { return static_cast<std::uint32_t>(place_and_ref); }
  };
  static bool Better(const Entry& a, const Entry& b) {
    return a.key != b.key ? a.key < b.key : a.place_and_ref < b.place_and_ref;
  }

  std::vector<std::uint64_t> RunningDilutionBelow() const;
  std::pair<std::uint32_t, std::uint32_t> RangeOf(std::uint32_t n) const;
  std::uint32_t PendingBelow(std::uint32_t n) const;
  bool OwnRunning(std::uint32_t n) const;
  bool OwnJobs(std::uint32_t n) const;
  bool ActiveChild(std::uint32_t c) const;
  std::uint32_t EffectiveRoot() const;
  bool FinalLevel(std::uint32_t n) const;
  std::vector<std::uint32_t> ChildrenToRank(std::uint32_t n) const;
  void VisitParallel(std::uint32_t n);
  void VisitReference(std::uint32_t n);
  void SortRun(std::uint32_t begin, std::uint32_t end);
  void Rank(std::uint32_t n);
  bool KeyIsTickets(std::uint32_t n, const Entry& e) const;

  const std::vector<NodeState>& nodes_;
  const std::vector<ShareNodeId>& ref_node_;
  ShareTreeWorkspace::PendingLayout& layout_;
  const Settings settings_;
  const bool by_slots_;
  TicketRefs& refs_;
  std::vector<std::uint64_t> running_dilution_;  // by node, 8.1.9's rule only
  Column<Entry> slots_;
  std::uint32_t top_ = 0;  // the effective root
};

}  // namespace schedk
