// quota_usage.hpp
// The usage of resource quota rule instances (docs/resource-quotas.md): what
// the granted queue instances of jobs debit against the rule each enabled set
// applies there, and whether more would exceed a limit. A rule instance is
// Grid Engine's usage key: the set, the rule, and the subject's values in the
// rule's expanded filters (none in the others), so `users {*}` keeps one
// counter per user and `users *` one for all.
// A parallel job's grants share the counters of the rule instances they have
// in common.
// Invariants: a debit of a queue instance adds, per consumable limit of each
// applying rule, the slots times the per-slot request (`slots` counts 1 per
// slot), and a per-job (JOB) consumable's request once, at the job's master
// queue instance; an attribute neither requested nor defaulted (non-zero
// default) is not debited, `slots` always is.
#pragma once

#include <cmath>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <unordered_map>
#include <optional>
#include <span>
#include <vector>

#include "kernel/execution_mode.hpp"
#include "kernel/model/cluster.hpp"
#include "kernel/model/resource_quota.hpp"
#include "kernel/model/job_table.hpp"
#include "kernel/model/request_set.hpp"
#include "kernel/reservation/utilization_diagram.hpp"
#include "kernel/util/first_occurrence.hpp"
#include "kernel/util/flat_id_map.hpp"

namespace schedk {

// Who asks, and where: a job's credentials at one queue instance. `pe` is
// None for a sequential job, `project` for a job without one. `instance` is
// the queue instance's index where the usage has its table (IndexInstances).
struct QuotaSubject {
  UserId user;
  GroupId group;
  ProjectId project;
  PeId pe;
  QueueId queue;
  HostId host;
  std::uint32_t instance = UINT32_MAX;
};

// Whether `filter` admits `value` (None: missing), with `group` for a users filter.
bool QuotaFilterAdmits(const QuotaFilter& filter, std::uint32_t value, GroupId group = GroupId::None());

// The index of the first rule of `set` whose filters all admit `subject`, or
// nullopt. Whether the set is enabled is the caller's to check.
std::optional<std::uint32_t> MatchingQuotaRule(const ResourceQuotaSet& set, const QuotaSubject& subject);

// The instance of rule `rule` of set `set` (an index into `sets`) that `subject` debits.
QuotaInstance QuotaInstanceOf(const std::vector<ResourceQuotaSet>& sets, std::uint32_t set, std::uint32_t rule,
                              const QuotaSubject& subject);

// `slots` slots of a job at one queue instance.
struct QuotaGrant {
  QuotaSubject subject;
  std::uint32_t slots = 0;
};

struct QuotaInstanceHash {
  std::size_t operator()(const QuotaInstance& q) const {
    std::uint64_t h = (std::uint64_t{q.set} << 32 | q.rule) * 0x9E3779B97F4A7C15ull;
    for (std::uint32_t v : {q.user.value, q.project.value, q.pe.value, q.queue.value, q.host.value}) {
      h = (h ^ v) * 0x9E3779B97F4A7C15ull;
    }
    return static_cast<std::size_t>(h ^ (h >> 29));
  }
};

// A rule instance's limit: the key of what one placement takes of it.
struct QuotaLimitKey {
  QuotaInstance instance;
  std::uint32_t limit = 0;
  friend bool operator==(const QuotaLimitKey&, const QuotaLimitKey&) = default;
};
struct QuotaLimitKeyHash {
  std::size_t operator()(const QuotaLimitKey& k) const { return QuotaInstanceHash()(k.instance) ^ k.limit; }
};

// What the grants of one placement so far take of each rule instance's
// limits, and the peaks already read for its window (a scratch pad of
// QuotaUsage::SlotRoom and Take).
struct QuotaTally {
  std::unordered_map<QuotaLimitKey, double, QuotaLimitKeyHash> taken;
  std::unordered_map<QuotaLimitKey, double, QuotaLimitKeyHash> peak;
};

// What an answer read of the usage (QuotaUsage::PeaksOf), to tell later
// whether it still holds (QuotaUsage::Unchanged): the counters it read, by
// index, and the rule instances it found without one, as of the usage's
// change clock and counter count then; and whether each peak it read is the
// same over every window from the same start (then so is the answer).
struct QuotaReads {
  std::uint64_t clock = 0;
  std::size_t counters = 0;
  std::vector<std::uint32_t> read;
  std::vector<QuotaInstance> absent;
  bool any_duration = true;
};

// A booking's time: [start, DiagramEnd(start, duration)).
struct QuotaWindow {
  Time start = 0;
  Duration duration = 0;
};

class QuotaUsage {
 public:
  // A dynamic limit's value on a host; without one, every dynamic limit is
  // kErrorLoadValue's 9999, as where the formula cannot be read.
  using DynamicLimit = std::function<double(const LoadFormula&, HostId)>;

