#include "kernel/priority/share_tree_policy.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <utility>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "kernel/util/chunk_starts.hpp"
#include "kernel/priority/share_tree_ranking.hpp"
#include "kernel/priority/usage_decay.hpp"
#include "kernel/tuning.hpp"

namespace schedk {
namespace {

constexpr double kMinUsage = 1.0;  // SGE_MIN_USAGE

const UsageRecord* UserProjectUsage(const User& user, ProjectId project) {
  for (const auto& [p, record] : user.project_usage) {
    if (p == project) return &record;
  }
  return nullptr;
}

}  // namespace

std::vector<std::uint32_t> TaskOrderPlaces(const TicketRefs& refs) {
  auto before = [&](std::size_t a, std::size_t b) {
    return refs.job[a] != refs.job[b] ? refs.job[a] < refs.job[b] : refs.task[a] < refs.task[b];
  };
  bool in_order = true;
  for (std::size_t i = refs.running + 1; in_order && i < refs.size(); ++i) in_order = before(i - 1, i);
  if (in_order) return {};
  std::vector<std::uint32_t> by_task(refs.size() - refs.running);
  for (std::size_t k = 0; k < by_task.size(); ++k) by_task[k] = static_cast<std::uint32_t>(refs.running + k);
  std::sort(by_task.begin(), by_task.end(), before);
  std::vector<std::uint32_t> places(by_task.size());
  for (std::size_t k = 0; k < by_task.size(); ++k) places[by_task[k] - refs.running] = static_cast<std::uint32_t>(k);
  return places;
}

ShareTreeWorkspace::ShareTreeWorkspace(const Cluster& cluster) : cluster_(cluster) {
  const ShareTree& tree = cluster.share_tree;
  if (tree.empty()) return;
  // Copy the tree with the root at index 0, children in the order written.
  std::vector<std::uint32_t> index(tree.nodes.size(), kNoNode);
  std::vector<std::uint32_t> stack = {tree.root.index()};
  index[tree.root.index()] = 0;
  nodes_.resize(1);
  std::vector<std::uint32_t> order;
  while (!stack.empty()) {
    const std::uint32_t original = stack.back();
    stack.pop_back();
    order.push_back(original);
    for (ShareNodeId child : tree.nodes[original].children) {
      index[child.index()] = static_cast<std::uint32_t>(nodes_.size());
      nodes_.emplace_back();
      stack.push_back(child.index());
    }
  }
  for (std::uint32_t original : order) {
    const ShareTreeNode& source = tree.nodes[original];
    NodeState& node = nodes_[index[original]];
    node.shares = source.shares;
    node.user = source.user;
    node.project = source.project;
    node.is_default = source.is_default;
    for (ShareNodeId child : source.children) {
      node.children.push_back(index[child.index()]);
      nodes_[index[child.index()]].parent = index[original];
    }
  }
  // Project nodes a job can be found under: the first node of each project in
  // depth-first order, not inside another project's subtree.
  std::vector<std::uint32_t> walk = {0};
  while (!walk.empty()) {
    const std::uint32_t n = walk.back();
    walk.pop_back();
    const NodeState& node = nodes_[n];
    if (node.project.valid()) {
      project_node_.emplace(node.project.value, n);
      if (n != 0) continue;
    }
    for (auto it = node.children.rbegin(); it != node.children.rend(); ++it) walk.push_back(*it);
  }
}

void ShareTreeWorkspace::BuildScope(std::uint32_t scope_root, Scope& scope) const {
  std::vector<std::uint32_t> walk = {scope_root};
  while (!walk.empty()) {
    const std::uint32_t n = walk.back();
    walk.pop_back();
    const NodeState& node = nodes_[n];
    if (n != scope_root && node.project.valid()) continue;  // other projects' subtrees are skipped
    if (node.user.valid()) scope.user_node.emplace(node.user.value, n);
    if (node.is_default && scope.default_node == kNoNode) scope.default_node = n;
    for (auto it = node.children.rbegin(); it != node.children.rend(); ++it) walk.push_back(*it);
  }
}

const ShareTreeWorkspace::Scope& ShareTreeWorkspace::ScopeOf(std::uint32_t scope_root) {
  auto [it, inserted] = scopes_.try_emplace(scope_root);
  if (inserted) BuildScope(scope_root, it->second);
  return it->second;
}

ShareNodeId ShareTreeWorkspace::NodeFor(UserId user, ProjectId project) {
  if (nodes_.empty() || (!user.valid() && !project.valid())) return ShareNodeId::None();
  const std::uint64_t cache_key = (std::uint64_t{user.value} << 32) | project.value;
  auto [cached, fresh] = lookup_.TryEmplace(cache_key, LookupHash{}(cache_key), kNoNode);
  if (!fresh) return cached == kNoNode ? ShareNodeId::None() : ShareNodeId(cached);
  cached = Search(user, project);  // Search does not insert into lookup_, so the reference still holds
  return cached == kNoNode ? ShareNodeId::None() : ShareNodeId(cached);
}

std::uint32_t ShareTreeWorkspace::Search(UserId user, ProjectId project) {
  std::uint32_t found = kNoNode;
  std::uint32_t scope_root = 0;
  bool search_user = true;
  if (project.valid()) {
    auto p = project_node_.find(project.value);
    if (p == project_node_.end()) {
      search_user = false;  // a job in a project the tree does not know gets no node
    } else if (nodes_[p->second].children.empty()) {
      found = p->second;
      search_user = false;
    } else {
      scope_root = p->second;
    }
  }
  if (search_user && user.valid()) {
    const Scope& scope = ScopeOf(scope_root);
    if (auto u = scope.user_node.find(user.value); u != scope.user_node.end()) {
      found = u->second;
    } else if (scope.default_node != kNoNode) {
      found = scope.default_node;
      const std::uint32_t parent = nodes_[found].parent;
      if (parent != kNoNode) {
        // A temporary sibling of "default" named after the user (sge_set_job_refs).
        const std::uint64_t key = (std::uint64_t{user.value} << 32) | parent;
        const auto [node, inserted] =
            temporary_.TryEmplace(key, LookupHash{}(key), static_cast<std::uint32_t>(nodes_.size()));
        found = node;
        if (inserted) {
          NodeState copy;
          copy.shares = nodes_[scope.default_node].shares;
          copy.parent = parent;
          copy.user = user;
          copy.is_temporary = true;
          nodes_.push_back(std::move(copy));
          nodes_[parent].children.push_back(found);
        }
      }
    }
  }
  return found;
}

std::vector<ShareNodeId> ShareTreeWorkspace::NodesOfReference(const TicketRefs& refs) {
  std::vector<ShareNodeId> nodes(refs.size());
  for (std::size_t i = 0; i < refs.size(); ++i) nodes[i] = NodeFor(refs.user[i], refs.project[i]);
  return nodes;
}

std::vector<ShareNodeId> ShareTreeWorkspace::NodesOf(const TicketRefs& refs) {
  if (nodes_.empty()) return NodesOfReference(refs);
  std::vector<ShareNodeId> nodes(refs.size());
  // Each user's first few (project, node) answers, in a table small enough to
  // stay in cache. A pair new to the table is searched for directly; pairs
  // beyond it go through NodeFor's cache.
  constexpr std::size_t kPairs = 4;
  constexpr std::uint32_t kFree = ProjectId::kNoneValue - 1;  // no project id reaches it
  struct UserPairs {
    std::uint32_t project[kPairs] = {kFree, kFree, kFree, kFree};
    std::uint32_t node[kPairs] = {};
  };
  std::vector<UserPairs> known(cluster_.entities.users.size());
  for (std::size_t i = 0; i < refs.size(); ++i) {
    const UserId user = refs.user[i];
    const ProjectId project = refs.project[i];
    if (!user.valid() || user.index() >= known.size()) {
      nodes[i] = NodeFor(user, project);
      continue;
    }
    UserPairs& pairs = known[user.index()];
    unsigned match = 0;  // compared without branches: users' projects vary too much to predict
    for (std::size_t k = 0; k < kPairs; ++k) match |= static_cast<unsigned>(pairs.project[k] == project.value) << k;
    if (match != 0) {
      nodes[i] = ShareNodeId(pairs.node[std::countr_zero(match)]);
      continue;
    }
    const unsigned free = static_cast<unsigned>(std::find(pairs.project, pairs.project + kPairs, kFree) - pairs.project);
    if (free == kPairs) {
      nodes[i] = NodeFor(user, project);
      continue;
    }
    const std::uint32_t found = Search(user, project);
    nodes[i] = found == kNoNode ? ShareNodeId::None() : ShareNodeId(found);
    pairs.project[free] = project.value;
    pairs.node[free] = nodes[i].value;
  }
  return nodes;
}

void ShareTreeWorkspace::SelectRecords(std::uint32_t n, ProjectId context,
                                       std::vector<const UsageRecord*>& records) const {
  const EntityTables& entities = cluster_.entities;
  const NodeState& node = nodes_[n];
  if (node.children.empty()) {
    if (context.valid()) {
      if (node.user.valid()) records[n] = UserProjectUsage(entities.user(node.user), context);
    } else if (node.user.valid()) {
      records[n] = &entities.user(node.user).usage;
    } else if (node.project.valid()) {
      records[n] = &entities.project(node.project).usage;
    }
    return;
  }
  if (!context.valid() && node.project.valid()) {  // a project node: its subtree is in its context
    records[n] = &entities.project(node.project).usage;
    context = node.project;
  }
  for (std::uint32_t c : node.children) SelectRecords(c, context, records);
}

ShareTreeWorkspace::OwnUsage ShareTreeWorkspace::RecordUsage(const UsageRecord& record) const {
  const SchedulerConfig& config = cluster_.config;
  double sum_of_weights = 0;
  for (const UsageValue& w : config.usage_weight_list) sum_of_weights += w.value;
  OwnUsage own;
  for (const UsageValue& v : DecayedUsage(record, cluster_.now, config)) {
    for (const UsageValue& w : config.usage_weight_list) {
      if (w.name == v.name && sum_of_weights > 0) {
        own.usage += v.value * (w.value / sum_of_weights);
        break;
      }
    }
    if (v.name == "finished_jobs") own.finished_jobs += v.value;
  }
  return own;
}

double ShareTreeWorkspace::NodeUsage(std::uint32_t n, ProjectId context, const std::vector<OwnUsage>& own) {
  NodeState& node = nodes_[n];
  const bool project_node = !node.children.empty() && !context.valid() && node.project.valid();
  if (project_node) context = node.project;
  double usage = own[n].usage;
  node.finished_jobs += own[n].finished_jobs;
  if (!node.children.empty()) {
    double child_usage = 0;
    for (std::size_t k = 0; k < nodes_[n].children.size(); ++k) {
      const std::uint32_t c = nodes_[n].children[k];
      child_usage += NodeUsage(c, context, own);
      if (!project_node) nodes_[n].finished_jobs += nodes_[c].finished_jobs;
    }
    if (!project_node) {
      usage += child_usage;
    } else {
      // Usage of users mapped to the project's "default" node is the project's
      // usage not accounted for by its children; it is added on the path to it.
      std::vector<std::uint32_t> path;
      std::vector<std::pair<std::uint32_t, std::size_t>> walk = {{n, 0}};
      while (!walk.empty()) {
        auto& [m, next] = walk.back();
        if (m != n && nodes_[m].is_default) {
          for (const auto& [p, unused] : walk) path.push_back(p);
          break;
        }
        if (next < nodes_[m].children.size()) {
          walk.emplace_back(nodes_[m].children[next++], 0);
        } else {
          walk.pop_back();
        }
      }
      const double default_usage = usage - child_usage;
      if (!path.empty() && default_usage > 1.0) {
        for (std::size_t i = 1; i < path.size(); ++i) nodes_[path[i]].combined_usage += default_usage;
      }
    }
  }
  nodes_[n].combined_usage = usage;
  return usage;
}

void ShareTreeWorkspace::ComputeUsage(ExecutionMode mode) {
  if (nodes_.empty()) return;
  for (NodeState& node : nodes_) {
    node.combined_usage = 0;
    node.finished_jobs = 0;
  }
  // Each node's own record is decayed and weighted on its own (in parallel),
  // then the tree sums them.
  std::vector<const UsageRecord*> records(nodes_.size(), nullptr);
  SelectRecords(0, ProjectId::None(), records);
  std::vector<OwnUsage> own(nodes_.size());
  auto weigh = [&](std::size_t n) {
    if (records[n] != nullptr) own[n] = RecordUsage(*records[n]);
  };
  ForEachRange(mode, 0, nodes_.size(), 256, [&](std::size_t begin, std::size_t end) {
    for (std::size_t n = begin; n != end; ++n) weigh(n);
  });
  NodeUsage(0, ProjectId::None(), own);
}

void ShareTreeWorkspace::Targets(std::uint32_t n) {
  NodeState& node = nodes_[n];
  if (node.children.empty()) return;
  double sum_shares = 0;
  for (std::uint32_t c : node.children) {
    if (nodes_[c].job_ref_count > 0) sum_shares += nodes_[c].shares;
  }
  double sum = 0;
  for (std::uint32_t c : node.children) {
    NodeState& child = nodes_[c];
    if (child.job_ref_count == 0) continue;
    const double shares = child.shares;
    const double ltt = sum_shares > 0 ? shares / sum_shares : 0;
    const double oltt = node.oltt * ltt;
    child.ltt = ltt;
    child.oltt = oltt;
    child.shr = oltt > 0 ? shares * shares / std::max(child.combined_usage, kMinUsage * oltt) : 0;
    sum += child.shr;
  }
  for (std::uint32_t c : node.children) {
    NodeState& child = nodes_[c];
    if (child.job_ref_count == 0) continue;
    child.stt = sum > 0 ? child.shr / sum : 0;
    child.ostt = node.ostt * child.stt;
    child.adjusted_current_proportion = child.ostt;
  }
  const double cf = cluster_.config.compensation_factor;
  if (cf != 0) {
    bool compensation = false;
    sum = 0;
    for (std::uint32_t c : node.children) {
      NodeState& child = nodes_[c];
      if (child.job_ref_count == 0) continue;
      if (child.ostt > cf * child.oltt) {
        const double shares = child.shares;
        child.shr = shares * shares /
                    (std::max(child.combined_usage, kMinUsage * child.oltt) * (child.ostt / (cf * child.oltt)));
        compensation = true;
      }
      sum += child.shr;
    }
    if (compensation) {
      for (std::uint32_t c : node.children) {
        NodeState& child = nodes_[c];
        if (child.job_ref_count == 0) continue;
        child.stt = child.shr / sum;
        child.ostt = node.ostt * child.stt;
        child.adjusted_current_proportion = child.ostt;
      }
    }
  }
  for (std::uint32_t c : node.children) {
    if (nodes_[c].job_ref_count > 0) Targets(c);
  }
}

void ShareTreeWorkspace::ComputeTargets(const TicketRefs& refs, const std::vector<ShareNodeId>& ref_node,
                                        bool with_pending, ExecutionMode mode) {
  if (nodes_.empty()) return;
  for (NodeState& node : nodes_) {
    node.job_ref_count = node.active_job_ref_count = 0;
    node.sum_priority = 0;
    node.ltt = node.oltt = node.stt = node.ostt = node.shr = node.adjusted_current_proportion = 0;
  }
  const std::size_t end = with_pending ? refs.size() : refs.running;
  // Counts are integers, so chunks counted apart and added up give exact sums.
  struct Count {
    std::uint32_t refs = 0, running = 0;
    std::uint64_t sum_priority = 0;
  };
  auto count = [&](std::size_t begin, std::size_t stop, std::vector<Count>& counts) {
    for (std::size_t i = begin; i < stop; ++i) {
      if (!ref_node[i].valid()) continue;
      Count& c = counts[ref_node[i].index()];
      ++c.refs;
      if (!refs.queued(i)) {
        ++c.running;
        c.sum_priority += refs.jobshare[i];
      }
    }
  };
  const std::size_t chunks =
      mode == ExecutionMode::kSerial ? 1 : (end + tuning::kShareCountChunkRefs - 1) / tuning::kShareCountChunkRefs;
  std::vector<std::vector<Count>> partial(std::max<std::size_t>(chunks, 1));
  tbb::parallel_for(std::size_t{0}, partial.size(), [&](std::size_t k) {
    partial[k].resize(nodes_.size());
    count(end * k / partial.size(), end * (k + 1) / partial.size(), partial[k]);
  });
  for (const std::vector<Count>& counts : partial) {
    for (std::size_t n = 0; n < nodes_.size(); ++n) {
      nodes_[n].job_ref_count += counts[n].refs;
      nodes_[n].active_job_ref_count += counts[n].running;
      nodes_[n].sum_priority += counts[n].sum_priority;
    }
  }
  // update_job_ref_count / update_active_job_ref_count: an internal node counts
  // what is below it. Children have higher indices than their parents except
  // temporary nodes, which are leaves, so a reverse sweep sees children first.
  for (std::size_t n = nodes_.size(); n-- > 0;) {
    NodeState& node = nodes_[n];
    if (node.children.empty()) continue;
    node.job_ref_count = node.active_job_ref_count = 0;
    for (std::uint32_t c : node.children) {
      node.job_ref_count += nodes_[c].job_ref_count;
      node.active_job_ref_count += nodes_[c].active_job_ref_count;
    }
  }
  NodeState& root = nodes_[0];
  root.stt = root.ltt = root.ostt = root.oltt = 1.0;
  Targets(0);
}

void ShareTreeWorkspace::RunningTickets(const std::vector<ShareNodeId>& ref_node, double total_tickets,
                                        TicketRefs& refs) const {
  for (std::size_t i = 0; i < refs.running; ++i) {
    if (!ref_node[i].valid()) continue;
    const NodeState& node = nodes_[ref_node[i].index()];
    const double tickets = node.adjusted_current_proportion * total_tickets;
    if (node.sum_priority != 0) {
      refs.stix[i] = static_cast<double>(static_cast<std::uint64_t>(static_cast<double>(refs.jobshare[i]) * tickets /
                                                                    static_cast<double>(node.sum_priority)));
    } else {
      refs.stix[i] = tickets / node.job_ref_count;
    }
  }
}

ShareTreeWorkspace::PendingLayout ShareTreeWorkspace::LayOutPending(const TicketRefs& refs,
                                                                    const std::vector<ShareNodeId>& ref_node,
                                                                    ExecutionMode mode) const {
  PendingLayout layout;
  if (nodes_.empty()) return layout;
  layout.places = TaskOrderPlaces(refs);
  const std::size_t n_nodes = nodes_.size();
  std::vector<std::uint32_t>& pre = layout.pre;
  std::vector<std::uint32_t>& size = layout.size;
  pre.resize(n_nodes);
  size.assign(n_nodes, 1);
  {
    std::vector<std::uint32_t> walk = {0};
    std::uint32_t next = 0;
    std::vector<std::uint32_t> order;
    while (!walk.empty()) {
      const std::uint32_t n = walk.back();
      walk.pop_back();
      pre[n] = next++;
      order.push_back(n);
      for (auto it = nodes_[n].children.rbegin(); it != nodes_[n].children.rend(); ++it) walk.push_back(*it);
    }
    for (std::size_t k = order.size(); k-- > 0;) {
      const std::uint32_t n = order[k];
      for (std::uint32_t c : nodes_[n].children) size[n] += size[c];
    }
  }
  // Pending refs are bucketed by node (in depth-first order) chunk by chunk: each
  // chunk counts its refs per bucket, and writes them after the earlier chunks'
  // refs of the same bucket, so every bucket keeps ref order.
  const std::size_t pending = refs.size() - refs.running;
  layout.chunks =
      mode == ExecutionMode::kParallel
          ? std::max<std::size_t>(1, (pending + tuning::kShareLayoutChunkRefs - 1) / tuning::kShareLayoutChunkRefs)
          : 1;
  layout.chunk_fill.assign(layout.chunks, std::vector<std::uint32_t>(n_nodes, 0));
  ForEachIndex(mode, layout.chunks, [&](std::size_t k) {
    const std::size_t begin = refs.running + pending * k / layout.chunks;
    const std::size_t end = refs.running + pending * (k + 1) / layout.chunks;
    for (std::size_t i = begin; i < end; ++i) {
      if (ref_node[i].valid()) ++layout.chunk_fill[k][pre[ref_node[i].index()]];
    }
  });
  layout.bucket_start = StableChunkStarts(
      layout.chunks, n_nodes, [&](std::size_t k) -> std::vector<std::uint32_t>& { return layout.chunk_fill[k]; });
  layout.job_shares.resize((pending + 63) / 64);
  auto mark_job_shares = [&](std::size_t begin, std::size_t end) {
    for (std::size_t w = begin; w < end; ++w) {
      std::uint64_t bits = 0;
      for (std::size_t b = 0, k = w * 64; b < 64 && k < pending; ++b, ++k) {
        bits |= std::uint64_t{refs.jobshare[refs.running + k] != 0} << b;
      }
      layout.job_shares[w] = bits;
    }
  };
  ForEachRange(mode, 0, layout.job_shares.size(), 1024, mark_job_shares);
  return layout;
}

void ShareTreeWorkspace::PendingTickets(const std::vector<ShareNodeId>& ref_node, PendingLayout layout,
                                        double total_tickets, bool dependent, bool add_to_tickets,
                                        const std::vector<std::uint32_t>& slot_dilution, TicketRefs& refs) const {
  if (nodes_.empty()) return;
  ShareTreeRanking ranking(nodes_, ref_node, layout, {total_tickets, dependent, &slot_dilution}, refs);
  if (!ranking.PlaceEntries(ExecutionMode::kParallel)) return;
  ranking.RankAll();
  if (add_to_tickets) ranking.AddToTickets(ExecutionMode::kParallel);
}

void ShareTreeWorkspace::PendingTicketsReference(const std::vector<ShareNodeId>& ref_node, PendingLayout layout,
                                                 double total_tickets, bool dependent, bool add_to_tickets,
                                                 const std::vector<std::uint32_t>& slot_dilution,
                                                 TicketRefs& refs) const {
  if (nodes_.empty()) return;
  ShareTreeRanking ranking(nodes_, ref_node, layout, {total_tickets, dependent, &slot_dilution}, refs);
  if (!ranking.PlaceEntries(ExecutionMode::kSerial)) return;
  ranking.RankAllReference();
  if (add_to_tickets) ranking.AddToTickets(ExecutionMode::kSerial);
}

}  // namespace schedk
