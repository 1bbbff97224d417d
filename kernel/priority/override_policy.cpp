#include "kernel/priority/override_policy.hpp"

#include <algorithm>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "kernel/util/lazy_max_heap.hpp"
#include "kernel/priority/ticket_categories.hpp"

namespace schedk {
namespace {

double UserTickets(const EntityTables& e, UserId id) { return e.user(id).oticket; }
double ProjectTickets(const EntityTables& e, ProjectId id) { return e.project(id).oticket; }
double DepartmentTickets(const EntityTables& e, UsersetId id) { return e.userset(id).oticket; }

// calc_job_override_tickets: the task's override tickets with the current counts.
double OverrideTickets(const EntityTables& entities, const EntityCounts& counts, const TicketRefs& refs,
                       std::size_t i, bool shared) {
  double tickets = 0;
  if (shared) {
    if (refs.user[i].valid()) {
      const double ot = UserTickets(entities, refs.user[i]);
      const double n = counts.user[refs.user[i].index()];
      if (ot != 0 && n != 0) tickets += ot / n;
    }
    if (refs.project[i].valid()) {
      const double ot = ProjectTickets(entities, refs.project[i]);
      const double n = counts.project[refs.project[i].index()];
      if (ot != 0 && n != 0) tickets += ot / n;
    }
    if (refs.department[i].valid()) {
      const double ot = DepartmentTickets(entities, refs.department[i]);
      const double n = counts.department[refs.department[i].index()];
      if (ot != 0 && n != 0) tickets += ot / n;
    }
  } else {
    if (refs.user[i].valid()) tickets += UserTickets(entities, refs.user[i]);
    if (refs.project[i].valid()) tickets += ProjectTickets(entities, refs.project[i]);
    if (refs.department[i].valid()) tickets += DepartmentTickets(entities, refs.department[i]);
  }
  tickets += refs.job_oticket[i];
  return tickets;
}

// calc_pjob_override_tickets_shared: the tickets a pending task would get if it ran next.
double PendingSharedEstimate(const EntityTables& entities, const EntityCounts& counts, const TicketRefs& refs,
                             std::size_t i) {
  double tickets = 0;
  if (refs.user[i].valid()) {
    const double ot = UserTickets(entities, refs.user[i]);
    if (ot > 0) tickets += ot / (counts.user[refs.user[i].index()] + 1);
  }
  if (refs.project[i].valid()) {
    const double ot = ProjectTickets(entities, refs.project[i]);
    if (ot > 0) tickets += ot / (counts.project[refs.project[i].index()] + 1);
  }
  if (refs.department[i].valid()) {
    const double ot = DepartmentTickets(entities, refs.department[i]);
    if (ot > 0) tickets += ot / (counts.department[refs.department[i].index()] + 1);
  }
  tickets += refs.job_oticket[i];
  return tickets;
}

// The winner's key in the shared loop: most tickets, then lower job, lower task
// (calculate_pending_shared_override_tickets has no submission-time key).
struct Candidate {
  double tickets;
  JobNumber job;
  TaskNumber task;
};
struct CandidateBetter {
  bool operator()(const Candidate& a, const Candidate& b) const {
    if (a.tickets != b.tickets) return a.tickets > b.tickets;
    if (a.job != b.job) return a.job < b.job;
    return a.task < b.task;
  }
};

// The shared loop's categories of pending tasks (those with equal override
// values), each consumed from its head in the order Grid Engine takes its tasks.
class CategoryHeads {
 public:
  CategoryHeads(const EntityTables& entities, bool dependent, const TicketRefs& refs, Twin twin)
      : categories_(BuildTicketCategories(refs, entities, CategoryValues::kOverrideTickets, dependent, twin)),
        heads_(categories_.categories.size()) {
    for (std::size_t c = 0; c < heads_.size(); ++c) heads_[c] = categories_.categories[c].begin;
    Column<std::uint32_t>().swap(categories_.category_of);  // the loop walks the members
  }
  std::size_t rounds() const { return categories_.members.size(); }
  std::size_t category_count() const { return heads_.size(); }
  bool exhausted(std::uint32_t c) const { return heads_[c] == categories_.categories[c].end; }
  std::uint32_t head(std::uint32_t c) const { return categories_.members[heads_[c]]; }

