// The interval's resource quota steps (docs/resource-quotas.md): the check of
// a sequential job's queue instance (by instance class where it can), the
// bound on what a parallel job can get and the check of its placement (its
// room is cut where it is built, RoomBuilder), the quotas' say on a
// reservation's start, and the booking of quota usage with its `L` lines.
#include "kernel/dispatch/interval.hpp"

namespace schedk::dispatch_detail {

QuotaSubject Interval::SubjectAt(const JobView& job, PeId pe, std::uint32_t instance) const {
  return {job.owner, job.group, job.project, pe, instances_.queue[instance], instances_.host[instance], instance};
}

QuotaQuestion Interval::QuestionOf(const JobView& job, PeId pe, std::uint32_t place, Time start) const {
  return {job.owner.value,     job.group.value, job.project.value, pe.value, place,
          QuotaSignature(job), start,           job.duration};
}

std::uint32_t Interval::QuotaSignature(const JobView& job) const {
  if (quota_signature_.empty()) quota_signature_.assign(jobs_.request_sets().size(), UINT32_MAX);
  std::uint32_t& signature = quota_signature_[job.request_id.index()];
  if (signature != UINT32_MAX) return signature;
  std::vector<std::pair<bool, double>> asked;
  for (const ResourceQuotaSet& set : cluster_.quota_sets) {
    for (const QuotaRule& rule : set.rules) {
      for (const QuotaLimit& limit : rule.limits) {
        const ComplexValue* value = FindValue(job.requests->hard, limit.attribute);
        asked.emplace_back(value != nullptr, value != nullptr ? value->number : 0);
      }
    }
  }
  signature = quota_signatures_.try_emplace(std::move(asked), static_cast<std::uint32_t>(quota_signatures_.size()))
                  .first->second;
  return signature;
}

std::optional<QuotaExcess> Interval::SequentialQuotaExcess(const JobView& job, std::uint32_t instance, Time start,
                                                           QuotaVerdicts& verdicts) const {
  if (!quota_.active()) return std::nullopt;
  const std::uint32_t c = quota_.ClassOf(instance);
  QuotaVerdicts::Verdict& v = verdicts.by_class[c];
  if (v.known) return v.excess;
  const QuotaSubject subject = SubjectAt(job, PeId::None(), instance);
  const bool memo = twin_ == Twin::kOptimised;
  const QuotaQuestion question = memo ? QuestionOf(job, PeId::None(), c, start) : QuotaQuestion{};
  if (memo) {
    if (const std::optional<QuotaExcess>* kept = sequential_verdicts_.Find(question, stamp_clock_)) {
      v = {true, *kept};
      verdicts.refusing += kept->has_value();
      return *kept;
    }
  }
  const std::optional<QuotaExcess> excess = quota_.Excess(subject, *job.requests, 1, true, WindowAt(job, start));
  if (quota_.Uniform(subject)) {
    v = {true, excess};
    verdicts.refusing += excess.has_value();
    if (memo) sequential_verdicts_.Keep(question, excess);
  }
  return excess;
}

std::vector<std::uint8_t> Interval::QuotaClassesWithin(const JobView& job, PeId pe) const {
  std::vector<std::uint8_t> classes(quota_.classes(), 0);
  for (std::uint32_t i = 0; i < instances_.size(); ++i) {
    std::uint8_t& usable = classes[quota_.ClassOf(i)];
    if (!usable) usable = !alarm_[i] && QueueStatic(job, i, pe) && HostStatic(job, instances_.host[i]);
  }
  return classes;
}

Interval::SlotBound Interval::QuotaSlotBound(const JobView& job, PeId pe, Time start) const {
  if (!quota_.active()) return std::nullopt;
  if (twin_ == Twin::kReference) return BoundOf(QuotaClassRoomsOf(job, pe, start), pe);
  return BoundOf(QuotaClassRoomsAt(job, pe, start), pe);
}

const Interval::QuotaClassRooms& Interval::QuotaClassRoomsAt(const JobView& job, PeId pe, Time start) const {
  // Kept under the job's duration, or under none where it holds for every duration.
  const QuotaQuestion question = QuestionOf(job, pe, UINT32_MAX, start);
  QuotaQuestion any = question;
  any.duration = kAnyDuration;
  QuotaClassRooms* kept_any = class_rooms_.Find(any, 0);
  if (kept_any != nullptr && kept_any->reads.any_duration && quota_.Unchanged(kept_any->reads)) return *kept_any;
  QuotaClassRooms* kept = class_rooms_.Find(question, 0);
  if (kept != nullptr && quota_.Unchanged(kept->reads)) return *kept;
  QuotaClassRooms rooms = QuotaClassRoomsFrom(QuotaClassShapeAt(job, pe), job, pe, start);
  if (kept_any != nullptr) kept_any->reads.any_duration = false;  // outdated: not to be read again
  if (rooms.reads.any_duration) {
    return kept_any != nullptr ? (*kept_any = std::move(rooms)) : class_rooms_.Keep(any, std::move(rooms));
  }
  return kept != nullptr ? (*kept = std::move(rooms)) : class_rooms_.Keep(question, std::move(rooms));
}

void Interval::SetUpQuotaHostClasses() {
  quota_host_classes_.assign(cluster_.pes.size(), {});
  quota_host_set_.assign(cluster_.pes.size(), std::vector<std::uint32_t>(host_free_slots_.size(), 0));
  quota_host_place_ = quota_host_set_;
  quota_set_free_.assign(cluster_.pes.size(), {});
  quota_pe_classes_.assign(cluster_.pes.size(), {});
  for (std::uint32_t i = 0; i < instances_.size(); ++i) {
    for (PeId pe : *instances_.pe_list[i]) quota_pe_classes_[pe.index()].push_back(quota_.ClassOf(i));
  }
  for (std::vector<std::uint32_t>& classes : quota_pe_classes_) {
    std::sort(classes.begin(), classes.end());
    classes.erase(std::unique(classes.begin(), classes.end()), classes.end());
  }
  std::vector<std::uint32_t> classes;
  for (std::uint32_t p = 0; p < cluster_.pes.size(); ++p) {
    if (cluster_.pes[p].allocation_rule != AllocationRule::kPeSlots) continue;  // read only under $pe_slots
    std::map<std::vector<std::uint32_t>, std::uint32_t> distinct;
    for (std::uint32_t h = 0; h + 1 < instances_.host_first.size(); ++h) {
      classes.clear();
      for (std::uint32_t k = instances_.host_first[h]; k < instances_.host_first[h + 1]; ++k) {
        const std::uint32_t i = instances_.on_host[k];
        const std::vector<PeId>& pes = *instances_.pe_list[i];
        if (std::find(pes.begin(), pes.end(), PeId(p)) != pes.end()) classes.push_back(quota_.ClassOf(i));
      }
      std::sort(classes.begin(), classes.end());
      classes.erase(std::unique(classes.begin(), classes.end()), classes.end());
      const auto [it, added] = distinct.try_emplace(classes, static_cast<std::uint32_t>(distinct.size()));
      if (added) quota_host_classes_[p].push_back(classes);
      quota_host_set_[p][h] = it->second;
    }
    std::vector<std::vector<double>> free(quota_host_classes_[p].size());
    for (std::uint32_t h = 0; h < host_free_slots_.size(); ++h) {
      std::vector<double>& set = free[quota_host_set_[p][h]];
      quota_host_place_[p][h] = static_cast<std::uint32_t>(set.size());
      set.push_back(host_free_slots_[h]);
    }
    for (const std::vector<double>& set : free) quota_set_free_[p].emplace_back(set);
  }
}

Interval::QuotaClassRooms Interval::QuotaClassRoomsOf(const JobView& job, PeId pe, Time start) const {
  return QuotaClassRoomsFrom(QuotaClassShapeOf(job, pe), job, pe, start);
}

std::shared_ptr<const Interval::QuotaClassShape> Interval::QuotaClassShapeOf(const JobView& job, PeId pe) const {
  for (std::uint32_t c = 0; c < quota_.classes(); ++c) {
    if (!quota_.Uniform(SubjectAt(job, pe, quota_.InstanceOfClass(c)))) return nullptr;
  }
  auto out = std::make_shared<QuotaClassShape>();
  std::unordered_map<QuotaLimitKey, std::uint32_t, QuotaLimitKeyHash> index;  // into out->limits
  for (std::uint32_t c = 0; c < quota_.classes(); ++c) {
    out->class_first.push_back(static_cast<std::uint32_t>(out->class_limit.size()));
    quota_.ForEachLimit(
        SubjectAt(job, pe, quota_.InstanceOfClass(c)), *job.requests, false,
        [&](const QuotaLimitKey& key, bool refuses, double one, double fixed) {
          const auto [it, added] = index.try_emplace(key, static_cast<std::uint32_t>(out->limits.size()));
          out->class_limit.push_back(it->second);
          if (!added) return;
          QuotaUsage::LimitTerms terms = quota_.TermsOf(key, *job.requests, std::nullopt, nullptr);
          terms.peak = 0;
          const auto read = static_cast<std::uint32_t>(out->read_keys.size());
          out->limits.push_back({key, refuses ? 1.0 : one - fixed, fixed, terms, refuses ? UINT32_MAX : read});
          if (!refuses) out->read_keys.push_back(key);
        });
  }
  out->class_first.push_back(static_cast<std::uint32_t>(out->class_limit.size()));
  return out;
}

const std::shared_ptr<const Interval::QuotaClassShape>& Interval::QuotaClassShapeAt(const JobView& job, PeId pe) const {
  QuotaQuestion question = QuestionOf(job, pe, UINT32_MAX, 0);
  question.duration = 0;  // the shape holds from every start, for every duration
  if (const auto* kept = class_shapes_.Find(question, 0)) return *kept;
  return class_shapes_.Keep(question, QuotaClassShapeOf(job, pe));
}

Interval::QuotaClassRooms Interval::QuotaClassRoomsFrom(std::shared_ptr<const QuotaClassShape> shape,
                                                        const JobView& job, PeId pe, Time start) const {
  QuotaClassRooms out;
  if (shape == nullptr) return out;
  const std::optional<QuotaWindow> window = WindowAt(job, start);
  std::vector<double> peaks(shape->read_keys.size());
  out.reads = quota_.PeaksOf(shape->read_keys, window, peaks);
  out.left.resize(shape->limits.size());
  out.peak.resize(shape->limits.size());
  for (std::size_t k = 0; k < shape->limits.size(); ++k) {
    const QuotaClassShape::Limit& limit = shape->limits[k];
    if (limit.read == UINT32_MAX) {  // refuses: no slot
      out.left[k] = -1;
      continue;
    }
    out.peak[k] = peaks[limit.read];
    out.left[k] = limit.terms.value - out.peak[k] - limit.fixed;
  }
  std::uint32_t least = UINT32_MAX, tightest = UINT32_MAX;
  for (std::uint32_t c = 0; c + 1 < shape->class_first.size(); ++c) {
    std::uint32_t room = UINT32_MAX;
    for (std::uint32_t k = shape->class_first[c]; k < shape->class_first[c + 1]; ++k) {
      const std::uint32_t l = shape->class_limit[k];
      room = std::min(room, QuotaUsage::SlotsLeft(out.left[l], shape->limits[l].per_slot));
    }
    out.rooms.push_back(room);
    out.sum += room;
    if (room < least) {
      least = room;
      tightest = c;
    }
  }
  // The excess reads the peaks of the tightest class's limits, which its room read.
  if (least < UINT32_MAX) {
    out.excess =
        quota_.Excess(SubjectAt(job, pe, quota_.InstanceOfClass(tightest)), *job.requests, least + 1, false, window);
  }
  out.shape = std::move(shape);
  return out;
}

Interval::SlotBound Interval::BoundOf(const QuotaClassRooms& rooms, PeId pe) const {
  if (rooms.shape == nullptr) return std::nullopt;
  QuotaBound bound{rooms.sum, rooms.sum, rooms.excess};
  if (!quota_host_classes_[pe.index()].empty()) {  // tighter under $pe_slots, which alone keeps the hosts' class sets
    bound.on_a_host = QuotaMostOnAHost(
        pe, [&](std::uint32_t c) { return rooms.rooms[c]; },
        [&](std::size_t s) {  // the most free slots of the set's hosts now
          const MaxTree& free = quota_set_free_[pe.index()][s];
          return free.empty() ? UINT64_MAX : static_cast<std::uint64_t>(std::max(0.0, free.Max()));
        });
  }
  return bound;
}

std::optional<QuotaExcess> Interval::ExcessOf(const QuotaClassRooms& rooms, const QuotaUsage& quota,
                                              const std::vector<Grant>& grants) {
  const QuotaClassShape& shape = *rooms.shape;
  std::vector<double> added(shape.limits.size(), 0);  // what the grants so far add to each limit
  for (std::size_t g = 0; g < grants.size(); ++g) {
    const std::uint32_t c = quota.ClassOf(grants[g].instance);
    for (std::uint32_t k = shape.class_first[c]; k < shape.class_first[c + 1]; ++k) {
      const std::uint32_t l = shape.class_limit[k];
      const QuotaClassShape::Limit& limit = shape.limits[l];
      const QuotaUsage::LimitTerms& t = limit.terms;
      if (t.refuses) return QuotaExcess{limit.key.instance, limit.key.limit};
      const double slots = t.per_slot * grants[g].slots;
      double& sum = added[l];
      sum += g == 0 ? slots + t.per_job : slots;
      if (rooms.peak[l] + sum > t.value) return QuotaExcess{limit.key.instance, limit.key.limit};
    }
  }
  return std::nullopt;
}

std::optional<QuotaExcess> Interval::PlacementQuotaExcess(const JobView& job, PeId pe, const std::vector<Grant>& grants,
                                                          Time start) const {
  if (!quota_.active()) return std::nullopt;
  if (twin_ == Twin::kOptimised) {
    const QuotaClassRooms& rooms = QuotaClassRoomsAt(job, pe, start);
    if (rooms.shape != nullptr) return ExcessOf(rooms, quota_, grants);
  }
  std::vector<QuotaGrant> placed;
  for (const Grant& g : grants) placed.push_back({SubjectAt(job, pe, g.instance), g.slots});
  return quota_.Excess(placed, *job.requests, WindowAt(job, start));
}

void Interval::NoteQuotaExcess(Decision& why, const QuotaExcess& excess) {
  if (why.reason != PendingReason::kNone) return;
  why.reason = PendingReason::kQuota;
  why.object = QuotaExcessIndex(excess);
}

std::optional<Time> Interval::ReservationStartUnderQuotas(const JobView& job, std::uint32_t instance,
                                                          const std::vector<Demand>& demands, Time from) {
  if (!quota_.active()) return from;
  const QuotaSubject subject = SubjectAt(job, PeId::None(), instance);
  // Without RESERVE_IN_GAPS the demands fit from their tails on, so only the
  // quotas move the start; with it the quotas and the demands move it in turn
  // until neither does.
  std::optional<Time> t = from;
  while (t) {
    const std::optional<Time> q = quota_.EarliestStart(subject, *job.requests, 1, true, *t, job.duration);
    if (!q || !config_.reserve_in_gaps || *q == *t) return q;
    t = CommonFitFrom(demands, *q, job.duration);
    if (t == q) return t;
  }
  return std::nullopt;
}

void Interval::ListQuotaDebits(const JobView& job, PeId pe, const std::vector<Grant>& grants, Time start, Duration d,
                               BookingList& list, QuotaUsage::RuleCache& rules) const {
  if (!quota_.active()) return;
  const QuotaWindow window{start, d};
  auto book = [&](const QuotaInstance& instance, std::uint32_t l, double amount) {
    list.quota_debits.push_back({instance, l, amount, window});
  };
  for (std::size_t g = 0; g < grants.size(); ++g) {
    quota_.ForEachDebit(SubjectAt(job, pe, grants[g].instance), *job.requests, grants[g].slots, g == 0, rules, book);
  }
}

std::uint32_t Interval::QuotaKeyIndex(const QuotaInstance& instance) {
  const auto [it, added] =
      quota_key_index_.try_emplace(instance, static_cast<std::uint32_t>(result_.quota_keys.size()));
  if (added) result_.quota_keys.push_back(instance);
  return it->second;
}

std::uint32_t Interval::QuotaExcessIndex(const QuotaExcess& excess) {
  const auto [it, added] = quota_excess_index_.try_emplace({excess.instance, excess.limit},
                                                           static_cast<std::uint32_t>(result_.quota_excesses.size()));
  if (added) result_.quota_excesses.push_back(excess);
  return it->second;
}

}  // namespace schedk::dispatch_detail
