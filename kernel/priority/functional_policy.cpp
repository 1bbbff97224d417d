#include "kernel/priority/functional_policy.hpp"

#include <algorithm>
#include <span>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include "kernel/util/bucket_sort.hpp"
#include "kernel/util/column.hpp"
#include "kernel/util/lazy_max_heap.hpp"
#include "kernel/priority/ticket_categories.hpp"
#include "kernel/util/sort_key.hpp"
#include "kernel/tuning.hpp"

namespace schedk {
namespace {

// One task's functional shares in the four categories (sge_ref_t's *_fshare).
struct TaskShares {
  double user = 0, project = 0, department = 0;
  bool has_user = false, has_project = false, has_department = false;
};

// calc_job_functional_tickets_pass2, with Grid Engine's order of operations.
double FunctionalTickets(const TaskShares& f, std::uint32_t jobshare, const FunctionalSums& s, double total,
                         const FunctionalWeights& w) {
  double user = 0, project = 0, department = 0, job = 0;
  if (f.has_user && s.user != 0) user = f.user * total / s.user;
  if (f.has_project && s.project != 0) project = f.project * total / s.project;
  if (f.has_department && s.department != 0) department = f.department * total / s.department;
  if (s.job != 0) job = static_cast<double>(jobshare) * total / s.job;
  return w.user * user + w.department * department + w.project * project + w.job * job;
}

// calc_job_functional_tickets_pass1: the task's shares given the active counts
// (which include the task itself), added to `sums` when `add_all` or when the
// task is its entity's first active one.
TaskShares Pass1(const EntityTables& entities, const EntityCounts& counts, const TicketRefs& refs, std::size_t i,
                 bool shared, bool add_all, FunctionalSums& sums) {
  TaskShares f;
  if (refs.user[i].valid()) {
    const double n = counts.user[refs.user[i].index()];
    const double fshare = entities.user(refs.user[i]).fshare;
    f.has_user = true;
    f.user = shared ? fshare / n : fshare;
    if (add_all || n <= 1) sums.user += f.user;
  }
  if (refs.project[i].valid()) {
    const double n = counts.project[refs.project[i].index()];
    const double fshare = entities.project(refs.project[i]).fshare;
    f.has_project = true;
    f.project = shared ? fshare / n : fshare;
    if (add_all || n <= 1) sums.project += f.project;
  }
  if (refs.department[i].valid()) {
    const double n = counts.department[refs.department[i].index()];
    const double fshare = entities.userset(refs.department[i]).fshare;
    f.has_department = true;
    f.department = shared ? fshare / n : fshare;
    if (add_all || n <= 1) sums.department += f.department;
  }
  sums.job += refs.jobshare[i];
  return f;
}

// The winner's key: criterion, then earlier submission, lower job, lower task.
struct Candidate {
  double criterion;
  Time submit;
  JobNumber job;
  TaskNumber task;
};
struct CandidateBetter {
  bool operator()(const Candidate& a, const Candidate& b) const {
    if (a.criterion != b.criterion) return a.criterion > b.criterion;
    if (a.submit != b.submit) return a.submit < b.submit;
    if (a.job != b.job) return a.job < b.job;
    return a.task < b.task;
  }
};

// The state of the pending loop: active counts and the pending sums, plus
// everything the estimate of a category head needs.
class PendingLoop {
 public:
  PendingLoop(const SchedulerConfig& config, const EntityTables& entities, EntityCounts& counts,
              const FunctionalSums& running_sums, bool dependent, TicketRefs& refs, Twin twin, MemberOrder member_order)
      : config_(config),
        entities_(entities),
        counts_(counts),
        sums_(running_sums),
        dependent_(dependent),
        refs_(refs),
        member_order_(member_order),
        categories_(
            BuildTicketCategories(refs, entities, CategoryValues::kFunctionalShares, dependent, twin, member_order_)),
        weights_(FunctionalWeighting(config, FunctionalSums{1, 1, 1, 1})),
        heads_(categories_.categories.size()),
        loop_categories_(heads_.size()) {
    auto prepare = [&](std::size_t c) {
      const TicketCategory& cat = categories_.categories[c];
      heads_[c] = cat.begin;
      loop_categories_[c] = LoopCategory{cat.user_value, cat.project_value, cat.department_value,
                                         cat.user,       cat.project,       cat.department,
                                         cat.job_value,  KeyOf(head(static_cast<std::uint32_t>(c)))};
    };
    if (twin == Twin::kOptimised) {
      tbb::parallel_for(tbb::blocked_range<std::size_t>(0, heads_.size(), 1024), [&](const auto& r) {
        for (std::size_t c = r.begin(); c != r.end(); ++c) prepare(c);
      });
    } else {
      for (std::size_t c = 0; c < heads_.size(); ++c) prepare(c);
    }
  }

