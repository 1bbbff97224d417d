// interval.hpp
// Internal to kernel/dispatch: the state and steps of one scheduling interval
// (ScheduleInterval in schedule.hpp is the public entry point). The
// implementation is split by concern: interval_setup.cpp (queue order, load
// alarms, free slots, booking), interval_matching.cpp (access, static matches,
// demands, container fits, sequential starts), interval_parallel.cpp (parallel
// jobs: rooms, assignment, starts), walk_plan.cpp (parallel jobs' static
// plans, walk_plan.hpp), schedule.cpp (the dispatch loop), and in
// kernel/reservation/ reservation.cpp (the reservation step and searches) and
// queue_end_search.cpp (the queue-end-time iteration and its plain walk).
// Invariants: an Interval lives for one call of ScheduleInterval; the Cluster,
// JobTable, PriorityResult and QueueInstanceTable it refers to outlive it.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "kernel/dispatch/demand.hpp"
#include "kernel/dispatch/flat_diagrams.hpp"
#include "kernel/dispatch/host_load.hpp"
#include "kernel/dispatch/host_room_cache.hpp"
#include "kernel/dispatch/queue_instances.hpp"
#include "kernel/dispatch/queue_list_order.hpp"
#include "kernel/dispatch/quota_verdict_memo.hpp"
#include "kernel/dispatch/resource_ledger.hpp"
#include "kernel/dispatch/running_book.hpp"
#include "kernel/dispatch/schedule.hpp"
#include "kernel/dispatch/schedule_result.hpp"
#include "kernel/dispatch/walk_plan.hpp"
#include "kernel/twin.hpp"
#include "kernel/model/cluster.hpp"
#include "kernel/model/job_table.hpp"
#include "kernel/priority/priority.hpp"
#include "kernel/quota/quota_usage.hpp"
#include "kernel/util/first_occurrence.hpp"
#include "kernel/util/max_tree.hpp"
#include "kernel/util/row_index.hpp"

