// share_tree.hpp
// The share tree (qconf -sstree, share_tree(5)): the long-term entitlement of
// users and projects as a tree of nodes with shares. A node is a project node
// when a project object has its name, a user node when a user has its name, and
// the leaf named "default" stands for every user without a node of its own.
// Invariants: nodes[root] exists when the tree is not empty; children ids are
// valid and each node has exactly one parent (the root none); no node is more
// than kMaxShareTreeDepth levels below the root (the policy's walks recurse
// along a path, so the input may not choose their depth).
#pragma once

#include <cstdint>
#include <vector>

#include "kernel/types.hpp"

namespace schedk {

inline constexpr int kMaxShareTreeDepth = 256;

struct ShareTreeNode {
  std::uint32_t shares = 0;
  std::vector<ShareNodeId> children;  // in the order written
  UserId user;          // user whose name the node carries, if any
  ProjectId project;    // project whose name the node carries: a project node
  bool is_default = false;  // the node named "default"
};

struct ShareTree {
  std::vector<ShareTreeNode> nodes;  // indexed by ShareNodeId
  ShareNodeId root;

  bool empty() const { return !root.valid(); }
  const ShareTreeNode& operator[](ShareNodeId id) const { return nodes[id.index()]; }
};

}  // namespace schedk
