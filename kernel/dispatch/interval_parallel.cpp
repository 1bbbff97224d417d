#include "kernel/dispatch/interval.hpp"

#include <unordered_map>

#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "kernel/tuning.hpp"

namespace schedk::dispatch_detail {

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
// The PE's and the global host's part of a room; hosts are left to the caller.
Interval::ParallelRoom Interval::RoomBase(const JobView& job, PeId pe, Time start, std::uint64_t& global_found) const {
  ParallelRoom room;
  const ParallelEnvironment& p = cluster_.pes[pe.index()];
  if (!HasAccess(cluster_.entities, p.user_lists, p.xuser_lists, {}, {}, job.owner, job.group, job.project)) {
    return room;
  }
  if (const auto k = ledger_.Find({ContainerLevel::kPe, pe.index()}, complexes_.slots)) {
    const ConsumableEntry& e = ledger_.entry(*k);
    room.pe_left = e.total - (ignore_plan_ ? e.used_now : ledger_.Used(*k, start, job.duration));
  }
  const LevelFit global = Fit({ContainerLevel::kGlobal, 0}, job, start, job.duration, global_found, nullptr);
  if (global.static_mismatch || !GlobalStatic(job)) return room;
  room.usable = true;
  room.global_slots = global.slots;
  room.global_limiting = global.limiting;
  return room;
}

// A room built host by host: instances visited (from the ledger, or from a
// walk plan's part of the host), each host closed after its instances, and
// the hosts so far weighed against `enough` slots under the allocation rule.
class Interval::RoomBuilder {
 public:
  RoomBuilder(const Interval& interval, const JobView& job, PeId pe, Time start, std::uint32_t enough,
              bool quotas = true)
      : interval_(interval),
        job_(job),
        pe_(pe),
        p_(interval.cluster_.pes[pe.index()]),
        start_(start),
        per_host_(p_.allocation_rule == AllocationRule::kFixed ? p_.slots_per_host : 1),
        enough_(enough),
        quotas_(quotas && interval.quota_.active()) {
    room_ = interval.RoomBase(job, pe, start, global_found_);
    if (room_.usable && !job.requests->queue_master.empty()) {
      room_.masterq = job.requests;
      enough_ = kUnlimited;  // the slots that suffice may lack a master queue
    }
    if (quotas_ && interval.twin_ == Twin::kOptimised) by_class_ = interval.QuotaClassShapeAt(job, pe) != nullptr;
  }
  bool usable() const { return room_.usable; }
  Time start() const { return start_; }
  ParallelRoom& room() { return room_; }
  const JobView& job() const { return job_; }
  PeId pe() const { return pe_; }
  // A host weighed elsewhere joins the room as Visit would have added it (RoomFromHosts).
  HostSlots* Join(HostSlots&& host) {
    room_.hosts.push_back(std::move(host));
    return &room_.hosts.back();
  }

  // A host's visits for HostRoomCache: BeginHost before them; Keep after them
  // (before Suffices, which cuts the host) keeps what they found; Replay
  // visits a host from what was kept, to the same room and limiting note.
  void BeginHost() {
    host_limiting_ = UINT32_MAX;
    passed_over_ = false;
  }
  void Keep(HostRoomCache::Table& cache, std::uint32_t h, std::uint64_t stamp, const HostSlots* slots) const {
    if (passed_over_) return;  // not all it would find for another owner
    if (slots == nullptr) {
      cache.Keep(h, stamp, 0, {}, host_limiting_, host_limiting_complex_);
      return;
    }
    cache.Keep(h, stamp, slots->available, slots->queues, host_limiting_, host_limiting_complex_);
  }
  // (Instances of closed quota classes, which the cut would give nothing, are left out.)
  void Replay(const HostRoomCache::Table& cache, const HostRoomCache::Entry& entry, HostId host, HostSlots*& slots) {
    if (entry.limiting_instance != UINT32_MAX) NoteLimiting(entry.limiting_instance, entry.limiting);
    for (const auto& [i, n] : cache.Queues(host.index())) {
      if (!(quotas_ && by_class_ && QuotaClassClosed(i))) Add(host, entry.host_slots, i, n, slots);
    }
  }

