#include "kernel/priority/share_tree_policy.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <utility>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_group.h>

#include "kernel/util/bucket_sort.hpp"
#include "kernel/util/chunk_starts.hpp"
#include "kernel/priority/usage_decay.hpp"
#include "kernel/util/sort_key.hpp"
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
  if (mode == ExecutionMode::kParallel) {
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, nodes_.size(), 256), [&](const auto& r) {
      for (std::size_t n = r.begin(); n != r.end(); ++n) weigh(n);
    });
  } else {
    for (std::size_t n = 0; n < nodes_.size(); ++n) weigh(n);
  }
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
  if (mode == ExecutionMode::kParallel) {
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, layout.job_shares.size(), 1024),
                      [&](const auto& r) { mark_job_shares(r.begin(), r.end()); });
  } else {
    mark_job_shares(0, layout.job_shares.size());
  }
  return layout;
}

std::vector<std::uint64_t> ShareTreeWorkspace::RunningDilutionBelow(const std::vector<ShareNodeId>& ref_node,
                                                                    const std::vector<std::uint32_t>& slot_dilution,
                                                                    std::size_t running) const {
  std::vector<std::uint64_t> below(nodes_.size(), 0);
  for (std::size_t i = 0; i < running; ++i) {
    if (ref_node[i].valid()) below[ref_node[i].index()] += slot_dilution[i];
  }
  // Children have higher indices than their parents except temporary nodes,
  // which are leaves: a reverse sweep sees children first (as ComputeTargets).
  for (std::size_t n = nodes_.size(); n-- > 0;) {
    for (std::uint32_t c : nodes_[n].children) below[n] += below[c];
  }
  return below;
}

