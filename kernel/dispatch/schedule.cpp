#include "kernel/dispatch/schedule.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>
#include <tbb/task_arena.h>

#include "kernel/complex/complex_compare.hpp"
#include "kernel/dispatch/host_load.hpp"
#include "kernel/dispatch/job_duration.hpp"
#include "kernel/radix_sort.hpp"
#include "kernel/row_index.hpp"

namespace schedk {
namespace {

constexpr std::uint32_t kUnlimited = UINT32_MAX;
constexpr std::uint32_t kNoInstance = UINT32_MAX;

// --- access lists --------------------------------------------------------------------------------

bool InUserset(const EntityTables& entities, UsersetId set, UserId user, GroupId group) {
  const Userset& s = entities.userset(set);
  return std::find(s.users.begin(), s.users.end(), user) != s.users.end() ||
         (group.valid() && std::find(s.groups.begin(), s.groups.end(), group) != s.groups.end());
}

// sge_has_access plus the project lists of queues and hosts.
bool HasAccess(const EntityTables& entities, const std::vector<UsersetId>& users, const std::vector<UsersetId>& xusers,
               const std::vector<ProjectId>& projects, const std::vector<ProjectId>& xprojects, UserId user,
               GroupId group, ProjectId project) {
  for (UsersetId x : xusers) {
    if (InUserset(entities, x, user, group)) return false;
  }
  if (!users.empty() && std::none_of(users.begin(), users.end(),
                                     [&](UsersetId u) { return InUserset(entities, u, user, group); })) {
    return false;
  }
  if (project.valid() && std::find(xprojects.begin(), xprojects.end(), project) != xprojects.end()) return false;
  if (!projects.empty() &&
      (!project.valid() || std::find(projects.begin(), projects.end(), project) == projects.end())) {
    return false;
  }
  return true;
}

const ComplexValue* FindValue(const ComplexValueList& values, ComplexId complex) {
  for (const ComplexValue& v : values) {
    if (v.complex == complex) return &v;
  }
  return nullptr;
}

// --- the job under consideration -----------------------------------------------------------------

struct JobView {
  JobNumber job = 0;
  TaskNumber task = 0;
  UserId owner;
  GroupId group;
  ProjectId project;
  RequestSetId request_id;
  const RequestSet* requests = nullptr;
  std::optional<Duration> h_rt, s_rt;
  Duration duration = 0;
  bool reserve = false, immediate = false;
};

// What a job needs from one ledger entry: room for `amount` (per slot, once per
// job, or once per container) and `debit` booked when it runs (the same, except
// for the EXCL entries, where some demands only check and others only book).
enum class DemandKind : std::uint8_t {
  kPerSlot,       // consumable YES
  kPerJob,        // consumable JOB (and HOST): on the master only
  kPerContainer,  // EXCL: on every container the job uses
};
struct Demand {
  std::uint32_t entry = 0;
  double amount = 0;
  double debit = 0;
  DemandKind kind = DemandKind::kPerSlot;
};

// What one container can give a job.
struct LevelFit {
  std::uint32_t slots = kUnlimited;  // 0: nothing
  ComplexId limiting;                // the first resource that limits it
  bool static_mismatch = false;      // a fixed or load value does not match
  NeverCause never = NeverCause::kNone;
};

struct CategoryKey {
  std::uint32_t requests;
  std::uint32_t owner, group, project;
  bool immediate;
  friend auto operator<=>(const CategoryKey&, const CategoryKey&) = default;
};

struct CategoryState {
  bool rejected_now = false;
  bool rejected_reserve = false;
  PendingReason reason = PendingReason::kNone;
  NeverCause never = NeverCause::kNone;
  std::uint32_t object = UINT32_MAX;
};

// A placement of a parallel job.
struct ParallelFit {
  bool ok = false;
  std::vector<Grant> grants;
};

class Interval {
 public:
  Interval(const Cluster& cluster, const JobTable& jobs, const PriorityResult& priorities,
           const QueueInstanceTable& instances, ExecutionMode mode)
      : cluster_(cluster),
        jobs_(jobs),
        priorities_(priorities),
        instances_(instances),
        mode_(mode),
        config_(cluster.config),
        complexes_(cluster.complexes),
        index_(jobs),
        ledger_(cluster, instances, cluster.config.max_reservation > 0),
        load_(cluster, jobs),
        alarm_(instances.size(), 0),
        has_free_(instances.size(), 0),
        instance_free_slots_(instances.size(), 0),
        running_per_user_(cluster.entities.users.size(), 0) {}

  ScheduleResult Run();

 private:
  // Setup.
  void BookRunningJobs();
  void UpdateQueueOrder();
  void UpdateAlarms(std::optional<HostId> only_host);
  bool InAlarm(std::uint32_t instance) const;
  // Queue instances with a free slot now and no load alarm (kept up to date).
  void RefreshFree(std::uint32_t instance);

  // Matching.
  JobView ViewOf(const DispatchEntry& entry) const;
  bool GlobalStatic(const JobView& job) const;
  bool HostStatic(const JobView& job, HostId host) const;
  bool QueueStatic(const JobView& job, std::uint32_t instance, PeId pe) const;
  LevelFit Fit(ContainerRef c, const JobView& job, Time start, Duration d, std::uint64_t& found,
               std::vector<Demand>* demands) const;
  std::vector<Demand> DemandsAt(ContainerRef c, const JobView& job) const;
  template <class Visit>
  void ForEachDemand(ContainerRef c, const JobView& job, Visit visit) const;
  bool AllFound(const JobView& job, std::uint64_t found) const;

  // Sequential jobs.
  std::optional<std::uint32_t> StartSequential(const JobView& job, Decision& why);
  std::optional<std::pair<std::uint32_t, Time>> ReserveSequential(const JobView& job, Decision& why);
  std::optional<Time> EarliestFor(const std::vector<Demand>& demands, Duration d, Decision& why) const;

  // Parallel jobs.
  std::vector<std::uint32_t> SlotCandidates(const JobView& job, PeId pe) const;
  // What a parallel job can get from `pe` at `start`: the PE's room, the global
  // host's, and per host in load order its instances and their slots. `now`:
  // the start is now, so only instances with a free slot can contribute.
  struct HostSlots {
    HostId host;
    std::uint32_t available = 0;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> queues;  // instance, slots
  };
  struct ParallelRoom {
    bool usable = false;  // access to the PE and a static match at the global host
    double pe_left = std::numeric_limits<double>::infinity();
    std::uint32_t global_slots = kUnlimited;
    ComplexId global_limiting;
    ComplexId instance_limiting;  // the first resource that kept an instance out
    std::vector<HostSlots> hosts;
  };
  ParallelRoom RoomFor(const JobView& job, PeId pe, Time start, bool now) const;
  // parallel_assignment of `total` slots within `room` under the PE's allocation rule.
  ParallelFit Distribute(const ParallelRoom& room, PeId pe, std::uint32_t total, Decision* why) const;
  ParallelFit AssignParallel(const JobView& job, PeId pe, std::uint32_t total, Time start, Decision* why) const {
    return Distribute(RoomFor(job, pe, start, false), pe, total, why);
  }
  std::optional<std::pair<PeId, ParallelFit>> StartParallel(const JobView& job, Decision& why);
  std::optional<std::tuple<PeId, ParallelFit, Time>> ReserveParallel(const JobView& job, Decision& why);
  std::vector<Time> QueueEndTimes(const JobView& job, PeId pe) const;
  // How many of `times` (latest first), from the first on, are feasible start
  // times for `least` slots: the parallel sweep twin of the descending walk.
  std::size_t FeasiblePrefix(const JobView& job, PeId pe, std::uint32_t least, const std::vector<Time>& times) const;

  void RejectForNow(CategoryState& category, const Decision& why);
  // One task of the dispatch loop (§5.6).
  void Dispatch(const DispatchEntry& entry, std::uint32_t& reservations);
  // Whether the job would start now if the diagrams held nothing but what is in use now.
  bool FitsIgnoringPlan(const JobView& job);