  // One instance: its slots join its host's (`slots`: the host's entry, made
  // at its first instance that gives any), or the first resource that kept it
  // out (first in queue order) is noted.
  void Visit(std::uint32_t i, HostSlots*& slots) {
    const HostId host = interval_.instances_.host[i];
    if (interval_.alarm_[i] || !interval_.QueueStatic(job_, i, pe_) || !interval_.HostStatic(job_, host)) return;
    if (PassesOver(i)) return;
    std::uint64_t found = global_found_;
    const Duration d = job_.duration;
    const LevelFit q = interval_.Fit({ContainerLevel::kQueue, i}, job_, start_, d, found, nullptr);
    std::uint64_t host_found = found;
    const LevelFit h = interval_.Fit({ContainerLevel::kHost, host.index()}, job_, start_, d, host_found, nullptr);
    const bool matches = !q.static_mismatch && !h.static_mismatch && interval_.AllFound(job_, host_found);
    if (!matches || q.slots == 0 || h.slots == 0) {
      if (matches) NoteLimiting(i, q.slots == 0 ? q.limiting : h.limiting);
      return;
    }
    Add(host, h.slots, i, q.slots, slots);
  }
  // Visit for the host's instances with a free slot, from a walk plan's part
  // of the host (its static matches and demands, worked out for the plan's key).
  void VisitPlanned(const WalkPlan& plan, const HostPlan& host_plan, HostSlots*& slots) {
    auto limit = [&](LevelFit& fit, std::uint32_t g) {
      const DemandSlot& demand = plan.demands[g];
      interval_.Limit(fit, demand.entry, interval_.DemandAmount(demand.entry, job_, by_complex_), demand.kind, start_,
                      job_.duration);
    };
    LevelFit h;
    for (std::uint32_t g = host_plan.first; g < host_plan.last; ++g) limit(h, g);
    for (const InstancePlan& instance : plan.InstancesOf(host_plan)) {
      const std::uint32_t i = instance.instance;
      if (!interval_.has_free_[i] || PassesOver(i)) continue;
      LevelFit q;
      for (std::uint32_t g = instance.first; g < instance.last; ++g) limit(q, g);
      if (q.slots == 0 || h.slots == 0) {
        NoteLimiting(i, q.slots == 0 ? q.limiting : h.limiting);
        continue;
      }
      Add(host_plan.host, h.slots, i, q.slots, slots);
    }
  }
  // Visit for `order`'s instances of the host, in that order, from a walk
  // plan's part of the host, for a room whose caller asks no reason
  // (SkipClosedQuotaClasses): the instances the part leaves out are those
  // Visit refuses, and one resource without room ends the host's or the
  // instance's count.
  void VisitPlannedInOrder(const WalkPlan& plan, const HostPlan& host_plan, std::span<const std::uint32_t> order,
                           HostSlots*& slots) {
    probed_.resize(std::max(probed_.size(), order.size()));
    std::size_t n = 0;
    const std::uint32_t host_slots = ProbePlanned(plan, host_plan, order, nullptr, by_complex_, probed_.data(), n);
    AddProbed(host_plan.host, host_slots, std::span(probed_).first(n), slots);
  }
  // VisitPlannedInOrder's reading of the host's diagrams, apart from the
  // room: returns the host's slots (0: none) and puts each of `order`'s
  // planned instances with slots in `out`, in order, `n` of them, leaving
  // out those of the quota classes `closed` marks (none where null or
  // empty: ClosedClasses). Reads only, so that threads probe different
  // hosts at once, each with its own `amounts` (DemandAmount's).
  std::uint32_t ProbePlanned(const WalkPlan& plan, const HostPlan& host_plan, std::span<const std::uint32_t> order,
                             const std::vector<std::uint8_t>* closed, std::vector<double>& amounts,
                             std::pair<std::uint32_t, std::uint32_t>* out, std::size_t& n) const {
    auto limit = [&](LevelFit& fit, std::uint32_t first, std::uint32_t last) {
      for (std::uint32_t g = first; g < last && fit.slots > 0; ++g) {
        const DemandSlot& demand = plan.demands[g];
        interval_.Limit(fit, demand.entry, interval_.DemandAmount(demand.entry, job_, amounts), demand.kind, start_,
                        job_.duration);
      }
    };
    n = 0;
    auto is_closed = [&](std::uint32_t i) {
      return closed != nullptr && !closed->empty() && (*closed)[interval_.quota_.ClassOf(i)];
    };
    if (std::all_of(order.begin(), order.end(), is_closed)) return 0;  // before reading the host's diagrams
    LevelFit h;
    limit(h, host_plan.first, host_plan.last);
    if (h.slots == 0) return 0;
    const std::span<const InstancePlan> planned = plan.InstancesOf(host_plan);
    for (std::uint32_t i : order) {
      const auto it =
          std::find_if(planned.begin(), planned.end(), [&](const InstancePlan& p) { return p.instance == i; });
      if (it == planned.end() || is_closed(i)) continue;
      LevelFit q;
      limit(q, it->first, it->last);
      if (q.slots > 0) out[n++] = {i, q.slots};
    }
    return h.slots;
  }
  // VisitPlannedInOrder from what ProbePlanned found: the instances the
  // quotas do not pass over now join the room.
  void AddProbed(HostId host, std::uint32_t host_slots, std::span<const std::pair<std::uint32_t, std::uint32_t>> probed,
                 HostSlots*& slots) {
    for (const auto& [i, n] : probed) {
      if (!PassesOver(i)) Add(host, host_slots, i, n, slots);
    }
  }
  // Per quota class, whether Visit passes over its instances now; empty
  // where it passes over none (no SkipClosedQuotaClasses). A class closed
  // stays closed as the room grows, its take only growing, but for a
  // rounding where a host too small gives its take back (Reopened).
  std::vector<std::uint8_t> ClosedClasses() {
    const QuotaUsage& quota = interval_.quota_;
    if (!skip_closed_classes_) return {};
    std::vector<std::uint8_t> closed(quota.classes(), 0);
    for (std::uint32_t c = 0; c < quota.classes(); ++c) closed[c] = QuotaClassClosed(quota.InstanceOfClass(c));
    return closed;
  }
  // Whether an instance of `order` whose class `closed` marked is open now,
  // so that ProbePlanned left out what Visit would weigh.
  bool Reopened(std::span<const std::uint32_t> order, const std::vector<std::uint8_t>& closed) {
    if (closed.empty()) return false;
    return std::any_of(order.begin(), order.end(),
                       [&](std::uint32_t i) { return closed[interval_.quota_.ClassOf(i)] && !QuotaClassClosed(i); });
  }
  // Closes the host just visited (if it gave slots): whether the hosts so far
  // can give `enough` slots under the allocation rule. With quotas, the host
  // first gives only what they leave it after the hosts before.
  // For AnswerOnly, true also where the hosts to come cannot make it suffice.
  // Where no reason is asked (SkipClosedQuotaClasses), true also where the
  // quotas leave the hosts to come nothing that could change the room's
  // answers (NothingToCome).
  bool Suffices(HostSlots* slots) {
    if (slots == nullptr) return false;
    Close(*slots);
    if (quotas_ && !CutByQuotas(*slots)) {
      room_.hosts.pop_back();
      return NothingToCome();
    }
    sum_ += slots->available;
    roomy_ += slots->available >= per_host_;
    best_host_ = std::max(best_host_, slots->available);
    if (RoomSuffices(p_, sum_, roomy_, room_.hosts.size(), *slots, enough_) || NothingToCome()) return true;
    if (!answer_only_) return false;
    // Round robin gives `enough` from any hosts with that many slots in all.
    return (p_.allocation_rule == AllocationRule::kRoundRobin && sum_ >= enough_) || Hopeless();
  }
  // For a caller that only asks whether exactly `enough` slots fit
  // (AssignParallelUnderQuotas): Distribute of `enough` fails on a room
  // wherever it fails on the whole and succeeds wherever the hosts so far
  // suffice (the grants may differ; the quotas' cut keeps both within the
  // limits), so the walk may stop there, or where the quotas leave too
  // little for the hosts to come to make the whole room give it. `classes`:
  // per quota class, whether an instance the job may use is in it
  // (QuotaClassesWithin); the hosts to come take nothing from the others.
  // Returns true where the PE's or the global host's room (which Distribute
  // weighs first) or the quotas already leave too little: no walk needed.
  bool AnswerOnly(const std::vector<std::uint8_t>& classes) {
    if (enough_ != kUnlimited && RefusedBeforeHosts(room_, enough_)) return true;
    answer_only_ = quotas_ && by_class_ && enough_ != kUnlimited;
    usable_classes_ = &classes;
    return answer_only_ && Hopeless();
  }
  // A host's availability: its own slots, at most the sum of its instances'.
  static void Close(HostSlots& h) {
    std::uint64_t sum = 0;
    for (const auto& [i, n] : h.queues) sum += n;
    h.available = static_cast<std::uint32_t>(std::min<std::uint64_t>(h.available, sum));
  }
  // Cuts each of the host's instances to what the quotas leave it over the
  // job's window, the room's hosts so far sharing each rule instance's limit
  // (tally_); a host left below the allocation rule's per-host count gives
  // its share back (false). As Grid Engine debits the limits host by host
  // (parallel_tag_queues_suitable4job): a fixed rule takes its per-host
  // count from a host, no more; under $pe_slots the job takes one host, so
  // no host's take counts against another's (each keeps what it can give).
  bool CutByQuotas(HostSlots& h) {
    if (p_.allocation_rule == AllocationRule::kPeSlots && by_class_ && h.queues.size() == 1) {
      // One instance, and nothing taken before it: its class's room as it stands.
      const std::uint32_t give = std::min(h.queues.front().second, PeSlotsClassRoom(h.queues.front().first));
      h.queues.front().second = give;
      if (give == 0) h.queues.clear();
      h.available = std::min(h.available, give);
      return h.available >= per_host_;
    }
    const bool fixed = p_.allocation_rule == AllocationRule::kFixed;
    std::size_t kept = 0;
    std::uint32_t sum = 0;
    for (std::size_t k = 0; k < h.queues.size(); ++k) {
      const auto [i, n] = h.queues[k];
      std::uint32_t give = std::min(n, QuotaRoom(i));
      if (fixed) give = std::min(give, per_host_ - std::min(per_host_, sum));
      if (give == 0) continue;
      QuotaTake(i, give, 1);
      h.queues[kept++] = {i, give};
      sum += give;
    }
    h.queues.resize(kept);
    h.available = std::min(h.available, sum);
    const bool keeps = h.available >= per_host_;
    if (keeps && sum > 0 && p_.allocation_rule != AllocationRule::kPeSlots) {
      class_closed_.clear();  // the take changed
      pe_classes_closed_ = -1;
      return true;
    }
    for (const auto& [i, give] : h.queues) QuotaTake(i, give, -1);
    return keeps;
  }
  // From here on, Visit passes over the instances whose quota class leaves
  // the job no slot after the hosts so far: the cut would give them nothing.
  // (The room then notes no resource that kept them out: for rooms whose
  // caller asks no reason, and the walk may end early: NothingToCome.)
  void SkipClosedQuotaClasses() {
    skip_closed_classes_ = quotas_;
    no_reason_ = true;
  }
  // For a room whose caller asks the reason (RoomNow): from here on, Visit
  // passes over an instance whose quota class is closed only where it comes
  // after the first instance kept out so far in queue order, so that it
  // could note nothing either.
  void PassOverClosedAfterNoted() { closed_after_noted_ = quotas_ && by_class_; }
  // Whether, for a walk that asks the reason (PassOverClosedAfterNoted) in
  // load order, Visit passes over every instance of the hosts to come, the
  // next of them at `load`: a resource was noted at a lower load (the queue
  // list sorted by load), and every quota class of the PE is closed.
  bool RestPassedOver(double load) {
    return closed_after_noted_ && limiting_key_ && limiting_key_->first < load &&
           interval_.config_.queue_sort_method == QueueSortMethod::kLoad && PeClassesClosed();
  }
  // Whether Visit would pass over each of `instances` (SkipClosedQuotaClasses).
  bool PassesOverAll(std::span<const std::uint32_t> instances) {
    if (!skip_closed_classes_) return false;
    return std::all_of(instances.begin(), instances.end(), [&](std::uint32_t i) { return QuotaClassClosed(i); });
  }
  // The same for a room built whole (then sorted): every host in the room's
  // order, those left too small dropped (the reference of RoomAtByLoad).
  void CutAllByQuotas() {
    if (!quotas_) return;
    std::vector<HostSlots> kept;
    for (HostSlots& h : room_.hosts) {
      if (CutByQuotas(h)) kept.push_back(std::move(h));
    }
    room_.hosts = std::move(kept);
  }