 protected:
  TicketCategories categories_;
  std::vector<std::uint32_t> heads_;
};

// The loop over category heads. Evaluate reads the category and its copy of
// the head's job and task only: an entity without override tickets adds
// nothing, and one with them is the same for every member (it is part of the
// key). Only the counts of entities with override tickets are read in the
// loop, so Select raises only those (and Finish lowers them again); the loop
// reads no task's tickets, so Finish writes them, in parallel.
class SharedLoop : public CategoryHeads {
 public:
  SharedLoop(const EntityTables& entities, EntityCounts& counts, bool dependent, TicketRefs& refs)
      : CategoryHeads(entities, dependent, refs, Twin::kOptimised), counts_(counts), refs_(refs) {
    // Every member's job and task, in member order: the loop then reads each
    // category's members in sequence instead of the refs all over their columns.
    member_job_task_.resize(categories_.members.size());
    selected_.reserve(categories_.members.size());
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, member_job_task_.size(), 16384), [&](const auto& r) {
      for (std::size_t m = r.begin(); m != r.end(); ++m) {
        const std::uint32_t i = categories_.members[m];
        member_job_task_[m] = {refs_.job[i], refs_.task[i]};
      }
    });
  }
  // calc_pjob_override_tickets_shared for the category's head.
  Candidate Evaluate(std::uint32_t c) const {
    const TicketCategory& cat = categories_.categories[c];
    double tickets = 0;
    if (cat.user.valid()) tickets += cat.user_value / (counts_.user[cat.user.index()] + 1);
    if (cat.project.valid()) tickets += cat.project_value / (counts_.project[cat.project.index()] + 1);
    if (cat.department.valid()) tickets += cat.department_value / (counts_.department[cat.department.index()] + 1);
    tickets += cat.job_value;
    const auto [job, task] = member_job_task_[heads_[c]];
    return Candidate{tickets, job, task};
  }
  // The head becomes active with `tickets`.
  void Select(std::uint32_t c, double tickets) {
    const std::uint32_t i = head(c);
    ++heads_[c];
    Count(c, +1);
    selected_.push_back({c, i, tickets});
  }
  void Finish() {
    for (const Selection& s : selected_) Count(s.category, -1);
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, selected_.size(), 16384), [&](const auto& r) {
      for (std::size_t k = r.begin(); k != r.end(); ++k) {  // each ref is selected once
        const Selection& s = selected_[k];
        refs_.otix[s.ref] = s.tickets;
        refs_.tickets[s.ref] += s.tickets;
      }
    });
  }

 private:
  void Count(std::uint32_t c, int delta) {
    const TicketCategory& cat = categories_.categories[c];
    if (cat.user.valid()) counts_.user[cat.user.index()] += delta;
    if (cat.project.valid()) counts_.project[cat.project.index()] += delta;
    if (cat.department.valid()) counts_.department[cat.department.index()] += delta;
  }

  EntityCounts& counts_;
  TicketRefs& refs_;
  std::vector<std::pair<JobNumber, TaskNumber>> member_job_task_;  // by member position
  struct Selection {
    std::uint32_t category;
    std::uint32_t ref;
    double tickets;
  };
  std::vector<Selection> selected_;  // in the order of selection
};

// SharedLoop's reference twin: each head task evaluated and counted as Grid
// Engine does, its tickets written when it is selected.
class SharedLoopReference : public CategoryHeads {
 public:
  SharedLoopReference(const EntityTables& entities, EntityCounts& counts, bool dependent, TicketRefs& refs)
      : CategoryHeads(entities, dependent, refs, Twin::kReference), entities_(entities), counts_(counts), refs_(refs) {}
  Candidate Evaluate(std::uint32_t c) const {
    const std::uint32_t i = head(c);
    return Candidate{PendingSharedEstimate(entities_, counts_, refs_, i), refs_.job[i], refs_.task[i]};
  }
  void Select(std::uint32_t c, double tickets) {
    const std::uint32_t i = head(c);
    ++heads_[c];
    refs_.otix[i] = tickets;
    refs_.tickets[i] += tickets;
    counts_.Add(refs_, i, +1);
    selected_.push_back(i);
  }
  void Finish() {
    for (std::uint32_t i : selected_) counts_.Add(refs_, i, -1);
  }