namespace schedk::dispatch_detail {

inline constexpr std::uint32_t kNoInstance = UINT32_MAX;

// --- access lists --------------------------------------------------------------------------------

inline bool InUserset(const EntityTables& entities, UsersetId set, UserId user, GroupId group) {
  const Userset& s = entities.userset(set);
  return std::find(s.users.begin(), s.users.end(), user) != s.users.end() ||
         (group.valid() && std::find(s.groups.begin(), s.groups.end(), group) != s.groups.end());
}

// sge_has_access plus the project lists of queues and hosts.
inline bool HasAccess(const EntityTables& entities, const std::vector<UsersetId>& users,
                      const std::vector<UsersetId>& xusers, const std::vector<ProjectId>& projects,
                      const std::vector<ProjectId>& xprojects, UserId user, GroupId group, ProjectId project) {
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

// --- the job under consideration -----------------------------------------------------------------

class QueueEndSearch;  // kernel/reservation/queue_end_search.hpp

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

// What one container can give a job.
struct LevelFit {
  std::uint32_t slots = kUnlimited;  // 0: nothing
  ComplexId limiting;                // the first resource that limits it
  bool static_mismatch = false;      // a fixed or load value does not match
  NeverCause never = NeverCause::kNone;
};

// A pending decision for the job's task, before any search.
inline Decision PendingDecision(const JobView& job) {
  Decision decision;
  decision.job = job.job;
  decision.task = job.task;
  decision.duration = job.duration;
  return decision;
}

struct CategoryKey {
  std::uint32_t requests;
  std::uint32_t owner, group, project;
  bool immediate;
  friend bool operator==(const CategoryKey&, const CategoryKey&) = default;
};
struct CategoryKeyHash {
  std::size_t operator()(const CategoryKey& k) const {
    std::uint64_t h = (std::uint64_t{k.requests} << 1 | (k.immediate ? 1u : 0u)) * 0x9E3779B97F4A7C15ull;
    for (std::uint32_t v : {k.owner, k.group, k.project}) h = (h ^ v) * 0x9E3779B97F4A7C15ull;
    return static_cast<std::size_t>(h ^ (h >> 32));
  }
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
           const QueueInstanceTable& instances, Twin twin, RunningBook* book = nullptr,
           const ScheduleProgress* progress = nullptr, const StageListener* stages = nullptr)
      : cluster_(cluster),
        jobs_(jobs),
        priorities_(priorities),
        instances_(instances),
        twin_(twin),
        mode_(ThreadsFor(twin)),
        book_(book),
        progress_(progress),
        stages_(stages),
        config_(cluster.config),
        complexes_(cluster.complexes),
        index_(jobs),
        ledger_(cluster, instances, cluster.config.max_reservation > 0),
        load_(cluster, jobs),
        quota_(
            cluster.quota_sets, cluster.complexes,
            [this](const LoadFormula& formula, HostId host) { return load_.Evaluate(formula, host); },
            cluster.config.max_reservation > 0),
        alarm_(instances.size(), 0),
        has_free_(instances.size(), 0),
        free_on_host_(cluster.hosts.size(), 0),
        host_free_slots_(cluster.hosts.size(), 0),
        host_free_most_(host_free_slots_),
        instance_free_slots_(instances.size(), 0),
        running_per_user_(cluster.entities.users.size(), 0) {}

  ScheduleResult Run();

 private:
  // The reservation searches (kernel/reservation/queue_end_search.hpp).
  friend class QueueEndSearch;
  friend std::optional<Time> PlainQueueEndWalk(const Interval&, const JobView&, PeId, std::uint32_t);
  friend std::optional<Time> EarliestGapStart(const Interval&, const JobView&, PeId, std::uint32_t);
  friend std::optional<Time> QuotaStartFrom(const Interval&, const JobView&, PeId, std::uint32_t, Time,
                                            const QueueEndSearch*);

  // Setup, in Run's order: the per-request and per-container tables the
  // matching reads, the running tasks' bookings, the queue list.
  void SetUpRequestTables();
  void SetUpMatchTables();
  void BookRunningJobs();
  // BookRunningJobs' steps: the running and suspended tasks in (job, task)
  // order; what a chunk of them books (in order, into `chunk`); and the
  // chunks' MONITOR lines appended in order (the chunks' own then freed), `L`
  // lines with their rule instances' indices (`instances`: the chunks' quota
  // debits' instances, numbered by first occurrence).
  struct RunningTask {
    JobNumber job;
    TaskNumber task;
    std::uint32_t shard, row;
  };
  struct BookingList;
  struct RunningChunk;
  std::vector<RunningTask> RunningTasks() const;
  void ListRunningChunk(std::span<const RunningTask> tasks, RunningChunk& chunk) const;
  void AppendRunningLines(std::vector<RunningChunk>& chunks, const FirstOccurrence<QuotaInstance>& instances);
  void StartQueueList();
  void UpdateQueueOrder();
  void UpdateAlarms(std::optional<HostId> only_host);
  bool InAlarm(std::uint32_t instance) const;
  // Queue instances with a free slot now and no load alarm (kept up to date).
  void RefreshFree(std::uint32_t instance);

  // Matching.
  // The dispatchable tasks' rows, gathered in dispatch order before the loop
  // (in parallel: the loop then reads them in sequence, not across the shards).
  struct TaskRow {
    JobNumber job = 0;
    TaskNumber task = 0;
    UserId owner;
    GroupId group;
    ProjectId project;
    RequestSetId requests;
    std::uint8_t flags = 0;
    std::uint32_t category = 0;  // into categories_ (NumberCategories)
  };
  std::vector<TaskRow> GatherTaskRows(std::size_t count) const;
  // Sets up categories_ and each row's category: its CategoryKey's where
  // owner_categories_ (numbered by first occurrence, as the loop meets them),
  // else its request set's and -now flag's.
  void NumberCategories(std::vector<TaskRow>& rows);
  JobView ViewOf(const TaskRow& row) const;
  bool GlobalStatic(const JobView& job) const;
  bool HostStatic(const JobView& job, HostId host) const;
  bool QueueStatic(const JobView& job, std::uint32_t instance, PeId pe) const;
  // Whether a -q or -masterq list names the instance (its queue, host or hostgroup).
  bool Listed(const std::vector<QueueSelector>& list, std::uint32_t instance) const;
  bool Selects(const QueueSelector& selector, std::uint32_t instance) const;
  LevelFit Fit(ContainerRef c, const JobView& job, Time start, Duration d, std::uint64_t& found,
               std::vector<Demand>* demands) const;
  // Fit's step for one demand (amount and kind on ledger entry k): lowers
  // fit.slots to the slots the entry leaves over [start, start + d), noting
  // the limiting resource as Fit does.
  void Limit(LevelFit& fit, std::uint32_t k, double amount, DemandKind kind, Time start, Duration d) const;
  // Fit's static part: the match of the job's other requests against the
  // container's fixed and load values (`found` as for Fit; slots 0 on a mismatch).
  LevelFit MatchStatic(ContainerRef c, const JobView& job, std::uint64_t& found) const;
  // One request against one container's fixed, load or built-in value (a
  // queue instance's h_rt, s_rt, qname and hostname); kUndefined where it has none.
  enum class LevelMatch : std::uint8_t { kUndefined, kMatch, kMismatch };
  LevelMatch MatchAt(ContainerRef c, const ComplexValue& req) const;
  // Calls visit(Demand) for each ledger entry the job draws on in container c:
  // its explicit consumable requests, the defaults of the container's other
  // consumables, `slots` itself, and both counts of an EXCL consumable.
  template <class Visit>
  void ForEachDemand(ContainerRef c, const JobView& job, Visit visit) const;
  bool AllFound(const JobView& job, std::uint64_t found) const;

  // Soft requests (interval_soft.cpp): the violations of one slot of the job
  // at queue instance i, as Grid Engine's compute_soft_violations counts them
  // level by level; `missed` gets bit r for the r-th soft -l request that
  // counted and bit soft.size() + k for the k-th soft -q entry (the first 64).
  static bool HasSoftRequests(const JobView& job) {
    return !job.requests->soft.empty() || !job.requests->queue_soft.empty();
  }
  std::uint32_t SoftViolations(const JobView& job, std::uint32_t i, std::uint64_t* missed = nullptr) const;
  // A placement's violations: each grant's slots times its instance's.
  std::uint64_t PlacementSoftViolations(const JobView& job, const std::vector<Grant>& grants) const;
  // After a parallel search of a job with soft requests that tagged queues
  // and found nothing, Grid Engine's queue list stays sorted by that job's
  // violations (tagged instances first, then fewest violations, then queue
  // order) until a search sorts it again (list_order_.soft_order()): kept
  // here, for the starts that meet the list in its order.
  void KeepSoftOrder(const JobView& job);
  // Calls visit(i) for the instances with a free slot in the list's order
  // (queue order, or the kept soft order) until visit returns false.
  template <class Visit>
  void ForEachFreeInListOrder(Visit visit) const {
    if (list_order_.soft_order()) {
      for (std::uint32_t i : soft_list_) {
        if (has_free_[i] && !visit(i)) return;
      }
      return;
    }
    for (const QueueKey& key : free_order_) {
      if (!visit(key.instance)) return;
    }
  }
  // Records, for a start or reservation of a job with soft requests, what each grant met and missed.
  void NoteSoftRequests(const JobView& job, Decision& decision, const std::vector<Grant>& grants);

  // Sequential jobs.
  std::optional<std::uint32_t> StartSequential(const JobView& job, Decision& why);

  // Parallel jobs.
  std::vector<std::uint32_t> SlotCandidates(const JobView& job, PeId pe) const;
  // What a parallel job can get from `pe` at a start: the PE's room, the
  // global host's, and per host in load order its instances and their slots.
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
    const RequestSet* masterq = nullptr;  // the job's requests where it asks for -masterq
  };
  class RoomBuilder;
  // The room now: only instances with a free slot can contribute, and the
  // walk over hosts stops once they can give `enough` slots under the
  // allocation rule (Distribute then assigns any count up to `enough` exactly
  // as over every host). RoomNow reads the hosts whose part of a kept walk
  // plan with the job's key still holds from the plan; RoomNowReference, its
  // twin, matches every instance. RoomNowFor picks the interval's twin.
  // With `quotas` false, the room ignores them.
  ParallelRoom RoomNow(const JobView& job, PeId pe, std::uint32_t enough, bool quotas = true) const;
  ParallelRoom RoomNowReference(const JobView& job, PeId pe, std::uint32_t enough) const;
  ParallelRoom RoomNowFor(const JobView& job, PeId pe, std::uint32_t enough, bool quotas = true) const {
    if (HasSoftRequests(job)) return SoftRoom(job, pe, cluster_.now, enough, true, quotas);
    return twin_ == Twin::kOptimised ? RoomNow(job, pe, enough, quotas) : RoomNowReference(job, pe, enough);
  }
  // `cache`: where a host's entry holds, the room takes the host from it;
  // every other host visited is kept there.
  ParallelRoom RoomNowFrom(const JobView& job, PeId pe, std::uint32_t enough, const WalkPlan* plan,
                           HostRoomCache::Table* cache, bool quotas = true) const;
  // The key under which RoomNow keeps what it found for the job on `pe`, or
  // nullopt where it may not (the job's requests read load values, or Fit
  // weighs the amounts in use now only).
  std::optional<RoomKey> RoomKeyOf(const JobView& job, PeId pe) const;
  // The room at `start`, hosts in the queue list's order where it is not
  // sorted, in load order otherwise; cut where they give `enough` slots.
  // With `quotas` false, the room ignores them (the queue-end walks' own test).
  // `answer_only`, where the caller only asks whether exactly `enough` slots
  // fit: the quota classes the job may use (RoomBuilder::AnswerOnly).
  ParallelRoom RoomAt(const JobView& job, PeId pe, Time start, std::uint32_t enough = kUnlimited, bool quotas = true,
                      const std::vector<std::uint8_t>* answer_only = nullptr) const;
  ParallelRoom RoomBase(const JobView& job, PeId pe, Time start, std::uint64_t& global_found) const;
  // RoomAt's room from hosts weighed elsewhere (a queue-end search's):
  // `next` puts the next host's slots at `start` in its argument (false:
  // none left), in the order RoomAt meets the hosts, each host's instances
  // in its order and with the slots its Visit finds; with `quotas`, they cut
  // each host as it comes. The walk asks no reason: it ends where the room
  // suffices or no host to come can change it.
  ParallelRoom RoomFromHosts(const JobView& job, PeId pe, Time start, std::uint32_t enough, bool quotas,
                             const std::function<bool(HostSlots&)>& next) const;
  // Whether a room (RoomBase's part of it will do) fails `least` slots
  // before any host is weighed: the job may not use the PE, or the PE or the
  // global host cannot give them (Distribute refuses every count from
  // `least` on for them, with their reason).
  static bool RefusedBeforeHosts(const ParallelRoom& room, std::uint32_t least) {
    return !room.usable || room.pe_left < least || room.global_slots < least;
  }
  ParallelRoom RoomAtByLoad(RoomBuilder& builder) const;
  template <typename OrderOf>
  ParallelRoom WalkHostsAt(RoomBuilder& builder, const WalkPlan* plan, std::span<const std::uint32_t> hosts,
                           const OrderOf& order_of) const;
  // The time until which, from now on, host h has no whole slot free: its
  // own `slots`, or every one of its queue instances', are all in use (now
  // where one is free). A room at a start in [now, that time), or at an
  // earlier one whose window reaches now, gets nothing from the host. Kept
  // per host with its stamp (host_stamp_).
  Time SlotsFullUntil(std::uint32_t h) const;
  mutable std::vector<std::pair<std::uint64_t, Time>> full_until_;
  // What a block of WalkHostsAt's hosts gave when probed (per host k of the
  // block): its instances in order, its state, its slots and its instances
  // with slots, the orders at [first[k], first[k] + order_size[k]) of
  // `order`, the instances with slots at [first[k], first[k] + count[k]) of
  // `found`; and the quota classes closed when the block was probed.
  struct HostProbes {
    enum State : std::uint8_t { kNotProbed, kProbed };
    std::vector<std::uint8_t> closed;
    std::vector<State> state;
    std::vector<std::uint32_t> host_slots, order_size, count, order;
    std::vector<std::size_t> first;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> found;
    std::span<const std::uint32_t> Order(std::size_t k) const {
      return std::span(order).subspan(first[k], order_size[k]);
    }
    std::span<const std::pair<std::uint32_t, std::uint32_t>> Found(std::size_t k) const {
      return std::span(found).subspan(first[k], count[k]);
    }
  };
  template <typename OrderOf>
  void ProbeHosts(RoomBuilder& builder, const WalkPlan& plan, std::span<const std::uint32_t> block,
                  const OrderOf& order_of, HostProbes& probes) const;
  // One host of a room at any start, for a caller that asks no reason:
  // `order`, the instances of host h the room meets, in that order, visited
  // from the walk plan's part of the host where `plan` has one that holds.
  void VisitHostAt(RoomBuilder& builder, const WalkPlan* plan, std::uint32_t h, std::span<const std::uint32_t> order,
                   HostSlots*& slots) const;
  // The walk plan kept for the job's key on `pe` (a queue-end search's), or null.
  std::shared_ptr<const WalkPlan> KeptPlan(const JobView& job, PeId pe) const;
  // The room over `order`'s instances: hosts in the order of their first
  // instance there, each host's instances in that order, until it suffices.
  ParallelRoom WalkInListOrder(RoomBuilder& builder, const std::vector<std::uint32_t>& order) const;
  // A parallel job's room where it has soft requests: the instances the job
  // may use (with a free slot, or all of them for a reservation) sorted by
  // violations, then queue order; hosts in the order of their first instance
  // there, each host's instances in that order (parallel_tag_queues_suitable4job).
  ParallelRoom SoftRoom(const JobView& job, PeId pe, Time start, std::uint32_t enough, bool now, bool quotas) const;
  // parallel_assignment of `total` slots within `room` under the PE's allocation rule.
  ParallelFit Distribute(const ParallelRoom& room, PeId pe, std::uint32_t total, Decision* why) const;
  // The same for a job with -masterq, as parallel_tag_queues_suitable4job
  // harvests it: host by host, queue by queue, until the slots are there and
  // one of them is in a queue -masterq names. Until that master queue is found,
  // another queue leaves one slot for it where it would complete the job, and
  // a master queue that -q does not name gives the master task's slot alone.
  ParallelFit HarvestWithMasterQueue(const ParallelRoom& room, const ParallelEnvironment& p,
                                     std::uint32_t total) const;
  ParallelFit AssignParallel(const JobView& job, PeId pe, std::uint32_t total, Time start, Decision* why) const {
    return Distribute(RoomAt(job, pe, start, kUnlimited, false), pe, total, why);
  }
  // Per quota class: whether a queue instance the job may use on `pe` (one
  // that matches statically and is not in alarm) is in it.
  std::vector<std::uint8_t> QuotaClassesWithin(const JobView& job, PeId pe) const;
  // Whether `total` slots fit where the quotas check the placement (the room
  // is cut to them); `classes`: QuotaClassesWithin(job, pe). Only `ok` is
  // the placement's: the grants may come from a room cut short.
  ParallelFit AssignParallelUnderQuotas(const JobView& job, PeId pe, std::uint32_t total, Time start,
                                        const std::vector<std::uint8_t>& classes) const {
    ParallelFit fit = Distribute(RoomAt(job, pe, start, total, true, &classes), pe, total, nullptr);
    fit.ok = fit.ok && !PlacementQuotaExcess(job, pe, fit.grants, start);
    return fit;
  }
  std::optional<std::pair<PeId, ParallelFit>> StartParallel(const JobView& job, Decision& why);

