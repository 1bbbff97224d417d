#include "kernel/dispatch/interval.hpp"

#include <numeric>

#include "kernel/complex/complex_compare.hpp"
#include "kernel/dispatch/job_duration.hpp"
#include "kernel/tuning.hpp"

namespace schedk::dispatch_detail {

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
  ++host_value_version_;
  queue_order_.clear();
  free_order_.clear();
  free_hosts_.clear();
  for (std::uint32_t i = 0; i < instances_.size(); ++i) {
    queue_order_.insert(KeyOf(i));
    if (has_free_[i]) free_order_.insert(KeyOf(i));
  }
  for (std::uint32_t h = 0; h < free_on_host_.size(); ++h) {
    if (free_on_host_[h] > 0) free_hosts_.emplace(host_value_[h], h);
  }
  host_queues_.assign(instances_.on_host.begin(), instances_.on_host.end());
  for (std::uint32_t h = 0; h + 1 < instances_.host_first.size(); ++h) {
    std::sort(host_queues_.begin() + instances_.host_first[h], host_queues_.begin() + instances_.host_first[h + 1],
              [&](std::uint32_t a, std::uint32_t b) {
                return std::make_pair(instances_.seq_no[a], a) < std::make_pair(instances_.seq_no[b], b);
              });
  }
}

const std::vector<std::uint32_t>& Interval::HostsByLoad() const {
  if (hosts_by_load_version_ != host_value_version_) {
    hosts_by_load_.resize(host_value_.size());
    std::iota(hosts_by_load_.begin(), hosts_by_load_.end(), 0u);
    std::sort(hosts_by_load_.begin(), hosts_by_load_.end(),
              [&](std::uint32_t a, std::uint32_t b) { return LoadOrderLess(a, b); });
    hosts_by_load_version_ = host_value_version_;
  }
  return hosts_by_load_;
}

void Interval::SetHostLoad(HostId host) {
  const double value = load_.FormulaValue(host);
  if (value == host_value_[host.index()]) return;
  const std::uint32_t h = host.index();
  HostsByLoad();  // current from here on
  list_order_.HostLoadChanged(LoadRanksChange(h, value));
  // The host's instances leave the sets under their old keys and come back
  // under the new ones, in the same nodes.
  using QueueNode = std::set<QueueKey>::node_type;
  std::vector<std::pair<QueueNode, QueueNode>>& moved = moved_nodes_;
  moved.clear();
  for (std::uint32_t k = instances_.host_first[h]; k < instances_.host_first[h + 1]; ++k) {
    const std::uint32_t i = instances_.on_host[k];
    moved.emplace_back(queue_order_.extract(KeyOf(i)), free_order_.extract(KeyOf(i)));
  }
  if (free_on_host_[h] > 0) {
    auto node = free_hosts_.extract({host_value_[h], h});
    node.value().first = value;
    free_hosts_.insert(std::move(node));
  }
  // The load order stays current: the host moves to its new place, past the
  // hosts between (the others keep their order).
  auto by_load = [&](std::uint32_t a, std::uint32_t b) { return LoadOrderLess(a, b); };
  const auto from = std::lower_bound(hosts_by_load_.begin(), hosts_by_load_.end(), h, by_load);
  const double before = host_value_[h];
  host_value_[h] = value;
  ++host_value_version_;
  if (value > before) {
    std::rotate(from, from + 1, std::lower_bound(from + 1, hosts_by_load_.end(), h, by_load));
  } else {
    std::rotate(std::lower_bound(hosts_by_load_.begin(), from, h, by_load), from, from + 1);
  }
  hosts_by_load_version_ = host_value_version_;
  for (auto& [queue_node, free_node] : moved) {
    queue_node.value() = KeyOf(queue_node.value().instance);
    queue_order_.insert(std::move(queue_node));
    if (!free_node.empty()) {
      free_node.value() = KeyOf(free_node.value().instance);
      free_order_.insert(std::move(free_node));
    }
  }
}