 private:
  // Whether, under the quotas, the hosts to come cannot give what the room
  // lacks: every slot they take lowers its class's room by one and no
  // class's room grows, so together they take at most the classes' rooms now.
  // Distribute of `enough` then fails on the whole room: $pe_slots needs one
  // host with `enough`, the others `enough` over all hosts ($fixed: in whole
  // per-host counts).
  bool Hopeless() {
    std::uint64_t to_come = 0;
    for (std::uint32_t c = 0; c < interval_.quota_.classes() && to_come < enough_; ++c) {
      if ((*usable_classes_)[c]) to_come += QuotaRoom(interval_.quota_.InstanceOfClass(c));
    }
    switch (p_.allocation_rule) {
      case AllocationRule::kPeSlots:
        return to_come < enough_;
      case AllocationRule::kFixed:
        return roomy_ * per_host_ + to_come < enough_;
      case AllocationRule::kFillUp:
      case AllocationRule::kRoundRobin:
        return sum_ + to_come < enough_;
    }
    return false;
  }
  // Whether the hosts to come can add nothing Distribute would weigh, for a
  // walk that asks no reason. Under $pe_slots, none gives more than one host
  // can hold (pe_host_most_) or, where a host's take is given back, than the
  // most its quota classes leave one host, and the room already has a host
  // with that many (or `enough`): the first such host is the one Distribute
  // takes for any count up to it (but for a -masterq job, which needs a host
  // with a master queue). Under the other rules, every quota class that
  // holds an instance of the PE is closed by the takes so far, so the cut
  // drops every host to come.
  bool NothingToCome() {
    if (!no_reason_) return false;
    const QuotaUsage& quota = interval_.quota_;
    if (p_.allocation_rule == AllocationRule::kPeSlots) {
      if (room_.masterq != nullptr) return false;
      if (pe_slots_bound_ < 0) {
        std::uint64_t most = std::min(interval_.pe_host_most_[pe_.index()], enough_);
        if (by_class_) {
          most = std::min(
              most,
              interval_.QuotaMostOnAHost(
                  pe_, [&](std::uint32_t c) -> std::uint64_t { return PeSlotsClassRoom(quota.InstanceOfClass(c)); },
                  [](std::size_t) { return UINT64_MAX; }));
        }
        pe_slots_bound_ = static_cast<std::int64_t>(most);
      }
      return best_host_ >= pe_slots_bound_;
    }
    return PeClassesClosed();
  }
  // Whether every quota class that holds an instance of the PE leaves the
  // job no slot after the room's takes so far (uniform classes only).
  bool PeClassesClosed() {
    if (!by_class_) return false;
    if (pe_classes_closed_ >= 0) return pe_classes_closed_ == 1;  // no take since
    pe_classes_closed_ = 0;
    const QuotaUsage& quota = interval_.quota_;
    // The class found open last time is likely open still.
    const std::vector<std::uint32_t>& classes = interval_.quota_pe_classes_[pe_.index()];
    if (classes.empty() || QuotaRoom(quota.InstanceOfClass(classes[open_class_])) > 0) return false;
    for (std::uint32_t k = 0; k < classes.size(); ++k) {
      if (QuotaRoom(quota.InstanceOfClass(classes[k])) > 0) {
        open_class_ = k;
        return false;
      }
    }
    pe_classes_closed_ = 1;
    return true;
  }
  // Whether Visit may pass over instance i: its quota class is closed (the
  // cut gives it nothing) and it can note no reason the caller asks for.
  bool PassesOver(std::uint32_t i) {
    bool passes = false;
    if (skip_closed_classes_) {
      passes = QuotaClassClosed(i);
    } else if (closed_after_noted_ && limiting_key_ && !(interval_.KeyOf(i) < *limiting_key_)) {
      passes = QuotaClassClosed(i);
    }
    passed_over_ |= passes;
    return passes;
  }
  // Whether instance i's class is uniform and its quotas leave the job no
  // slot after what the room's hosts so far took (per class, until the
  // room's take changes).
  bool QuotaClassClosed(std::uint32_t i) {
    const QuotaUsage& quota = interval_.quota_;
    if (class_closed_.empty()) class_closed_.assign(quota.classes(), -1);
    std::int8_t& closed = class_closed_[quota.ClassOf(i)];
    // (by_class_: every class is uniform for the job.)
    if (closed < 0) closed = (by_class_ || quota.Uniform(interval_.SubjectAt(job_, pe_, i))) && QuotaRoom(i) == 0;
    return closed == 1;
  }
  // The slots the quotas leave instance i after the room's take so far, and
  // the take of `slots` more there (`sign` -1: given back). Where every
  // class is uniform (by_class_), from each class's limits read once;
  // otherwise, the reference, from the usage and the tally.
  std::uint32_t QuotaRoom(std::uint32_t i) {
    if (!by_class_) {
      return interval_.quota_.SlotRoom(interval_.SubjectAt(job_, pe_, i), *job_.requests, false,
                                       interval_.WindowAt(job_, start_), &tally_);
    }
    std::uint32_t room = UINT32_MAX;
    for (std::uint32_t k : LimitsOfClass(interval_.quota_.ClassOf(i))) {
      const LimitLeft& l = limits_[k];
      room = std::min(room, QuotaUsage::SlotsLeft(l.left - l.taken, l.per_slot));
    }
    return room;
  }
  void QuotaTake(std::uint32_t i, std::uint32_t slots, double sign) {
    if (!by_class_) {
      interval_.quota_.Take(interval_.SubjectAt(job_, pe_, i), *job_.requests, slots, false, tally_, sign);
      return;
    }
    for (std::uint32_t k : LimitsOfClass(interval_.quota_.ClassOf(i))) {
      LimitLeft& l = limits_[k];
      if (l.per_slot != 0) l.taken += sign * (l.per_slot * slots);
    }
  }
  // Under $pe_slots, where no take outlives its host, what the quotas leave
  // an instance of class ClassOf(i) on its own (per class, read once per room).
  std::uint32_t PeSlotsClassRoom(std::uint32_t i) {
    const std::uint32_t c = interval_.quota_.ClassOf(i);
    if (pe_slots_room_.empty()) pe_slots_room_.assign(interval_.quota_.classes(), -1);
    if (pe_slots_room_[c] < 0) pe_slots_room_[c] = QuotaRoom(i);
    return static_cast<std::uint32_t>(pe_slots_room_[c]);
  }
  // A class's limits, as indices into limits_: the job's, from the start on,
  // as the interval has them (read at the first use).
  std::span<const std::uint32_t> LimitsOfClass(std::uint32_t c) {
    if (shape_ == nullptr) {
      const QuotaClassRooms& rooms = interval_.QuotaClassRoomsAt(job_, pe_, start_);
      shape_ = rooms.shape;
      for (std::size_t k = 0; k < shape_->limits.size(); ++k) {
        limits_.push_back({rooms.left[k], shape_->limits[k].per_slot, 0});
      }
    }
    return std::span(shape_->class_limit)
        .subspan(shape_->class_first[c], shape_->class_first[c + 1] - shape_->class_first[c]);
  }
  void NoteLimiting(std::uint32_t i, ComplexId limiting) {
    const QueueKey key = interval_.KeyOf(i);
    // Within a host, the queue order is its instances' (seq_no, index) order, whatever the load.
    if (host_limiting_ == UINT32_MAX || key < interval_.KeyOf(host_limiting_)) {
      host_limiting_ = i;
      host_limiting_complex_ = limiting;
    }
    if (limiting_key_ && !(key < *limiting_key_)) return;
    limiting_key_ = key;
    room_.instance_limiting = limiting;
  }
  void Add(HostId host, std::uint32_t host_slots, std::uint32_t i, std::uint32_t slots_here, HostSlots*& slots) {
    if (slots == nullptr) {
      room_.hosts.push_back({host, host_slots, {}});
      slots = &room_.hosts.back();
    }
    slots->queues.emplace_back(i, slots_here);
  }