  // Reservation (kernel/reservation/reservation.cpp). Reserve: the dispatch
  // loop's reservation step for a task that may reserve and did not start;
  // true where it got a reservation (booked and recorded). Otherwise `why`
  // says why the task stays pending, and its category cannot reserve again.
  bool Reserve(const JobView& job, CategoryState& category, Decision& why, std::uint32_t& reservations);
  std::optional<std::pair<std::uint32_t, Time>> ReserveSequential(const JobView& job, Decision& why);
  // The earliest time every demand fits for d seconds (each diagram's
  // tail; with RESERVE_IN_GAPS, the earliest common fit, gaps included).
  std::optional<Time> EarliestFor(const std::vector<Demand>& demands, Duration d, Decision& why);
  // The earliest time at or after t at which every demand fits for d
  // seconds, gaps included (RESERVE_IN_GAPS).
  std::optional<Time> CommonFitFrom(const std::vector<Demand>& demands, Time t, Duration d);
  std::optional<std::tuple<PeId, ParallelFit, Time>> ReserveParallel(const JobView& job, Decision& why);
  // Per host and per queue instance: no access lists and no FORCED complex,
  // so that HostStatic and QueueStatic need not look (set up in Run).
  std::vector<std::uint8_t> host_open_, instance_open_;
  // Per container level (ContainerLevel's value) and complex: whether some
  // container of that level defines the complex (a consumable, a fixed or load
  // value, a queue's built-in h_rt and s_rt); MatchStatic passes over requests
  // no container of the level defines (set up in Run).
  std::array<std::vector<std::uint8_t>, 4> defined_at_level_;
  // The walk plans (walk_plan.hpp): built here, kept in plan_cache_.
  // The entries of container c whose breakpoints are candidate times of the
  // queue-end-time walk (but `leave_out`, whose breakpoints another entry
  // lists): for the consumables the job requests, and slots always.
  void AppendTimeEntries(const JobView& job, ContainerRef c, std::vector<std::uint32_t>& entries,
                         std::optional<std::uint32_t> leave_out = std::nullopt) const;
  // Every candidate-time entry of the job's walk on `pe`: the PE's and the
  // global host's, and those of every statically eligible queue instance and its host.
  std::vector<std::uint32_t> TimeEntries(const JobView& job, PeId pe) const;
  // The walk's plan. Plans are kept between walks by PlanKey: a later walk
  // with the same key takes the kept plan as it is while every host's
  // mirrored slots entry and alarms are as they were; otherwise it copies the
  // parts of the hosts where they are and plans the others.
  std::shared_ptr<const WalkPlan> PlanWalk(const JobView& job, PeId pe, std::uint64_t global_found) const;
  // Whether the part of host h (a cluster host) of a kept plan still holds
  // for a job with the plan's key: its alarms and mirrored slots entry are as
  // they were when it was planned.
  bool PartHolds(const WalkPlan& walk, std::uint32_t h) const;
  // The job's amount on each of the plan's demands; on one ledger entry k of
  // them (by_complex: the amounts learnt per complex, empty at first).
  std::vector<double> DemandAmounts(const WalkPlan& walk, const JobView& job) const;
  double DemandAmount(std::uint32_t k, const JobView& job, std::vector<double>& by_complex) const;
  // What a walk plan depends on besides the ledger's layout, the alarms and
  // the mirrored slots entries: the PE, the queue requests, the owner where
  // access lists exist, and the hard requests, where a consumable counts only
  // as requested or not (requested 0) and a request of a complex that only
  // the queues' built-in limits define (h_rt, s_rt) only by its matches
  // against the distinct limits.
  // nullopt, and no plan kept, when the job requests a complex some host or
  // the global host reports as a load value (those change as jobs start).
  std::optional<std::string> PlanKey(const JobView& job, PeId pe) const;
  // Plans a block of cluster hosts [first, end) into `block` (a kept plan's
  // part where it holds).
  void PlanHosts(const JobView& job, PeId pe, std::uint64_t global_found, const WalkPlan* kept, std::uint32_t first,
                 std::uint32_t end, WalkPlanBlock& block) const;
  mutable WalkPlanCache plan_cache_;
  mutable FlatDiagrams flat_diagrams_;  // the coverage reads the walk's diagrams from here
  // Per host: changes whenever one of its queue instances goes into or out of alarm.
  std::vector<std::uint64_t> host_alarm_version_;
  // Per host: renewed with every booking on the host or its instances and
  // every change of their alarms (Touch): the stamp of room_cache_'s entries.
  std::vector<std::uint64_t> host_stamp_;
  std::uint64_t stamp_clock_ = 0;
  void Touch(HostId host) { host_stamp_[host.index()] = ++stamp_clock_; }
  mutable HostRoomCache room_cache_;
  // Per complex: some host or the global host reports it as a load value;
  // the distinct built-in limits of the queue instances where they are all
  // that defines it (h_rt and s_rt; empty otherwise; set up in Run).
  std::vector<std::uint8_t> load_reported_;
  std::vector<std::vector<double>> builtin_limits_;
  // The job's demand on ledger entry k, as ForEachDemand visits it (nullopt: none).
  std::optional<Demand> DemandOn(std::uint32_t k, const JobView& job) const;
  // Whether a room's first hosts in load order, `sum` slots on `hosts` hosts of
  // which `roomy` have room for the rule's per-host count, `last` the latest,
  // can give `enough` slots under the allocation rule: Distribute then assigns
  // any count up to `enough` from them exactly as from every host.
  static bool RoomSuffices(const ParallelEnvironment& p, std::uint64_t sum, std::uint64_t roomy, std::size_t hosts,
                           const HostSlots& last, std::uint32_t enough);

