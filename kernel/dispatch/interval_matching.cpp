#include "kernel/dispatch/interval.hpp"

#include "kernel/complex/complex_compare.hpp"
#include "kernel/tuning.hpp"

namespace schedk::dispatch_detail {

// --- matching ------------------------------------------------------------------------------------

JobView Interval::ViewOf(const TaskRow& row) const {
  JobView job;
  job.job = row.job;
  job.task = row.task;
  job.owner = row.owner;
  job.group = row.group;
  job.project = row.project;
  job.request_id = row.requests;
  job.requests = &jobs_.requests(row.requests);
  job.h_rt = request_h_rt_[row.requests.index()];
  job.s_rt = request_s_rt_[row.requests.index()];
  job.duration = request_duration_[row.requests.index()];
  job.reserve = (row.flags & kJobReserve) != 0;
  job.immediate = (row.flags & kJobImmediate) != 0;
  return job;
}

std::vector<Interval::TaskRow> Interval::GatherTaskRows(std::size_t count) const {
  std::vector<TaskRow> rows(count);
  ForEachIndex(mode_, (count + tuning::kTaskRowChunk - 1) / tuning::kTaskRowChunk, [&](std::size_t c) {
    const std::size_t end = std::min(count, (c + 1) * tuning::kTaskRowChunk);
    for (std::size_t k = c * tuning::kTaskRowChunk; k < end; ++k) {
      const DispatchEntry& entry = priorities_.order[k];
      const JobShard& shard = jobs_.shards()[index_.shard(entry.row)];
      const std::uint32_t r = index_.row(entry.row);
      rows[k] = {shard.number[r], entry.task, shard.owner[r], shard.group[r], shard.project[r],
                 shard.requests[r], shard.flags[r]};
    }
  });
  return rows;
}

void Interval::NumberCategories(std::vector<TaskRow>& rows) {
  // Owner and project belong to the category only where access lists or
  // quotas can tell them apart.
  const auto chunks = (rows.size() + tuning::kTaskRowChunk - 1) / tuning::kTaskRowChunk;
  auto for_each_row = [&](auto&& f) {
    ForEachIndex(mode_, chunks, [&](std::size_t c) {
      for (std::size_t k = c * tuning::kTaskRowChunk; k < std::min(rows.size(), (c + 1) * tuning::kTaskRowChunk); ++k) {
        f(k, rows[k]);
      }
    });
  };
  if (!owner_categories_) {
    categories_.assign(jobs_.request_sets().size() * 2, CategoryState{});
    for_each_row([](std::size_t, TaskRow& row) {
      row.category = row.requests.index() * 2 + ((row.flags & kJobImmediate) != 0 ? 1 : 0);
    });
    return;
  }
  const FirstOccurrence<CategoryKey> numbered = NumberByFirstOccurrence<CategoryKey, CategoryKeyHash>(
      rows.size(),
      [&](std::size_t k) {
        const TaskRow& row = rows[k];
        return CategoryKey{row.requests.value, row.owner.value, row.group.value, row.project.value,
                           (row.flags & kJobImmediate) != 0};
      },
      mode_);
  categories_.assign(numbered.distinct.size(), CategoryState{});
  for_each_row([&](std::size_t k, TaskRow& row) { row.category = numbered.ids[k]; });
}

bool Interval::GlobalStatic(const JobView& job) const {
  const GlobalHost& g = cluster_.global;
  return HasAccess(cluster_.entities, g.user_lists, g.xuser_lists, g.projects, g.xprojects, job.owner, job.group,
                   job.project);
}

bool Interval::HostStatic(const JobView& job, HostId host) const {
  if (!host_open_.empty() && host_open_[host.index()]) return true;
  const ExecHost& h = cluster_.hosts[host.index()];
  if (!HasAccess(cluster_.entities, h.user_lists, h.xuser_lists, h.projects, h.xprojects, job.owner, job.group,
                 job.project)) {
    return false;
  }
  for (const ComplexValue& v : h.complex_values) {  // job_is_forced_centry_missing
    if (complexes_[v.complex].requestable == Requestable::kForced && !FindValue(job.requests->hard, v.complex)) {
      return false;
    }
  }
  return true;
}

bool Interval::Listed(const std::vector<QueueSelector>& list, std::uint32_t i) const {
  return std::any_of(list.begin(), list.end(), [&](const QueueSelector& s) { return Selects(s, i); });
}

bool Interval::Selects(const QueueSelector& s, std::uint32_t i) const {
  if (s.queue.valid() && s.queue != instances_.queue[i]) return false;
  const HostId host = instances_.host[i];
  if (s.host.valid()) return s.host == host;
  if (s.group.valid()) {
    const auto& members = cluster_.hostgroups[s.group.index()].hosts;
    return std::binary_search(members.begin(), members.end(), host);
  }
  return true;
}

bool Interval::QueueStatic(const JobView& job, std::uint32_t i, PeId pe) const {
  const RequestSet& req = *job.requests;
  if (pe.valid()) {
    const std::vector<PeId>& list = *instances_.pe_list[i];
    if (std::find(list.begin(), list.end(), pe) == list.end()) return false;
  } else if ((instances_.qtype[i] & kQueueBatch) == 0) {
    return false;
  }
  // A parallel job's -masterq queues are eligible beside its -q queues
  // (queue_match_static, cqueue_match_static).
  if (!req.queue_hard.empty() && !Listed(req.queue_hard, i) &&
      !(pe.valid() && !req.queue_master.empty() && Listed(req.queue_master, i))) {
    return false;
  }
  if (!instance_open_.empty() && instance_open_[i]) return true;
  if (!HasAccess(cluster_.entities, *instances_.user_lists[i], *instances_.xuser_lists[i], *instances_.projects[i],
                 *instances_.xprojects[i], job.owner, job.group, job.project)) {
    return false;
  }
  for (const ComplexValue& v : *instances_.complex_values[i]) {
    if (complexes_[v.complex].requestable == Requestable::kForced && !FindValue(req.hard, v.complex)) return false;
  }
  return true;
}

// rc_slots_by_time for one container: the slots its consumables leave over
// [start, start + d), and the static match of the job's other requests against
// the container's fixed and load values. `found` collects the requests the
// container defines (bit i: the job's i-th hard request); the container's
// demands are appended to `demands_out` when given.
LevelFit Interval::Fit(ContainerRef c, const JobView& job, Time start, Duration d, std::uint64_t& found,
                       std::vector<Demand>* demands_out) const {
  LevelFit fit = MatchStatic(c, job, found);
  ForEachDemand(c, job, [&](const Demand& demand) {
    if (demands_out != nullptr) demands_out->push_back(demand);
    Limit(fit, demand.entry, demand.amount, demand.kind, start, d);
  });
  return fit;
}

void Interval::Limit(LevelFit& fit, std::uint32_t k, double amount, DemandKind kind, Time start, Duration d) const {
  const ConsumableEntry& e = ledger_.entry(k);
  const double left = e.total - (ignore_plan_ ? e.used_now : ledger_.Used(k, start, d));
  std::uint32_t n = kUnlimited;
  if (kind != DemandKind::kPerSlot) {
    if (amount > left) n = 0;
  } else {
    const double fits = std::floor(left / amount);
    n = fits <= 0 ? 0 : fits >= kUnlimited ? kUnlimited - 1 : static_cast<std::uint32_t>(fits);
  }
  if (amount > e.total && fit.never == NeverCause::kNone) {
    fit.never = NeverCause::kExceedsCapacity;
    fit.limiting = e.complex;
  }
  if (n < fit.slots) {
    fit.slots = n;
    if (!fit.static_mismatch && fit.never == NeverCause::kNone) fit.limiting = e.complex;
  }
}

LevelFit Interval::MatchStatic(ContainerRef c, const JobView& job, std::uint64_t& found) const {
  LevelFit fit;
  const ComplexValueList& hard = job.requests->hard;
  const std::vector<std::uint8_t>& defined = defined_at_level_[static_cast<std::size_t>(c.level)];
  for (std::size_t r = 0; r < hard.size(); ++r) {
    const ComplexValue& req = hard[r];
    if (!defined.empty() && !defined[req.complex.index()]) continue;  // no container of this level defines it
    if (ledger_.Find(c, req.complex)) {
      if (r < 64) found |= std::uint64_t{1} << r;
      continue;  // consumables are weighed below
    }
    const LevelMatch match = MatchAt(c, req);
    if (match == LevelMatch::kUndefined) continue;
    if (r < 64) found |= std::uint64_t{1} << r;
    if (match == LevelMatch::kMismatch) {
      fit.slots = 0;
      fit.static_mismatch = true;
      if (!fit.limiting.valid()) fit.limiting = req.complex;
    }
  }
  return fit;
}

Interval::LevelMatch Interval::MatchAt(ContainerRef c, const ComplexValue& req) const {
  const ComplexAttribute& a = complexes_[req.complex];
  // A fixed value (per slot) and a load value (per job) at this level, or a
  // queue instance's built-in value.
  const ComplexValue* fixed = nullptr;
  const ComplexValue* load_text = nullptr;
  std::optional<double> load;
  std::optional<double> builtin;
  const std::string* builtin_text = nullptr;
  switch (c.level) {
    case ContainerLevel::kGlobal:
      fixed = FindValue(cluster_.global.complex_values, req.complex);
      load_text = FindValue(cluster_.global.load_values, req.complex);
      load = load_.GlobalLoadValue(req.complex);
      break;
    case ContainerLevel::kHost:
      fixed = FindValue(cluster_.hosts[c.index].complex_values, req.complex);
      load_text = FindValue(cluster_.hosts[c.index].load_values, req.complex);
      load = load_.LoadValue(HostId(c.index), req.complex);
      break;
    case ContainerLevel::kQueue:
      fixed = FindValue(*instances_.complex_values[c.index], req.complex);
      if (req.complex == complexes_.h_rt) builtin = static_cast<double>(instances_.h_rt[c.index]);
      if (req.complex == complexes_.s_rt) builtin = static_cast<double>(instances_.s_rt[c.index]);
      if (req.complex == complexes_.qname) builtin_text = &cluster_.queue_names[instances_.queue[c.index].index()];
      if (req.complex == complexes_.hostname) builtin_text = &cluster_.host_names[instances_.host[c.index].index()];
      break;
    case ContainerLevel::kPe:
    case ContainerLevel::kQuota:  // no container of the ledger
      break;
  }
  if (fixed == nullptr && load_text == nullptr && !builtin && builtin_text == nullptr) return LevelMatch::kUndefined;
  bool match = true;
  if (builtin_text != nullptr) {
    match = CompareStrings(a.type, a.relop, req.text, *builtin_text);
  } else if (IsNumeric(a.type)) {
    NumericOffer offer;
    if (fixed != nullptr) offer.per_slot = fixed->number;
    if (builtin) offer.per_slot = *builtin;
    if (load) offer.per_job = *load;
    match = MatchesNumericOffer(a.relop, req.number, 1, offer);
  } else {
    const ComplexValue* offered = fixed != nullptr ? fixed : load_text;
    match = CompareStrings(a.type, a.relop, req.text, offered->text);
  }
  return match ? LevelMatch::kMatch : LevelMatch::kMismatch;
}

bool Interval::AllFound(const JobView& job, std::uint64_t found) const {
  const std::size_t n = std::min<std::size_t>(job.requests->hard.size(), 64);
  const std::uint64_t all = n == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1;
  return (found & all) == all;
}

// --- sequential jobs -----------------------------------------------------------------------------

void Interval::NoteFull(const JobView& job, HostId host) {
  std::vector<bool>& full = full_hosts_[job.request_id.index()];
  if (full.empty()) full.assign(cluster_.hosts.size(), false);
  full[host.index()] = true;
}

std::optional<std::uint32_t> Interval::StartSequential(const JobView& job, Decision& why) {
  std::uint64_t global_found = 0;
  const LevelFit global = Fit({ContainerLevel::kGlobal, 0}, job, cluster_.now, job.duration, global_found, nullptr);
  QuotaVerdicts verdicts = NewQuotaVerdicts();
  // The first instance in queue order that fits: only instances with a free
  // slot can, so only they are tried. With soft requests, the first one with
  // the fewest violations.
  const bool soft = HasSoftRequests(job);
  const bool memo = twin_ == Twin::kOptimised && !ignore_plan_;  // the plan's usage at now only grows
  std::optional<std::pair<std::uint32_t, std::uint32_t>> best;  // violations, instance
  if (global.slots >= 1 && !global.static_mismatch && GlobalStatic(job)) {
    ForEachFreeInListOrder([&](std::uint32_t i) {
      const HostId host = instances_.host[i];
      // The tests that pass over an instance read nothing they change, so the
      // cheapest comes first, and classes seen only at full hosts get no verdict.
      if (memo && KnownFull(job, host)) return true;
      // Once every class refuses, no instance to come can take the job.
      if (SequentialQuotaExcess(job, i, cluster_.now, verdicts)) return verdicts.refusing < verdicts.by_class.size();
      if (!QueueStatic(job, i, PeId::None()) || !HostStatic(job, host)) return true;
      // An instance no better than the best so far need not be fitted (is_not_better).
      const std::uint32_t violations = soft ? SoftViolations(job, i) : 0;
      if (best && violations >= best->first) return true;
      std::uint64_t found = global_found;
      const LevelFit h = Fit({ContainerLevel::kHost, host.index()}, job, cluster_.now, job.duration, found, nullptr);
      if (memo && !h.static_mismatch && h.slots == 0) NoteFull(job, host);
      if (h.static_mismatch || h.slots == 0) return true;
      const LevelFit q = Fit({ContainerLevel::kQueue, i}, job, cluster_.now, job.duration, found, nullptr);
      if (!AllFound(job, found) || q.static_mismatch || q.slots == 0) return true;
      best = std::make_pair(violations, i);
      return soft && violations > 0;  // the first fit ends the search, or one without violations
    });
  }
  if (best) return best->second;
  // None: walk the instances in queue order to say why. The first one that
  // matches statically, is not in alarm and could hold the job some day names
  // the resource it lacks now, and ends the walk. The job can never run only
  // when every matching instance exceeds a capacity; then the first such cause
  // is reported.
  if (!GlobalStatic(job) || global.static_mismatch) {
    why.reason = PendingReason::kNever;
    why.never = NeverCause::kNoQueue;
    return std::nullopt;
  }
  bool any_static = false, any_alarm = false;
  Decision first_never;
  for (const QueueKey& key : queue_order_) {
    const std::uint32_t i = key.instance;
    const HostId host = instances_.host[i];
    if (!QueueStatic(job, i, PeId::None()) || !HostStatic(job, host)) continue;
    std::uint64_t found = global_found;
    const LevelFit h = Fit({ContainerLevel::kHost, host.index()}, job, cluster_.now, job.duration, found, nullptr);
    const LevelFit q = Fit({ContainerLevel::kQueue, i}, job, cluster_.now, job.duration, found, nullptr);
    if (!AllFound(job, found) || h.static_mismatch || q.static_mismatch) continue;
    any_static = true;
    const LevelFit* never = nullptr;
    for (const LevelFit* level : {&global, &h, &q}) {
      if (level->never != NeverCause::kNone && never == nullptr) never = level;
    }
    if (never != nullptr) {
      if (first_never.never == NeverCause::kNone) {
        first_never.never = never->never;
        first_never.object = never->limiting.value;
      }
      continue;
    }
    if (alarm_[i]) {
      if (!any_alarm) why.object = i;
      any_alarm = true;
      continue;
    }
    if (const std::optional<QuotaExcess> excess = SequentialQuotaExcess(job, i, cluster_.now, verdicts)) {
      why.reason = PendingReason::kQuota;
      why.never = NeverCause::kNone;
      why.object = QuotaExcessIndex(*excess);
      return std::nullopt;
    }
    for (const LevelFit* level : {&global, &h, &q}) {
      if (level->slots == 0) {
        why.reason = PendingReason::kResource;
        why.never = NeverCause::kNone;
        why.object = level->limiting.value;
        return std::nullopt;
      }
    }
  }
  if (!any_static) {
    why.reason = PendingReason::kNever;
    why.never = NeverCause::kNoQueue;
  } else if (any_alarm) {
    why.reason = PendingReason::kLoadThreshold;
  } else if (first_never.never != NeverCause::kNone) {
    why.never = first_never.never;
    why.object = first_never.object;
  }
  return std::nullopt;
}

}  // namespace schedk::dispatch_detail