  // Booking.
  void Book(const JobView& job, PeId pe, const std::vector<Grant>& grants, Time start, Duration d, UsageState state);
  void Monitor(const JobView& job, UsageState state, Time start, Duration d, ContainerRef c, std::uint32_t k,
               double amount);
  void Record(Decision d, const std::vector<Grant>& grants);

  const Cluster& cluster_;
  const JobTable& jobs_;
  const PriorityResult& priorities_;
  const QueueInstanceTable& instances_;
  ExecutionMode mode_;
  const SchedulerConfig& config_;
  const ComplexTable& complexes_;
  RowIndex index_;
  ResourceLedger ledger_;
  HostLoad load_;
  std::vector<std::uint8_t> alarm_;
  std::vector<std::uint8_t> has_free_;
  std::int64_t free_instances_ = 0;
  std::vector<double> instance_free_slots_;  // free slots now of instances not in alarm
  double free_slots_ = 0;                    // their sum
  // Queue order (§4.2): by (host load, seq_no) or (seq_no, host load), then
  // definition order; hosts with equal load share a rank, so ordering by the
  // load itself is ordering by rank. Kept as sets so that a start re-sorts only
  // the instances of the hosts it changed.
  struct QueueKey {
    double first = 0, second = 0;
    std::uint32_t instance = 0;
    friend auto operator<=>(const QueueKey&, const QueueKey&) = default;
  };
  QueueKey KeyOf(std::uint32_t instance) const;
  void SetHostLoad(HostId host);  // re-sorts the host's instances after its load changed
  std::set<QueueKey> queue_order_;  // every instance
  std::set<QueueKey> free_order_;   // instances with a free slot now and no load alarm
  std::vector<double> host_value_;  // load formula per host
  std::vector<std::uint32_t> running_per_user_;
  std::map<CategoryKey, CategoryState> categories_;
  ScheduleResult result_;
  bool ignore_plan_ = false;
  bool access_lists_ = false;
  // UtilizationDiagram::LastIncrease per ledger entry, cached until the entry is booked again.
  mutable std::vector<std::optional<Time>> last_increase_;
  mutable std::vector<std::uint8_t> last_increase_known_;
  std::optional<Time> LastIncreaseOf(std::uint32_t k) const {
    if (!last_increase_known_[k]) {
      last_increase_[k] = ledger_.diagram(k).LastIncrease();
      last_increase_known_[k] = 1;
    }
    return last_increase_[k];
  }  // some host, queue, PE or the global host restricts users or projects
  std::uint32_t monitor_mark_ = 0;  // monitor lines up to here belong to earlier records  // Fit weighs the amounts in use now only, not the diagrams
};

// --- setup ---------------------------------------------------------------------------------------

Interval::QueueKey Interval::KeyOf(std::uint32_t i) const {
  const double load = host_value_[instances_.host[i].index()];
  const auto seq_no = static_cast<double>(instances_.seq_no[i]);
  if (config_.queue_sort_method == QueueSortMethod::kLoad) return {load, seq_no, i};
  return {seq_no, load, i};
}

void Interval::UpdateQueueOrder() {
  host_value_.resize(cluster_.hosts.size());
  for (std::size_t h = 0; h < host_value_.size(); ++h) {
    host_value_[h] = load_.FormulaValue(HostId(static_cast<std::uint32_t>(h)));
  }
  queue_order_.clear();
  free_order_.clear();
  for (std::uint32_t i = 0; i < instances_.size(); ++i) {
    queue_order_.insert(KeyOf(i));
    if (has_free_[i]) free_order_.insert(KeyOf(i));
  }
}

void Interval::SetHostLoad(HostId host) {
  const double value = load_.FormulaValue(host);
  if (value == host_value_[host.index()]) return;
  const std::uint32_t h = host.index();
  for (std::uint32_t k = instances_.host_first[h]; k < instances_.host_first[h + 1]; ++k) {
    const std::uint32_t i = instances_.on_host[k];
    queue_order_.erase(KeyOf(i));
    free_order_.erase(KeyOf(i));
  }
  host_value_[h] = value;
  for (std::uint32_t k = instances_.host_first[h]; k < instances_.host_first[h + 1]; ++k) {
    const std::uint32_t i = instances_.on_host[k];
    queue_order_.insert(KeyOf(i));
    if (has_free_[i]) free_order_.insert(KeyOf(i));
  }
}

bool Interval::InAlarm(std::uint32_t i) const {
  const HostId host = instances_.host[i];
  for (const ComplexValue& threshold : *instances_.load_thresholds[i]) {
    const ComplexAttribute& a = complexes_[threshold.complex];
    if (IsNumeric(a.type)) {
      std::optional<double> value = load_.LoadValue(host, threshold.complex);
      if (!value) value = load_.GlobalLoadValue(threshold.complex);
      if (!value && a.consumable != Consumable::kNo) {
        for (ContainerRef c : {ContainerRef{ContainerLevel::kQueue, i}, ContainerRef{ContainerLevel::kHost, host.index()},
                               ContainerRef{ContainerLevel::kGlobal, 0}}) {
          if (auto k = ledger_.Find(c, threshold.complex)) {
            value = ledger_.entry(*k).total - ledger_.entry(*k).used_now;
            break;
          }
        }
      }
      if (!value) {
        if (const ComplexValue* fixed = FindValue(*instances_.complex_values[i], threshold.complex)) {
          value = fixed->number;
        }
      }
      if (value && CompareNumbers(a.relop, *value, threshold.number)) return true;
    } else {
      const ComplexValue* text = FindValue(cluster_.hosts[host.index()].load_values, threshold.complex);
      if (text == nullptr) text = FindValue(cluster_.global.load_values, threshold.complex);
      if (text != nullptr && CompareStrings(a.type, Relop::kEq, threshold.text, text->text)) return true;
    }
  }
  return false;
}

void Interval::UpdateAlarms(std::optional<HostId> only_host) {
  auto update = [&](std::uint32_t i) {
    alarm_[i] = InAlarm(i) ? 1 : 0;
    RefreshFree(i);
  };
  if (!only_host) {
    for (std::uint32_t i = 0; i < instances_.size(); ++i) update(i);
    return;
  }
  const std::uint32_t h = only_host->index();
  for (std::uint32_t k = instances_.host_first[h]; k < instances_.host_first[h + 1]; ++k) update(instances_.on_host[k]);
}

void Interval::RefreshFree(std::uint32_t i) {
  const auto k = ledger_.Find({ContainerLevel::kQueue, i}, complexes_.slots);
  const bool has_free = !alarm_[i] && k && ledger_.entry(*k).used_now < ledger_.entry(*k).total;
  const double slots = has_free ? ledger_.entry(*k).total - ledger_.entry(*k).used_now : 0;
  free_slots_ += slots - instance_free_slots_[i];
  instance_free_slots_[i] = slots;
  if (has_free != (has_free_[i] != 0)) {
    has_free_[i] = has_free ? 1 : 0;
    free_instances_ += has_free ? 1 : -1;
    if (!host_value_.empty()) {
      if (has_free) free_order_.insert(KeyOf(i));
      else free_order_.erase(KeyOf(i));
    }
  }
}

void Interval::BookRunningJobs() {
  // add_job_list_to_schedule: running and suspended tasks in job order.
  struct Running {
    JobNumber job;
    TaskNumber task;
    std::uint32_t shard, row;
  };
  std::vector<Running> running;
  for (std::uint32_t s = 0; s < jobs_.shards().size(); ++s) {
    const JobShard& shard = jobs_.shards()[s];
    for (std::uint32_t r = 0; r < shard.size(); ++r) {
      if (shard.state[r] == JobState::kRunning || shard.state[r] == JobState::kSuspended) {
        running.push_back({shard.number[r], shard.task_first[r], s, r});
      }
    }
  }
  std::sort(running.begin(), running.end(),
            [](const Running& a, const Running& b) { return std::tie(a.job, a.task) < std::tie(b.job, b.task); });
  for (const Running& r : running) {
    const JobShard& shard = jobs_.shards()[r.shard];
    const JobExtras* e = shard.extras_of(r.row);
    if (e == nullptr || e->granted.empty()) continue;
    JobView job;
    job.job = r.job;
    job.task = r.task;
    job.owner = shard.owner[r.row];
    job.group = shard.group[r.row];
    job.project = shard.project[r.row];
    job.request_id = shard.requests[r.row];
    job.requests = &jobs_.requests(job.request_id);
    std::vector<Grant> grants;
    for (const GrantedSlots& g : e->granted) {
      const std::uint32_t i = instances_.Find(g.queue, g.host);
      if (i != kNoInstance) grants.push_back({i, g.slots});
    }
    if (grants.empty()) continue;
    std::optional<Duration> limit;
    for (const ComplexValue& v : job.requests->hard) {
      if (v.complex == complexes_.h_rt) limit = static_cast<Duration>(v.number);
    }
    if (!limit && instances_.h_rt[grants.front().instance] < kInfiniteDuration) {
      limit = instances_.h_rt[grants.front().instance];
    }
    const Duration d = RunningJobDuration(e->start, limit, config_.default_duration, config_.duration_offset,
                                          cluster_.now, config_.schedule_interval);
    const bool suspended = shard.state[r.row] == JobState::kSuspended;
    Book(job, e->granted_pe, grants, e->start, d, suspended ? UsageState::kSuspended : UsageState::kRunning);
    if (job.owner.valid() && !suspended) ++running_per_user_[job.owner.index()];
  }
}

// --- matching ------------------------------------------------------------------------------------

JobView Interval::ViewOf(const DispatchEntry& entry) const {
  const JobShard& shard = jobs_.shards()[index_.shard(entry.row)];
  const std::uint32_t r = index_.row(entry.row);
  JobView job;
  job.job = shard.number[r];
  job.task = entry.task;
  job.owner = shard.owner[r];
  job.group = shard.group[r];
  job.project = shard.project[r];
  job.request_id = shard.requests[r];
  job.requests = &jobs_.requests(job.request_id);
  for (const ComplexValue& v : job.requests->hard) {
    if (v.complex == complexes_.h_rt) job.h_rt = static_cast<Duration>(v.number);
    if (v.complex == complexes_.s_rt) job.s_rt = static_cast<Duration>(v.number);
  }
  job.duration = PendingJobDuration(job.h_rt, job.s_rt, config_.default_duration, config_.duration_offset);
  job.reserve = (shard.flags[r] & kJobReserve) != 0;
  job.immediate = (shard.flags[r] & kJobImmediate) != 0;
  return job;
}

bool Interval::GlobalStatic(const JobView& job) const {
  const GlobalHost& g = cluster_.global;
  return HasAccess(cluster_.entities, g.user_lists, g.xuser_lists, g.projects, g.xprojects, job.owner, job.group,
                   job.project);
}

bool Interval::HostStatic(const JobView& job, HostId host) const {
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

bool Interval::QueueStatic(const JobView& job, std::uint32_t i, PeId pe) const {
  const RequestSet& req = *job.requests;
  if (pe.valid()) {
    const std::vector<PeId>& list = *instances_.pe_list[i];
    if (std::find(list.begin(), list.end(), pe) == list.end()) return false;
  } else if ((instances_.qtype[i] & kQueueBatch) == 0) {
    return false;
  }
  if (!req.queue_hard.empty()) {
    const HostId host = instances_.host[i];
    const bool listed = std::any_of(req.queue_hard.begin(), req.queue_hard.end(), [&](const QueueSelector& s) {
      if (s.queue.valid() && s.queue != instances_.queue[i]) return false;
      if (s.host.valid()) return s.host == host;
      if (s.group.valid()) {
        const auto& members = cluster_.hostgroups[s.group.index()].hosts;
        return std::binary_search(members.begin(), members.end(), host);
      }
      return true;
    });
    if (!listed) return false;
  }
  if (!HasAccess(cluster_.entities, *instances_.user_lists[i], *instances_.xuser_lists[i], *instances_.projects[i],
                 *instances_.xprojects[i], job.owner, job.group, job.project)) {
    return false;
  }
  for (const ComplexValue& v : *instances_.complex_values[i]) {
    if (complexes_[v.complex].requestable == Requestable::kForced && !FindValue(req.hard, v.complex)) return false;
  }
  return true;
}

// The ledger entries a job draws on in container c, per slot: its explicit
// consumable requests, the defaults of the container's other consumables, and
// `slots` itself.
template <class Visit>
void Interval::ForEachDemand(ContainerRef c, const JobView& job, Visit visit) const {
  for (std::uint32_t k = ledger_.Begin(c); k < ledger_.End(c); ++k) {
    const ConsumableEntry& e = ledger_.entry(k);
    const ComplexAttribute& a = complexes_[e.complex];
    const ComplexValue* requested = FindValue(job.requests->hard, e.complex);
    if (a.relop == Relop::kExcl) {
      // §4.5: a job requesting exclusivity needs both usages at 0 and books the
      // exclusive one; any other job needs the exclusive usage at 0 and books
      // the non-exclusive one.
      const bool exclusive = requested != nullptr && requested->number != 0;
      if (!e.non_exclusive) {  // room for the whole capacity means nobody has it exclusively
        visit(Demand{k, exclusive ? 1.0 : e.total, exclusive ? 1.0 : 0.0, DemandKind::kPerContainer});
      } else {
        visit(Demand{k, exclusive ? kNonExclusiveTotal : 1.0, exclusive ? 0.0 : 1.0, DemandKind::kPerContainer});
      }
      continue;
    }
    double amount = 0;
    if (e.complex == complexes_.slots) {
      amount = 1;
    } else if (requested != nullptr) {
      amount = requested->number;
    } else {
      amount = a.default_value;  // an unrequested consumable debits its default
    }
    if (amount == 0) continue;
    const bool per_job = a.consumable == Consumable::kJob || a.consumable == Consumable::kHost;
    visit(Demand{k, amount, amount, per_job ? DemandKind::kPerJob : DemandKind::kPerSlot});
  }
}

std::vector<Demand> Interval::DemandsAt(ContainerRef c, const JobView& job) const {
  std::vector<Demand> demands;
  ForEachDemand(c, job, [&](const Demand& d) { demands.push_back(d); });
  return demands;
}

// rc_slots_by_time for one container: the slots its consumables leave over
// [start, start + d), and the static match of the job's other requests against
// the container's fixed and load values. `found` collects the requests the
// container defines (bit i: the job's i-th hard request); the container's
// demands are appended to `demands_out` when given.
LevelFit Interval::Fit(ContainerRef c, const JobView& job, Time start, Duration d, std::uint64_t& found,
                       std::vector<Demand>* demands_out) const {
  LevelFit fit;
  const ComplexValueList& hard = job.requests->hard;
  for (std::size_t r = 0; r < hard.size(); ++r) {
    const ComplexValue& req = hard[r];
    const ComplexAttribute& a = complexes_[req.complex];
    if (ledger_.Find(c, req.complex)) {
      if (r < 64) found |= std::uint64_t{1} << r;
      continue;  // consumables are weighed below
    }
    // A fixed value (per slot) and a load value (per job) at this level.
    const ComplexValue* fixed = nullptr;
    const ComplexValue* load_text = nullptr;
    std::optional<double> load;
    std::optional<double> builtin;
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
        break;
      case ContainerLevel::kPe:
        break;
    }
    if (fixed == nullptr && load_text == nullptr && !builtin) continue;  // not defined here
    if (r < 64) found |= std::uint64_t{1} << r;
    bool match = true;
    if (IsNumeric(a.type)) {
      NumericOffer offer;
      if (fixed != nullptr) offer.per_slot = fixed->number;
      if (builtin) offer.per_slot = *builtin;
      if (load) offer.per_job = *load;
      match = MatchesNumericOffer(a.relop, req.number, 1, offer);
    } else {
      const ComplexValue* offered = fixed != nullptr ? fixed : load_text;
      match = CompareStrings(a.type, a.relop, req.text, offered->text);
    }
    if (!match) {
      fit.slots = 0;
      fit.static_mismatch = true;
      if (!fit.limiting.valid()) fit.limiting = req.complex;
    }
  }
  ForEachDemand(c, job, [&](const Demand& demand) {
    if (demands_out != nullptr) demands_out->push_back(demand);
    const ConsumableEntry& e = ledger_.entry(demand.entry);
    const double left = e.total - (ignore_plan_ ? e.used_now : ledger_.Used(demand.entry, start, d));
    std::uint32_t n = kUnlimited;
    if (demand.kind != DemandKind::kPerSlot) {
      if (demand.amount > left) n = 0;
    } else {
      const double fits = std::floor(left / demand.amount);
      n = fits <= 0 ? 0 : fits >= kUnlimited ? kUnlimited - 1 : static_cast<std::uint32_t>(fits);
    }
    if (demand.amount > e.total && fit.never == NeverCause::kNone) {
      fit.never = NeverCause::kExceedsCapacity;
      fit.limiting = e.complex;
    }
    if (n < fit.slots) {
      fit.slots = n;
      if (!fit.static_mismatch && fit.never == NeverCause::kNone) fit.limiting = e.complex;
    }
  });
  return fit;
}

bool Interval::AllFound(const JobView& job, std::uint64_t found) const {
  const std::size_t n = std::min<std::size_t>(job.requests->hard.size(), 64);
  const std::uint64_t all = n == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1;
  return (found & all) == all;
}

// --- sequential jobs -----------------------------------------------------------------------------

std::optional<std::uint32_t> Interval::StartSequential(const JobView& job, Decision& why) {
  std::uint64_t global_found = 0;
  const LevelFit global = Fit({ContainerLevel::kGlobal, 0}, job, cluster_.now, job.duration, global_found, nullptr);
  // The first instance in queue order that fits: only instances with a free
  // slot can, so only they are tried.
  if (global.slots >= 1 && !global.static_mismatch && GlobalStatic(job)) {
    for (const QueueKey& key : free_order_) {
      const std::uint32_t i = key.instance;
      const HostId host = instances_.host[i];
      if (!QueueStatic(job, i, PeId::None()) || !HostStatic(job, host)) continue;
      std::uint64_t found = global_found;
      const LevelFit h = Fit({ContainerLevel::kHost, host.index()}, job, cluster_.now, job.duration, found, nullptr);
      if (h.static_mismatch || h.slots == 0) continue;
      const LevelFit q = Fit({ContainerLevel::kQueue, i}, job, cluster_.now, job.duration, found, nullptr);
      if (AllFound(job, found) && !q.static_mismatch && q.slots >= 1) return i;
    }
  }
  // None: walk every instance to say why.
  bool any_static = false, any_alarm = false;
  for (const QueueKey& key : queue_order_) {
    const std::uint32_t i = key.instance;
    const HostId host = instances_.host[i];
    if (!QueueStatic(job, i, PeId::None()) || !HostStatic(job, host)) continue;
    std::uint64_t found = global_found;
    const LevelFit h = Fit({ContainerLevel::kHost, host.index()}, job, cluster_.now, job.duration, found, nullptr);
    const LevelFit q = Fit({ContainerLevel::kQueue, i}, job, cluster_.now, job.duration, found, nullptr);
    if (!AllFound(job, found) || h.static_mismatch || q.static_mismatch) continue;
    any_static = true;
    if (alarm_[i]) {
      any_alarm = true;
      if (why.reason == PendingReason::kNone) why.object = i;
      continue;
    }
    for (const LevelFit* level : {&global, &h, &q}) {
      if (level->slots == 0 && why.reason != PendingReason::kResource && why.never == NeverCause::kNone) {
        why.reason = PendingReason::kResource;
        why.object = level->limiting.value;
      }
      if (level->never != NeverCause::kNone && why.never == NeverCause::kNone) {
        why.never = level->never;
        why.object = level->limiting.value;
      }
    }
  }
  if (!GlobalStatic(job) || global.static_mismatch) any_static = false;
  if (!any_static) {
    why.reason = PendingReason::kNever;
    why.never = NeverCause::kNoQueue;
  } else if (why.reason == PendingReason::kNone && any_alarm) {
    why.reason = PendingReason::kLoadThreshold;
  }
  return std::nullopt;
}

// The earliest time every demand fits for d seconds (§5.4: each diagram's
// tail; with RESERVE_IN_GAPS, the earliest common fit, gaps included).
std::optional<Time> Interval::EarliestFor(const std::vector<Demand>& demands, Duration d, Decision& why) const {
  const Time now = cluster_.now;
  for (const Demand& demand : demands) {
    const ConsumableEntry& e = ledger_.entry(demand.entry);
    const double threshold = e.total - demand.amount;
    if (threshold < 0) {
      why.never = NeverCause::kExceedsCapacity;
      why.object = e.complex.value;
      return std::nullopt;
    }
    if (demand.amount > e.total - ledger_.diagram(demand.entry).QueueEnd()) {
      why.never = NeverCause::kBookedOut;
      why.object = e.complex.value;
      return std::nullopt;
    }
  }
  Time t = now;
  if (!config_.reserve_in_gaps) {
    for (const Demand& demand : demands) {
      const Time below = ledger_.diagram(demand.entry).Below(ledger_.entry(demand.entry).total - demand.amount);
      t = std::max(t, below == 0 ? now : below);
    }
    return t;
  }
  for (bool moved = true; moved;) {
    moved = false;
    for (const Demand& demand : demands) {
      const std::optional<Time> fit =
          ledger_.diagram(demand.entry).EarliestFit(t, d, ledger_.entry(demand.entry).total - demand.amount);
      if (!fit) return std::nullopt;
      if (*fit > t) {
        t = *fit;
        moved = true;
      }
    }
  }
  return t;
}

std::optional<std::pair<std::uint32_t, Time>> Interval::ReserveSequential(const JobView& job, Decision& why) {
  std::uint64_t global_found = 0;
  std::vector<Demand> global_demands;
  const LevelFit global =
      Fit({ContainerLevel::kGlobal, 0}, job, cluster_.now, job.duration, global_found, &global_demands);
  if (global.static_mismatch || !GlobalStatic(job)) return std::nullopt;
  std::optional<std::pair<std::uint32_t, Time>> best;
  for (const QueueKey& key : queue_order_) {
    const std::uint32_t i = key.instance;
    const HostId host = instances_.host[i];
    if (alarm_[i] || !QueueStatic(job, i, PeId::None()) || !HostStatic(job, host)) continue;
    std::uint64_t found = global_found;
    std::vector<Demand> demands = global_demands;
    const LevelFit h = Fit({ContainerLevel::kHost, host.index()}, job, cluster_.now, job.duration, found, &demands);
    const LevelFit q = Fit({ContainerLevel::kQueue, i}, job, cluster_.now, job.duration, found, &demands);
    if (!AllFound(job, found) || h.static_mismatch || q.static_mismatch) continue;
    Decision local;
    const std::optional<Time> t = EarliestFor(demands, job.duration, local);
    if (!t) {
      if (why.never == NeverCause::kNone) {
        why.never = local.never;
        why.object = local.object;
      }
      continue;
    }
    if (!best || *t < best->second) best = std::make_pair(i, *t);
  }
  return best;
}

// --- parallel jobs -------------------------------------------------------------------------------

// add_pe_slots_to_category: the slot counts the job may get from `pe`, ascending.
std::vector<std::uint32_t> Interval::SlotCandidates(const JobView& job, PeId pe) const {
  const ParallelEnvironment& p = cluster_.pes[pe.index()];
  const PeRequest& request = job.requests->pe;
  std::vector<std::uint32_t> candidates;
  const std::uint32_t high = std::min(request.max, p.slots);
  for (std::uint32_t n = request.min; n <= high; ++n) {
    if (p.allocation_rule == AllocationRule::kFixed && n % p.slots_per_host != 0) continue;
    candidates.push_back(n);
    if (n == UINT32_MAX) break;
  }
  return candidates;
}

// parallel_assignment at one start time: the PE's slots, global resources for
// the whole job, then hosts in load order under the allocation rule, each host
// giving the minimum of its own resources and the sum of its queue instances'.
Interval::ParallelRoom Interval::RoomFor(const JobView& job, PeId pe, Time start, bool now) const {
  ParallelRoom room;
  const Duration d = job.duration;
  const ParallelEnvironment& p = cluster_.pes[pe.index()];
  if (!HasAccess(cluster_.entities, p.user_lists, p.xuser_lists, {}, {}, job.owner, job.group, job.project)) {
    return room;
  }
  if (const auto k = ledger_.Find({ContainerLevel::kPe, pe.index()}, complexes_.slots)) {
    const ConsumableEntry& e = ledger_.entry(*k);
    room.pe_left = e.total - (ignore_plan_ ? e.used_now : ledger_.Used(*k, start, d));
  }
  std::uint64_t global_found = 0;
  const LevelFit global = Fit({ContainerLevel::kGlobal, 0}, job, start, d, global_found, nullptr);
  if (global.static_mismatch || !GlobalStatic(job)) return room;
  room.usable = true;
  room.global_slots = global.slots;
  room.global_limiting = global.limiting;
  std::vector<std::uint32_t> host_pos(cluster_.hosts.size(), UINT32_MAX);
  for (const QueueKey& key : now ? free_order_ : queue_order_) {
    const std::uint32_t i = key.instance;
    const HostId host = instances_.host[i];
    if (alarm_[i] || !QueueStatic(job, i, pe) || !HostStatic(job, host)) continue;
    std::uint64_t found = global_found;
    const LevelFit q = Fit({ContainerLevel::kQueue, i}, job, start, d, found, nullptr);
    std::uint64_t host_found = found;
    const LevelFit h = Fit({ContainerLevel::kHost, host.index()}, job, start, d, host_found, nullptr);
    if (!AllFound(job, host_found) || q.static_mismatch || h.static_mismatch || q.slots == 0 || h.slots == 0) {
      if (!room.instance_limiting.valid() && !q.static_mismatch && !h.static_mismatch && AllFound(job, host_found)) {
        room.instance_limiting = q.slots == 0 ? q.limiting : h.limiting;
      }
      continue;
    }
    if (host_pos[host.index()] == UINT32_MAX) {
      host_pos[host.index()] = static_cast<std::uint32_t>(room.hosts.size());
      room.hosts.push_back({host, h.slots, {}});
    }
    room.hosts[host_pos[host.index()]].queues.emplace_back(i, q.slots);
  }
  // Hosts in host (load) order, as Grid Engine walks them.
  std::stable_sort(room.hosts.begin(), room.hosts.end(), [&](const HostSlots& a, const HostSlots& b) {
    return std::make_pair(host_value_[a.host.index()], a.host) < std::make_pair(host_value_[b.host.index()], b.host);
  });
  for (HostSlots& h : room.hosts) {
    std::uint64_t sum = 0;
    for (const auto& [i, n] : h.queues) sum += n;
    h.available = static_cast<std::uint32_t>(std::min<std::uint64_t>(h.available, sum));
  }
  return room;
}

ParallelFit Interval::Distribute(const ParallelRoom& room, PeId pe, std::uint32_t total, Decision* why) const {
  ParallelFit result;
  if (!room.usable) return result;
  const ParallelEnvironment& p = cluster_.pes[pe.index()];
  if (room.pe_left < total) {
    if (why != nullptr && why->reason == PendingReason::kNone) {
      why->reason = PendingReason::kPe;
      why->object = pe.value;
    }
    return result;
  }
  if (room.global_slots < total) {
    if (why != nullptr && why->reason == PendingReason::kNone) {
      why->reason = PendingReason::kResource;
      why->object = room.global_limiting.value;
    }
    return result;
  }
  if (why != nullptr && why->reason == PendingReason::kNone && room.instance_limiting.valid()) {
    why->reason = PendingReason::kResource;
    why->object = room.instance_limiting.value;
  }
  std::vector<std::uint32_t> take(room.hosts.size(), 0);
  std::uint32_t remaining = total;
  switch (p.allocation_rule) {
    case AllocationRule::kPeSlots:
      for (std::size_t k = 0; k < room.hosts.size(); ++k) {
        if (room.hosts[k].available >= total) {
          take[k] = total;
          remaining = 0;
          break;
        }
      }
      break;
    case AllocationRule::kFillUp:
      for (std::size_t k = 0; k < room.hosts.size() && remaining > 0; ++k) {
        take[k] = std::min(remaining, room.hosts[k].available);
        remaining -= take[k];
      }
      break;
    case AllocationRule::kRoundRobin:
      for (bool added = true; remaining > 0 && added;) {
        added = false;
        for (std::size_t k = 0; k < room.hosts.size() && remaining > 0; ++k) {
          if (take[k] < room.hosts[k].available) {
            ++take[k];
            --remaining;
            added = true;
          }
        }
      }
      break;
    case AllocationRule::kFixed:
      for (std::size_t k = 0; k < room.hosts.size() && remaining > 0; ++k) {
        if (room.hosts[k].available >= p.slots_per_host) {
          take[k] = p.slots_per_host;
          remaining -= std::min(remaining, p.slots_per_host);
        }
      }
      break;
  }
  if (remaining > 0) {  // the hosts together cannot give the slots under the allocation rule
    if (why != nullptr && why->reason == PendingReason::kNone) {
      why->reason = PendingReason::kResource;
      why->object = complexes_.slots.value;
    }
    return result;
  }
  for (std::size_t k = 0; k < room.hosts.size(); ++k) {
    std::uint32_t left = take[k];
    for (const auto& [i, n] : room.hosts[k].queues) {
      if (left == 0) break;
      const std::uint32_t here = std::min(left, n);
      result.grants.push_back({i, here});
      left -= here;
    }
  }
  result.ok = true;
  return result;
}

std::optional<std::pair<PeId, ParallelFit>> Interval::StartParallel(const JobView& job, Decision& why) {
  std::optional<std::pair<PeId, ParallelFit>> best;
  std::uint32_t best_slots = 0;
  bool any_candidates = false;
  for (PeId pe : job.requests->pe.matching) {
    const std::vector<std::uint32_t> candidates = SlotCandidates(job, pe);
    if (candidates.empty()) continue;
    any_candidates = true;
    if (candidates.front() > free_slots_) {  // fewer free slots now in all queue instances together
      if (why.reason == PendingReason::kNone) {
        why.reason = PendingReason::kResource;
        why.object = complexes_.slots.value;
      }
      continue;
    }
    // The largest feasible count, by binary search over the candidates.
    const ParallelRoom room = RoomFor(job, pe, cluster_.now, true);
    std::size_t lo = 0, hi = candidates.size();  // feasible: [0, lo); unknown: [lo, hi)
    ParallelFit fit;
    while (lo < hi) {
      const std::size_t mid = lo + (hi - lo) / 2;
      ParallelFit f = Distribute(room, pe, candidates[mid], lo == 0 ? &why : nullptr);
      if (f.ok) {
        fit = std::move(f);
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    if (lo == 0) continue;
    const std::uint32_t slots = candidates[lo - 1];
    if (!best || slots > best_slots) {  // a later PE replaces the best only with more slots
      best = std::make_pair(pe, std::move(fit));
      best_slots = slots;
    }
  }
  if (!any_candidates) {  // no PE matches, or none can give a count in the range
    why.reason = PendingReason::kNever;
    why.never = NeverCause::kNoPe;
  }
  return best;
}

// The queue-end-time iterator's candidate start times for one PE: every
// breakpoint of the diagrams the job draws on, latest first.
std::vector<Time> Interval::QueueEndTimes(const JobView& job, PeId pe) const {
  std::vector<Time> times;
  auto collect = [&](std::uint32_t k) {
    for (const Breakpoint& b : ledger_.diagram(k).Breakpoints()) times.push_back(b.time);
  };
  auto requested = [&](ComplexId c) { return c == complexes_.slots || FindValue(job.requests->hard, c) != nullptr; };
  auto collect_container = [&](ContainerRef c) {
    for (std::uint32_t k = ledger_.Begin(c); k < ledger_.End(c); ++k) {
      if (requested(ledger_.entry(k).complex)) collect(k);
    }
  };
  collect_container({ContainerLevel::kPe, pe.index()});
  collect_container({ContainerLevel::kGlobal, 0});
  std::vector<std::uint8_t> host_seen(cluster_.hosts.size(), 0);
  for (std::uint32_t i = 0; i < instances_.size(); ++i) {
    const HostId host = instances_.host[i];
    if (!QueueStatic(job, i, pe) || !HostStatic(job, host)) continue;
    collect_container({ContainerLevel::kQueue, i});
    if (!host_seen[host.index()]) {
      host_seen[host.index()] = 1;
      collect_container({ContainerLevel::kHost, host.index()});
    }
  }
  // Breakpoint times are never negative: sort them as unsigned integers, latest first.
  std::vector<std::uint64_t> keys(times.begin(), times.end());
  RadixSort64(keys);
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  times.assign(keys.rbegin(), keys.rend());
  return times;
}

// The queue-end-time walk as a sweep. A host's slot availability over
// [t, t + d) can only change where one of its breakpoints b stops being in
// effect (t < b) or leaves the window (t <= b - d); walking the times downwards,
// only hosts with such an event since the previous candidate are re-evaluated,
// and feasibility is read off aggregates per allocation rule (the sum of
// available slots for $fill_up and $round_robin, the hosts with room for the
// whole job for $pe_slots, the hosts with room for n slots for a fixed n),
// which is exactly when AssignParallel succeeds. Blocks of candidate times are
// swept in parallel, each from a full evaluation at its first time; the result
// is the first failure, so it does not depend on the blocking.
std::size_t Interval::FeasiblePrefix(const JobView& job, PeId pe, std::uint32_t least,
                                     const std::vector<Time>& times) const {
  const Duration d = job.duration;
  const ParallelEnvironment& p = cluster_.pes[pe.index()];
  if (!HasAccess(cluster_.entities, p.user_lists, p.xuser_lists, {}, {}, job.owner, job.group, job.project) ||
      !GlobalStatic(job)) {
    return 0;
  }
  std::uint64_t global_found = 0;
  if (Fit({ContainerLevel::kGlobal, 0}, job, cluster_.now, d, global_found, nullptr).static_mismatch) return 0;
  // Eligible hosts with their eligible instances.
  std::vector<HostId> hosts;
  std::vector<std::vector<std::uint32_t>> host_instances;
  std::vector<std::uint32_t> host_index(cluster_.hosts.size(), UINT32_MAX);
  for (std::uint32_t i = 0; i < instances_.size(); ++i) {
    const HostId host = instances_.host[i];
    if (alarm_[i] || !QueueStatic(job, i, pe) || !HostStatic(job, host)) continue;
    if (host_index[host.index()] == UINT32_MAX) {
      host_index[host.index()] = static_cast<std::uint32_t>(hosts.size());
      hosts.push_back(host);
      host_instances.emplace_back();
    }
    host_instances[host_index[host.index()]].push_back(i);
  }
  const std::optional<std::uint32_t> pe_entry = ledger_.Find({ContainerLevel::kPe, pe.index()}, complexes_.slots);
  const AllocationRule rule = p.allocation_rule;
  const std::uint32_t per_host = rule == AllocationRule::kPeSlots ? least
                                 : rule == AllocationRule::kFixed ? p.slots_per_host
                                                                  : 1;
  // The static part of every host's and instance's match, worked out once:
  // what is left are the demands on their ledger entries.
  struct InstancePlan {
    std::vector<Demand> demands;
  };
  struct HostPlan {
    bool usable = false;
    std::vector<Demand> demands;
    std::vector<InstancePlan> instances;
  };
  std::vector<HostPlan> plans(hosts.size());
  for (std::uint32_t h = 0; h < hosts.size(); ++h) {
    HostPlan& plan = plans[h];
    std::uint64_t found_host = 0;
    const LevelFit hf = Fit({ContainerLevel::kHost, hosts[h].index()}, job, cluster_.now, d, found_host, &plan.demands);
    if (hf.static_mismatch) continue;
    plan.usable = true;
    for (std::uint32_t i : host_instances[h]) {
      std::uint64_t found = global_found | found_host;
      InstancePlan instance;
      const LevelFit q = Fit({ContainerLevel::kQueue, i}, job, cluster_.now, d, found, &instance.demands);
      if (!AllFound(job, found) || q.static_mismatch) continue;
      plan.instances.push_back(std::move(instance));
    }
  }
  auto slots_from = [&](const std::vector<Demand>& demands, Time t) -> std::uint64_t {
    std::uint64_t n = kUnlimited;
    for (const Demand& demand : demands) {
      const double left = ledger_.entry(demand.entry).total - ledger_.Used(demand.entry, t, d);
      if (demand.kind != DemandKind::kPerSlot) {
        if (demand.amount > left) return 0;
      } else {
        const double fits = std::floor(left / demand.amount);
        if (fits <= 0) return 0;
        n = std::min<std::uint64_t>(n, fits >= kUnlimited ? kUnlimited - 1 : static_cast<std::uint64_t>(fits));
      }
    }
    return n;
  };
  // AssignParallel's per-host availability at t: the host's own slots, at most
  // the sum of its instances'.
  auto availability = [&](std::uint32_t h, Time t) -> std::uint64_t {
    const HostPlan& plan = plans[h];
    if (!plan.usable) return 0;
    const std::uint64_t host_slots = slots_from(plan.demands, t);
    if (host_slots == 0) return 0;
    std::uint64_t sum = 0;
    for (const InstancePlan& instance : plan.instances) sum += slots_from(instance.demands, t);
    return std::min(host_slots, sum);
  };
  // Above the last time any diagram the job draws on rises, every window's
  // peak is the amount at its start, which only falls: feasibility is monotone
  // there, and a binary search finds its first failure.
  Time rises = std::numeric_limits<Time>::min();
  auto note_rises = [&](std::uint32_t k) {
    if (const std::optional<Time> t = LastIncreaseOf(k)) rises = std::max(rises, *t);
  };
  if (pe_entry) note_rises(*pe_entry);
  ForEachDemand({ContainerLevel::kGlobal, 0}, job, [&](const Demand& demand) { note_rises(demand.entry); });
  for (std::uint32_t h = 0; h < hosts.size(); ++h) {
    ForEachDemand({ContainerLevel::kHost, hosts[h].index()}, job, [&](const Demand& demand) { note_rises(demand.entry); });
    for (std::uint32_t i : host_instances[h]) {
      ForEachDemand({ContainerLevel::kQueue, i}, job, [&](const Demand& demand) { note_rises(demand.entry); });
    }
  }
  auto feasible_at = [&](Time t) {
    if (pe_entry && ledger_.entry(*pe_entry).total - ledger_.Used(*pe_entry, t, d) < least) return false;
    std::uint64_t unused = 0;
    if (Fit({ContainerLevel::kGlobal, 0}, job, t, d, unused, nullptr).slots < least) return false;
    const std::pair<std::uint64_t, std::uint64_t> sums = tbb::parallel_reduce(
        tbb::blocked_range<std::uint32_t>(0, static_cast<std::uint32_t>(hosts.size()), 64),
        std::pair<std::uint64_t, std::uint64_t>{0, 0},
        [&](const tbb::blocked_range<std::uint32_t>& r, std::pair<std::uint64_t, std::uint64_t> acc) {
          for (std::uint32_t h = r.begin(); h != r.end(); ++h) {
            const std::uint64_t a = availability(h, t);
            acc.first += a;
            acc.second += a >= per_host;
          }
          return acc;
        },
        [](auto a, auto b) { return std::make_pair(a.first + b.first, a.second + b.second); });
    switch (rule) {
      case AllocationRule::kFillUp:
      case AllocationRule::kRoundRobin:
        return sums.first >= least;
      case AllocationRule::kPeSlots:
        return sums.second >= 1;
      case AllocationRule::kFixed:
        return sums.second * per_host >= least;
    }
    return false;
  };
  const std::size_t monotone = static_cast<std::size_t>(
      std::partition_point(times.begin(), times.end(), [&](Time t) { return t >= rises; }) - times.begin());
  std::size_t lo = 0, hi = monotone;
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (feasible_at(times[mid])) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  if (lo < monotone || monotone == times.size()) return lo;
  const std::size_t from = monotone;
  // Events where a host's availability may change, packed as (time, host) in
  // one integer: times lie in [-2^33, 2^33), hosts below 2^24.
  constexpr std::uint64_t kTimeBias = std::uint64_t{1} << 33;
  constexpr int kHostBits = 24;
  std::vector<std::uint64_t> events;
  auto event = [&](Time t, std::uint32_t h) {
    events.push_back((static_cast<std::uint64_t>(t + static_cast<Time>(kTimeBias)) << kHostBits) | h);
  };
  auto add_events = [&](ContainerRef c, std::uint32_t h) {
    ForEachDemand(c, job, [&](const Demand& demand) {
      for (const Breakpoint& b : ledger_.diagram(demand.entry).Breakpoints()) {
        event(b.time - 1, h);  // below b, the entry before b is in effect and b is in the window
        if (d < kInfiniteDuration) event(b.time - d, h);  // from b - d down, b is past the window
      }
    });
  };
  for (std::uint32_t h = 0; h < hosts.size(); ++h) {
    add_events({ContainerLevel::kHost, hosts[h].index()}, h);
    for (std::uint32_t i : host_instances[h]) add_events({ContainerLevel::kQueue, i}, h);
  }
  RadixSort64(events);  // ascending; walked from the back
  std::reverse(events.begin(), events.end());
  auto event_time = [&](std::size_t e) { return static_cast<Time>(events[e] >> kHostBits) - static_cast<Time>(kTimeBias); };
  auto event_host = [&](std::size_t e) { return static_cast<std::uint32_t>(events[e] & ((1u << kHostBits) - 1)); };
  // Sweeps times[begin, end); returns the index of the first failure, or end.
  auto sweep = [&](std::size_t begin, std::size_t end) -> std::size_t {
    std::vector<std::uint64_t> available(hosts.size(), 0);
    std::vector<std::size_t> stamp(hosts.size(), SIZE_MAX);
    std::uint64_t total = 0, roomy = 0;  // sum of availability; hosts with room for per_host slots
    auto set = [&](std::uint32_t h, std::uint64_t value) {
      total = total - available[h] + value;
      roomy = roomy - (available[h] >= per_host) + (value >= per_host);
      available[h] = value;
    };
    std::size_t next_event = 0;
    for (std::size_t k = begin; k < end; ++k) {
      const Time t = times[k];
      if (k == begin) {
        for (std::uint32_t h = 0; h < hosts.size(); ++h) set(h, availability(h, t));
        while (next_event < events.size() && event_time(next_event) >= t) ++next_event;
      } else {
        for (; next_event < events.size() && event_time(next_event) >= t; ++next_event) {
          const std::uint32_t h = event_host(next_event);
          if (stamp[h] == k) continue;
          stamp[h] = k;
          set(h, availability(h, t));
        }
      }
      bool ok = true;
      if (pe_entry) ok = ledger_.entry(*pe_entry).total - ledger_.Used(*pe_entry, t, d) >= least;
      if (ok) {
        std::uint64_t unused = 0;
        ok = Fit({ContainerLevel::kGlobal, 0}, job, t, d, unused, nullptr).slots >= least;
      }
      if (ok) {
        switch (rule) {
          case AllocationRule::kFillUp:
          case AllocationRule::kRoundRobin:
            ok = total >= least;
            break;
          case AllocationRule::kPeSlots:
            ok = roomy >= 1;
            break;
          case AllocationRule::kFixed:
            ok = roomy * per_host >= least;
            break;
        }
      }
      if (!ok) return k;
    }
    return end;
  };
  const std::size_t block = std::max<std::size_t>(256, (times.size() - from) / 16);
  const std::size_t wave = std::max<std::size_t>(1, static_cast<std::size_t>(tbb::this_task_arena::max_concurrency()));
  for (std::size_t begin = from; begin < times.size(); begin += block * wave) {
    const std::size_t blocks = std::min(wave, (times.size() - begin + block - 1) / block);
    std::vector<std::size_t> failure(blocks);
    tbb::parallel_for(std::size_t{0}, blocks, [&](std::size_t b) {
      const std::size_t first = begin + b * block;
      failure[b] = sweep(first, std::min(times.size(), first + block));
    });
    for (std::size_t b = 0; b < blocks; ++b) {
      const std::size_t end = std::min(times.size(), begin + (b + 1) * block);
      if (failure[b] < end) return failure[b];
    }
  }
  return times.size();
}

std::optional<std::tuple<PeId, ParallelFit, Time>> Interval::ReserveParallel(const JobView& job, Decision& why) {
  std::optional<std::tuple<PeId, ParallelFit, Time>> best;
  for (PeId pe : job.requests->pe.matching) {
    const std::vector<std::uint32_t> candidates = SlotCandidates(job, pe);
    if (candidates.empty()) continue;
    const std::uint32_t least = candidates.front();
    std::vector<Time> times = QueueEndTimes(job, pe);
    if (times.empty()) times.push_back(cluster_.now);
    // The earliest breakpoint from which every later one is feasible: walk down
    // from the latest and stop at the first failure.
    std::size_t feasible = 0;  // times[0, feasible) are feasible
    if (config_.reserve_in_gaps) {
      // schedk extension: the earliest feasible breakpoint (or now), gaps included.
      std::vector<Time> ascending(times.rbegin(), times.rend());
      ascending.insert(ascending.begin(), cluster_.now);
      std::optional<Time> found;
      for (Time t : ascending) {
        if (t >= cluster_.now && AssignParallel(job, pe, least, t, nullptr).ok) {
          found = t;
          break;
        }
      }
      if (!found) continue;
      times.assign(1, *found);
      feasible = 1;
    } else if (mode_ == ExecutionMode::kSerial) {
      while (feasible < times.size() && AssignParallel(job, pe, least, times[feasible], nullptr).ok) ++feasible;
    } else {
      feasible = FeasiblePrefix(job, pe, least, times);
    }
    if (feasible == 0) continue;
    const Time start = std::max(times[feasible - 1], Time{0});
    // Maximise the slot count at that start (§4.7), by binary search as for "now".
    const ParallelRoom room = RoomFor(job, pe, start, false);
    ParallelFit fit;
    std::size_t lo = 0, hi = candidates.size();
    while (lo < hi) {
      const std::size_t mid = lo + (hi - lo) / 2;
      ParallelFit f = Distribute(room, pe, candidates[mid], nullptr);
      if (f.ok) {
        fit = std::move(f);
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    if (!fit.ok) continue;
    if (!best || start < std::get<2>(*best)) best = std::make_tuple(pe, std::move(fit), start);
  }
  if (!best && why.never == NeverCause::kNone) why.never = NeverCause::kNoPe;
  return best;
}

bool Interval::FitsIgnoringPlan(const JobView& job) {
  ignore_plan_ = true;
  Decision scratch;
  const bool fits = job.requests->has_pe ? StartParallel(job, scratch).has_value()
                                         : StartSequential(job, scratch).has_value();
  ignore_plan_ = false;
  return fits;
}

// --- booking -------------------------------------------------------------------------------------

void Interval::Monitor(const JobView& job, UsageState state, Time start, Duration d, ContainerRef c, std::uint32_t k,
                       double amount) {
  if (!ledger_.with_diagrams()) return;  // no diagram, no line (§5.8)
  result_.monitor.push_back({job.job, job.task, state, start, d, c, ledger_.entry(k).complex, amount});
}

// debit_scheduled_job: the PE, the global host for the whole job, then per
// granted queue instance (master first) its host and itself.
void Interval::Book(const JobView& job, PeId pe, const std::vector<Grant>& grants, Time start, Duration d,
                    UsageState state) {
  const bool now = state != UsageState::kReserving;
  std::uint32_t total = 0;
  for (const Grant& g : grants) total += g.slots;
  auto debit = [&](ContainerRef c, std::uint32_t slots, bool master) {
    for (const Demand& demand : DemandsAt(c, job)) {
      double amount = demand.debit * slots;
      if (demand.kind == DemandKind::kPerJob) amount = master ? demand.debit : 0;
      if (demand.kind == DemandKind::kPerContainer) amount = demand.debit;
      if (amount == 0) continue;
      ledger_.Debit(demand.entry, amount, start, d, now);
      last_increase_known_[demand.entry] = 0;
      if (!ledger_.entry(demand.entry).non_exclusive) Monitor(job, state, start, d, c, demand.entry, amount);
    }
  };
  if (pe.valid()) debit({ContainerLevel::kPe, pe.index()}, total, true);
  debit({ContainerLevel::kGlobal, 0}, total, true);
  for (std::size_t g = 0; g < grants.size(); ++g) {
    const HostId host = instances_.host[grants[g].instance];
    debit({ContainerLevel::kHost, host.index()}, grants[g].slots, g == 0);
    debit({ContainerLevel::kQueue, grants[g].instance}, grants[g].slots, g == 0);
  }
}

void Interval::Record(Decision d, const std::vector<Grant>& grants) {
  d.grant_begin = static_cast<std::uint32_t>(result_.grants.size());
  result_.grants.insert(result_.grants.end(), grants.begin(), grants.end());
  d.grant_end = static_cast<std::uint32_t>(result_.grants.size());
  d.monitor_begin = monitor_mark_;
  d.monitor_end = monitor_mark_ = static_cast<std::uint32_t>(result_.monitor.size());
  switch (d.kind) {
    case DecisionKind::kStart:
      ++result_.starts;
      break;
    case DecisionKind::kReserve:
      ++result_.reserves;
      break;
    case DecisionKind::kPending:
      ++result_.pending;
      break;
  }
  result_.decisions.push_back(d);
}

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
void Interval::Dispatch(const DispatchEntry& entry, std::uint32_t& reservations) {
  const bool reservation = config_.max_reservation > 0;
  const JobView job = ViewOf(entry);
  Decision decision;
  decision.job = job.job;
  decision.task = job.task;
  decision.duration = job.duration;
  if (config_.maxujobs > 0 && job.owner.valid() && running_per_user_[job.owner.index()] >= config_.maxujobs) {
    decision.reason = PendingReason::kUserLimit;
    Record(decision, {});
    return;
  }
  // Owner and project belong to the category only where access lists can tell them apart.
  const CategoryKey key{job.request_id.value, access_lists_ ? job.owner.value : 0, access_lists_ ? job.group.value : 0,
                        access_lists_ ? job.project.value : 0, job.immediate};
  CategoryState& category = categories_[key];
  const bool is_reserve = reservation && reservations < config_.max_reservation && job.reserve &&
                          !job.immediate && !category.rejected_reserve;
  const bool is_start = !category.rejected_now;
  if (!is_start && !is_reserve) {
    decision.reason = category.reason;
    decision.never = category.never;
    decision.object = category.object;
    Record(decision, {});
    return;
  }
  const bool parallel = job.requests->has_pe;
  Decision why = decision;
  if (is_start) {
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
      Book(job, pe, grants, cluster_.now, job.duration, UsageState::kStarting);
      decision.kind = DecisionKind::kStart;
      decision.at = cluster_.now;
      decision.pe = pe;
      for (const Grant& g : grants) decision.slots += g.slots;
      Record(decision, grants);
      if (job.owner.valid()) ++running_per_user_[job.owner.index()];
      bool reorder = false;
      for (const Grant& g : grants) reorder |= load_.AddSlots(instances_.host[g.instance], g.slots);
      if (reorder) {
        for (const Grant& g : grants) SetHostLoad(instances_.host[g.instance]);
      }
      for (const Grant& g : grants) UpdateAlarms(instances_.host[g.instance]);  // re-split: full, alarm
      return;
    }
  }
  const bool never = why.reason == PendingReason::kNever || why.never != NeverCause::kNone;
  if (is_reserve && !never) {
    Decision reserve_why = decision;
    if (parallel) {
      if (auto fit = ReserveParallel(job, reserve_why)) {
        auto& [pe, placement, start] = *fit;
        Book(job, pe, placement.grants, start, job.duration, UsageState::kReserving);
        decision.kind = DecisionKind::kReserve;
        decision.at = start;
        decision.pe = pe;
        for (const Grant& g : placement.grants) decision.slots += g.slots;
        Record(decision, placement.grants);
        ++reservations;
        RejectForNow(category, why);
        return;
      }
    } else if (auto found = ReserveSequential(job, reserve_why)) {
      const std::vector<Grant> grants = {{found->first, 1}};
      Book(job, PeId::None(), grants, found->second, job.duration, UsageState::kReserving);
      decision.kind = DecisionKind::kReserve;
      decision.at = found->second;
      decision.slots = 1;
      Record(decision, grants);
      ++reservations;
      RejectForNow(category, why);
      return;
    }
    // No reservation possible either.
    why.reason = PendingReason::kNever;
    if (why.never == NeverCause::kNone) {
      why.never = reserve_why.never != NeverCause::kNone ? reserve_why.never : NeverCause::kBookedOut;
      why.object = reserve_why.object;
    }
    category.rejected_reserve = true;
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

ScheduleResult Interval::Run() {
  auto restricts = [](const auto& users, const auto& xusers, const auto& projects, const auto& xprojects) {
    return !users.empty() || !xusers.empty() || !projects.empty() || !xprojects.empty();
  };
  const GlobalHost& g = cluster_.global;
  access_lists_ = restricts(g.user_lists, g.xuser_lists, g.projects, g.xprojects);
  for (const ExecHost& h : cluster_.hosts) access_lists_ |= restricts(h.user_lists, h.xuser_lists, h.projects, h.xprojects);
  for (std::uint32_t i = 0; i < instances_.size(); ++i) {
    access_lists_ |= restricts(*instances_.user_lists[i], *instances_.xuser_lists[i], *instances_.projects[i],
                               *instances_.xprojects[i]);
  }
  for (const ParallelEnvironment& pe : cluster_.pes) access_lists_ |= !pe.user_lists.empty() || !pe.xuser_lists.empty();
  last_increase_.assign(ledger_.size(), std::nullopt);
  last_increase_known_.assign(ledger_.size(), 0);
  BookRunningJobs();
  result_.running_monitor = monitor_mark_ = static_cast<std::uint32_t>(result_.monitor.size());
  UpdateQueueOrder();
  UpdateAlarms(std::nullopt);
  const bool reservation = config_.max_reservation > 0;
  std::uint32_t reservations = 0;
  std::size_t next = 0;
  const std::size_t dispatchable = priorities_.dispatchable_tasks;
  // Nothing can be placed without a free slot, unless full queues can take reservations.
  bool go_on = free_instances_ > 0 || (reservation && instances_.size() > 0);
  for (; next < dispatchable && go_on; ++next) {
    Dispatch(priorities_.order[next], reservations);
    go_on = free_instances_ > 0;  // the loop ends once no queue instance has a free slot
  }
  // The loop ended: the rest were not looked at.
  for (; next < dispatchable; ++next) {
    const JobView job = ViewOf(priorities_.order[next]);
    Decision decision;
    decision.job = job.job;
    decision.task = job.task;
    decision.duration = job.duration;
    decision.reason = PendingReason::kNoSlots;
    Record(decision, {});
  }
  // Held, waiting and error-state tasks, in job order.
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
        decision.reason = PendingReason::kDependency;
        break;
    }
    Record(decision, {});
  }
  return std::move(result_);
}

}  // namespace

ScheduleResult ScheduleInterval(const Cluster& cluster, const JobTable& jobs, const PriorityResult& priorities,
                                const QueueInstanceTable& instances, ExecutionMode mode) {
  return Interval(cluster, jobs, priorities, instances, mode).Run();
}

}  // namespace schedk