  // `sets` and `complexes` outlive the usage. With `diagrams` (max_reservation
  // above 0) every counter also keeps its usage over time, and a check over a
  // window weighs the counter's peak in it; otherwise what is in use now.
  QuotaUsage(const std::vector<ResourceQuotaSet>& sets, const ComplexTable& complexes, DynamicLimit dynamic = {},
             bool diagrams = false);

  // Whether some set is enabled (otherwise nothing is ever limited).
  bool active() const { return active_; }
  bool with_diagrams() const { return diagrams_; }

  // Calls visit(instance, limit index, amount) for each non-zero amount that
  // `slots` slots of a job asking `requests` at the subject's queue instance
  // debit, in set and limit order; `master`: the job's master queue instance.
  template <class Visit>
  void ForEachDebit(const QuotaSubject& subject, const RequestSet& requests, std::uint32_t slots, bool master,
                    Visit visit) const {
    ForEachDebit(subject, requests, slots, master, job_rules_, visit);
  }
  // Per set, the rules whose users, projects and pes filters admit the last
  // subject's credentials: a one-entry cache. With one of its own, a thread
  // may list debits while others do (the usage is not changed meanwhile).
  struct RuleCache {
    UserId user;
    GroupId group;
    ProjectId project;
    PeId pe;
    bool valid = false;
    std::vector<std::uint64_t> rules;
  };
  template <class Visit>
  void ForEachDebit(const QuotaSubject& subject, const RequestSet& requests, std::uint32_t slots, bool master,
                    RuleCache& cache, Visit visit) const;

  // Debits now (running and starting jobs), and over `window` where diagrams are kept.
  void Debit(const QuotaSubject& subject, const RequestSet& requests, std::uint32_t slots, bool master,
             QuotaWindow window = {});
  void Debit(const QuotaInstance& instance, std::uint32_t limit, double amount, QuotaWindow window = {});
  // A reservation: over `window` only (nothing where no diagrams are kept).
  void Reserve(const QuotaInstance& instance, std::uint32_t limit, double amount, QuotaWindow window);
  // Every Debit of `debits` at once, as if in their order: the counters'
  // diagrams are built in parallel, each from its own debits in order.
  struct PendingDebit {
    QuotaInstance instance;
    std::uint32_t limit = 0;
    double amount = 0;
    QuotaWindow window;
  };
  // `debits` point to them where they lie (the running tasks' lists, not
  // copied into one). `numbered`, if the caller has it: the debits' instances
  // numbered by first occurrence (NumberByFirstOccurrence), which DebitAll
  // works out otherwise.
  void DebitAll(std::span<const PendingDebit* const> debits, ExecutionMode mode,
                const FirstOccurrence<QuotaInstance>* numbered = nullptr);

  // The first limit, in set and limit order, that the grants (the first the
  // master) would take above its value, weighing each counter's peak over
  // `window` (nullopt: now); grants that share a rule instance share its
  // limit. nullopt when every set has room.
  // `master`: the first grant is the master's.
  std::optional<QuotaExcess> Excess(std::span<const QuotaGrant> grants, const RequestSet& requests,
                                    std::optional<QuotaWindow> window = std::nullopt, bool master = true) const;
  std::optional<QuotaExcess> Excess(const QuotaSubject& subject, const RequestSet& requests, std::uint32_t slots,
                                    bool master, std::optional<QuotaWindow> window = std::nullopt) const {
    const QuotaGrant grant{subject, slots};
    return Excess(std::span<const QuotaGrant>(&grant, 1), requests, window, master);
  }