  // Resource quotas (interval_quota.cpp; docs/resource-quotas.md).
  QuotaSubject SubjectAt(const JobView& job, PeId pe, std::uint32_t instance) const;
  QuotaWindow WindowAt(const JobView& job, Time start) const { return {start, job.duration}; }
  // One search's quota verdicts by instance class (QuotaUsage::ClassOf),
  // where the class is uniform for the job: the usage does not change
  // during a search.
  struct QuotaVerdicts {
    struct Verdict {
      bool known = false;
      std::optional<QuotaExcess> excess;
    };
    std::vector<Verdict> by_class;
    std::size_t refusing = 0;  // classes known to refuse
  };
  QuotaVerdicts NewQuotaVerdicts() const { return {std::vector<QuotaVerdicts::Verdict>(quota_.classes())}; }
  // The first quota limit one slot of a sequential job at `instance` would exceed from `start` on.
  std::optional<QuotaExcess> SequentialQuotaExcess(const JobView& job, std::uint32_t instance, Time start,
                                                   QuotaVerdicts& verdicts) const;
  // Upper bounds of the slots the quotas leave a parallel job from `start`
  // on: over all hosts, the sum of each class's room; on one host (at a
  // start now, under $pe_slots; else the sum), the most that a host gives
  // whose free slots now are capped by the rooms of the classes of its
  // instances on the PE, added up (quota_host_classes_). With them, the
  // excess of the class with the least room.
  struct QuotaBound {
    std::uint64_t sum = 0;
    std::uint64_t on_a_host = 0;
    std::optional<QuotaExcess> excess;
  };
  using SlotBound = std::optional<QuotaBound>;  // nullopt where a class is not uniform
  SlotBound QuotaSlotBound(const JobView& job, PeId pe, Time start) const;
  // What the quotas leave a job at each class's instances, apart from the
  // usage, where every class is uniform for the job: each limit that
  // concerns the job once (QuotaUsage::ForEachLimit), with its key, what a
  // slot takes, what it takes off the left besides the peak (fixed), what a
  // placement's check weighs of it (terms, peak 0; ExcessOf) and its index
  // in read_keys (UINT32_MAX: it refuses the request, so no peak is read);
  // per class, the limits it meets.
  struct QuotaClassShape {
    struct Limit {
      QuotaLimitKey key;
      double per_slot = 0, fixed = 0;
      QuotaUsage::LimitTerms terms;
      std::uint32_t read = UINT32_MAX;
    };
    std::vector<Limit> limits;
    std::vector<std::uint32_t> class_first, class_limit;  // class c's: class_limit[class_first[c], class_first[c + 1])
    std::vector<QuotaLimitKey> read_keys;
  };
  // Null where some class is not uniform for the job.
  std::shared_ptr<const QuotaClassShape> QuotaClassShapeOf(const JobView& job, PeId pe) const;  // worked out
  // The optimised twin's QuotaClassShapeOf, kept for the interval (class_shapes_).
  const std::shared_ptr<const QuotaClassShape>& QuotaClassShapeAt(const JobView& job, PeId pe) const;
  // And from `start` on: per limit of the shape, what is left of it after
  // its peak and what a slot takes; per class, the slots they leave; their
  // sum, the excess of the least; and what was read of the usage.
  struct QuotaClassRooms {
    std::shared_ptr<const QuotaClassShape> shape;  // null: some class is not uniform (nothing else is set)
    std::vector<double> left, peak;
    std::vector<std::uint64_t> rooms;
    std::uint64_t sum = 0;
    std::optional<QuotaExcess> excess;
    QuotaReads reads;
  };
  QuotaClassRooms QuotaClassRoomsOf(const JobView& job, PeId pe, Time start) const;  // worked out
  // The optimised twin's QuotaClassRoomsOf, as kept (class_rooms_); valid until the next call.
  const QuotaClassRooms& QuotaClassRoomsAt(const JobView& job, PeId pe, Time start) const;
  QuotaClassRooms QuotaClassRoomsFrom(std::shared_ptr<const QuotaClassShape> shape, const JobView& job, PeId pe,
                                      Time start) const;
  SlotBound BoundOf(const QuotaClassRooms& rooms, PeId pe) const;  // with the hosts' free slots now
  // QuotaUsage::Excess of a placement (the first grant the master's) from
  // the rooms' limit terms: the grants of a class meet its limits in the
  // order Excess meets them, and add to each as it does.
  static std::optional<QuotaExcess> ExcessOf(const QuotaClassRooms& rooms, const QuotaUsage& quota,
                                             const std::vector<Grant>& grants);
  // The optimised twin's answers of SequentialQuotaExcess (per class),
  // kept across jobs until the next booking (the serial loop's): their
  // epoch is stamp_clock_, as the quota usage changes only in Book, and
  // every booking touches the hosts of its grants. And those of
  // QuotaClassRoomsOf, kept across the interval (one epoch) and used while
  // the counters they read are unchanged: a booking changes the counters of
  // its owner, project and the like, so most answers outlive it.
  mutable QuotaVerdictMemo<std::optional<QuotaExcess>> sequential_verdicts_;
  mutable QuotaVerdictMemo<QuotaClassRooms> class_rooms_;
  mutable QuotaVerdictMemo<std::shared_ptr<const QuotaClassShape>> class_shapes_;  // by QuestionOf(.., 0), duration 0
  // Per $pe_slots PE (empty for the others), the distinct sets of quota
  // classes that one host's queue instances on the PE are in (sorted), set
  // up with the classes; per PE and host, its set and its place among the
  // set's hosts; per PE and set, host_free_slots_ of its hosts.
  std::vector<std::vector<std::vector<std::uint32_t>>> quota_host_classes_;
  std::vector<std::vector<std::uint32_t>> quota_host_set_, quota_host_place_;
  std::vector<std::vector<MaxTree>> quota_set_free_;
  // Under $pe_slots, the most the quotas leave one host of `pe`: per set of
  // classes above, the classes' rooms `room(c)` added up and capped by
  // `cap(s)`; the largest of those (0 where the PE keeps no sets).
  template <class Room, class Cap>
  std::uint64_t QuotaMostOnAHost(PeId pe, const Room& room, const Cap& cap) const {
    std::uint64_t most = 0;
    const std::vector<std::vector<std::uint32_t>>& sets = quota_host_classes_[pe.index()];
    for (std::size_t s = 0; s < sets.size(); ++s) {
      std::uint64_t sum = 0;
      for (std::uint32_t c : sets[s]) sum += room(c);
      most = std::max(most, std::min(sum, cap(s)));
    }
    return most;
  }
  // Per PE, the quota classes that hold one of its queue instances (a class
  // no instance of the PE is in gives its jobs nothing).
  std::vector<std::vector<std::uint32_t>> quota_pe_classes_;
  void SetUpQuotaHostClasses();
  // Per PE, the most slots one host can ever give a job of it: its own slots
  // capacity, at most the sum of its instances' on the PE (kUnlimited where
  // one has none), the most of any host.
  std::vector<std::uint32_t> pe_host_most_;
  void ReserveDecisions(std::size_t count);
  void SetUpPeHostMost();
  QuotaQuestion QuestionOf(const JobView& job, PeId pe, std::uint32_t place, Time start) const;
  // Numbers what a request set asks of the quota limits (per limit's
  // attribute: requested or not, and the amount): equal numbers, the same
  // answers from every limit. Per request set, kept once asked (UINT32_MAX: not yet).
  std::uint32_t QuotaSignature(const JobView& job) const;
  mutable std::vector<std::uint32_t> quota_signature_;
  mutable std::map<std::vector<std::pair<bool, double>>, std::uint32_t> quota_signatures_;
  // The first quota limit the placement would exceed from `start` on; nullopt where the quotas admit it.
  std::optional<QuotaExcess> PlacementQuotaExcess(const JobView& job, PeId pe, const std::vector<Grant>& grants,
                                                  Time start) const;
  // Makes the excess why's reason where it has none.
  void NoteQuotaExcess(Decision& why, const QuotaExcess& excess);
  // The earliest start at or after `from` at which a sequential job's slot at
  // `instance` fits both its demands and the quotas (a reservation's).
  std::optional<Time> ReservationStartUnderQuotas(const JobView& job, std::uint32_t instance,
                                                  const std::vector<Demand>& demands, Time from);
  // The index of a rule instance in result_.quota_keys, of an excess in result_.quota_excesses.
  std::uint32_t QuotaKeyIndex(const QuotaInstance& instance);
  std::uint32_t QuotaExcessIndex(const QuotaExcess& excess);
  std::unordered_map<QuotaInstance, std::uint32_t, QuotaInstanceHash> quota_key_index_;
  std::map<std::pair<QuotaInstance, std::uint32_t>, std::uint32_t> quota_excess_index_;