 private:
  const EntityTables& entities_;
  EntityCounts& counts_;
  TicketRefs& refs_;
  std::vector<std::uint32_t> selected_;  // in the order of selection
};

bool PendingNotShared(const SchedulerConfig& config, const EntityTables& entities, const EntityCounts& counts,
                      bool dependent, TicketRefs& refs) {
  if (config.share_override_tickets) return false;
  for (std::size_t i = refs.running; i < refs.size(); ++i) {
    refs.otix[i] = OverrideTickets(entities, counts, refs, i, false);
    if (dependent) refs.tickets[i] += refs.otix[i];
  }
  return true;
}

}  // namespace

void OverrideTicketsRunning(const SchedulerConfig& config, const EntityTables& entities,
                            const EntityCounts& running_counts, TicketRefs& refs) {
  for (std::size_t i = 0; i < refs.running; ++i) {
    refs.otix[i] = OverrideTickets(entities, running_counts, refs, i, config.share_override_tickets);
  }
}

void OverrideTicketsPending(const SchedulerConfig& config, const EntityTables& entities, EntityCounts& counts,
                            bool dependent, TicketRefs& refs) {
  if (PendingNotShared(config, entities, counts, dependent, refs)) return;
  SharedLoop loop(entities, counts, dependent, refs);
  LazyMaxHeap<Candidate, CandidateBetter> heap;
  heap.Reserve(loop.category_count());
  for (std::uint32_t c = 0; c < loop.category_count(); ++c) heap.PushUnordered(loop.Evaluate(c), c);
  heap.Build();
  auto fresh = [&](std::uint32_t c) { return loop.Evaluate(c); };
  for (std::size_t round = 0; round < loop.rounds(); ++round) {
    auto& top = heap.Top(fresh);
    const std::uint32_t winner = top.category;
    loop.Select(winner, top.key.tickets);
    if (loop.exhausted(winner)) {
      heap.PopTop();
    } else {
      heap.ReplaceTop(loop.Evaluate(winner));
    }
  }
  loop.Finish();
}

bool AnyPendingOverrideTickets(const EntityTables& entities, const TicketRefs& refs) {
  auto holds = [](const auto& entity) { return entity.oticket != 0; };
  if (std::any_of(entities.users.begin(), entities.users.end(), holds) ||
      std::any_of(entities.projects.begin(), entities.projects.end(), holds) ||
      std::any_of(entities.usersets.begin(), entities.usersets.end(), holds)) {
    return true;
  }
  for (std::size_t i = refs.running; i < refs.size(); ++i) {
    if (refs.job_oticket[i] != 0) return true;
  }
  return false;
}

void OverrideTicketsPendingReference(const SchedulerConfig& config, const EntityTables& entities, EntityCounts& counts,
                                     bool dependent, TicketRefs& refs) {
  if (PendingNotShared(config, entities, counts, dependent, refs)) return;
  SharedLoopReference loop(entities, counts, dependent, refs);
  for (std::size_t round = 0; round < loop.rounds(); ++round) {
    bool found = false;
    std::uint32_t best = 0;
    Candidate best_key{};
    for (std::uint32_t c = 0; c < loop.category_count(); ++c) {
      if (loop.exhausted(c)) continue;
      const Candidate key = loop.Evaluate(c);
      if (!found || CandidateBetter{}(key, best_key)) {
        found = true;
        best = c;
        best_key = key;
      }
    }
    if (!found) break;
    loop.Select(best, best_key.tickets);
  }
  loop.Finish();
}

}  // namespace schedk