  // The most slots the subject's queue instance can take under every limit
  // (UINT32_MAX where none concerns the job; 0 where even a master's per-job
  // amount or a non-consumable limit is in the way), less what `tally`'s
  // earlier grants of the same placement took.
  std::uint32_t SlotRoom(const QuotaSubject& subject, const RequestSet& requests, bool master,
                         std::optional<QuotaWindow> window = std::nullopt, QuotaTally* tally = nullptr) const;
  // The limits of the rules that apply at the subject's queue instance and
  // concern the request, without their usage: visit(key, refuses, one,
  // fixed) for each, whether it refuses the request itself (then one and
  // fixed are 0), what one slot there takes and the master's per-job part
  // of it.
  template <class Visit>
  void ForEachLimit(const QuotaSubject& subject, const RequestSet& requests, bool master, Visit visit) const;
  // SlotRoom's parts: visit(key, left, per_slot) for each of ForEachLimit's
  // limits: what is left of it after the peak, the master's per-job amount
  // and the tally's take (negative where it refuses the request), and what
  // one more slot takes. SlotsLeft turns the two into slots.
  template <class Visit>
  void ForEachLimitLeft(const QuotaSubject& subject, const RequestSet& requests, bool master,
                        std::optional<QuotaWindow> window, QuotaTally* tally, Visit visit) const;
  static std::uint32_t SlotsLeft(double left, double per_slot) {
    if (left < 0) return 0;
    if (per_slot <= 0) return UINT32_MAX;
    return static_cast<std::uint32_t>(std::min<double>(UINT32_MAX, std::floor(left / per_slot)));
  }
  // What Excess weighs of one limit of a rule instance for `requests` over
  // `window` (the peak read once per tally): whether the limit refuses the
  // request itself (then nothing else is set), its peak and value, and what
  // a grant of n slots adds, n * per_slot, and the master's grant per_job
  // more (a per-job amount), to the bit as Excess adds them.
  struct LimitTerms {
    bool refuses = false;
    double peak = 0, value = 0, per_slot = 0, per_job = 0;
  };
  LimitTerms TermsOf(const QuotaLimitKey& key, const RequestSet& requests, std::optional<QuotaWindow> window,
                     QuotaTally* tally) const;
  // Notes in `tally` that the placement takes `slots` at the subject's queue
  // instance (`sign` -1: gives them back).
  void Take(const QuotaSubject& subject, const RequestSet& requests, std::uint32_t slots, bool master,
            QuotaTally& tally, double sign = 1) const;

  // Tables the queue instances (index i: queues[i]@hosts[i]) for the rule
  // matching of subjects that name their instance: per set, the rules whose
  // queues and hosts filters admit each instance.
  void IndexInstances(const std::vector<QueueId>& queues, const std::vector<HostId>& hosts);
  // Queue instances whose queues and hosts filters agree in every rule of
  // every set share a class (after IndexInstances): the same rules apply to
  // a job at each of them. Where none of those rules expands queues or hosts
  // (Uniform), the job meets the same rule instances there too, so a
  // verdict at one instance of the class holds at all of them.
  std::uint32_t classes() const { return static_cast<std::uint32_t>(class_instance_.size()); }
  std::uint32_t ClassOf(std::uint32_t instance) const { return instance_class_[instance]; }
  std::uint32_t InstanceOfClass(std::uint32_t c) const { return class_instance_[c]; }  // its first instance
  bool Uniform(const QuotaSubject& subject) const;

  // Whether a limit of an enabled set weighs a per-job (JOB consumable)
  // amount of `requests`, which only the job's master queue instance debits.
  bool AsksPerJob(const RequestSet& requests) const;