  void RejectForNow(CategoryState& category, const Decision& why);
  // The dispatch loop over the dispatchable tasks' rows: the number
  // it reached before Grid Engine's queue list ran empty.
  std::size_t DispatchLoop(const std::vector<TaskRow>& rows);
  // One task of the dispatch loop.
  void Dispatch(const JobView& job, CategoryState& category, std::uint32_t& reservations);
  // The pending records of the tasks the loop did not reach (from `reached`)
  // and of the held, waiting, error-state and limited ones.
  void RecordNotDispatched(const std::vector<TaskRow>& rows, std::size_t reached);
  // Whether the job would start now if the diagrams held nothing but what is in use now.
  bool FitsIgnoringPlan(const JobView& job);
  // The same for a parallel job, the optimised twin's: whether some PE gives
  // its least count (StartParallel finds a placement exactly then).
  bool ParallelFitsIgnoringPlan(const JobView& job);
  // The most slots `pe` could give a job now by the free slots alone: on the
  // host with the most under $pe_slots, on all queue instances together
  // otherwise; nullopt where no host has the rule's per-host count free.
  std::optional<double> FreeSlotBound(PeId pe) const;
  // Whether `pe` can give the job `least` slots now (StartParallel's test for
  // its smallest count: the bounds from the free slots and the quotas, then
  // the room and the placement's quotas), weighing the quotas or not.
  bool FitsNowAtLeast(const JobView& job, PeId pe, std::uint32_t least, bool quotas) const;