  const Interval& interval_;
  const JobView& job_;
  const PeId pe_;
  const ParallelEnvironment& p_;
  const Time start_;
  const std::uint32_t per_host_;
  std::uint32_t enough_;
  const bool quotas_;  // the quotas cut the room
  std::uint64_t global_found_ = 0;
  ParallelRoom room_;
  std::optional<QueueKey> limiting_key_;
  std::uint32_t host_limiting_ = UINT32_MAX;  // the host now visited: its first instance kept out
  ComplexId host_limiting_complex_;
  std::uint64_t sum_ = 0, roomy_ = 0;  // available slots; hosts with room for per_host
  std::vector<double> by_complex_;     // the job's amounts (DemandAmount)
  std::vector<std::pair<std::uint32_t, std::uint32_t>> probed_;  // VisitPlannedInOrder's, kept for its capacity
  QuotaTally tally_;                   // what the room's hosts so far take of the quotas
  bool skip_closed_classes_ = false;
  bool closed_after_noted_ = false;
  bool passed_over_ = false;  // since BeginHost
  bool answer_only_ = false;
  const std::vector<std::uint8_t>* usable_classes_ = nullptr;  // AnswerOnly's
  std::vector<std::int8_t> class_closed_;  // per quota class: -1 unknown, 0 open, 1 closed
  std::vector<std::int64_t> pe_slots_room_;  // per quota class: PeSlotsClassRoom, -1 unknown
  bool no_reason_ = false;                   // SkipClosedQuotaClasses
  std::uint32_t best_host_ = 0;              // the most slots a host of the room gives
  std::int64_t pe_slots_bound_ = -1;         // NothingToCome's under $pe_slots, -1 unknown
  std::int8_t pe_classes_closed_ = -1;       // PeClassesClosed's since the last take, -1 unknown
  std::uint32_t open_class_ = 0;             // PeClassesClosed's: the PE's quota class last found open
  // The optimised twin's quota cut: per class its limits, each with what is
  // left of it, what a slot takes and what the room took so far.
  struct LimitLeft {
    double left = 0, per_slot = 0, taken = 0;
  };
  bool by_class_ = false;
  std::vector<LimitLeft> limits_;
  std::shared_ptr<const QuotaClassShape> shape_;  // the job's, read with limits_
};

Interval::ParallelRoom Interval::RoomNow(const JobView& job, PeId pe, std::uint32_t enough, bool quotas) const {
  std::shared_ptr<const WalkPlan> plan;
  if (const std::optional<std::string> key = PlanKey(job, pe)) plan = plan_cache_.Find(*key);
  HostRoomCache::Table* cache = nullptr;
  if (const std::optional<RoomKey> key = RoomKeyOf(job, pe)) cache = room_cache_.Find(*key);
  return RoomNowFrom(job, pe, enough, plan.get(), cache, quotas);
}

Interval::ParallelRoom Interval::RoomNowReference(const JobView& job, PeId pe, std::uint32_t enough) const {
  return RoomNowFrom(job, pe, enough, nullptr, nullptr);
}

std::optional<RoomKey> Interval::RoomKeyOf(const JobView& job, PeId pe) const {
  if (ignore_plan_) return std::nullopt;
  for (const ComplexValue& v : job.requests->hard) {
    if (load_reported_[v.complex.index()]) return std::nullopt;
  }
  RoomKey key{job.request_id, pe, {}, {}, {}};
  if (access_lists_) {
    key.owner = job.owner;
    key.group = job.group;
    key.project = job.project;
  }
  return key;
}

Interval::ParallelRoom Interval::RoomNowFrom(const JobView& job, PeId pe, std::uint32_t enough, const WalkPlan* plan,
                                             HostRoomCache::Table* cache, bool quotas) const {
  RoomBuilder builder(*this, job, pe, cluster_.now, enough, quotas);
  if (!builder.usable()) return std::move(builder.room());
  if (twin_ == Twin::kOptimised) builder.PassOverClosedAfterNoted();
  if (list_order_.soft_order()) {  // a failed soft search's list: hosts by their first free instance there
    std::vector<std::uint32_t> free;
    ForEachFreeInListOrder([&](std::uint32_t i) {
      free.push_back(i);
      return true;
    });
    return WalkInListOrder(builder, free);
  }
  for (const auto& [value, h] : free_hosts_) {
    if (builder.RestPassedOver(value)) break;
    HostSlots* slots = nullptr;
    if (const HostRoomCache::Entry* kept = cache ? cache->Holding(h, host_stamp_[h]) : nullptr) {
      builder.Replay(*cache, *kept, HostId(h), slots);
      if (builder.Suffices(slots)) break;
      continue;
    }
    builder.BeginHost();
    if (plan != nullptr && PartHolds(*plan, h)) {
      const std::uint32_t part = plan->part_of[h];
      if (part != UINT32_MAX && plan->parts[part].plan != UINT32_MAX) {
        builder.VisitPlanned(*plan, plan->hosts[plan->parts[part].plan], slots);
      }
    } else {
      for (std::uint32_t k = instances_.host_first[h]; k < instances_.host_first[h + 1]; ++k) {
        if (has_free_[host_queues_[k]]) builder.Visit(host_queues_[k], slots);
      }
    }
    if (cache != nullptr) builder.Keep(*cache, h, host_stamp_[h], slots);
    if (builder.Suffices(slots)) break;
  }
  return std::move(builder.room());
}

Interval::ParallelRoom Interval::RoomAt(const JobView& job, PeId pe, Time start, std::uint32_t enough, bool quotas,
                                        const std::vector<std::uint8_t>* answer_only) const {
  if (HasSoftRequests(job)) return SoftRoom(job, pe, start, enough, false, quotas);
  RoomBuilder builder(*this, job, pe, start, enough, quotas);
  if (!builder.usable()) return std::move(builder.room());
  if (twin_ == Twin::kOptimised) {
    builder.SkipClosedQuotaClasses();  // no caller of RoomAt asks for a reason
    if (answer_only != nullptr && builder.AnswerOnly(*answer_only)) return std::move(builder.room());
  }
  if (!list_order_.unsorted().empty()) {
    const std::shared_ptr<const WalkPlan> plan = twin_ == Twin::kOptimised ? KeptPlan(job, pe) : nullptr;
    // Each host's instances in the list's order (those out of it fail Visit).
    return WalkHostsAt(builder, plan.get(), ReservationHostOrder(job, pe), [&](std::uint32_t h, std::uint32_t* out) {
      const auto begin = instances_.on_host.begin() + instances_.host_first[h];
      const auto end = instances_.on_host.begin() + instances_.host_first[h + 1];
      std::copy(begin, end, out);
      std::sort(out, out + (end - begin), [&](std::uint32_t a, std::uint32_t b) { return ListOrderLess(a, b); });
      return static_cast<std::size_t>(end - begin);
    });
  }
  // A sorted list (full instances the job sorted in come among those with a
  // free slot, after them where their keys are equal): hosts in load order.
  if (quotas && quota_.active() && twin_ == Twin::kOptimised) return RoomAtByLoad(builder);
  ParallelRoom& room = builder.room();
  std::vector<std::uint32_t> host_pos(cluster_.hosts.size(), UINT32_MAX);
  VisitReservationOrder([&](std::uint32_t i, bool) {
    const std::uint32_t h = instances_.host[i].index();
    HostSlots* slots = host_pos[h] == UINT32_MAX ? nullptr : &room.hosts[host_pos[h]];
    const std::size_t before = room.hosts.size();
    builder.Visit(i, slots);
    if (room.hosts.size() > before) host_pos[h] = static_cast<std::uint32_t>(before);
  });
  std::stable_sort(room.hosts.begin(), room.hosts.end(), [&](const HostSlots& a, const HostSlots& b) {
    return LoadOrderLess(a.host.index(), b.host.index());
  });
  for (HostSlots& h : room.hosts) RoomBuilder::Close(h);
  builder.CutAllByQuotas();
  return std::move(room);
}

Interval::ParallelRoom Interval::RoomFromHosts(const JobView& job, PeId pe, Time start, std::uint32_t enough,
                                               bool quotas, const std::function<bool(HostSlots&)>& next) const {
  RoomBuilder builder(*this, job, pe, start, enough, quotas);
  builder.SkipClosedQuotaClasses();  // no caller asks for a reason
  HostSlots host;
  while (builder.usable() && next(host)) {
    if (builder.Suffices(builder.Join(std::move(host)))) break;
  }
  return std::move(builder.room());
}

Interval::ParallelRoom Interval::SoftRoom(const JobView& job, PeId pe, Time start, std::uint32_t enough, bool now,
                                          bool quotas) const {
  RoomBuilder builder(*this, job, pe, start, enough, quotas);
  if (!builder.usable()) return std::move(builder.room());
  std::vector<std::pair<std::uint32_t, QueueKey>> order;  // violations, queue order
  auto consider = [&](std::uint32_t i) {
    if (QueueStatic(job, i, pe)) order.emplace_back(SoftViolations(job, i), KeyOf(i));
  };
  if (now) {
    for (const QueueKey& key : free_order_) consider(key.instance);
  } else {
    VisitReservationOrder([&](std::uint32_t i, bool) { consider(i); });
  }
  std::sort(order.begin(), order.end());
  std::vector<std::uint32_t> instances;
  instances.reserve(order.size());
  for (const auto& [violations, key] : order) instances.push_back(key.instance);
  return WalkInListOrder(builder, instances);
}

Interval::ParallelRoom Interval::WalkInListOrder(RoomBuilder& builder, const std::vector<std::uint32_t>& order) const {
  std::vector<std::uint32_t> host_pos(cluster_.hosts.size(), UINT32_MAX);
  std::vector<std::vector<std::uint32_t>> by_host;
  for (std::uint32_t i : order) {
    std::uint32_t& pos = host_pos[instances_.host[i].index()];
    if (pos == UINT32_MAX) {
      pos = static_cast<std::uint32_t>(by_host.size());
      by_host.emplace_back();
    }
    by_host[pos].push_back(i);
  }
  for (const std::vector<std::uint32_t>& host : by_host) {
    HostSlots* slots = nullptr;
    for (std::uint32_t i : host) builder.Visit(i, slots);
    if (builder.Suffices(slots)) break;
  }
  return std::move(builder.room());
}

// RoomAt's sorted case under quotas, host by host in load order, each host's
// instances in the order the search meets them, so that the quotas cut each
// host as it comes and the walk ends where the room suffices: the room that
// RoomAt's reference builds whole, then sorts and cuts.
Interval::ParallelRoom Interval::RoomAtByLoad(RoomBuilder& builder) const {
  std::vector<std::uint32_t> first(cluster_.hosts.size() + 1, 0), on_host(instances_.size());
  std::vector<std::uint32_t> order;
  order.reserve(instances_.size());
  VisitReservationOrder([&](std::uint32_t i, bool) {
    order.push_back(i);
    ++first[instances_.host[i].index() + 1];
  });
  for (std::size_t h = 0; h < cluster_.hosts.size(); ++h) first[h + 1] += first[h];
  std::vector<std::uint32_t> next(first.begin(), first.end() - 1);
  for (std::uint32_t i : order) on_host[next[instances_.host[i].index()]++] = i;
  const std::shared_ptr<const WalkPlan> plan = KeptPlan(builder.job(), builder.pe());
  return WalkHostsAt(builder, plan.get(), HostsByLoad(), [&](std::uint32_t h, std::uint32_t* out) {
    std::copy(on_host.begin() + first[h], on_host.begin() + first[h + 1], out);
    return static_cast<std::size_t>(first[h + 1] - first[h]);
  });
}

// A walk of `hosts` in order, each host's instances in the order
// `order_of(h, out)` writes them (at most the host's instances; it returns
// how many), visited as VisitHostAt does until the room suffices. Past the
// first hosts, where most walks end, the hosts come in blocks: their orders
// and the planned hosts' diagrams are read in parallel, then the hosts join
// the room one by one, in order, as before (on one thread, all one by one).
// A host whose slots are all in use at a start from now on, or now where the
// window from an earlier start reaches now, gives nothing (SlotsFullUntil):
// the optimised twin passes over it unread.
template <typename OrderOf>
Interval::ParallelRoom Interval::WalkHostsAt(RoomBuilder& builder, const WalkPlan* plan,
                                             std::span<const std::uint32_t> hosts, const OrderOf& order_of) const {
  const Time start = builder.start(), now = cluster_.now;
  const bool skip_full = twin_ == Twin::kOptimised && ledger_.with_diagrams() && !ignore_plan_ &&
                         (start >= now || DiagramEnd(start, builder.job().duration) > now);
  std::size_t next = 0;  // the next of `hosts` to look at
  auto next_open = [&](std::uint32_t& h) {
    while (next < hosts.size()) {
      h = hosts[next++];
      if (!skip_full || SlotsFullUntil(h) <= std::max(start, now)) return true;
    }
    return false;
  };
  std::vector<std::uint32_t> buffer;
  const bool blocks = plan != nullptr && tbb::this_task_arena::max_concurrency() > 1 &&
                      tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism) > 1;
  const std::size_t one_by_one = blocks ? tuning::kRoomHostsOneByOne : hosts.size();
  std::uint32_t h = 0;
  for (std::size_t visited = 0; visited < one_by_one && next_open(h); ++visited) {
    HostSlots* slots = nullptr;
    buffer.resize(std::max<std::size_t>(buffer.size(), instances_.host_first[h + 1] - instances_.host_first[h]));
    const std::size_t n = order_of(h, buffer.data());
    VisitHostAt(builder, plan, h, std::span<const std::uint32_t>(buffer).first(n), slots);
    if (builder.Suffices(slots)) return std::move(builder.room());
  }
  HostProbes probes;
  std::vector<std::uint32_t> block;
  for (std::size_t size = tuning::kRoomHostsFirstBlock; next < hosts.size();
       size = std::min(2 * size, tuning::kRoomHostsLargestBlock)) {
    block.clear();
    while (block.size() < size && next_open(h)) block.push_back(h);
    ProbeHosts(builder, *plan, block, order_of, probes);
    for (std::size_t k = 0; k < block.size(); ++k) {
      HostSlots* slots = nullptr;
      if (probes.state[k] == HostProbes::kNotProbed || builder.Reopened(probes.Order(k), probes.closed)) {
        VisitHostAt(builder, plan, block[k], probes.Order(k), slots);
      } else if (!builder.PassesOverAll(probes.Order(k))) {
        builder.AddProbed(HostId(block[k]), probes.host_slots[k], probes.Found(k), slots);
      }
      if (builder.Suffices(slots)) return std::move(builder.room());
    }
  }
  return std::move(builder.room());
}