  std::size_t rounds() const {
    return std::min<std::size_t>(config_.max_functional_jobs_to_schedule, categories_.members.size());
  }
  std::size_t category_count() const { return heads_.size(); }
  bool exhausted(std::uint32_t c) const { return heads_[c] == categories_.categories[c].end; }
  std::uint32_t head(std::uint32_t c) const { return categories_.members[heads_[c]]; }

  // calc_intern_pending_job_functional_tickets: the head's tickets if it ran next.
  // It reads the category only: an entity whose value is 0 adds exactly 0, and one
  // whose value is not 0 is the same for every member (it is part of the key).
  double EstimateTickets(std::uint32_t c) const {
    const LoopCategory& cat = loop_categories_[c];
    const bool shared = config_.share_functional_shares;
    FunctionalSums s{sums_.user + 0.001, sums_.project + 0.001, sums_.department + 0.001, sums_.job + 0.001};
    TaskShares f;
    if (cat.user.valid()) {
      f.has_user = true;
      f.user = cat.user_value;
      if (shared) f.user /= static_cast<double>(counts_.user[cat.user.index()] + 1);
      else s.user += f.user;
    }
    if (cat.project.valid()) {
      f.has_project = true;
      f.project = cat.project_value;
      if (shared) f.project /= static_cast<double>(counts_.project[cat.project.index()] + 1);
      else s.project += f.project;
    }
    if (cat.department.valid()) {
      f.has_department = true;
      f.department = cat.department_value;
      if (shared) f.department /= static_cast<double>(counts_.department[cat.department.index()] + 1);
      else s.department += f.department;
    }
    s.job += cat.job_value;
    return FunctionalTickets(f, cat.job_value, s, config_.weight_tickets_functional, weights_);
  }
  // The selection criterion: the estimate plus, for a dependent policy, earlier tickets.
  double Criterion(std::uint32_t c, double estimate) const {
    return dependent_ ? estimate + refs_.tickets[head(c)] : estimate;
  }
  // The head's key from a per-category copy of its identity and earlier
  // tickets, so that re-keying a category reads one compact record.
  Candidate HeadCandidate(std::uint32_t c, double estimate) const {
    const HeadKey& h = loop_categories_[c].head;
    return Candidate{dependent_ ? estimate + h.tickets : estimate, h.submit, h.job, h.task};
  }

  // Marks category c's head as running and gives it its real tickets; its
  // estimate passes to the category's next task (copy_ftickets).
  void Select(std::uint32_t c, double estimate) {
    const std::uint32_t i = head(c);
    if (++heads_[c] == categories_.categories[c].begin + 1 && member_order_ == MemberOrder::kHeadFirst) {
      OrderAfterHead(categories_, refs_, dependent_, c);
    }
    if (!exhausted(c)) {
      refs_.ftix[head(c)] = estimate;
      loop_categories_[c].head = KeyOf(head(c));
    }
    counts_.Add(refs_, i, +1);
    const bool shared = config_.share_functional_shares;
    const TaskShares f = Pass1(entities_, counts_, refs_, i, shared, !shared, sums_);
    refs_.ftix[i] = FunctionalTickets(f, refs_.jobshare[i], sums_, config_.weight_tickets_functional, weights_);
    selected_.push_back(i);
  }

