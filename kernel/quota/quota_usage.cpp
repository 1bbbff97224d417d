#include "kernel/quota/quota_usage.hpp"

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

QuotaUsage::QuotaUsage(const std::vector<ResourceQuotaSet>& sets, const ComplexTable& complexes)
    : sets_(sets), complexes_(complexes) {}

std::optional<double> QuotaUsage::Amount(const QuotaLimit& limit, const RequestSet& requests, std::uint32_t slots,
                                         bool master) const {
  const ComplexAttribute& a = complexes_[limit.attribute];
  const ComplexValue* asked = FindValue(requests.hard, limit.attribute);
  double per_slot = 0;
  if (asked != nullptr) {
    per_slot = asked->number;
  } else if (limit.attribute == complexes_.slots) {
    per_slot = 1;
  } else if (a.consumable != Consumable::kNo && a.default_value != 0) {
    per_slot = a.default_value;
  } else {
    return std::nullopt;  // neither requested nor defaulted: the limit does not concern the job
  }
  switch (a.consumable) {
    case Consumable::kNo:
      return std::nullopt;  // compared, not counted (Excess)
    case Consumable::kJob:
      return master ? per_slot : 0;
    default:
      return per_slot * slots;
  }
}

void QuotaUsage::Debit(const QuotaSubject& subject, const RequestSet& requests, std::uint32_t slots, bool master) {
  for (std::uint32_t s = 0; s < sets_.size(); ++s) {
    if (!sets_[s].enabled) continue;
    const std::optional<std::uint32_t> rule = MatchingQuotaRule(sets_[s], subject);
    if (!rule) continue;
    const std::vector<QuotaLimit>& limits = sets_[s].rules[*rule].limits;
    std::vector<double>* used = nullptr;
    for (std::uint32_t l = 0; l < limits.size(); ++l) {
      const std::optional<double> amount = Amount(limits[l], requests, slots, master);
      if (!amount || *amount == 0) continue;
      if (used == nullptr) {
        used = &used_[QuotaInstanceOf(sets_, s, *rule, subject)];
        used->resize(limits.size(), 0);
      }
      (*used)[l] += *amount;
    }
  }
}

std::optional<QuotaExcess> QuotaUsage::Excess(const QuotaSubject& subject, const RequestSet& requests,
                                              std::uint32_t slots, bool master) const {
  for (std::uint32_t s = 0; s < sets_.size(); ++s) {
    if (!sets_[s].enabled) continue;
    const std::optional<std::uint32_t> rule = MatchingQuotaRule(sets_[s], subject);
    if (!rule) continue;
    const QuotaInstance instance = QuotaInstanceOf(sets_, s, *rule, subject);
    const std::vector<QuotaLimit>& limits = sets_[s].rules[*rule].limits;
    for (std::uint32_t l = 0; l < limits.size(); ++l) {
      const QuotaLimit& limit = limits[l];
      const ComplexAttribute& a = complexes_[limit.attribute];
      if (a.consumable == Consumable::kNo) {
        // A non-consumable limit bounds the request itself, where there is one.
        const ComplexValue* asked = FindValue(requests.hard, limit.attribute);
        if (asked != nullptr && IsNumeric(a.type) && !CompareNumbers(a.relop, asked->number, limit.value)) {
          return QuotaExcess{instance, l};
        }
        continue;
      }
      const std::optional<double> amount = Amount(limit, requests, slots, master);
      if (amount && Used(instance, l) + *amount > limit.value) return QuotaExcess{instance, l};
    }
  }
  return std::nullopt;
}

double QuotaUsage::Used(const QuotaInstance& instance, std::uint32_t limit) const {
  const auto it = used_.find(instance);
  return it == used_.end() || limit >= it->second.size() ? 0 : it->second[limit];
}

QuotaUsage RunningQuotaUsage(const Cluster& cluster, const std::vector<ResourceQuotaSet>& sets, const JobTable& jobs) {
  QuotaUsage usage(sets, cluster.complexes);
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