template <bool kParallel>
void ShareTreeWorkspace::Pending(const std::vector<ShareNodeId>& ref_node, PendingLayout& layout,
                                 double total_tickets, bool dependent, bool add_to_tickets,
                                 const std::vector<std::uint32_t>& slot_dilution, TicketRefs& refs) const {
  if (nodes_.empty()) return;
  // 8.1.9's rule (sge_sort_job_nodes) where the dilution is given, else 6.2's.
  const bool by_slots = !slot_dilution.empty();
  const std::vector<std::uint64_t> running_dilution =
      by_slots ? RunningDilutionBelow(ref_node, slot_dilution, refs.running) : std::vector<std::uint64_t>();
  const std::vector<std::uint32_t>& places = layout.places;
  const std::vector<std::uint32_t>& pre = layout.pre;
  const std::vector<std::uint32_t>& size = layout.size;
  const std::vector<std::uint32_t>& bucket_start = layout.bucket_start;
  const std::size_t pending = refs.size() - refs.running;
  const std::size_t chunks = layout.chunks;
  auto chunk_range = [&](std::size_t k) {
    return std::pair<std::size_t, std::size_t>{refs.running + pending * k / chunks,
                                               refs.running + pending * (k + 1) / chunks};
  };
  constexpr ExecutionMode mode = kParallel ? ExecutionMode::kParallel : ExecutionMode::kSerial;
  // One packed entry per pending task: the sort key of the current level
  // (descending), then the task's place in (job, task) order above its ref.
  struct Entry {
    std::uint64_t key;
    std::uint64_t place_and_ref;
    std::uint32_t ref() const { return static_cast<std::uint32_t>(place_and_ref); }
  };
  auto place_of = [&](std::size_t i) -> std::uint64_t { return places.empty() ? i : places[i - refs.running]; };
  Column<Entry> slots(bucket_start.back());  // every bucketed ref writes its own
  if (slots.empty()) return;
  ForEachIndex(mode, chunks, [&](std::size_t k) {
    const auto [begin, end] = chunk_range(k);
    std::vector<std::uint32_t>& fill = layout.chunk_fill[k];
    for (std::size_t i = begin; i < end; ++i) {
      if (!ref_node[i].valid()) continue;
      const double key = dependent ? refs.tickets[i] + 0.01 * static_cast<double>(refs.jobshare[i])
                                   : static_cast<double>(refs.jobshare[i]);
      slots[fill[pre[ref_node[i].index()]]++] = Entry{DescendingBits(key), place_of(i) << 32 | i};
    }
  });
  auto range_of = [&](std::uint32_t n) {
    return std::pair<std::uint32_t, std::uint32_t>{bucket_start[pre[n]], bucket_start[pre[n] + size[n]]};
  };
  auto pending_below = [&](std::uint32_t n) { return nodes_[n].job_ref_count - nodes_[n].active_job_ref_count; };
  // Running refs on node n itself: its running refs less its children's.
  auto own_running = [&](std::uint32_t n) {
    std::uint32_t below = 0;
    for (std::uint32_t c : nodes_[n].children) below += nodes_[c].active_job_ref_count;
    return nodes_[n].active_job_ref_count > below;
  };
  // Whether a node has jobs of its own, and a child jobs below it, that keep
  // the ranking there: pending ones (6.2), of any state (8.1.9).
  auto own_jobs = [&](std::uint32_t n) {
    return bucket_start[pre[n] + 1] > bucket_start[pre[n]] || (by_slots && own_running(n));
  };
  auto active_child = [&](std::uint32_t c) { return by_slots ? nodes_[c].job_ref_count > 0 : pending_below(c) > 0; };
  // The effective root: descend while exactly one child is active and the
  // node has no jobs of its own.
  std::uint32_t top = 0;
  for (;;) {
    if (own_jobs(top)) break;
    std::uint32_t only = kNoNode;
    int active = 0;
    for (std::uint32_t c : nodes_[top].children) {
      if (active_child(c)) {
        only = c;
        ++active;
      }
    }
    if (active != 1) break;
    top = only;
  }
  auto better = [](const Entry& a, const Entry& b) {
    return a.key != b.key ? a.key < b.key : a.place_and_ref < b.place_and_ref;
  };
  // Ranks the pending tasks below node n (its own and its children's): the
  // k-th gets stt / (running below + finished jobs + k); by slots, stt /
  // (1 + the dilution of the running tasks below and of the k-1 ahead).
  // The highest level that ranks a task sets its value: the effective root if it
  // has tasks of its own (it then ranks everything), else the root's children.
  auto final_level = [&](std::uint32_t n) { return n == top || (nodes_[n].parent == top && !own_jobs(top)); };
  auto rank = [&](std::uint32_t n) {
    const auto [begin, end] = range_of(n);
    const auto first = slots.begin() + begin, last = slots.begin() + end;
    std::size_t descents = 0;  // places where the next task ranks before the one ahead of it
    for (auto it = first; it + 1 < last; ++it) descents += better(it[1], it[0]);
    if (descents != 0) {
      if constexpr (kParallel) {
        // Most leaves come in ref order but for a few tasks (the functional
        // category's head, which keeps its earlier tickets, and tasks with
        // override tickets): an insertion sort moves those few into place.
        const bool nearly_sorted = descents <= tuning::kLeafFewDescents &&
                                   bucket_sort::InsertionSortWithin(slots.data() + begin, slots.data() + end, better,
                                                                    tuning::kLeafMovesPerTask * (end - begin));
        if (!nearly_sorted) {
          // Otherwise the keys are doubles' images, most of them distinct:
          // placing them by value (bucket_sort.hpp) takes about two passes,
          // where merging the children's runs (about 200 under a project
          // node) took eight, each comparing unpredictably.
          Column<Entry> scratch(end - begin);
          BucketSortByKey(slots.data() + begin, slots.data() + end, scratch.data(),
                          [](const Entry& e) { return e.key; }, better);
        }
      } else {
        std::sort(first, last, better);
      }
    }
    double job_count = by_slots ? 1.0 + static_cast<double>(running_dilution[n])
                                : nodes_[n].active_job_ref_count + nodes_[n].finished_jobs;
    // 6.2 counts a task before its share, 8.1.9 dilutes after it.
    auto before = [&] {
      if (!by_slots) job_count++;
    };
    auto after = [&](std::uint32_t ref) {
      if (by_slots) job_count += slot_dilution[ref];
    };
    const double stt = nodes_[n].stt;
    if (final_level(n)) {
      for (auto it = first; it != last; ++it) {
        before();
        refs.stix[it->ref()] = (stt / job_count) * total_tickets;  // shr * T_S
        after(it->ref());
      }
      return;
    }
    // A lower level only re-keys the tasks for the level above it, from their
    // earlier tickets if dependent. A leaf's tasks still carry their first key,
    // tickets + 0.01 * jobshare: where the job has no share, that is the
    // earlier tickets, and only the other tasks read them from the table.
    const bool first_keys = nodes_[n].children.empty();
    auto key_is_tickets = [&](const Entry& e) {
      const std::uint32_t k = e.ref() - static_cast<std::uint32_t>(refs.running);
      return first_keys && !((layout.job_shares[k >> 6] >> (k & 63)) & 1);
    };
    for (auto it = first; it != last; ++it) {
      before();
      double earlier = 0;
      if (dependent) earlier = key_is_tickets(*it) ? FromDescendingBits(it->key) : refs.tickets[it->ref()];
      it->key = DescendingBits(earlier + (stt / job_count) * total_tickets);
      after(it->ref());
    }
  };
  // Post-order over nodes with pending tasks below; siblings are independent.
  auto visit = [&](auto&& self, std::uint32_t n) -> void {
    std::vector<std::uint32_t> children;
    for (std::uint32_t c : nodes_[n].children) {
      const auto [b, e] = range_of(c);
      if (e > b && pending_below(c) > 0) children.push_back(c);
    }
    if constexpr (kParallel) {
      // Subtrees are independent; spawn a task only where there is enough work.
      tbb::task_group group;
      for (std::uint32_t c : children) {
        const auto [b, e] = range_of(c);
        if (e - b >= tuning::kShareSubtreeMinTasks) {
          group.run([&self, c] { self(self, c); });
        } else {
          self(self, c);
        }
      }
      group.wait();
    } else {
      for (std::uint32_t c : children) self(self, c);
    }
    if (n != top || own_jobs(n)) rank(n);
  };
  visit(visit, top);
  if (add_to_tickets) {
    auto add = [&](std::size_t begin, std::size_t end) {
      for (std::size_t i = begin; i < end; ++i) {
        if (ref_node[i].valid()) refs.tickets[i] += refs.stix[i];
      }
    };
    if constexpr (kParallel) {
      tbb::parallel_for(tbb::blocked_range<std::size_t>(refs.running, refs.size(), 16384),
                        [&](const auto& r) { add(r.begin(), r.end()); });
    } else {
      add(refs.running, refs.size());
    }
  }
}

void ShareTreeWorkspace::PendingTickets(const std::vector<ShareNodeId>& ref_node, PendingLayout layout,
                                        double total_tickets, bool dependent, bool add_to_tickets,
                                        const std::vector<std::uint32_t>& slot_dilution, TicketRefs& refs) const {
  Pending<true>(ref_node, layout, total_tickets, dependent, add_to_tickets, slot_dilution, refs);
}

void ShareTreeWorkspace::PendingTicketsReference(const std::vector<ShareNodeId>& ref_node, PendingLayout layout,
                                                 double total_tickets, bool dependent, bool add_to_tickets,
                                                 const std::vector<std::uint32_t>& slot_dilution,
                                                 TicketRefs& refs) const {
  Pending<false>(ref_node, layout, total_tickets, dependent, add_to_tickets, slot_dilution, refs);
}

}  // namespace schedk