Time Interval::SlotsFullUntil(std::uint32_t h) const {
  if (full_until_.empty()) full_until_.assign(cluster_.hosts.size(), {UINT64_MAX, 0});
  auto& [stamp, until] = full_until_[h];
  if (stamp == host_stamp_[h]) return until;
  const Time now = cluster_.now;
  // The earliest time from now on at which entry k has a whole slot free.
  auto free_from = [&](std::optional<std::uint32_t> k) {
    if (!k) return now;
    return ledger_.diagram(*k).EarliestFit(now, 1, ledger_.entry(*k).total - 1).value_or(kDiagramForever);
  };
  Time instances = kDiagramForever;
  for (std::uint32_t k = instances_.host_first[h]; k < instances_.host_first[h + 1]; ++k) {
    instances =
        std::min(instances, free_from(ledger_.Find({ContainerLevel::kQueue, instances_.on_host[k]}, complexes_.slots)));
  }
  stamp = host_stamp_[h];
  until = std::max(free_from(ledger_.Find({ContainerLevel::kHost, h}, complexes_.slots)), instances);
  return until;
}

// WalkHostsAt's reading of a block's hosts, in parallel: each host's order,
// and where the plan's part of the host holds, its diagrams
// (RoomBuilder::ProbePlanned); the other hosts are left unprobed.
template <typename OrderOf>
void Interval::ProbeHosts(RoomBuilder& builder, const WalkPlan& plan, std::span<const std::uint32_t> block,
                          const OrderOf& order_of, HostProbes& probes) const {
  probes.closed = builder.ClosedClasses();
  probes.state.assign(block.size(), HostProbes::kNotProbed);
  probes.host_slots.assign(block.size(), 0);
  probes.first.assign(block.size() + 1, 0);
  for (std::size_t k = 0; k < block.size(); ++k) {
    probes.first[k + 1] = probes.first[k] + (instances_.host_first[block[k] + 1] - instances_.host_first[block[k]]);
  }
  probes.order.resize(probes.first.back());
  probes.order_size.assign(block.size(), 0);
  probes.found.resize(probes.first.back());
  probes.count.assign(block.size(), 0);
  const RoomBuilder& reader = builder;
  tbb::parallel_for(
      tbb::blocked_range<std::size_t>(0, block.size(), tuning::kRoomHostsPerProbeTask),
      [&](const tbb::blocked_range<std::size_t>& r) {
        std::vector<double> amounts;
        for (std::size_t k = r.begin(); k != r.end(); ++k) {
          const std::uint32_t h = block[k];
          probes.order_size[k] = static_cast<std::uint32_t>(order_of(h, probes.order.data() + probes.first[k]));
          if (!PartHolds(plan, h)) continue;
          probes.state[k] = HostProbes::kProbed;
          const std::uint32_t part = plan.part_of[h];
          if (part == UINT32_MAX || plan.parts[part].plan == UINT32_MAX) continue;  // nothing
          std::size_t n = 0;
          probes.host_slots[k] = reader.ProbePlanned(plan, plan.hosts[plan.parts[part].plan], probes.Order(k),
                                                     &probes.closed, amounts, probes.found.data() + probes.first[k], n);
          probes.count[k] = static_cast<std::uint32_t>(n);
        }
      });
}

