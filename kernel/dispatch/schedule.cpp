#include "kernel/dispatch/schedule.hpp"

#include "kernel/dispatch/interval.hpp"
#include "kernel/dispatch/job_duration.hpp"
#include "kernel/reservation/reserve_rule.hpp"
#include "kernel/tuning.hpp"

namespace schedk {
namespace dispatch_detail {

// --- the interval --------------------------------------------------------------------------------

// A job that got a reservation rejects its category for "now"; its later jobs
// are pending for the reason this one could not start (or an earlier one's).
void Interval::RejectForNow(CategoryState& category, const Decision& why) {
  category.rejected_now = true;
  if (why.reason == PendingReason::kNone) return;
  category.reason = why.reason;
  category.never = why.never;
  category.object = why.object;
}

// select_assign_debit for one task in dispatch order.
void Interval::Dispatch(const JobView& job, CategoryState& category, std::uint32_t& reservations) {
  Decision decision = PendingDecision(job);
  if (config_.maxujobs > 0 && job.owner.valid() && running_per_user_[job.owner.index()] >= config_.maxujobs) {
    decision.reason = PendingReason::kUserLimit;
    Record(decision, {});
    return;
  }
  const bool is_reserve = MayReserve(config_, reservations, job.reserve, job.immediate, category.rejected_reserve);
  const bool is_start = !category.rejected_now;
  if (!is_start && !is_reserve) {
    decision.reason = category.reason;
    decision.never = category.never;
    decision.object = category.object;
    Record(decision, {});
    return;
  }
  const bool parallel = job.requests->has_pe;
  list_order_.BeginJob(is_reserve);
  Decision why = decision;
  if (is_start) {
    list_order_.Search(
        parallel, [&] { return ParallelSearchTags(job); }, [this](std::uint32_t i) { return ListKey(i); });
    std::vector<Grant> grants;
    PeId pe;
    bool started = false;
    if (parallel) {
      if (auto fit = StartParallel(job, why)) {
        pe = fit->first;
        grants = std::move(fit->second.grants);
        started = true;
      }
    } else if (auto i = StartSequential(job, why)) {
      grants = {{*i, 1}};
      started = true;
    }
    if (started) {
      if (parallel) list_order_.Succeeded(HasSoftRequests(job));
      Book(job, pe, grants, cluster_.now, job.duration, UsageState::kStarting);
      decision.kind = DecisionKind::kStart;
      decision.at = cluster_.now;
      decision.pe = pe;
      for (const Grant& g : grants) decision.slots += g.slots;
      NoteSoftRequests(job, decision, grants);
      Record(decision, grants);
      if (job.owner.valid()) ++running_per_user_[job.owner.index()];
      const std::vector<QueueKey> had_free = FreeOnHostsOf(grants);  // under the keys before the start
      bool reorder = false;
      for (const Grant& g : grants) reorder |= load_.AddSlots(instances_.host[g.instance], g.slots);
      if (reorder) {
        for (const Grant& g : grants) SetHostLoad(instances_.host[g.instance]);
      }
      for (const Grant& g : grants) UpdateAlarms(instances_.host[g.instance]);  // re-split: full, alarm
      SplitQueueList(had_free);
      return;
    }
  }
  const bool never = why.reason == PendingReason::kNever || why.never != NeverCause::kNone;
  if (is_reserve && !never && Reserve(job, category, why, reservations)) return;
  // A soft parallel search that tagged queues (every reservation search does) leaves its order.
  if (parallel && HasSoftRequests(job) && ((is_reserve && !never) || (is_start && ParallelSearchTags(job)))) {
    KeepSoftOrder(job);
  }
  if (why.never != NeverCause::kNone) why.reason = PendingReason::kNever;
  if (job.immediate && why.reason != PendingReason::kNever) {
    why.reason = PendingReason::kNever;
    why.never = NeverCause::kImmediate;
  }
  if (why.reason == PendingReason::kResource && reservations > 0 && is_start && FitsIgnoringPlan(job)) {
    why.reason = PendingReason::kReservationBlocked;  // only reservations keep it out
  }
  if (why.reason == PendingReason::kNone) why.reason = PendingReason::kNoSlots;
  category.rejected_now = true;
  category.reason = why.reason;
  category.never = why.never;
  category.object = why.object;
  decision.reason = why.reason;
  decision.never = why.never;
  decision.object = why.object;
  Record(decision, {});
}

std::vector<Interval::QueueKey> Interval::FreeOnHostsOf(const std::vector<Grant>& grants) const {
  std::vector<std::uint32_t> hosts;
  for (const Grant& g : grants) hosts.push_back(instances_.host[g.instance].index());
  std::sort(hosts.begin(), hosts.end());
  hosts.erase(std::unique(hosts.begin(), hosts.end()), hosts.end());
  std::vector<QueueKey> keys;
  for (std::uint32_t h : hosts) {
    for (std::uint32_t k = instances_.host_first[h]; k < instances_.host_first[h + 1]; ++k) {
      if (has_free_[instances_.on_host[k]]) keys.push_back(KeyOf(instances_.on_host[k]));
    }
  }
  std::sort(keys.begin(), keys.end());
  return keys;
}

void Interval::SplitQueueList(const std::vector<QueueKey>& had_free) {
  std::vector<std::uint32_t> out;
  for (const QueueKey& key : had_free) {
    if (!has_free_[key.instance] && SlotsFull(key.instance)) out.push_back(key.instance);
  }
  for (const QueueKey& key : had_free) {
    if (!has_free_[key.instance] && !SlotsFull(key.instance)) out.push_back(key.instance);  // in alarm
  }
  list_order_.Split(out);
}

ScheduleResult Interval::Run() {
  EnterStage(stages_, Stage::kIntervalSetup);
  if (quota_.active()) {
    quota_.IndexInstances(instances_.queue, instances_.host);
    SetUpQuotaHostClasses();
  }
  SetUpRequestTables();
  SetUpMatchTables();
  SetUpPeHostMost();
  EnterStage(stages_, Stage::kRunningBookings);
  BookRunningJobs();
  result_.running_monitor = monitor_mark_ = static_cast<std::uint32_t>(result_.monitor.size());
  if (progress_ != nullptr) (*progress_)(result_);
  EnterStage(stages_, Stage::kQueueList);
  StartQueueList();
  EnterStage(stages_, Stage::kTaskRows);
  std::vector<TaskRow> rows = GatherTaskRows(priorities_.dispatchable_tasks);
  NumberCategories(rows);
  EnterStage(stages_, Stage::kDispatchLoop);
  const std::size_t reached = DispatchLoop(rows);
  EnterStage(stages_, Stage::kPendingRecords);
  RecordNotDispatched(rows, reached);
  if (progress_ != nullptr) (*progress_)(result_);
  EnterStage(stages_, Stage::kDone);
  return std::move(result_);
}

void Interval::SetUpRequestTables() {
  auto restricts = [](const auto& users, const auto& xusers, const auto& projects, const auto& xprojects) {
    return !users.empty() || !xusers.empty() || !projects.empty() || !xprojects.empty();
  };
  const GlobalHost& g = cluster_.global;
  access_lists_ = restricts(g.user_lists, g.xuser_lists, g.projects, g.xprojects);
  for (const ExecHost& h : cluster_.hosts) {
    access_lists_ |= restricts(h.user_lists, h.xuser_lists, h.projects, h.xprojects);
  }
  for (std::uint32_t i = 0; i < instances_.size(); ++i) {
    access_lists_ |= restricts(*instances_.user_lists[i], *instances_.xuser_lists[i], *instances_.projects[i],
                               *instances_.xprojects[i]);
  }
  for (const ParallelEnvironment& pe : cluster_.pes) access_lists_ |= !pe.user_lists.empty() || !pe.xuser_lists.empty();
  const std::vector<RequestSet>& sets = jobs_.request_sets();
  request_h_rt_.assign(sets.size(), std::nullopt);
  request_s_rt_.assign(sets.size(), std::nullopt);
  request_duration_.assign(sets.size(), 0);
  full_hosts_.assign(sets.size(), {});
  for (std::size_t k = 0; k < sets.size(); ++k) {
    for (const ComplexValue& v : sets[k].hard) {
      if (v.complex == complexes_.h_rt) request_h_rt_[k] = static_cast<Duration>(v.number);
      if (v.complex == complexes_.s_rt) request_s_rt_[k] = static_cast<Duration>(v.number);
    }
    request_duration_[k] =
        PendingJobDuration(request_h_rt_[k], request_s_rt_[k], config_.default_duration, config_.duration_offset);
  }
  ReserveDecisions(priorities_.order.size());
  owner_categories_ = access_lists_ || quota_.active();
  last_increase_.assign(ledger_.size(), std::nullopt);
  last_increase_known_.assign(ledger_.size(), 0);
}

// Room for `count` decisions, their pages first touched in parallel chunks:
// the loop appends them one by one, and faulting their pages in as it went
// (a goal-sized interval holds about 100 MB of them) was serial work that one
// sweep before the loop does at a fraction of the cost.
void Interval::ReserveDecisions(std::size_t count) {
  Column<Decision>& decisions = result_.decisions;
  decisions.resize(count);  // unwritten (Column)
  const std::size_t chunks = (count + tuning::kTaskRowChunk - 1) / tuning::kTaskRowChunk;
  ForEachIndex(mode_, chunks, [&](std::size_t c) {
    const std::size_t end = std::min(count, (c + 1) * tuning::kTaskRowChunk);
    std::fill(decisions.begin() + c * tuning::kTaskRowChunk, decisions.begin() + end, Decision{});
  });
  decisions.clear();  // the capacity, and its touched pages, stay
}

void Interval::SetUpPeHostMost() {
  auto capacity = [&](ContainerRef c) -> std::uint64_t {
    const auto k = ledger_.Find(c, complexes_.slots);
    return k ? static_cast<std::uint64_t>(std::max(0.0, ledger_.entry(*k).total)) : kUnlimited;
  };
  pe_host_most_.assign(cluster_.pes.size(), 0);
  std::vector<std::uint64_t> on_host(cluster_.pes.size());
  for (std::uint32_t h = 0; h + 1 < instances_.host_first.size(); ++h) {
    std::fill(on_host.begin(), on_host.end(), 0);
    for (std::uint32_t k = instances_.host_first[h]; k < instances_.host_first[h + 1]; ++k) {
      const std::uint32_t i = instances_.on_host[k];
      for (PeId pe : *instances_.pe_list[i]) on_host[pe.index()] += capacity({ContainerLevel::kQueue, i});
    }
    const std::uint64_t host = capacity({ContainerLevel::kHost, h});
    for (std::size_t p = 0; p < on_host.size(); ++p) {
      const std::uint64_t most = std::min({on_host[p], host, std::uint64_t{kUnlimited}});
      pe_host_most_[p] = std::max(pe_host_most_[p], static_cast<std::uint32_t>(most));
    }
  }
}

void Interval::SetUpMatchTables() {
  if (ledger_.with_diagrams()) plan_cache_.SetUpMirrors(instances_, ledger_, complexes_.slots);
  auto forced = [&](const ComplexValueList& values) {
    return std::any_of(values.begin(), values.end(), [&](const ComplexValue& v) {
      return complexes_[v.complex].requestable == Requestable::kForced;
    });
  };
  host_open_.assign(cluster_.hosts.size(), 0);
  for (std::size_t h = 0; h < cluster_.hosts.size(); ++h) {
    const ExecHost& x = cluster_.hosts[h];
    host_open_[h] = x.user_lists.empty() && x.xuser_lists.empty() && x.projects.empty() && x.xprojects.empty() &&
                    !forced(x.complex_values);
  }
  for (std::vector<std::uint8_t>& defined : defined_at_level_) defined.assign(complexes_.size(), 0);
  auto define = [&](ContainerLevel level, ComplexId complex) {
    defined_at_level_[static_cast<std::size_t>(level)][complex.index()] = 1;
  };
  auto define_entries = [&](ContainerRef c) {
    for (std::uint32_t k = ledger_.Begin(c); k < ledger_.End(c); ++k) define(c.level, ledger_.entry(k).complex);
  };
  auto define_values = [&](ContainerLevel level, const ComplexValueList& values) {
    for (const ComplexValue& v : values) define(level, v.complex);
  };
  define_entries({ContainerLevel::kGlobal, 0});
  define_values(ContainerLevel::kGlobal, cluster_.global.complex_values);
  define_values(ContainerLevel::kGlobal, cluster_.global.load_values);
  for (std::uint32_t pe = 0; pe < cluster_.pes.size(); ++pe) define_entries({ContainerLevel::kPe, pe});
  for (std::uint32_t h = 0; h < cluster_.hosts.size(); ++h) {
    define_entries({ContainerLevel::kHost, h});
    define_values(ContainerLevel::kHost, cluster_.hosts[h].complex_values);
    define_values(ContainerLevel::kHost, cluster_.hosts[h].load_values);
  }
  for (std::uint32_t i = 0; i < instances_.size(); ++i) {
    define_entries({ContainerLevel::kQueue, i});
    define_values(ContainerLevel::kQueue, *instances_.complex_values[i]);
  }
  for (ComplexId builtin : {complexes_.h_rt, complexes_.s_rt, complexes_.qname, complexes_.hostname}) {
    if (builtin.valid()) define(ContainerLevel::kQueue, builtin);
  }
  host_alarm_version_.assign(cluster_.hosts.size(), 0);
  host_stamp_.assign(cluster_.hosts.size(), 0);
  room_cache_.SetUp(static_cast<std::uint32_t>(cluster_.hosts.size()), instances_.host_first);
  load_reported_.assign(complexes_.size(), 0);
  for (const ComplexValue& v : cluster_.global.load_values) load_reported_[v.complex.index()] = 1;
  for (const ExecHost& h : cluster_.hosts) {
    for (const ComplexValue& v : h.load_values) load_reported_[v.complex.index()] = 1;
  }
  // h_rt and s_rt defined by nothing but the queues' built-in limits: a
  // request's static matches follow from its matches against the few distinct ones.
  builtin_limits_.assign(complexes_.size(), {});
  for (ComplexId builtin : {complexes_.h_rt, complexes_.s_rt}) {
    if (!builtin.valid() || !IsNumeric(complexes_[builtin].type) ||
        defined_at_level_[static_cast<std::size_t>(ContainerLevel::kGlobal)][builtin.index()] ||
        defined_at_level_[static_cast<std::size_t>(ContainerLevel::kHost)][builtin.index()]) {
      continue;
    }
    std::vector<double> limits;
    for (Duration limit : builtin == complexes_.h_rt ? instances_.h_rt : instances_.s_rt) {
      limits.push_back(static_cast<double>(limit));
    }
    std::sort(limits.begin(), limits.end());
    limits.erase(std::unique(limits.begin(), limits.end()), limits.end());
    if (limits.size() <= tuning::kFewBuiltinLimits) builtin_limits_[builtin.index()] = std::move(limits);
  }
  instance_open_.assign(instances_.size(), 0);
  for (std::uint32_t i = 0; i < instances_.size(); ++i) {
    instance_open_[i] = instances_.user_lists[i]->empty() && instances_.xuser_lists[i]->empty() &&
                        instances_.projects[i]->empty() && instances_.xprojects[i]->empty() &&
                        !forced(*instances_.complex_values[i]);
  }
  all_instances_open_ = std::all_of(instance_open_.begin(), instance_open_.end(), [](std::uint8_t o) { return o != 0; });
}

void Interval::StartQueueList() {
  UpdateQueueOrder();
  UpdateAlarms(std::nullopt);
  std::vector<std::uint32_t> full;
  for (std::uint32_t i = 0; i < instances_.size(); ++i) {
    if (!alarm_[i] && SlotsFull(i)) full.push_back(i);
  }
  list_order_.Start(instances_.size(), std::move(full));
  for (std::uint32_t h = 0; h + 1 < instances_.host_first.size() && !seq_no_ties_on_a_host_; ++h) {
    std::vector<std::int64_t> seq;
    for (std::uint32_t k = instances_.host_first[h]; k < instances_.host_first[h + 1]; ++k) {
      seq.push_back(instances_.seq_no[instances_.on_host[k]]);
    }
    std::sort(seq.begin(), seq.end());
    seq_no_ties_on_a_host_ = std::adjacent_find(seq.begin(), seq.end()) != seq.end();
  }
}

std::size_t Interval::DispatchLoop(const std::vector<TaskRow>& rows) {
  std::uint32_t reservations = 0;
  const std::size_t dispatchable = priorities_.dispatchable_tasks;
  // Nothing can be placed without a free slot, unless full queues can take reservations.
  bool go_on = free_instances_ > 0 || (config_.max_reservation > 0 && instances_.size() > 0);
  std::size_t next = 0;
  for (; next < dispatchable && go_on; ++next) {
    Dispatch(ViewOf(rows[next]), categories_[rows[next].category], reservations);
    go_on = free_instances_ > 0 || list_order_.full_in_list();  // the loop ends once Grid Engine's queue list is empty
  }
  return next;
}

void Interval::RecordNotDispatched(const std::vector<TaskRow>& rows, std::size_t reached) {
  // The loop ended: the rest were not looked at.
  const std::size_t dispatchable = priorities_.dispatchable_tasks;
  for (std::size_t next = reached; next < dispatchable; ++next) {
    Decision decision = PendingDecision(ViewOf(rows[next]));
    decision.reason = PendingReason::kNoSlots;
    Record(decision, {});
  }
  // Held, waiting, error-state and limited tasks, in job order.
  for (std::size_t k = dispatchable; k < priorities_.order.size(); ++k) {
    const DispatchEntry& entry = priorities_.order[k];
    const JobShard& shard = jobs_.shards()[index_.shard(entry.row)];
    const std::uint32_t r = index_.row(entry.row);
    if (shard.state[r] == JobState::kRunning || shard.state[r] == JobState::kSuspended) continue;
    Decision decision;
    decision.job = shard.number[r];
    decision.task = entry.task;
    switch (shard.state[r]) {
      case JobState::kHeld:
        decision.reason = PendingReason::kHold;
        break;
      case JobState::kError:
        decision.reason = PendingReason::kNever;
        decision.never = NeverCause::kErrorState;
        break;
      default:
        decision.reason = (shard.flags[r] & kJobBeyondTaskLimit) ? PendingReason::kArrayTaskLimit
                                                                 : PendingReason::kDependency;
        break;
    }
    Record(decision, {});
  }
}

}  // namespace dispatch_detail

ScheduleResult ScheduleInterval(const Cluster& cluster, const JobTable& jobs, const PriorityResult& priorities,
                                const QueueInstanceTable& instances, Twin twin, RunningBook* book,
                                const ScheduleProgress* progress, const StageListener* stages) {
  return dispatch_detail::Interval(cluster, jobs, priorities, instances, twin, book, progress, stages).Run();
}

ScheduleResult ScheduleSlice(const ScheduleResult& result, std::size_t from, std::size_t to, bool with_running) {
  ScheduleResult slice;
  slice.quota_keys = result.quota_keys;  // whole: records, the running ones too, name them by index
  slice.quota_excesses = result.quota_excesses;
  if (with_running) {
    slice.monitor.assign(result.monitor.begin(), result.monitor.begin() + result.running_monitor);
    slice.running_monitor = result.running_monitor;
  }
  if (from >= to) return slice;
  const std::uint32_t g0 = result.decisions[from].grant_begin, g1 = result.decisions[to - 1].grant_end;
  const std::uint32_t m0 = result.decisions[from].monitor_begin, m1 = result.decisions[to - 1].monitor_end;
  const auto base = static_cast<std::uint32_t>(slice.monitor.size());
  slice.grants.assign(result.grants.begin() + g0, result.grants.begin() + g1);
  slice.monitor.insert(slice.monitor.end(), result.monitor.begin() + m0, result.monitor.begin() + m1);
  slice.decisions.assign(result.decisions.begin() + static_cast<std::ptrdiff_t>(from),
                         result.decisions.begin() + static_cast<std::ptrdiff_t>(to));
  for (Decision& d : slice.decisions) {
    if (d.soft_begin != UINT32_MAX) {  // its grants' soft outcomes, in the slice's own list
      const auto first = result.soft.begin() + d.soft_begin;
      d.soft_begin = static_cast<std::uint32_t>(slice.soft.size());
      slice.soft.insert(slice.soft.end(), first, first + (d.grant_end - d.grant_begin));
    }
    d.grant_begin -= g0;
    d.grant_end -= g0;
    d.monitor_begin = d.monitor_begin - m0 + base;
    d.monitor_end = d.monitor_end - m0 + base;
    switch (d.kind) {
      case DecisionKind::kStart: ++slice.starts; break;
      case DecisionKind::kReserve: ++slice.reserves; break;
      case DecisionKind::kPending: ++slice.pending; break;
    }
  }
  return slice;
}

std::vector<JobNumber> BypassedJobs(const ScheduleResult& result) {
  std::size_t last_start = result.decisions.size();
  for (std::size_t k = result.decisions.size(); k-- > 0;) {
    if (result.decisions[k].kind == DecisionKind::kStart) {
      last_start = k;
      break;
    }
  }
  std::vector<JobNumber> bypassed;
  if (last_start == result.decisions.size()) return bypassed;
  for (std::size_t k = 0; k < last_start; ++k) {
    if (result.decisions[k].kind != DecisionKind::kStart) bypassed.push_back(result.decisions[k].job);
  }
  std::sort(bypassed.begin(), bypassed.end());
  bypassed.erase(std::unique(bypassed.begin(), bypassed.end()), bypassed.end());
  return bypassed;
}

}  // namespace schedk