  // Booking, in two steps: ListBooking works out what a booking adds without
  // changing anything (running tasks are listed in parallel chunks), then the
  // list is applied in booking order. What one or more bookings add: the
  // ledger's debits, the quota counters' (after the containers': the `L`
  // lines follow P, G, H and Q), the containers' MONITOR lines, and the hosts
  // booked on. Each booking's `L` lines are its quota debits, one line each
  // where lines are written (with diagrams), written out by ForEachLine, not
  // kept (a goal interval with quotas has 2 million).
  struct BookingList {
    struct Listed {  // per booking: whose, and where its lines and quota debits end
      JobNumber job;
      TaskNumber task;
      UsageState state;
      std::uint32_t monitor_end, quota_end;
    };
    std::vector<BookedDebit> debits;
    std::vector<QuotaUsage::PendingDebit> quota_debits;
    std::vector<MonitorRecord> monitor;  // the containers' lines
    std::vector<Listed> listed;
    std::vector<HostId> hosts;
    void clear() {
      debits.clear();
      quota_debits.clear();
      monitor.clear();
      listed.clear();
      hosts.clear();
    }
  };
  // The list's MONITOR lines in order, each booking's containers' then its
  // `L` lines; an `L` line's container index is its debit's place in
  // quota_debits. The number of lines: LinesOf.
  template <class Emit>
  void ForEachLine(const BookingList& list, Emit emit) const;
  std::size_t LinesOf(const BookingList& list) const {
    return list.monitor.size() + (ledger_.with_diagrams() ? list.quota_debits.size() : 0);
  }
  struct RunningChunk {
    BookingList list;
    std::vector<RunningBooking> bookings;  // each task's debits [first, last) of `list`
    std::vector<UserId> counted;           // the owners of its running (not suspended) tasks
  };
  void ListBooking(const JobView& job, PeId pe, const std::vector<Grant>& grants, Time start, Duration d,
                   UsageState state, BookingList& list, QuotaUsage::RuleCache& rules) const;
  // ListBooking's quota part: the grants' quota debits.
  void ListQuotaDebits(const JobView& job, PeId pe, const std::vector<Grant>& grants, Time start, Duration d,
                       BookingList& list, QuotaUsage::RuleCache& rules) const;
  // Books a starting task or a reservation: its list, applied to the ledger
  // and the quota usage (a reservation's over time only) at once.
  void Book(const JobView& job, PeId pe, const std::vector<Grant>& grants, Time start, Duration d, UsageState state);
  BookingList booking_;  // Book's
  QuotaUsage::RuleCache booking_rules_;
  // What applying a list changes besides the ledger and the quota usage:
  // the cached last increases of its entries, its hosts' stamps (in order),
  // and its MONITOR lines, appended with their quota rule instances' indices.
  void NoteBooked(const BookingList& list);
  void Record(Decision d, const std::vector<Grant>& grants);