  // The earliest start at or after `from` at which `slots` slots at the
  // subject's queue instance fit every counter for `duration` (diagrams kept);
  // nullopt where some limit never has room.
  std::optional<Time> EarliestStart(const QuotaSubject& subject, const RequestSet& requests, std::uint32_t slots,
                                    bool master, Time from, Duration duration) const;

  // What instance `instance` uses of its rule's limit `limit` now (0 when unused).
  double Used(const QuotaInstance& instance, std::uint32_t limit) const;
  // Its peak over `window` where diagrams are kept; else Used.
  double Peak(const QuotaInstance& instance, std::uint32_t limit, std::optional<QuotaWindow> window) const;
  // The value of the rule's limit `limit` for the instance (a dynamic one on its host).
  double LimitOf(const QuotaInstance& instance, std::uint32_t limit) const;

  // A counter: per limit of its rule, the usage now and over time, and the
  // tick of the usage's change clock at its last debit or reservation.
  struct Counter {
    std::vector<double> now;
    std::vector<UtilizationDiagram> over_time;  // with diagrams
    std::uint64_t changed = 0;
  };
  // Each limit's peak over `window` (Peak's, into `peaks`), and the counters
  // behind them now: what an answer built on them read.
  QuotaReads PeaksOf(std::span<const QuotaLimitKey> keys, std::optional<QuotaWindow> window,
                     std::span<double> peaks) const;
  // Whether what `reads` read is as it was: none of its counters debited or
  // reserved since, and none of its absent instances given a counter. Where
  // it is, `reads` is moved to now, so the next check costs nothing until
  // the usage changes.
  bool Unchanged(QuotaReads& reads) const;
  // Every instance with usage or a reservation, in the order first debited.
  const std::deque<std::pair<QuotaInstance, Counter>>& instances() const { return counters_; }
  // The instance's counter, or null where it has no usage.
  const Counter* CounterFor(const QuotaInstance& instance) const {
    const std::uint32_t* at = counter_index_.Find(instance, QuotaInstanceHash{}(instance));
    return at != nullptr ? &counters_[*at].second : nullptr;
  }

 private:
  // Peak's reading of a counter already found (null: the instance has none).
  double PeakIn(const Counter* counter, std::uint32_t limit, std::optional<QuotaWindow> window) const;
  // What `slots` slots (or, for a JOB consumable, the job at its master) add
  // to `limit`; nullopt where the limit does not concern the request.
  std::optional<double> Amount(const QuotaLimit& limit, const RequestSet& requests, std::uint32_t slots,
                               bool master) const;
  // Whether a non-consumable limit refuses the request itself.
  bool RefusesRequest(const QuotaLimit& limit, const RequestSet& requests) const;
  // Calls visit(instance, rule) for the rule each enabled set applies to the subject.
  template <class Visit>
  void ForEachRule(const QuotaSubject& subject, Visit visit, RuleCache* cache = nullptr) const;
  // The rule set `s` applies to the subject: from the tables where the
  // subject names its queue instance, else by MatchingQuotaRule.
  std::optional<std::uint32_t> RuleOf(std::uint32_t s, const QuotaSubject& subject, RuleCache& cache) const;
  std::optional<std::uint32_t> RuleOf(std::uint32_t s, const QuotaSubject& subject) const {
    return RuleOf(s, subject, job_rules_);
  }
  // The instance's counter, made where it has none, about to change (stamped).
  Counter& CounterOf(const QuotaInstance& instance);
  // A limit's peak over the window, read once per tally.
  double PeakOnce(const QuotaInstance& instance, std::uint32_t limit, std::optional<QuotaWindow> window,
                  QuotaTally* tally) const;

