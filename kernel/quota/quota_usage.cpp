#include "kernel/quota/quota_usage.hpp"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>

#include "kernel/complex/complex_compare.hpp"

namespace schedk {
namespace {

// Every kind of id's None: a missing value (no project; a sequential job's PE).
constexpr std::uint32_t kMissing = UserId::kNoneValue;

bool Marked(const std::vector<std::uint8_t>& marks, std::uint32_t id) { return id < marks.size() && marks[id] != 0; }

// The subject's value of `filter`'s kind where the filter is expanded, else None.
template <class IdT>
IdT Expanded(const QuotaFilter& filter, IdT value) {
  return filter.present && filter.expand ? value : IdT::None();
}

}  // namespace

bool QuotaFilterAdmits(const QuotaFilter& filter, std::uint32_t value, GroupId group) {
  if (!filter.present) return true;
  if (value == kMissing) return !filter.positive;  // a missing value meets no entry
  if (Marked(filter.out, value) || (group.valid() && Marked(filter.group_out, group.index()))) return false;
  if (!filter.positive) return true;
  return Marked(filter.in, value) || (group.valid() && Marked(filter.group_in, group.index()));
}

std::optional<std::uint32_t> MatchingQuotaRule(const ResourceQuotaSet& set, const QuotaSubject& s) {
  for (std::uint32_t r = 0; r < set.rules.size(); ++r) {
    const QuotaRule& rule = set.rules[r];
    if (QuotaFilterAdmits(rule.users, s.user.value, s.group) && QuotaFilterAdmits(rule.projects, s.project.value) &&
        QuotaFilterAdmits(rule.pes, s.pe.value) && QuotaFilterAdmits(rule.queues, s.queue.value) &&
        QuotaFilterAdmits(rule.hosts, s.host.value)) {
      return r;
    }
  }
  return std::nullopt;
}

QuotaInstance QuotaInstanceOf(const std::vector<ResourceQuotaSet>& sets, std::uint32_t set, std::uint32_t rule,
                              const QuotaSubject& s) {
  const QuotaRule& r = sets[set].rules[rule];
  return {set,
          rule,
          Expanded(r.users, s.user),
          Expanded(r.projects, s.project),
          Expanded(r.pes, s.pe),
          Expanded(r.queues, s.queue),
          Expanded(r.hosts, s.host)};
}

QuotaUsage::QuotaUsage(const std::vector<ResourceQuotaSet>& sets, const ComplexTable& complexes, DynamicLimit dynamic,
                       bool diagrams)
    : sets_(sets), complexes_(complexes), dynamic_(std::move(dynamic)), diagrams_(diagrams) {
  for (const ResourceQuotaSet& set : sets) active_ |= set.enabled && !set.rules.empty();
}

std::optional<double> QuotaUsage::Amount(const QuotaLimit& limit, const RequestSet& requests, std::uint32_t slots,
                                         bool master) const {
  const ComplexAttribute& a = complexes_[limit.attribute];
  const ComplexValue* asked = FindValue(requests.hard, limit.attribute);
  double per_slot = 0;
  if (limit.attribute == complexes_.slots) {
    per_slot = 1;
  } else if (asked != nullptr) {
    per_slot = asked->number;
  } else if (a.consumable != Consumable::kNo && a.default_value != 0) {
    per_slot = a.default_value;
  } else {
    return std::nullopt;  // neither requested nor defaulted: the limit does not concern the job
  }
  switch (a.consumable) {
    case Consumable::kNo:
      return std::nullopt;  // compared, not counted (RefusesRequest)
    case Consumable::kJob:
      return master ? per_slot : 0;
    default:
      return per_slot * slots;
  }
}

bool QuotaUsage::RefusesRequest(const QuotaLimit& limit, const RequestSet& requests) const {
  const ComplexAttribute& a = complexes_[limit.attribute];
  if (a.consumable != Consumable::kNo || !IsNumeric(a.type)) return false;
  const ComplexValue* asked = FindValue(requests.hard, limit.attribute);
  return asked != nullptr && !CompareNumbers(a.relop, asked->number, limit.value);
}

QuotaUsage::Counter& QuotaUsage::CounterOf(const QuotaInstance& instance) {
  const auto [at, added] =
      counter_index_.TryEmplace(instance, QuotaInstanceHash{}(instance), static_cast<std::uint32_t>(counters_.size()));
  if (added) counters_.emplace_back(instance, Counter{});
  Counter& c = counters_[at].second;
  c.changed = ++clock_;
  const std::size_t limits = sets_[instance.set].rules[instance.rule].limits.size();
  if (c.now.size() < limits) c.now.resize(limits, 0);
  if (diagrams_ && c.over_time.size() < limits) c.over_time.resize(limits);
  return c;
}

void QuotaUsage::Debit(const QuotaInstance& instance, std::uint32_t limit, double amount, QuotaWindow window) {
  Counter& c = CounterOf(instance);
  c.now[limit] += amount;
  if (diagrams_ && window.duration > 0) c.over_time[limit].Add(window.start, window.duration, amount);
}

void QuotaUsage::Reserve(const QuotaInstance& instance, std::uint32_t limit, double amount, QuotaWindow window) {
  if (!diagrams_ || window.duration == 0) return;
  CounterOf(instance).over_time[limit].Add(window.start, window.duration, amount);
}

void QuotaUsage::DebitAll(std::span<const PendingDebit* const> debits, ExecutionMode mode,
                          const FirstOccurrence<QuotaInstance>* numbered) {
  if (!diagrams_) {  // sums only: one after another
    for (const PendingDebit* d : debits) CounterOf(d->instance).now[d->limit] += d->amount;
    return;
  }
  // The counters in the order first debited, as one Debit after another makes them.
  FirstOccurrence<QuotaInstance> own;
  if (numbered == nullptr) {
    own = NumberByFirstOccurrence<QuotaInstance, QuotaInstanceHash>(
        debits.size(), [&](std::size_t k) { return debits[k]->instance; }, mode);
  }
  const FirstOccurrence<QuotaInstance>& counters = numbered != nullptr ? *numbered : own;
  // A group per counter and limit; each group's debits in their order (a counting sort).
  std::vector<Counter*> counter_of(counters.distinct.size());
  std::vector<std::uint32_t> first_group(counters.distinct.size() + 1, 0);
  for (std::size_t c = 0; c < counters.distinct.size(); ++c) {
    counter_of[c] = &CounterOf(counters.distinct[c]);  // the map's values stay where they are
    first_group[c + 1] = first_group[c] + static_cast<std::uint32_t>(counter_of[c]->now.size());
  }
  const std::uint32_t groups = first_group.back();
  auto group_of = [&](std::size_t k) { return first_group[counters.ids[k]] + debits[k]->limit; };
  std::vector<std::uint32_t> group_begin(groups + 1, 0);
  for (std::size_t k = 0; k < debits.size(); ++k) ++group_begin[group_of(k) + 1];
  for (std::uint32_t g = 0; g < groups; ++g) group_begin[g + 1] += group_begin[g];
  std::vector<std::uint32_t> by_group(debits.size());
  std::vector<std::uint32_t> next(group_begin.begin(), group_begin.end() - 1);
  for (std::size_t k = 0; k < debits.size(); ++k) by_group[next[group_of(k)]++] = static_cast<std::uint32_t>(k);
  std::vector<std::uint32_t> group_counter(groups);
  for (std::uint32_t c = 0; c < counter_of.size(); ++c) {
    std::fill(group_counter.begin() + first_group[c], group_counter.begin() + first_group[c + 1], c);
  }
  // Each group's usage now and its diagram, from its own debits in order.
  ForEachIndex(mode, groups, [&](std::size_t g) {
    Counter& c = *counter_of[group_counter[g]];
    const std::uint32_t limit = static_cast<std::uint32_t>(g) - first_group[group_counter[g]];
    std::vector<UtilizationDiagram::Addition> additions;
    for (std::uint32_t at = group_begin[g]; at < group_begin[g + 1]; ++at) {
      const PendingDebit& d = *debits[by_group[at]];
      c.now[limit] += d.amount;
      if (d.window.duration > 0) additions.push_back({d.window.start, d.window.duration, d.amount});
    }
    if (!additions.empty()) c.over_time[limit].AddAll(additions);
  });
}

void QuotaUsage::Debit(const QuotaSubject& subject, const RequestSet& requests, std::uint32_t slots, bool master,
                       QuotaWindow window) {
  ForEachDebit(subject, requests, slots, master, [&](const QuotaInstance& instance, std::uint32_t l, double amount) {
    Debit(instance, l, amount, window);
  });
}

std::optional<QuotaExcess> QuotaUsage::Excess(std::span<const QuotaGrant> grants, const RequestSet& requests,
                                              std::optional<QuotaWindow> window, bool master) const {
  if (!active_) return std::nullopt;
  // Per limit the grants so far meet: what they add, and the limit's peak
  // and value, read once (a single grant's amount is its own).
  struct Adding {
    double added = 0, peak = 0, limit = 0;
    bool read = false;
  };
  std::unordered_map<QuotaLimitKey, Adding, QuotaLimitKeyHash> adding;
  const bool shared = grants.size() > 1;
  for (std::size_t g = 0; g < grants.size(); ++g) {
    std::optional<QuotaExcess> excess;
    ForEachRule(grants[g].subject, [&](const QuotaInstance& instance, const QuotaRule& rule) {
      for (std::uint32_t l = 0; l < rule.limits.size() && !excess; ++l) {
        if (RefusesRequest(rule.limits[l], requests)) {
          excess = QuotaExcess{instance, l};
          break;
        }
        const std::optional<double> amount = Amount(rule.limits[l], requests, grants[g].slots, master && g == 0);
        if (!amount) continue;
        Adding own;
        Adding& a = shared ? adding[QuotaLimitKey{instance, l}] : own;
        if (!a.read) a = {0, Peak(instance, l, window), LimitOf(instance, l), true};
        a.added += *amount;
        if (a.peak + a.added > a.limit) excess = QuotaExcess{instance, l};
      }
    });
    if (excess) return excess;
  }
  return std::nullopt;
}

std::uint32_t QuotaUsage::SlotRoom(const QuotaSubject& subject, const RequestSet& requests, bool master,
                                   std::optional<QuotaWindow> window, QuotaTally* tally) const {
  std::uint32_t room = UINT32_MAX;
  if (!active_) return room;
  ForEachLimitLeft(subject, requests, master, window, tally, [&](const QuotaLimitKey&, double left, double per_slot) {
    room = std::min(room, SlotsLeft(left, per_slot));
  });
  return room;
}

std::optional<Time> QuotaUsage::EarliestStart(const QuotaSubject& subject, const RequestSet& requests,
                                              std::uint32_t slots, bool master, Time from, Duration duration) const {
  if (!active_) return from;
  // Each counter's earliest fit moves the start; the others are asked again
  // from there until all agree (every answer only moves it later).
  std::optional<Time> start = from;
  for (bool moved = true; moved && start;) {
    moved = false;
    ForEachRule(subject, [&](const QuotaInstance& instance, const QuotaRule& rule) {
      for (std::uint32_t l = 0; l < rule.limits.size() && start; ++l) {
        if (RefusesRequest(rule.limits[l], requests)) {
          start = std::nullopt;
          return;
        }
        const std::optional<double> amount = Amount(rule.limits[l], requests, slots, master);
        if (!amount) continue;
        const double room = LimitOf(instance, l) - *amount;
        const Counter* counter = CounterFor(instance);
        std::optional<Time> fit;
        if (room < 0) {
          fit = std::nullopt;
        } else if (counter == nullptr || !diagrams_) {
          fit = Used(instance, l) <= room ? std::optional<Time>(*start) : std::nullopt;
        } else {
          fit = counter->over_time[l].EarliestFit(*start, duration, room);
        }
        if (!fit) {
          start = std::nullopt;
        } else if (*fit > *start) {
          start = fit;
          moved = true;
        }
      }
    });
  }
  return start;
}

bool QuotaUsage::AsksPerJob(const RequestSet& requests) const {
  for (const ResourceQuotaSet& set : sets_) {
    if (!set.enabled) continue;
    for (const QuotaRule& rule : set.rules) {
      for (const QuotaLimit& limit : rule.limits) {
        if (complexes_[limit.attribute].consumable != Consumable::kJob) continue;
        const std::optional<double> amount = Amount(limit, requests, 1, true);
        if (amount && *amount != 0) return true;
      }
    }
  }
  return false;
}

void QuotaUsage::Take(const QuotaSubject& subject, const RequestSet& requests, std::uint32_t slots, bool master,
                      QuotaTally& tally, double sign) const {
  ForEachDebit(subject, requests, slots, master, [&](const QuotaInstance& instance, std::uint32_t l, double amount) {
    tally.taken[QuotaLimitKey{instance, l}] += sign * amount;
  });
}

QuotaUsage::LimitTerms QuotaUsage::TermsOf(const QuotaLimitKey& key, const RequestSet& requests,
                                           std::optional<QuotaWindow> window, QuotaTally* tally) const {
  const QuotaLimit& limit = sets_[key.instance.set].rules[key.instance.rule].limits[key.limit];
  LimitTerms terms;
  if (RefusesRequest(limit, requests)) {
    terms.refuses = true;
    return terms;
  }
  terms.peak = PeakOnce(key.instance, key.limit, window, tally);
  terms.value = LimitOf(key.instance, key.limit);
  // Amount(n, master) is per_slot * n for a per-slot consumable (per_slot * 1
  // is per_slot) and, for a per-job one, per_slot at the master and 0 elsewhere.
  terms.per_slot = Amount(limit, requests, 1, false).value_or(0);
  terms.per_job = Amount(limit, requests, 0, true).value_or(0);
  return terms;
}

QuotaReads QuotaUsage::PeaksOf(std::span<const QuotaLimitKey> keys, std::optional<QuotaWindow> window,
                               std::span<double> peaks) const {
  assert(peaks.size() == keys.size());
  QuotaReads reads{clock_, counters_.size(), {}, {}, true};
  for (std::size_t k = 0; k < keys.size(); ++k) {
    const QuotaLimitKey& key = keys[k];
    const std::uint32_t* at = counter_index_.Find(key.instance, QuotaInstanceHash{}(key.instance));
    if (at == nullptr) {
      peaks[k] = 0;
      reads.absent.push_back(key.instance);
      continue;
    }
    reads.read.push_back(*at);
    const Counter& c = counters_[*at].second;
    peaks[k] = PeakIn(&c, key.limit, window);
    // A peak is the same over every window from the start where the amount
    // there is the most it ever reaches from then on.
    if (diagrams_ && window && key.limit < c.over_time.size()) {
      const UtilizationDiagram& d = c.over_time[key.limit];
      reads.any_duration = reads.any_duration && d.Max(window->start, 1) == d.Max(window->start, kDiagramForever);
    }
  }
  return reads;
}

bool QuotaUsage::Unchanged(QuotaReads& reads) const {
  if (reads.clock == clock_) return true;
  for (std::uint32_t k : reads.read) {
    if (counters_[k].second.changed > reads.clock) return false;
  }
  if (counters_.size() != reads.counters &&  // some counter made since
      std::any_of(reads.absent.begin(), reads.absent.end(),
                  [&](const QuotaInstance& instance) { return CounterFor(instance) != nullptr; })) {
    return false;
  }
  reads.clock = clock_;
  reads.counters = counters_.size();
  return true;
}

double QuotaUsage::PeakOnce(const QuotaInstance& instance, std::uint32_t limit, std::optional<QuotaWindow> window,
                            QuotaTally* tally) const {
  if (tally == nullptr) return Peak(instance, limit, window);
  const auto [it, added] = tally->peak.try_emplace(QuotaLimitKey{instance, limit}, 0);
  if (added) it->second = Peak(instance, limit, window);
  return it->second;
}

void QuotaUsage::IndexInstances(const std::vector<QueueId>& queues, const std::vector<HostId>& hosts) {
  std::vector<std::vector<std::uint64_t>> instance_rules(sets_.size());
  masked_.assign(sets_.size(), 0);
  for (std::uint32_t s = 0; s < sets_.size(); ++s) {
    const std::vector<QuotaRule>& rules = sets_[s].rules;
    if (!sets_[s].enabled || rules.size() > 64) continue;
    masked_[s] = 1;
    std::vector<std::uint64_t>& masks = instance_rules[s];
    masks.assign(queues.size(), 0);
    for (std::size_t i = 0; i < queues.size(); ++i) {
      for (std::uint32_t r = 0; r < rules.size(); ++r) {
        if (QuotaFilterAdmits(rules[r].queues, queues[i].value) && QuotaFilterAdmits(rules[r].hosts, hosts[i].value)) {
          masks[i] |= std::uint64_t{1} << r;
        }
      }
    }
  }
  // Classes: instances with the same mask in every set.
  expanding_.assign(sets_.size(), 0);
  for (std::uint32_t s = 0; s < sets_.size(); ++s) {
    const std::vector<QuotaRule>& rules = sets_[s].rules;
    for (std::uint32_t r = 0; r < rules.size() && r < 64; ++r) {
      if (rules[r].queues.expand || rules[r].hosts.expand) expanding_[s] |= std::uint64_t{1} << r;
    }
  }
  std::map<std::vector<std::uint64_t>, std::uint32_t> class_of_masks;
  instance_class_.assign(queues.size(), 0);
  class_instance_.clear();
  class_rules_.clear();
  std::vector<std::uint64_t> key(sets_.size());
  for (std::size_t i = 0; i < queues.size(); ++i) {
    for (std::uint32_t s = 0; s < sets_.size(); ++s) key[s] = masked_[s] ? instance_rules[s][i] : 0;
    const auto [it, added] = class_of_masks.try_emplace(key, static_cast<std::uint32_t>(class_instance_.size()));
    if (added) {
      class_instance_.push_back(static_cast<std::uint32_t>(i));
      class_rules_.insert(class_rules_.end(), key.begin(), key.end());
    }
    instance_class_[i] = it->second;
  }
  job_rules_.valid = false;
}

bool QuotaUsage::Uniform(const QuotaSubject& subject) const {
  if (subject.instance == UINT32_MAX) return false;
  for (std::uint32_t s = 0; s < sets_.size(); ++s) {
    if (!sets_[s].enabled) continue;
    if (!masked_[s]) return false;
    const std::optional<std::uint32_t> rule = RuleOf(s, subject);
    if (rule && (expanding_[s] >> *rule & 1)) return false;
  }
  return true;
}

std::optional<std::uint32_t> QuotaUsage::RuleOf(std::uint32_t s, const QuotaSubject& subject, RuleCache& cache) const {
  if (subject.instance == UINT32_MAX || s >= masked_.size() || !masked_[s]) {
    return MatchingQuotaRule(sets_[s], subject);
  }
  RuleCache& j = cache;
  if (!j.valid || j.user != subject.user || j.group != subject.group || j.project != subject.project ||
      j.pe != subject.pe) {
    j = {subject.user, subject.group, subject.project, subject.pe, true, std::vector<std::uint64_t>(sets_.size(), 0)};
    for (std::uint32_t k = 0; k < sets_.size(); ++k) {
      const std::vector<QuotaRule>& rules = sets_[k].rules;
      for (std::uint32_t r = 0; r < rules.size() && r < 64; ++r) {
        if (QuotaFilterAdmits(rules[r].users, subject.user.value, subject.group) &&
            QuotaFilterAdmits(rules[r].projects, subject.project.value) &&
            QuotaFilterAdmits(rules[r].pes, subject.pe.value)) {
          j.rules[k] |= std::uint64_t{1} << r;
        }
      }
    }
  }
  const std::uint64_t match =
      j.rules[s] & class_rules_[std::size_t{instance_class_[subject.instance]} * sets_.size() + s];
  if (match == 0) return std::nullopt;
  return static_cast<std::uint32_t>(std::countr_zero(match));
}

double QuotaUsage::Used(const QuotaInstance& instance, std::uint32_t limit) const {
  return PeakIn(CounterFor(instance), limit, std::nullopt);
}

double QuotaUsage::Peak(const QuotaInstance& instance, std::uint32_t limit, std::optional<QuotaWindow> window) const {
  return PeakIn(CounterFor(instance), limit, window);
}

double QuotaUsage::PeakIn(const Counter* counter, std::uint32_t limit, std::optional<QuotaWindow> window) const {
  if (counter == nullptr) return 0;
  if (!diagrams_ || !window) return limit < counter->now.size() ? counter->now[limit] : 0;
  return limit < counter->over_time.size() ? counter->over_time[limit].Max(window->start, window->duration) : 0;
}

double QuotaUsage::LimitOf(const QuotaInstance& instance, std::uint32_t limit) const {
  const QuotaLimit& l = sets_[instance.set].rules[instance.rule].limits[limit];
  if (!l.dynamic) return l.value;
  return dynamic_ && instance.host.valid() ? dynamic_(l.formula, instance.host) : kErrorLoadValue;
}

QuotaUsage RunningQuotaUsage(const Cluster& cluster, const std::vector<ResourceQuotaSet>& sets, const JobTable& jobs,
                             QuotaUsage::DynamicLimit dynamic) {
  QuotaUsage usage(sets, cluster.complexes, std::move(dynamic));
  for (const JobShard& shard : jobs.shards()) {
    for (std::size_t r = 0; r < shard.size(); ++r) {
      if (shard.state[r] != JobState::kRunning && shard.state[r] != JobState::kSuspended) continue;
      if (shard.extras_index[r] == kNoExtras) continue;
      const JobExtras& extras = shard.extras[shard.extras_index[r]];
      const RequestSet& requests = jobs.requests(shard.requests[r]);
      for (std::size_t g = 0; g < extras.granted.size(); ++g) {
        const GrantedSlots& grant = extras.granted[g];
        const QuotaSubject subject{shard.owner[r],   shard.group[r],
                                   shard.project[r], requests.has_pe ? extras.granted_pe : PeId::None(),
                                   grant.queue,      grant.host};
        usage.Debit(subject, requests, grant.slots, g == 0);
      }
    }
  }
  return usage;
}

}  // namespace schedk