  const Cluster& cluster_;
  const JobTable& jobs_;
  const PriorityResult& priorities_;
  const QueueInstanceTable& instances_;
  Twin twin_;
  ExecutionMode mode_;  // the threads: ThreadsFor(twin_)
  RunningBook* book_;  // kept between intervals by the caller; may be null
  const ScheduleProgress* progress_;  // may be null
  const StageListener* stages_;       // may be null
  std::size_t reported_ = 0;          // decisions the progress listener has heard of
  const SchedulerConfig& config_;
  const ComplexTable& complexes_;
  RowIndex index_;
  ResourceLedger ledger_;
  HostLoad load_;
  QuotaUsage quota_;  // running, starting and reserving jobs' resource quota usage
  std::vector<std::uint8_t> alarm_;
  std::vector<std::uint8_t> has_free_;
  std::int64_t free_instances_ = 0;
  std::vector<std::uint32_t> free_on_host_;  // per host: its instances with a free slot
  std::vector<double> host_free_slots_;      // per host: the free slots of its instances, summed
  MaxTree host_free_most_;                   // host_free_slots_, for their maximum
  std::vector<double> instance_free_slots_;  // free slots now of instances not in alarm
  double free_slots_ = 0;                    // their sum
  // Queue order (sort_queue_list): by (host load, seq_no) or (seq_no, host load), then
  // definition order; hosts with equal load share a rank, so ordering by the
  // load itself is ordering by rank. Kept as sets so that a start re-sorts only
  // the instances of the hosts it changed.
  struct QueueKey {
    double first = 0, second = 0;
    std::uint32_t instance = 0;
    friend auto operator<=>(const QueueKey&, const QueueKey&) = default;
  };
  QueueKey KeyOf(std::uint32_t instance) const;
  // The instance's key in the queue list's sort (Grid Engine's sort keys).
  std::pair<double, double> ListKey(std::uint32_t instance) const {
    const QueueKey key = KeyOf(instance);
    return {key.first, key.second};
  }
  // The queue order without its instance tie-break (Grid Engine's sort keys).
  bool QueueKeyLess(std::uint32_t a, std::uint32_t b) const {
    const QueueKey ka = KeyOf(a), kb = KeyOf(b);
    return std::tie(ka.first, ka.second) < std::tie(kb.first, kb.second);
  }

  void SetHostLoad(HostId host);  // re-sorts the host's instances after its load changed
  std::set<QueueKey> queue_order_;  // every instance
  std::set<QueueKey> free_order_;   // instances with a free slot now and no load alarm
  std::vector<std::pair<std::set<QueueKey>::node_type, std::set<QueueKey>::node_type>> moved_nodes_;  // SetHostLoad's
  std::vector<double> host_value_;  // load formula per host
  std::uint64_t host_value_version_ = 0;  // new with every change of host_value_
  // Every host in the order parallel jobs take hosts (host_value_, then host):
  // SetHostLoad moves a host within it (and keeps it current); otherwise it is
  // sorted again when asked for.
  const std::vector<std::uint32_t>& HostsByLoad() const;
  bool LoadOrderLess(std::uint32_t a, std::uint32_t b) const {
    return std::make_pair(host_value_[a], a) < std::make_pair(host_value_[b], b);
  }
  mutable std::vector<std::uint32_t> hosts_by_load_;
  mutable std::uint64_t hosts_by_load_version_ = UINT64_MAX;
  // Hosts with an instance in free_order_, in the order parallel jobs walk
  // hosts (load, then host); each host's instances by (seq_no, instance),
  // their order within the host in queue order.
  std::set<std::pair<double, std::uint32_t>> free_hosts_;
  std::vector<std::uint32_t> host_queues_;  // CSR over instances_.host_first