  const std::vector<ResourceQuotaSet>& sets_;
  const ComplexTable& complexes_;
  DynamicLimit dynamic_;
  bool diagrams_ = false;
  bool active_ = false;
  // The counters, in a deque so that a counter stays where it is while
  // others are added (DebitAll holds pointers), and their index: the rule
  // instance checks of every placement look counters up, so one probe of a
  // flat table.
  std::deque<std::pair<QuotaInstance, Counter>> counters_;
  std::uint64_t clock_ = 0;  // ticks at every change of a counter (CounterOf)
  FlatIdMap<QuotaInstance, QuotaInstanceHash> counter_index_{QuotaInstance{
      UINT32_MAX, UINT32_MAX, UserId::None(), ProjectId::None(), PeId::None(), QueueId::None(), HostId::None()}};
  // IndexInstances' tables: per class c and set s, bit r of
  // class_rules_[c * sets + s] is rule r's queues and hosts filters admitting
  // the class's instances (sets of at most 64 rules; masked_[s] says which
  // have them). Per class, not per instance: a rule match reads one small table.
  std::vector<std::uint64_t> class_rules_;
  std::vector<std::uint8_t> masked_;
  std::vector<std::uint64_t> expanding_;       // per set: the rules whose queues or hosts filter is expanded
  std::vector<std::uint32_t> instance_class_;  // per instance
  std::vector<std::uint32_t> class_instance_;  // per class: its first instance
  mutable RuleCache job_rules_;                // the const methods' (so the usage is not to be shared between threads)
};

template <class Visit>
void QuotaUsage::ForEachRule(const QuotaSubject& subject, Visit visit, RuleCache* cache) const {
  for (std::uint32_t s = 0; s < sets_.size(); ++s) {
    if (!sets_[s].enabled) continue;
    const std::optional<std::uint32_t> rule = RuleOf(s, subject, cache != nullptr ? *cache : job_rules_);
    if (rule) visit(QuotaInstanceOf(sets_, s, *rule, subject), sets_[s].rules[*rule]);
  }
}

template <class Visit>
void QuotaUsage::ForEachDebit(const QuotaSubject& subject, const RequestSet& requests, std::uint32_t slots, bool master,
                              RuleCache& cache, Visit visit) const {
  ForEachRule(
      subject,
      [&](const QuotaInstance& instance, const QuotaRule& rule) {
        for (std::uint32_t l = 0; l < rule.limits.size(); ++l) {
          const std::optional<double> amount = Amount(rule.limits[l], requests, slots, master);
          if (amount && *amount != 0) visit(instance, l, *amount);
        }
      },
      &cache);
}

template <class Visit>
void QuotaUsage::ForEachLimit(const QuotaSubject& subject, const RequestSet& requests, bool master, Visit visit) const {
  ForEachRule(subject, [&](const QuotaInstance& instance, const QuotaRule& rule) {
    for (std::uint32_t l = 0; l < rule.limits.size(); ++l) {
      const QuotaLimitKey key{instance, l};
      if (RefusesRequest(rule.limits[l], requests)) {
        visit(key, true, 0.0, 0.0);
        continue;
      }
      const std::optional<double> one = Amount(rule.limits[l], requests, 1, master);
      if (!one) continue;
      visit(key, false, *one, *Amount(rule.limits[l], requests, 0, master));  // a per-job amount at the master
    }
  });
}

template <class Visit>
void QuotaUsage::ForEachLimitLeft(const QuotaSubject& subject, const RequestSet& requests, bool master,
                                  std::optional<QuotaWindow> window, QuotaTally* tally, Visit visit) const {
  ForEachLimit(subject, requests, master, [&](const QuotaLimitKey& key, bool refuses, double one, double fixed) {
    if (refuses) {
      visit(key, -1.0, 1.0);
      return;
    }
    double left = LimitOf(key.instance, key.limit) - PeakOnce(key.instance, key.limit, window, tally) - fixed;
    if (tally != nullptr) {
      const auto it = tally->taken.find(key);
      if (it != tally->taken.end()) left -= it->second;
    }
    visit(key, left, one - fixed);
  });
}

// The usage now of every running and suspended task's grants in `jobs` (no diagrams).
QuotaUsage RunningQuotaUsage(const Cluster& cluster, const std::vector<ResourceQuotaSet>& sets, const JobTable& jobs,
                             QuotaUsage::DynamicLimit dynamic = {});

}  // namespace schedk
