#include "kernel/priority/share_tree_ranking.hpp"

#include <algorithm>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_group.h>

#include "kernel/tuning.hpp"
#include "kernel/util/bucket_sort.hpp"
#include "kernel/util/sort_key.hpp"

namespace schedk {

ShareTreeRanking::ShareTreeRanking(const std::vector<NodeState>& nodes, const std::vector<ShareNodeId>& ref_node,
                                   ShareTreeWorkspace::PendingLayout& layout, const Settings& settings,
                                   TicketRefs& refs)
    : nodes_(nodes),
      ref_node_(ref_node),
      layout_(layout),
      settings_(settings),
      by_slots_(settings.slot_dilution != nullptr && !settings.slot_dilution->empty()),
      refs_(refs) {
  if (by_slots_) running_dilution_ = RunningDilutionBelow();
}

std::vector<std::uint64_t> ShareTreeRanking::RunningDilutionBelow() const {
  std::vector<std::uint64_t> below(nodes_.size(), 0);
  for (std::size_t i = 0; i < refs_.running; ++i) {
    if (ref_node_[i].valid()) below[ref_node_[i].index()] += (*settings_.slot_dilution)[i];
  }
  // Children have higher indices than their parents except temporary nodes,
  // which are leaves: a reverse sweep sees children first.
  for (std::size_t n = nodes_.size(); n-- > 0;) {
    for (std::uint32_t c : nodes_[n].children) below[n] += below[c];
  }
  return below;
}

bool ShareTreeRanking::PlaceEntries(ExecutionMode mode) {
  const std::size_t pending = refs_.size() - refs_.running;
  const std::size_t chunks = layout_.chunks;
  slots_.resize(layout_.bucket_start.back());  // every bucketed ref writes its own
  if (slots_.empty()) return false;
  ForEachIndex(mode, chunks, [&](std::size_t k) {
    const std::size_t begin = refs_.running + pending * k / chunks;
    const std::size_t end = refs_.running + pending * (k + 1) / chunks;
    std::vector<std::uint32_t>& fill = layout_.chunk_fill[k];
    for (std::size_t i = begin; i < end; ++i) {
      if (!ref_node_[i].valid()) continue;
      const double key = settings_.dependent ? refs_.tickets[i] + 0.01 * static_cast<double>(refs_.jobshare[i])
                                             : static_cast<double>(refs_.jobshare[i]);
      const std::uint64_t place = layout_.places.empty() ? i : layout_.places[i - refs_.running];
      slots_[fill[layout_.pre[ref_node_[i].index()]]++] = Entry{DescendingBits(key), place << 32 | i};
    }
  });
  top_ = EffectiveRoot();
  return true;
}

std::pair<std::uint32_t, std::uint32_t> ShareTreeRanking::RangeOf(std::uint32_t n) const {
  const std::uint32_t pre = layout_.pre[n];
  return {layout_.bucket_start[pre], layout_.bucket_start[pre + layout_.size[n]]};
}

std::uint32_t ShareTreeRanking::PendingBelow(std::uint32_t n) const {
  return nodes_[n].job_ref_count - nodes_[n].active_job_ref_count;
}

// Running refs on node n itself: its running refs less its children's.
bool ShareTreeRanking::OwnRunning(std::uint32_t n) const {
  std::uint32_t below = 0;
  for (std::uint32_t c : nodes_[n].children) below += nodes_[c].active_job_ref_count;
  return nodes_[n].active_job_ref_count > below;
}

// Whether a node has jobs of its own, and a child jobs below it, that keep the
// ranking there: pending ones (6.2), of any state (8.1.9).
bool ShareTreeRanking::OwnJobs(std::uint32_t n) const {
  const std::uint32_t pre = layout_.pre[n];
  return layout_.bucket_start[pre + 1] > layout_.bucket_start[pre] || (by_slots_ && OwnRunning(n));
}

bool ShareTreeRanking::ActiveChild(std::uint32_t c) const {
  return by_slots_ ? nodes_[c].job_ref_count > 0 : PendingBelow(c) > 0;
}

// Descends from the root while exactly one child is active and the node has
// no jobs of its own.
std::uint32_t ShareTreeRanking::EffectiveRoot() const {
  std::uint32_t top = 0;
  while (!OwnJobs(top)) {
    std::uint32_t only = ShareTreeWorkspace::kNoNode;
    int active = 0;
    for (std::uint32_t c : nodes_[top].children) {
      if (ActiveChild(c)) {
        only = c;
        ++active;
      }
    }
    if (active != 1) break;
    top = only;
  }
  return top;
}

// The highest level that ranks a task sets its value: the effective root if it
// has tasks of its own (it then ranks everything), else the root's children.
bool ShareTreeRanking::FinalLevel(std::uint32_t n) const {
  return n == top_ || (nodes_[n].parent == top_ && !OwnJobs(top_));
}

std::vector<std::uint32_t> ShareTreeRanking::ChildrenToRank(std::uint32_t n) const {
  std::vector<std::uint32_t> children;
  for (std::uint32_t c : nodes_[n].children) {
    const auto [b, e] = RangeOf(c);
    if (e > b && PendingBelow(c) > 0) children.push_back(c);
  }
  return children;
}

void ShareTreeRanking::RankAll() { VisitParallel(top_); }

void ShareTreeRanking::RankAllReference() { VisitReference(top_); }

// Post-order over nodes with pending tasks below; sibling subtrees are
// independent, and a task is spawned only where there is enough work.
void ShareTreeRanking::VisitParallel(std::uint32_t n) {
  tbb::task_group group;
  for (std::uint32_t c : ChildrenToRank(n)) {
    const auto [b, e] = RangeOf(c);
    if (e - b >= tuning::kShareSubtreeMinTasks) {
      group.run([this, c] { VisitParallel(c); });
    } else {
      VisitParallel(c);
    }
  }
  group.wait();
  if (n != top_ || OwnJobs(n)) {
    const auto [begin, end] = RangeOf(n);
    SortRun(begin, end);
    Rank(n);
  }
}

void ShareTreeRanking::VisitReference(std::uint32_t n) {
  for (std::uint32_t c : ChildrenToRank(n)) VisitReference(c);
  if (n != top_ || OwnJobs(n)) {
    const auto [begin, end] = RangeOf(n);
    std::sort(slots_.begin() + begin, slots_.begin() + end, Better);
    Rank(n);
  }
}

// Most leaves come in ref order but for a few tasks (the functional category's
// head, which keeps its earlier tickets, and tasks with override tickets): an
// insertion sort moves those few into place. Otherwise the keys are doubles'
// images, most of them distinct: placing them by value (bucket_sort.hpp) takes
// about two passes, where merging the children's runs (about 200 under a
// project node) took eight, each comparing unpredictably.
void ShareTreeRanking::SortRun(std::uint32_t begin, std::uint32_t end) {
  std::size_t descents = 0;  // places where the next task ranks before the one ahead of it
  for (std::uint32_t i = begin; i + 1 < end; ++i) descents += Better(slots_[i + 1], slots_[i]);
  if (descents == 0) return;
  if (descents <= tuning::kLeafFewDescents &&
      bucket_sort::InsertionSortWithin(slots_.data() + begin, slots_.data() + end, Better,
                                       tuning::kLeafMovesPerTask * (end - begin))) {
    return;
  }
  Column<Entry> scratch(end - begin);
  BucketSortByKey(
      slots_.data() + begin, slots_.data() + end, scratch.data(), [](const Entry& e) { return e.key; }, Better);
}

// Node n's tasks, sorted: at the final level each gets its tickets; below it,
// each is re-keyed for the level above, from its earlier tickets if dependent.
// 6.2 counts a task before its share, 8.1.9 dilutes after it.
void ShareTreeRanking::Rank(std::uint32_t n) {
  const auto [begin, end] = RangeOf(n);
  double job_count = by_slots_ ? 1.0 + static_cast<double>(running_dilution_[n])
                               : nodes_[n].active_job_ref_count + nodes_[n].finished_jobs;
  const double stt = nodes_[n].stt;
  const bool final_level = FinalLevel(n);
  for (std::uint32_t i = begin; i < end; ++i) {
    Entry& e = slots_[i];
    if (!by_slots_) job_count++;
    const double share = (stt / job_count) * settings_.total_tickets;  // shr * T_S
    if (final_level) {
      refs_.stix[e.ref()] = share;
    } else {
      double earlier = 0;
      if (settings_.dependent) earlier = KeyIsTickets(n, e) ? FromDescendingBits(e.key) : refs_.tickets[e.ref()];
      e.key = DescendingBits(earlier + share);
    }
    if (by_slots_) job_count += (*settings_.slot_dilution)[e.ref()];
  }
}

// A leaf's tasks still carry their first key, tickets + 0.01 * jobshare: where
// the job has no share, that is the earlier tickets, and only the other tasks
// read them from the table.
bool ShareTreeRanking::KeyIsTickets(std::uint32_t n, const Entry& e) const {
  const std::uint32_t k = e.ref() - static_cast<std::uint32_t>(refs_.running);
  return nodes_[n].children.empty() && !((layout_.job_shares[k >> 6] >> (k & 63)) & 1);
}

void ShareTreeRanking::AddToTickets(ExecutionMode mode) {
  auto add = [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      if (ref_node_[i].valid()) refs_.tickets[i] += refs_.stix[i];
    }
  };
  ForEachRange(mode, refs_.running, refs_.size(), 16384, add);
}

}  // namespace schedk