  // After the last round: every remaining task takes its head's value
  // (destribute_ftickets). FinishReference walks each category's members;
  // Finish walks the refs in order, in parallel, reading each one's category.
  void FinishReference() {
    for (std::uint32_t i : selected_) counts_.Add(refs_, i, -1);
    for (std::uint32_t i : selected_) {
      if (dependent_) refs_.tickets[i] += refs_.ftix[i];
    }
    for (std::size_t c = 0; c < heads_.size(); ++c) {
      const TicketCategory& cat = categories_.categories[c];
      if (heads_[c] == cat.end) continue;
      const double value = refs_.ftix[categories_.members[heads_[c]]];
      for (std::uint32_t m = heads_[c] + 1; m < cat.end; ++m) {
        const std::uint32_t i = categories_.members[m];
        refs_.ftix[i] = value;
        if (dependent_) refs_.tickets[i] += value;
      }
    }
  }
  void Finish() {
    for (std::uint32_t i : selected_) counts_.Add(refs_, i, -1);
    // A selected task keeps its own value and, if dependent, adds it to its
    // tickets. Any other member takes its category's head value; it adds it
    // unless it is the head (destribute_ftickets' quirk).
    constexpr std::uint32_t kAllSelected = UINT32_MAX;
    struct Head {
      std::uint32_t ref;  // kAllSelected: no member is left
      double value;
    };
    std::vector<Head> heads(heads_.size(), Head{kAllSelected, 0});
    for (std::size_t c = 0; c < heads_.size(); ++c) {
      if (heads_[c] == categories_.categories[c].end) continue;
      const std::uint32_t ref = categories_.members[heads_[c]];
      heads[c] = Head{ref, refs_.ftix[ref]};
    }
    const std::size_t first = refs_.running;
    std::vector<bool> selected(refs_.size() - first);
    for (std::uint32_t i : selected_) selected[i - first] = true;
    tbb::parallel_for(tbb::blocked_range<std::size_t>(first, refs_.size(), 16384), [&](const auto& r) {
      for (std::size_t i = r.begin(); i != r.end(); ++i) {
        const std::uint32_t c = categories_.category_of[i - first];
        if (c == kNoCategory) continue;
        if (!selected[i - first]) {
          if (heads[c].ref == i) continue;
          refs_.ftix[i] = heads[c].value;
        }
        if (dependent_) refs_.tickets[i] += refs_.ftix[i];
      }
    });
  }

  TicketRefs& refs() { return refs_; }

 private:
  const SchedulerConfig& config_;
  const EntityTables& entities_;
  EntityCounts& counts_;
  FunctionalSums sums_;
  bool dependent_;
  TicketRefs& refs_;
  MemberOrder member_order_;
  TicketCategories categories_;
  FunctionalWeights weights_;
  struct HeadKey {
    double tickets;  // of the earlier policies
    Time submit;
    JobNumber job;
    TaskNumber task;
  };
  HeadKey KeyOf(std::uint32_t i) const { return HeadKey{refs_.tickets[i], refs_.submit[i], refs_.job[i], refs_.task[i]}; }
  // Everything a re-key of category c reads, in one cache line: a copy of its
  // values and entities, and its current head's key.
  struct alignas(64) LoopCategory {
    double user_value, project_value, department_value;
    UserId user;
    ProjectId project;
    UsersetId department;
    std::uint32_t job_value;
    HeadKey head;
  };
  static_assert(sizeof(LoopCategory) == 64);