std::shared_ptr<const WalkPlan> Interval::KeptPlan(const JobView& job, PeId pe) const {
  const std::optional<std::string> key = PlanKey(job, pe);
  return key ? plan_cache_.Find(*key) : nullptr;
}

void Interval::VisitHostAt(RoomBuilder& builder, const WalkPlan* plan, std::uint32_t h,
                           std::span<const std::uint32_t> order, HostSlots*& slots) const {
  if (builder.PassesOverAll(order)) return;  // before reading the host's diagrams
  if (plan == nullptr || !PartHolds(*plan, h)) {
    for (std::uint32_t i : order) builder.Visit(i, slots);
    return;
  }
  const std::uint32_t part = plan->part_of[h];
  if (part != UINT32_MAX && plan->parts[part].plan != UINT32_MAX) {
    builder.VisitPlannedInOrder(*plan, plan->hosts[plan->parts[part].plan], order, slots);
  }
}

const std::vector<std::uint32_t>& Interval::ReservationHostOrder(const JobView& job, PeId pe) const {
  // Kept while the list and the free instances are as they were (no start
  // since), per what QueueStatic reads of the job.
  const auto now = std::make_pair(list_order_.changes(), result_.starts);
  if (host_orders_at_ != now) {
    host_orders_.clear();
    host_orders_at_ = now;
  }
  // Where no instance has access lists or a FORCED complex, QueueStatic reads
  // only the PE and the job's queue lists.
  const bool by_job = !all_instances_open_ || !job.requests->queue_hard.empty() || !job.requests->queue_master.empty();
  const HostOrderKey key{by_job ? job.request_id.value : UINT32_MAX, pe.value, by_job ? job.owner.value : 0,
                         by_job ? job.group.value : 0, by_job ? job.project.value : 0};
  const auto [it, inserted] = host_orders_.try_emplace(key);
  std::vector<std::uint32_t>& order = it->second;
  if (!inserted) return order;
  // The hosts with a free instance the job may use, in load order (that of
  // free_hosts_, read from the hosts' load order, whose scan shares out), then
  // the hosts of the full instances it may use, in the list's order.
  const std::vector<std::uint32_t>& by_load = HostsByLoad();
  order = KeepInOrder(mode_, std::span(by_load), tuning::kHostsPerOrderBlock, [&](std::uint32_t h) {
    if (free_on_host_[h] == 0) return false;
    for (std::uint32_t k = instances_.host_first[h]; k < instances_.host_first[h + 1]; ++k) {
      const std::uint32_t i = instances_.on_host[k];
      if (has_free_[i] && QueueStatic(job, i, pe)) return true;
    }
    return false;
  });
  const std::vector<std::uint32_t> full = KeepInOrder(
      mode_, std::span(list_order_.unsorted()), tuning::kHostsPerOrderBlock,
      [&](std::uint32_t i) { return QueueStatic(job, i, pe); });
  std::vector<std::uint8_t> taken(cluster_.hosts.size(), 0);
  for (std::uint32_t h : order) taken[h] = 1;
  for (std::uint32_t i : full) {
    const std::uint32_t h = instances_.host[i].index();
    if (taken[h]) continue;
    taken[h] = 1;
    order.push_back(h);
  }
  return order;
}