  // The order KeepSoftOrder kept (every instance), while list_order_.soft_order().
  std::vector<std::uint32_t> soft_list_;
  // Grid Engine's queue list through the interval (queue_list_order.hpp),
  // which orders reservation searches, and what reads it.
  QueueListOrder list_order_;
  // Calls visit(instance, in_sorted_part) for the instances in the order a
  // reservation search meets them: queue order where the list is sorted;
  // otherwise the instances with a free slot merged with the full ones sorted
  // back among them (free first among equal keys), then the other full ones in
  // the order they filled.
  template <class Visit>
  void VisitReservationOrder(Visit visit) const;
  // A reservation's hosts where the list is not sorted, in the order Grid
  // Engine ranks them (by their first instance of a cluster queue the job may
  // use): in load order those with such an instance among the ones with a free
  // slot, then the others in the order those instances filled. Kept per what
  // QueueStatic reads of the job until the list or a free slot changes.
  const std::vector<std::uint32_t>& ReservationHostOrder(const JobView& job, PeId pe) const;
  using HostOrderKey = std::tuple<std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t>;
  mutable std::map<HostOrderKey, std::vector<std::uint32_t>> host_orders_;
  mutable std::pair<std::uint64_t, std::uint32_t> host_orders_at_{UINT64_MAX, 0};  // list changes, starts
  bool all_instances_open_ = false;  // every instance_open_ (set up in Run)
  // The list's order of two instances of one host where it is not sorted:
  // those with a free slot in queue order, then the full ones in the order
  // they filled.
  bool ListOrderLess(std::uint32_t a, std::uint32_t b) const;
  bool seq_no_ties_on_a_host_ = false;  // some host has two instances with the same seq_no (set up in Run)
  // Whether a parallel search of the job now gets as far as tagging queues:
  // some PE it matches, and the global host, give its least slot count.
  bool ParallelSearchTags(const JobView& job) const;
  // Whether every slot of the instance is in use now.
  bool SlotsFull(std::uint32_t instance) const;
  // The instances with a free slot on the hosts of a start's grants, in queue
  // order, before the start; and the split after it: those of them without a
  // free slot leave the list, the full ones first, then those in alarm.
  std::vector<QueueKey> FreeOnHostsOf(const std::vector<Grant>& grants) const;
  void SplitQueueList(const std::vector<QueueKey>& had_free);
  // Whether host h's load value changing to `value` changes the hosts' load
  // ranks (Grid Engine's host_seq_no): it passes or meets another host's value.
  bool LoadRanksChange(std::uint32_t h, double value) const;

  // The candidate time at which the last parallel walk failed below the
  // monotone region: where QueueEndSearch looks first (it changes the order of
  // the work, never the result). Dropped where the quotas moved the walk's start.
  mutable std::optional<Time> walk_failure_hint_;
  // Parallel walks since the ledger last had no breakpoint index (tuning::kWalksBeforeIndex).
  std::uint32_t walks_without_index_ = 0;
  std::vector<std::uint32_t> running_per_user_;
  std::vector<CategoryState> categories_;  // NumberCategories's
  // Per request set: its hard h_rt and s_rt and the assumed duration they give.
  std::vector<std::optional<Duration>> request_h_rt_, request_s_rt_;
  std::vector<Duration> request_duration_;
  // Per request set, the hosts whose consumables left one slot of it no room
  // at now over its duration in StartSequential (a bit per host, made at the
  // set's first such host; optimised twin). Amounts are never negative, so
  // what an interval books at now only grows and such a host stays full for
  // the set: later starts of the set pass over it without a fit.
  std::vector<std::vector<bool>> full_hosts_;
  bool KnownFull(const JobView& job, HostId host) const {
    const std::vector<bool>& full = full_hosts_[job.request_id.index()];
    return !full.empty() && full[host.index()];
  }
  void NoteFull(const JobView& job, HostId host);
  ScheduleResult result_;
  bool ignore_plan_ = false;        // Fit weighs the amounts in use now only, not the diagrams
  bool access_lists_ = false;       // some host, queue, PE or the global host restricts users or projects
  bool owner_categories_ = false;   // access lists or quotas: categories tell owners and projects apart
  std::uint32_t monitor_mark_ = 0;  // monitor lines up to here belong to earlier records
  // UtilizationDiagram::LastIncrease per ledger entry, cached until the entry is
  // booked again (threads fill different entries).
  mutable std::vector<std::optional<Time>> last_increase_;
  mutable std::vector<std::uint8_t> last_increase_known_;
  std::optional<Time> LastIncreaseOf(std::uint32_t k) const {
    if (!last_increase_known_[k]) {
      last_increase_[k] = ledger_.diagram(k).LastIncrease();
      last_increase_known_[k] = 1;
    }
    return last_increase_[k];
  }
};

inline std::optional<Demand> Interval::DemandOn(std::uint32_t k, const JobView& job) const {
  const ConsumableEntry& e = ledger_.entry(k);
  const ComplexAttribute& a = complexes_[e.complex];
  const ComplexValue* requested = FindValue(job.requests->hard, e.complex);
  if (a.relop == Relop::kExcl) {
    // A job requesting exclusivity needs both usages at 0 and books the
    // exclusive one; any other job needs the exclusive usage at 0 and books
    // the non-exclusive one.
    const bool exclusive = requested != nullptr && requested->number != 0;
    if (!e.non_exclusive) {  // room for the whole capacity means nobody has it exclusively
      return Demand{k, exclusive ? 1.0 : e.total, exclusive ? 1.0 : 0.0, DemandKind::kPerContainer};
    }
    return Demand{k, exclusive ? kNonExclusiveTotal : 1.0, exclusive ? 0.0 : 1.0, DemandKind::kPerContainer};
  }
  double amount = 0;
  if (e.complex == complexes_.slots) {
    amount = 1;
  } else if (requested != nullptr) {
    amount = requested->number;
  } else {
    amount = a.default_value;  // an unrequested consumable debits its default
  }
  if (amount == 0) return std::nullopt;
  const DemandKind kind = a.consumable == Consumable::kJob    ? DemandKind::kPerJob
                          : a.consumable == Consumable::kHost ? DemandKind::kPerHost
                                                              : DemandKind::kPerSlot;
  return Demand{k, amount, amount, kind};
}

template <class Visit>
void Interval::VisitReservationOrder(Visit visit) const {
  if (list_order_.sorted()) {
    for (const QueueKey& key : queue_order_) visit(key.instance, true);
    return;
  }
  const std::vector<std::uint32_t>& sorted_in = list_order_.sorted_in();
  auto in = sorted_in.begin();
  for (const QueueKey& key : free_order_) {
    for (; in != sorted_in.end() && QueueKeyLess(*in, key.instance); ++in) visit(*in, true);
    visit(key.instance, true);
  }
  for (; in != sorted_in.end(); ++in) visit(*in, true);
  for (std::uint32_t i : list_order_.unsorted()) visit(i, false);
}

template <class Visit>
void Interval::ForEachDemand(ContainerRef c, const JobView& job, Visit visit) const {
  for (std::uint32_t k = ledger_.Begin(c); k < ledger_.End(c); ++k) {
    if (const std::optional<Demand> demand = DemandOn(k, job)) visit(*demand);
  }
}

}  // namespace schedk::dispatch_detail