  std::vector<std::uint32_t> heads_;      // position of each category's head in members
  Column<LoopCategory> loop_categories_;  // sized uninitialised, each written by the constructor
  std::vector<std::uint32_t> selected_;
};

}  // namespace

FunctionalWeights FunctionalWeighting(const SchedulerConfig& config, const FunctionalSums& sums) {
  FunctionalWeights w;
  if (sums.user > 0) w.user = config.weight_user;
  if (sums.department > 0) w.department = config.weight_department;
  if (sums.project > 0) w.project = config.weight_project;
  if (sums.job > 0) w.job = config.weight_job;
  const double k_sum = w.user + w.department + w.project + w.job;
  if (k_sum > 0) {
    w.user /= k_sum;
    w.department /= k_sum;
    w.project /= k_sum;
    w.job /= k_sum;
  }
  return w;
}

FunctionalSums FunctionalTicketsRunning(const SchedulerConfig& config, const EntityTables& entities,
                                        const EntityCounts& running_counts, TicketRefs& refs, ExecutionMode mode) {
  FunctionalSums sums;
  if (config.weight_tickets_functional <= 0) return sums;
  const bool shared = config.share_functional_shares;
  // Every running task's shares are added (pass 1 with add_all): each task's
  // shares on their own, then one walk in ref order sums them, as Grid Engine does.
  Column<TaskShares> shares(refs.running);  // each written below, its pages touched there (in parallel)
  ForEachIndex(mode, refs.running, [&](std::size_t i) {
    FunctionalSums unused;
    shares[i] = Pass1(entities, running_counts, refs, i, shared, true, unused);
  });
  for (std::size_t i = 0; i < refs.running; ++i) {
    const TaskShares& f = shares[i];
    if (f.has_user) sums.user += f.user;
    if (f.has_project) sums.project += f.project;
    if (f.has_department) sums.department += f.department;
    sums.job += refs.jobshare[i];
  }
  const FunctionalWeights w = FunctionalWeighting(config, sums);
  ForEachIndex(mode, refs.running, [&](std::size_t i) {
    refs.ftix[i] = FunctionalTickets(shares[i], refs.jobshare[i], sums, config.weight_tickets_functional, w);
  });
  return sums;
}

void FunctionalTicketsPending(const SchedulerConfig& config, const EntityTables& entities, EntityCounts& counts,
                              const FunctionalSums& running_sums, bool dependent, TicketRefs& refs,
                              const std::function<void()>& beside_rounds) {
  if (config.weight_tickets_functional <= 0 || refs.size() == refs.running) return;
  // The loop orders a category past its head only once it wins.
  PendingLoop loop(config, entities, counts, running_sums, dependent, refs, Twin::kOptimised, MemberOrder::kHeadFirst);
  const std::size_t rounds = loop.rounds();
  if (rounds == 0) return;
  auto candidate = [&](std::uint32_t c, double estimate) { return loop.HeadCandidate(c, estimate); };
  using Heap = LazyMaxHeap<Candidate, CandidateBetter>;
  Heap heap;
  std::vector<double> estimate(loop.category_count());
  {
    // The first estimates read only the running counts: every category at once.
    std::vector<Heap::Entry> entries(loop.category_count());
    tbb::parallel_for(tbb::blocked_range<std::uint32_t>(0, loop.category_count(), 1024), [&](const auto& r) {
      for (std::uint32_t c = r.begin(); c != r.end(); ++c) {
        estimate[c] = loop.EstimateTickets(c);
        entries[c] = {candidate(c, estimate[c]), c};
      }
    });
    // Best first: the criterion descending (its integer image ascending), then
    // the head's submission, job and task; the images spread over their range,
    // so placing them by value sorts them in about two passes.
    std::vector<Heap::Entry> scratch(entries.size());
    BucketSortByKey(entries.data(), entries.data() + entries.size(), scratch.data(),
                    [](const Heap::Entry& e) { return DescendingBits(e.key.criterion); },
                    [](const Heap::Entry& a, const Heap::Entry& b) { return CandidateBetter{}(a.key, b.key); });
    heap.AssignSorted(std::move(entries));
  }
  auto fresh = [&](std::uint32_t c) {
    estimate[c] = loop.EstimateTickets(c);
    return candidate(c, estimate[c]);
  };
  // A round re-keys the hundreds of heads whose stale keys beat the top's
  // fresh one: on every core, each head on its own.
  auto fresh_batch = [&](std::span<const std::uint32_t> categories, std::span<Candidate> keys) {
    auto rekey = [&](std::size_t begin, std::size_t end) {
      for (std::size_t k = begin; k != end; ++k) keys[k] = fresh(categories[k]);
    };
    if (categories.size() < tuning::kRekeyBatchSerialBelow) return rekey(0, categories.size());
    // Isolated: while it waits, this thread takes none of `beside_rounds`'s work.
    tbb::this_task_arena::isolate(
        [&] { ForEachRange(ExecutionMode::kParallel, 0, categories.size(), tuning::kRekeyGrain, rekey); });
  };
  tbb::task_group beside;
  if (beside_rounds) beside.run(beside_rounds);
  for (std::size_t round = 0; round < rounds; ++round) {
    const std::uint32_t winner = heap.TopBatched(fresh, fresh_batch).category;
    if (round + 1 == rounds) {
      // The last round's estimates are what the remaining heads keep.
      for (const std::span<const Heap::Entry> entries : {heap.backlog(), std::span<const Heap::Entry>(heap.heap())}) {
        tbb::parallel_for(tbb::blocked_range<std::size_t>(0, entries.size(), 1024), [&](const auto& r) {
          for (std::size_t k = r.begin(); k != r.end(); ++k) {
            const std::uint32_t c = entries[k].category;
            if (c != winner) refs.ftix[loop.head(c)] = loop.EstimateTickets(c);
          }
        });
      }
    }
    loop.Select(winner, estimate[winner]);
    if (loop.exhausted(winner)) {
      heap.PopTop();
    } else {
      heap.ReplaceTop(fresh(winner));
    }
  }
  beside.wait();
  loop.Finish();
}

void FunctionalTicketsPendingReference(const SchedulerConfig& config, const EntityTables& entities,
                                       EntityCounts& counts, const FunctionalSums& running_sums, bool dependent,
                                       TicketRefs& refs) {
  if (config.weight_tickets_functional <= 0 || refs.size() == refs.running) return;
  PendingLoop loop(config, entities, counts, running_sums, dependent, refs, Twin::kReference, MemberOrder::kFull);
  const std::size_t rounds = loop.rounds();
  if (rounds == 0) return;
  for (std::size_t round = 0; round < rounds; ++round) {
    bool found = false;
    std::uint32_t best = 0;
    double best_estimate = 0;
    Candidate best_key{};
    for (std::uint32_t c = 0; c < loop.category_count(); ++c) {
      if (loop.exhausted(c)) continue;
      const double e = loop.EstimateTickets(c);
      refs.ftix[loop.head(c)] = e;
      const std::uint32_t i = loop.head(c);
      const Candidate key{loop.Criterion(c, e), refs.submit[i], refs.job[i], refs.task[i]};
      if (!found || CandidateBetter{}(key, best_key)) {
        found = true;
        best = c;
        best_estimate = e;
        best_key = key;
      }
    }
    if (!found) break;
    loop.Select(best, best_estimate);
  }
  loop.FinishReference();
}

void FunctionalTicketsPendingLinear(const SchedulerConfig& config, const EntityTables& entities, bool dependent,
                                    TicketRefs& refs, ExecutionMode mode) {
  if (config.weight_tickets_functional <= 0 || refs.size() == refs.running) return;
  // Pending tasks per entity, and the shares of the entities that have any.
  std::vector<std::uint32_t> users(entities.users.size()), projects(entities.projects.size()),
      departments(entities.usersets.size());
  FunctionalSums sums;
  auto count = [](std::vector<std::uint32_t>& n, std::uint32_t id, double fshare, double& sum) {
    if (n[id]++ == 0) sum += fshare;
  };
  for (std::size_t i = refs.running; i < refs.size(); ++i) {
    count(users, refs.user[i].index(), entities.user(refs.user[i]).fshare, sums.user);
    if (refs.project[i].valid()) {
      count(projects, refs.project[i].index(), entities.project(refs.project[i]).fshare, sums.project);
    }
    if (refs.department[i].valid()) {
      count(departments, refs.department[i].index(), entities.userset(refs.department[i]).fshare, sums.department);
    }
    sums.job += refs.jobshare[i];
  }
  const FunctionalWeights w = FunctionalWeighting(config, sums);
  const double total = config.weight_tickets_functional;
  auto tickets = [&](std::size_t i) {
    double t = 0;
    if (sums.user > 0) t += w.user * entities.user(refs.user[i]).fshare / sums.user / users[refs.user[i].index()];
    if (sums.project > 0 && refs.project[i].valid()) {
      t += w.project * entities.project(refs.project[i]).fshare / sums.project / projects[refs.project[i].index()];
    }
    if (sums.department > 0 && refs.department[i].valid()) {
      t += w.department * entities.userset(refs.department[i]).fshare / sums.department /
           departments[refs.department[i].index()];
    }
    if (sums.job > 0) t += w.job * refs.jobshare[i] / sums.job;
    refs.ftix[i] = total * t;
    if (dependent) refs.tickets[i] += refs.ftix[i];
  };
  ForEachRange(mode, refs.running, refs.size(), 16384, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i != end; ++i) tickets(i);
  });
}

}  // namespace schedk