bool Interval::ListOrderLess(std::uint32_t a, std::uint32_t b) const {
  if (has_free_[a] != has_free_[b]) return has_free_[a] > has_free_[b];
  if (has_free_[a]) return KeyOf(a) < KeyOf(b);
  return list_order_.unsorted_place(a) < list_order_.unsorted_place(b);
}

bool Interval::RoomSuffices(const ParallelEnvironment& p, std::uint64_t sum, std::uint64_t roomy, std::size_t hosts,
                            const HostSlots& last, std::uint32_t enough) {
  if (enough == kUnlimited) return false;
  switch (p.allocation_rule) {
    case AllocationRule::kFillUp:
      return sum >= enough;
    case AllocationRule::kRoundRobin:  // the first round gives one slot per host
      return hosts >= enough;
    case AllocationRule::kPeSlots:
      return last.available >= enough;
    case AllocationRule::kFixed:
      return roomy * p.slots_per_host >= enough;
  }
  return false;
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
  if (room.masterq != nullptr) {
    ParallelFit fit = HarvestWithMasterQueue(room, p, total);
    if (!fit.ok && why != nullptr && why->reason == PendingReason::kNone) {
      why->reason = PendingReason::kResource;
      why->object = complexes_.slots.value;
    }
    return fit;
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
  // Grid Engine moves each queue granted on the first (master) host to the
  // head of the list ("master queue must be at first position"), so that
  // host's queues come out in reverse order and the master is the last of
  // them harvested (parallel_tag_queues_suitable4job, as a real 8.1.9 cell does it).
  if (!result.grants.empty()) {
    const HostId master_host = instances_.host[result.grants.front().instance];
    const auto master_host_end = std::find_if(result.grants.begin(), result.grants.end(),
                                              [&](const Grant& g) { return instances_.host[g.instance] != master_host; });
    std::reverse(result.grants.begin(), master_host_end);
  }
  result.ok = true;
  return result;
}

ParallelFit Interval::HarvestWithMasterQueue(const ParallelRoom& room, const ParallelEnvironment& p,
                                             std::uint32_t total) const {
  const RequestSet& req = *room.masterq;
  const bool balanced = p.allocation_rule == AllocationRule::kPeSlots || p.allocation_rule == AllocationRule::kFixed;
  const std::uint32_t per_host = p.allocation_rule == AllocationRule::kPeSlots ? total : p.slots_per_host;
  const std::uint32_t min_slots = balanced ? per_host : 1;
  std::vector<Grant> master_first, others;  // the master host's master queues go first, last harvested first
  std::unordered_map<std::uint32_t, std::uint32_t> taken;  // instance -> slots granted (round robin's later rounds)
  std::uint32_t accu = 0;
  bool have_master = false;
  for (bool progress = true; progress && !(accu >= total && have_master);) {
    progress = false;
    for (const HostSlots& host : room.hosts) {
      if (accu >= total && have_master) break;
      std::uint32_t host_taken = 0;
      for (const auto& [i, n] : host.queues) host_taken += taken[i];
      if (host.available < host_taken + min_slots) continue;
      const std::uint32_t max_slots = balanced ? per_host
                                      : p.allocation_rule == AllocationRule::kFillUp
                                          ? std::min(total - accu, host.available - host_taken)
                                          : 1;
      bool got_master = have_master;
      std::uint32_t got = 0;
      std::vector<std::pair<Grant, bool>> here;  // grant, whether it goes first
      for (const auto& [i, n] : host.queues) {
        std::int64_t slots = std::min<std::int64_t>(n - taken[i], max_slots - got);
        if (slots <= 0) continue;
        const bool master_queue = Listed(req.queue_master, i);
        if (!have_master && !got_master) {
          if (!master_queue) {
            if (accu + got + slots == total) --slots;  // one slot stays for the master task
          } else if (!req.queue_hard.empty() && !Listed(req.queue_hard, i)) {
            slots = std::min<std::int64_t>(slots, 1);  // the master task's slot alone
          }
        }
        if (slots > 0) {
          const bool first = !have_master && master_queue;
          here.push_back({{i, static_cast<std::uint32_t>(slots)}, first});
          got_master |= first;
          got += static_cast<std::uint32_t>(slots);
        }
        if (got == max_slots) break;
      }
      if (got < min_slots) continue;  // the host is given back
      for (const auto& [grant, first] : here) {
        taken[grant.instance] += grant.slots;
        if (first) {
          master_first.insert(master_first.begin(), grant);
        } else {
          auto same = std::find_if(others.begin(), others.end(), [&](const Grant& g) { return g.instance == grant.instance; });
          if (same != others.end()) same->slots += grant.slots;
          else others.push_back(grant);
        }
      }
      have_master |= got_master;
      accu += got;
      progress = true;
    }
    if (p.allocation_rule != AllocationRule::kRoundRobin) break;
  }
  ParallelFit fit;
  if (accu < total || !have_master) return fit;
  fit.grants = std::move(master_first);
  fit.grants.insert(fit.grants.end(), others.begin(), others.end());
  fit.ok = true;
  return fit;
}

std::optional<std::pair<PeId, ParallelFit>> Interval::StartParallel(const JobView& job, Decision& why) {
  std::optional<std::pair<PeId, ParallelFit>> best;
  std::uint32_t best_slots = 0;
  std::uint64_t best_violations = 0;
  bool any_candidates = false;
  for (PeId pe : job.requests->pe.matching) {
    const std::vector<std::uint32_t> candidates = SlotCandidates(job, pe);
    if (candidates.empty()) continue;
    any_candidates = true;
    // A count above the free slots now cannot be assigned, so the walk over
    // hosts may stop once they can give the largest count below them.
    const std::optional<double> bound = FreeSlotBound(pe);
    if (!bound || candidates.front() > *bound) {
      if (why.reason == PendingReason::kNone) {
        why.reason = PendingReason::kResource;
        why.object = complexes_.slots.value;
      }
      continue;
    }
    // The quotas' bound: where all their room together is too small, no walk.
    const SlotBound quota_bound = QuotaSlotBound(job, pe, cluster_.now);
    if (quota_bound && quota_bound->sum < candidates.front()) {
      if (quota_bound->excess) NoteQuotaExcess(why, *quota_bound->excess);
      continue;
    }
    if (twin_ == Twin::kOptimised) {
      std::uint64_t global_found = 0;
      const ParallelRoom base = RoomBase(job, pe, cluster_.now, global_found);
      if (RefusedBeforeHosts(base, candidates.front())) {
        // Every count fails before any host is weighed; the search's first
        // count gives the reason, as over the walk's room.
        Distribute(base, pe, candidates[candidates.size() / 2], &why);
        continue;
      }
    }
    // Under $pe_slots no host gives more than the quotas leave one host
    // either (no host's take counts against another's): a host that gives
    // that much ends the walk.
    double most = std::min<double>(candidates.back(), std::floor(*bound));
    if (quota_bound && cluster_.pes[pe.index()].allocation_rule == AllocationRule::kPeSlots) {
      most = std::min<double>(most, static_cast<double>(quota_bound->on_a_host));
    }
    const auto enough = static_cast<std::uint32_t>(most);
    // The largest feasible count, by binary search over the candidates.
    const ParallelRoom room = RoomNowFor(job, pe, enough);
    std::size_t lo = 0, hi = candidates.size();  // feasible: [0, lo); unknown: [lo, hi)
    ParallelFit fit;
    while (lo < hi) {
      const std::size_t mid = lo + (hi - lo) / 2;
      ParallelFit f = Distribute(room, pe, candidates[mid], lo == 0 ? &why : nullptr);
      if (f.ok) {
        if (const std::optional<QuotaExcess> excess = PlacementQuotaExcess(job, pe, f.grants, cluster_.now)) {
          f.ok = false;
          if (lo == 0) NoteQuotaExcess(why, *excess);
        }
      }
      if (f.ok) {
        fit = std::move(f);
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    if (lo == 0) continue;
    const std::uint32_t slots = candidates[lo - 1];
    // A later PE replaces the best with more slots, or with fewer soft
    // violations whatever its slots (sge_select_parallel_environment).
    const std::uint64_t violations = PlacementSoftViolations(job, fit.grants);
    if (!best || slots > best_slots || violations < best_violations) {
      best = std::make_pair(pe, std::move(fit));
      best_slots = slots;
      best_violations = violations;
    }
  }
  if (!any_candidates) {  // no PE matches, or none can give a count in the range
    why.reason = PendingReason::kNever;
    why.never = NeverCause::kNoPe;
  }
  return best;
}

bool Interval::ParallelSearchTags(const JobView& job) const {
  for (PeId pe : job.requests->pe.matching) {
    const std::vector<std::uint32_t> candidates = SlotCandidates(job, pe);
    if (candidates.empty()) continue;
    std::uint64_t global_found = 0;
    const ParallelRoom room = RoomBase(job, pe, cluster_.now, global_found);
    if (room.usable && room.pe_left >= candidates.front() && room.global_slots >= candidates.front()) return true;
  }
  return false;
}

bool Interval::FitsIgnoringPlan(const JobView& job) {
  ignore_plan_ = true;
  Decision scratch;
  bool fits = false;
  if (!job.requests->has_pe) {
    fits = StartSequential(job, scratch).has_value();
  } else if (twin_ == Twin::kReference) {
    fits = StartParallel(job, scratch).has_value();
  } else {
    fits = ParallelFitsIgnoringPlan(job);
  }
  ignore_plan_ = false;
  return fits;
}

// StartParallel finds a placement where some PE can give the job its least
// slot count: that count fits (FitsNowAtLeast) whatever the PE's largest.
bool Interval::ParallelFitsIgnoringPlan(const JobView& job) {
  for (PeId pe : job.requests->pe.matching) {
    const std::vector<std::uint32_t> candidates = SlotCandidates(job, pe);
    if (candidates.empty()) continue;
    const std::uint32_t least = candidates.front();
    // What is known for jobs with this key and these amounts since the last start.
    // (Without the quotas, which the key does not weigh.)
    std::optional<std::string> key = PlanKey(job, pe);
    KnownNowFit* known = nullptr;
    if (key) {
      for (const ComplexValue& v : job.requests->hard) {
        if (complexes_[v.complex].consumable == Consumable::kNo) continue;
        key->append(reinterpret_cast<const char*>(&v.number), sizeof v.number);
      }
      known = &plan_cache_.KnownNow(*key, result_.starts);
    }
    bool fits = false;
    if (known != nullptr && (least <= known->fits_up_to || least >= known->fails_from)) {
      fits = least <= known->fits_up_to;
    } else {
      fits = FitsNowAtLeast(job, pe, least, false);
      if (known != nullptr) (fits ? known->fits_up_to : known->fails_from) = least;
    }
    // The quotas' cut only takes slots from a room: a count that does not
    // fit without them does not fit with them either.
    if (fits && (!quota_.active() || FitsNowAtLeast(job, pe, least, true))) return true;
  }
  return false;
}

std::optional<double> Interval::FreeSlotBound(PeId pe) const {
  const ParallelEnvironment& p = cluster_.pes[pe.index()];
  const double most_on_a_host = host_free_most_.empty() ? 0 : host_free_most_.Max();
  const double per_host_least = p.allocation_rule == AllocationRule::kFixed ? p.slots_per_host : 1;
  if (per_host_least > most_on_a_host) return std::nullopt;
  return p.allocation_rule == AllocationRule::kPeSlots ? most_on_a_host : free_slots_;
}

bool Interval::FitsNowAtLeast(const JobView& job, PeId pe, std::uint32_t least, bool quotas) const {
  const std::optional<double> bound = FreeSlotBound(pe);
  if (!bound || least > *bound) return false;
  quotas = quotas && quota_.active();
  if (const auto quota_bound = quotas ? QuotaSlotBound(job, pe, cluster_.now) : std::nullopt;
      quota_bound && quota_bound->sum < least) {
    return false;
  }
  std::uint64_t global_found = 0;
  if (RefusedBeforeHosts(RoomBase(job, pe, cluster_.now, global_found), least)) return false;
  const ParallelFit fit = Distribute(RoomNowFor(job, pe, least, quotas), pe, least, nullptr);
  return fit.ok && !(quotas && PlacementQuotaExcess(job, pe, fit.grants, cluster_.now));
}

}  // namespace schedk::dispatch_detail