bool Interval::LoadRanksChange(std::uint32_t h, double value) const {
  const double low = std::min(value, host_value_[h]), high = std::max(value, host_value_[h]);
  if (low <= 0 && 0 <= high) return true;  // the global host's value, which no load changes
  // Host h's own value is one of those in [low, high]: the first there, or one equal to it.
  const std::vector<std::uint32_t>& hosts = HostsByLoad();
  auto it = std::partition_point(hosts.begin(), hosts.end(), [&](std::uint32_t g) { return host_value_[g] < low; });
  return it != hosts.end() && ++it != hosts.end() && host_value_[*it] <= high;
}

bool Interval::SlotsFull(std::uint32_t i) const {
  const auto k = ledger_.Find({ContainerLevel::kQueue, i}, complexes_.slots);
  return !k || ledger_.entry(*k).used_now >= ledger_.entry(*k).total;
}

bool Interval::InAlarm(std::uint32_t i) const {
  const HostId host = instances_.host[i];
  // A host the master reports down is out like a queue instance in alarm:
  // nothing starts or is reserved there (Grid Engine's unknown state).
  if (cluster_.hosts[host.index()].down) return true;
  if (instances_.closed[i]) return true;  // disabled, suspended, unknown, ... (qstat's states)
  for (const ComplexValue& threshold : *instances_.load_thresholds[i]) {
    const ComplexAttribute& a = complexes_[threshold.complex];
    if (IsNumeric(a.type)) {
      std::optional<double> value = load_.LoadValue(host, threshold.complex);
      if (!value) value = load_.GlobalLoadValue(threshold.complex);
      if (!value && a.consumable != Consumable::kNo) {
        const ContainerRef levels[] = {{ContainerLevel::kQueue, i},
                                       {ContainerLevel::kHost, host.index()},
                                       {ContainerLevel::kGlobal, 0}};
        for (ContainerRef c : levels) {
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
    const std::uint8_t alarm = InAlarm(i) ? 1 : 0;
    if (alarm != alarm_[i]) {
      ++host_alarm_version_[instances_.host[i].index()];
      Touch(instances_.host[i]);
    }
    alarm_[i] = alarm;
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
  if (slots != instance_free_slots_[i]) {
    const std::uint32_t h = instances_.host[i].index();
    double& host_free = host_free_slots_[h];
    host_free += slots - instance_free_slots_[i];
    host_free_most_.Set(h, host_free);
    for (std::size_t p = 0; p < quota_set_free_.size(); ++p) {
      if (quota_set_free_[p].empty()) continue;  // not a $pe_slots PE
      quota_set_free_[p][quota_host_set_[p][h]].Set(quota_host_place_[p][h], host_free);
    }
  }
  instance_free_slots_[i] = slots;
  if (has_free != (has_free_[i] != 0)) {
    has_free_[i] = has_free ? 1 : 0;
    free_instances_ += has_free ? 1 : -1;
    const std::uint32_t h = instances_.host[i].index();
    free_on_host_[h] += has_free ? 1 : -1;
    if (!host_value_.empty()) {
      if (has_free) free_order_.insert(KeyOf(i));
      else free_order_.erase(KeyOf(i));
      const bool host_changes = free_on_host_[h] == (has_free ? 1u : 0u);
      if (host_changes && has_free) free_hosts_.emplace(host_value_[h], h);
      if (host_changes && !has_free) free_hosts_.erase({host_value_[h], h});
    }
  }
}

std::vector<Interval::RunningTask> Interval::RunningTasks() const {
  // Each shard's tasks as a run in row order, sorted where the rows are not
  // in (job, task) order already (a snapshot mostly lists its jobs in
  // order), then neighbouring runs merged until one is left: a sort of the
  // whole list costs several times more.
  auto before = [](const RunningTask& a, const RunningTask& b) {
    return std::tie(a.job, a.task) < std::tie(b.job, b.task);
  };
  std::vector<RunningTask> running;
  std::vector<std::size_t> run_at{0};  // run k: running[run_at[k], run_at[k + 1])
  for (std::uint32_t s = 0; s < jobs_.shards().size(); ++s) {
    const JobShard& shard = jobs_.shards()[s];
    for (std::uint32_t r = 0; r < shard.size(); ++r) {
      if (shard.state[r] == JobState::kRunning || shard.state[r] == JobState::kSuspended) {
        running.push_back({shard.number[r], shard.task_first[r], s, r});
      }
    }
    const auto run = running.begin() + static_cast<std::ptrdiff_t>(run_at.back());
    if (!std::is_sorted(run, running.end(), before)) std::sort(run, running.end(), before);
    run_at.push_back(running.size());
  }
  std::vector<RunningTask> merged(running.size());
  while (run_at.size() > 2) {
    std::vector<std::size_t> next{0};
    for (std::size_t k = 0; k + 1 < run_at.size(); k += 2) {
      const std::size_t mid = run_at[k + 1], end = k + 2 < run_at.size() ? run_at[k + 2] : mid;
      const auto at = [&](std::size_t i) { return running.begin() + static_cast<std::ptrdiff_t>(i); };
      std::merge(at(run_at[k]), at(mid), at(mid), at(end), merged.begin() + static_cast<std::ptrdiff_t>(run_at[k]),
                 before);
      next.push_back(end);
    }
    running.swap(merged);
    run_at.swap(next);
  }
  return running;
}

void Interval::ListRunningChunk(std::span<const RunningTask> tasks, RunningChunk& chunk) const {
  QuotaUsage::RuleCache rules;
  std::vector<Grant> grants;
  for (const RunningTask& r : tasks) {
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
    grants.clear();
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
    const auto first = static_cast<std::uint32_t>(chunk.list.debits.size());
    ListBooking(job, e->granted_pe, grants, e->start, d, suspended ? UsageState::kSuspended : UsageState::kRunning,
                chunk.list, rules);
    chunk.bookings.push_back({r.job, r.task, first, static_cast<std::uint32_t>(chunk.list.debits.size())});
    if (job.owner.valid() && !suspended) chunk.counted.push_back(job.owner);
  }
}

void Interval::BookRunningJobs() {
  // add_job_list_to_schedule: running and suspended tasks in job order,
  // listed in chunks in parallel (listing changes nothing), then applied in
  // that order: the ledger's and the quotas' debits all at once.
  const std::vector<RunningTask> running = RunningTasks();
  const std::size_t per_chunk = tuning::kRunningTasksPerChunk;
  std::vector<RunningChunk> chunks((running.size() + per_chunk - 1) / per_chunk);
  ForEachIndex(mode_, chunks.size(), [&](std::size_t c) {
    ListRunningChunk(std::span(running).subspan(c * per_chunk, std::min(per_chunk, running.size() - c * per_chunk)),
                     chunks[c]);
  });
  // With a running book (and diagrams: without them booking is a sum per
  // entry), the debits are listed there, and the book applies what changed.
  const bool keep = book_ != nullptr && ledger_.with_diagrams();
  RunningListing* wanted = keep ? &book_->wanted() : nullptr;
  std::vector<BookedDebit> own;  // without a book
  std::vector<BookedDebit>& debits = keep ? wanted->debits : own;
  // The quota debits stay in their chunks (a goal interval with quotas lists
  // 1.6 million): pointers to them go in order.
  std::vector<const QuotaUsage::PendingDebit*> quota_debits;
  std::size_t listed = 0, quota_listed = 0;
  for (const RunningChunk& chunk : chunks) {
    listed += chunk.list.debits.size();
    quota_listed += chunk.list.quota_debits.size();
  }
  debits.reserve(listed);
  quota_debits.reserve(quota_listed);
  for (RunningChunk& chunk : chunks) {
    const auto offset = static_cast<std::uint32_t>(debits.size());
    debits.insert(debits.end(), chunk.list.debits.begin(), chunk.list.debits.end());
    std::vector<BookedDebit>().swap(chunk.list.debits);  // freed for what follows
    for (const QuotaUsage::PendingDebit& q : chunk.list.quota_debits) quota_debits.push_back(&q);
    if (keep) {
      for (const RunningBooking& b : chunk.bookings) {
        wanted->bookings.push_back({b.job, b.task, b.first + offset, b.last + offset});
      }
    }
    for (UserId owner : chunk.counted) ++running_per_user_[owner.index()];
    for (HostId host : chunk.list.hosts) Touch(host);
  }
  // The cached last increases are all unknown still: no entry's is read before the loop.
  // With diagrams, the lines and the counters' diagrams number the quota debits' instances alike.
  FirstOccurrence<QuotaInstance> instances;
  if (ledger_.with_diagrams()) {
    instances = NumberByFirstOccurrence<QuotaInstance, QuotaInstanceHash>(
        quota_debits.size(), [&](std::size_t k) { return quota_debits[k]->instance; }, mode_);
  }
  AppendRunningLines(chunks, instances);
  quota_.DebitAll(quota_debits, mode_, ledger_.with_diagrams() ? &instances : nullptr);
  if (keep) {
    book_->Apply(ledger_, mode_);
  } else {
    ledger_.DebitAll(debits, mode_);  // every running task's debits at once
  }
}

void Interval::AppendRunningLines(std::vector<RunningChunk>& chunks, const FirstOccurrence<QuotaInstance>& instances) {
  // Where, in order, each chunk's lines and quota debits begin.
  std::vector<std::size_t> lines_at(chunks.size() + 1, result_.monitor.size()), quota_at(chunks.size() + 1, 0);
  for (std::size_t c = 0; c < chunks.size(); ++c) {
    lines_at[c + 1] = lines_at[c] + LinesOf(chunks[c].list);
    quota_at[c + 1] = quota_at[c] + chunks[c].list.quota_debits.size();
  }
  // The rule instances get their indices in the order the `L` lines first
  // name them, as NoteBooked gives them line by line; every quota debit
  // (`instances` numbers theirs) has its line where lines are written (with diagrams).
  std::vector<std::uint32_t> key_index;
  if (ledger_.with_diagrams()) {
    for (const QuotaInstance& instance : instances.distinct) key_index.push_back(QuotaKeyIndex(instance));
  }
  // The loop's lines follow: room for as many again as the running tasks'
  // (capacity never written takes no memory), so that its first line does not
  // copy them all, as a vector's growth would.
  result_.monitor.reserve(2 * lines_at.back());
  result_.monitor.resize(lines_at.back());
  ForEachIndex(mode_, chunks.size(), [&](std::size_t c) {
    std::size_t at = lines_at[c];
    ForEachLine(chunks[c].list, [&](MonitorRecord line) {
      if (line.container.level == ContainerLevel::kQuota) {
        line.container.index = key_index[instances.ids[quota_at[c] + line.container.index]];
      }
      result_.monitor[at++] = line;
    });
    std::vector<MonitorRecord>().swap(chunks[c].list.monitor);  // freed for what follows
  });
}

// --- booking -------------------------------------------------------------------------------------

// debit_scheduled_job: the PE, the global host for the whole job, then per
// granted queue instance (master first) its host and itself.
void Interval::ListBooking(const JobView& job, PeId pe, const std::vector<Grant>& grants, Time start, Duration d,
                           UsageState state, BookingList& list, QuotaUsage::RuleCache& rules) const {
  const bool now = state != UsageState::kReserving;
  std::uint32_t total = 0;
  for (const Grant& g : grants) total += g.slots;
  // `master`: the container is the master's; `first`: the job has not used
  // it before in this booking (a host can hold several of its queue instances).
  auto debit_one = [&](ContainerRef c, const Demand& demand, std::uint32_t slots, bool master, bool first) {
    double amount = demand.debit * slots;
    if (demand.kind == DemandKind::kPerJob) amount = master ? demand.debit : 0;
    if (demand.kind == DemandKind::kPerHost || demand.kind == DemandKind::kPerContainer) {
      amount = first ? demand.debit : 0;
    }
    if (amount == 0) return;
    list.debits.push_back({demand.entry, amount, start, d, now});
    const ConsumableEntry& entry = ledger_.entry(demand.entry);
    if (!entry.non_exclusive && ledger_.with_diagrams()) {  // no diagram, no line
      list.monitor.push_back({job.job, job.task, start, d, c, entry.complex, state, amount});
    }
  };
  // A queue instance books its complex_values consumables first, in their
  // configured order, and its slots last (the MONITOR order of a real 8.1.9 cell).
  auto debit = [&](ContainerRef c, std::uint32_t slots, bool master, bool first) {
    std::optional<Demand> slot_demand;
    ForEachDemand(c, job, [&](const Demand& demand) {
      if (c.level == ContainerLevel::kQueue && ledger_.entry(demand.entry).complex == complexes_.slots) {
        slot_demand = demand;
        return;
      }
      debit_one(c, demand, slots, master, first);
    });
    if (slot_demand) debit_one(c, *slot_demand, slots, master, first);
  };
  if (pe.valid()) debit({ContainerLevel::kPe, pe.index()}, total, true, true);
  debit({ContainerLevel::kGlobal, 0}, total, true, true);
  for (std::size_t g = 0; g < grants.size(); ++g) {
    const HostId host = instances_.host[grants[g].instance];
    bool first_on_host = true;
    for (std::size_t e = 0; e < g; ++e) first_on_host &= instances_.host[grants[e].instance] != host;
    debit({ContainerLevel::kHost, host.index()}, grants[g].slots, g == 0, first_on_host);
    list.hosts.push_back(host);
    debit({ContainerLevel::kQueue, grants[g].instance}, grants[g].slots, g == 0, true);
  }
  ListQuotaDebits(job, pe, grants, start, d, list, rules);
  list.listed.push_back({job.job, job.task, state, static_cast<std::uint32_t>(list.monitor.size()),
                         static_cast<std::uint32_t>(list.quota_debits.size())});
}

template <class Emit>
void Interval::ForEachLine(const BookingList& list, Emit emit) const {
  std::uint32_t line = 0, debit = 0;
  for (const BookingList::Listed& b : list.listed) {
    for (; line < b.monitor_end; ++line) emit(list.monitor[line]);
    if (!ledger_.with_diagrams()) {  // no diagram, no line
      debit = b.quota_end;
      continue;
    }
    for (; debit < b.quota_end; ++debit) {
      const QuotaUsage::PendingDebit& q = list.quota_debits[debit];
      const ComplexId resource = cluster_.quota_sets[q.instance.set].rules[q.instance.rule].limits[q.limit].attribute;
      const ContainerRef container{ContainerLevel::kQuota, debit};  // its debit's place until renumbered
      emit(MonitorRecord{b.job, b.task, q.window.start, q.window.duration, container, resource, b.state, q.amount});
    }
  }
}

void Interval::Book(const JobView& job, PeId pe, const std::vector<Grant>& grants, Time start, Duration d,
                    UsageState state) {
  booking_.clear();
  ListBooking(job, pe, grants, start, d, state, booking_, booking_rules_);
  ledger_.DebitAll(booking_.debits, mode_);
  for (const QuotaUsage::PendingDebit& q : booking_.quota_debits) {
    if (state == UsageState::kReserving) {
      quota_.Reserve(q.instance, q.limit, q.amount, q.window);
    } else {
      quota_.Debit(q.instance, q.limit, q.amount, q.window);
    }
  }
  NoteBooked(booking_);
}

void Interval::NoteBooked(const BookingList& list) {
  for (const BookedDebit& debit : list.debits) last_increase_known_[debit.entry] = 0;
  for (HostId host : list.hosts) Touch(host);
  ForEachLine(list, [&](MonitorRecord line) {
    if (line.container.level == ContainerLevel::kQuota) {
      line.container.index = QuotaKeyIndex(list.quota_debits[line.container.index].instance);
    }
    result_.monitor.push_back(line);
  });
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
  if (progress_ != nullptr && result_.decisions.size() - reported_ >= tuning::kProgressEvery) {
    reported_ = result_.decisions.size();
    (*progress_)(result_);
  }
}

}  // namespace schedk::dispatch_detail
