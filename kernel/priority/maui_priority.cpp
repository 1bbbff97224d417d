#include "kernel/priority/maui_priority.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_sort.h>

#include "kernel/dispatch/job_duration.hpp"
#include "kernel/util/sort_key.hpp"

namespace schedk {
namespace {

constexpr double kMegabyte = 1024.0 * 1024.0;

std::size_t Index(MauiSub s) { return static_cast<std::size_t>(s); }
std::size_t Index(MauiComponent c) { return static_cast<std::size_t>(c); }

// min(value, cap) for a positive cap (Maui's caps bound from above only).
double Capped(double value, std::int64_t cap) { return cap > 0 ? std::min(value, static_cast<double>(cap)) : value; }

// The job's amount of one resource, in MB: per slot unless the consumable is per job.
double RequestedMegabytes(const RequestSet& rs, const ComplexTable& complexes, std::optional<ComplexId> id, double slots) {
  if (!id) return 0;
  const ComplexValue* v = FindValue(rs.hard, *id);
  if (v == nullptr) return 0;
  const double per = (*id).valid() && complexes[*id].consumable == Consumable::kJob ? 1.0 : slots;
  return v->number * per / kMegabyte;
}

// The cluster's capacity of one resource in MB: each host's complex value, else its load value.
double TotalMegabytes(const Cluster& cluster, std::optional<ComplexId> id) {
  if (!id) return 0;
  double total = 0;
  for (const ExecHost& host : cluster.hosts) {
    const ComplexValue* v = FindValue(host.complex_values, *id);
    if (v == nullptr) v = FindValue(host.load_values, *id);
    if (v != nullptr) total += v->number;
  }
  return total / kMegabyte;
}

}  // namespace

double FairShareUsage(std::span<const double> windows, double decay, std::uint32_t depth) {
  if (windows.empty() || depth == 0) return 0;
  double older = 0;
  for (std::size_t i = 1; i < windows.size() && i < depth; ++i) older += windows[i] * std::pow(decay, static_cast<double>(i));
  return windows[0] + older;
}

double ExpansionFactor(double queue_seconds, Duration wclimit, Duration min_wclimit) {
  const Duration limit = std::max(wclimit, min_wclimit);
  if (limit == 0) return 1.0;
  return 1.0 + queue_seconds / static_cast<double>(limit);
}

double MauiFactors::Contribution(const MauiConfig& config, MauiSub s) const {
  return static_cast<double>(config.weight(ComponentOf(s))) * weight[Index(s)] * factor[Index(s)];
}

double MauiFactors::Contribution(const MauiConfig& config, MauiComponent c) const {
  return static_cast<double>(config.weight(c)) * component[Index(c)];
}

MauiPriorityContext::MauiPriorityContext(const Cluster& cluster, const JobTable& jobs)
    : cluster_(cluster), config_(cluster.maui) {
  // Per request set: the requested amounts and the class.
  requests_.resize(jobs.request_sets().size());
  for (std::size_t i = 0; i < requests_.size(); ++i) {
    const RequestSet& rs = jobs.request_sets()[i];
    RequestValues& r = requests_[i];
    const std::uint32_t slots = UrgencySlotCount(rs, cluster.pes);
    r.procs = slots;
    r.nodes = 1;
    if (rs.has_pe && !rs.pe.matching.empty()) {
      const ParallelEnvironment& pe = cluster.pes[rs.pe.matching.front().index()];
      switch (pe.allocation_rule) {
        case AllocationRule::kPeSlots: break;
        case AllocationRule::kFixed: r.nodes = std::ceil(static_cast<double>(slots) / pe.slots_per_host); break;
        case AllocationRule::kFillUp:
        case AllocationRule::kRoundRobin: r.nodes = slots; break;  // at most one slot per host
      }
    }
    r.mem = RequestedMegabytes(rs, cluster.complexes, config_.mem_resource, slots);
    r.swap = RequestedMegabytes(rs, cluster.complexes, config_.swap_resource, slots);
    r.disk = RequestedMegabytes(rs, cluster.complexes, config_.disk_resource, slots);
    auto limit = [&](ComplexId id) -> std::optional<Duration> {
      if (!id.valid()) return std::nullopt;
      const ComplexValue* v = FindValue(rs.hard, id);
      if (v == nullptr) return std::nullopt;
      return static_cast<Duration>(v->number);
    };
    const Duration d = PendingJobDuration(limit(cluster.complexes.h_rt), limit(cluster.complexes.s_rt),
                                          cluster.config.default_duration, 0);
    r.wclimit = d >= kInfiniteDuration ? 0 : d;
    for (const QueueSelector& q : rs.queue_hard) {
      if (q.queue.valid()) {
        r.job_class = q.queue;
        break;
      }
    }
  }
  // Cluster capacity for processor equivalents: per host, its queue
  // instances' slots, at most the host's own slots value.
  std::vector<double> host_slots(cluster.hosts.size(), 0.0);
  for (const ClusterQueue& q : cluster.queues) {
    for (HostId host : q.hosts) host_slots[host.index()] += q.slots.For(host, cluster.hostgroups);
  }
  for (std::size_t h = 0; h < host_slots.size(); ++h) {
    const ComplexValue* cap = cluster.complexes.slots.valid()
                                  ? FindValue(cluster.hosts[h].complex_values, cluster.complexes.slots)
                                  : nullptr;
    total_procs_ += cap != nullptr ? std::min(host_slots[h], cap->number) : host_slots[h];
  }
  total_mem_ = TotalMegabytes(cluster, config_.mem_resource);
  total_swap_ = TotalMegabytes(cluster, config_.swap_resource);
  total_disk_ = TotalMegabytes(cluster, config_.disk_resource);
  // Per credential: PRIORITY and the fair-share factor, DEFAULT last.
  constexpr MauiSub kCredSub[] = {MauiSub::kUser, MauiSub::kGroup, MauiSub::kAccount, MauiSub::kQos, MauiSub::kClass};
  constexpr MauiSub kFsSub[] = {MauiSub::kFsUser, MauiSub::kFsGroup, MauiSub::kFsAccount, MauiSub::kFsQos,
                                MauiSub::kFsClass};
  for (std::size_t k = 0; k < kMauiCredentials; ++k) {
    const MauiCredentialTable& table = config_.credentials[k];
    const std::size_t n = table.by_id.size();
    cred_factor_[k].assign(n + 1, 0.0);
    fs_factor_[k].assign(n + 1, 0.0);
    for (std::size_t id = 0; id <= n; ++id) {
      const MauiCredentialSettings& own = id < n ? table.by_id[id] : table.fallback;
      const MauiCredentialSettings& fallback = table.fallback;
      const std::int64_t priority = own.priority != 0 ? own.priority : fallback.priority;
      cred_factor_[k][id] = Capped(static_cast<double>(priority), config_.sub_cap[Index(kCredSub[k])]);
      const bool own_target = own.fs_target > 0;
      const double target = own_target ? own.fs_target : fallback.fs_target;
      const FairShareTargetMode mode = own_target ? own.fs_mode : fallback.fs_mode;
      double fs = 0;
      if (config_.fs_policy != FairSharePolicy::kNone && target > 0 && table.fs_total > 0) {
        const double usage = id < n ? table.Usage(static_cast<std::uint32_t>(id)) : 0.0;
        fs = target - usage / table.fs_total * 100.0;
        if (mode == FairShareTargetMode::kFloor) fs = std::max(fs, 0.0);
        if (mode == FairShareTargetMode::kCeiling) fs = std::min(fs, 0.0);
      }
      fs_factor_[k][id] = Capped(fs, config_.sub_cap[Index(kFsSub[k])]);
    }
  }
}

double MauiPriorityContext::CredentialValue(const std::array<std::vector<double>, kMauiCredentials>& table,
                                            MauiCredential kind, std::uint32_t id) const {
  const std::vector<double>& values = table[static_cast<std::size_t>(kind)];
  return id < values.size() - 1 ? values[id] : values.back();  // unknown ids and None take DEFAULT's
}

MauiFactors MauiPriorityContext::Factors(const JobShard& shard, std::size_t row, RowRole role) const {
  MauiFactors f;
  const MauiConfig& c = config_;
  const Time now = cluster_.now;
  for (std::size_t s = 0; s < kMauiSubs; ++s) f.weight[s] = static_cast<double>(c.sub_weight[s]);
  const RequestValues& req = requests_[shard.requests[row].index()];
  const JobExtras* extras = shard.extras_of(row);
  const bool running = role == RowRole::kRunning || role == RowRole::kSuspended;

  // Credentials: user, group, account (project), QOS, class (queue).
  QueueId job_class = req.job_class;
  double procs = req.procs, nodes = req.nodes;
  if (running && extras != nullptr && !extras->granted.empty()) {
    job_class = extras->granted.front().queue;
    procs = 0;
    std::vector<HostId> hosts;
    for (const GrantedSlots& g : extras->granted) {
      procs += g.slots;
      if (std::find(hosts.begin(), hosts.end(), g.host) == hosts.end()) hosts.push_back(g.host);
    }
    nodes = static_cast<double>(hosts.size());
  }
  const std::uint32_t ids[kMauiCredentials] = {shard.owner[row].value, shard.group[row].value, shard.project[row].value,
                                               shard.qos_of(row).value, job_class.value};
  constexpr MauiSub kCredSub[] = {MauiSub::kUser, MauiSub::kGroup, MauiSub::kAccount, MauiSub::kQos, MauiSub::kClass};
  constexpr MauiSub kFsSub[] = {MauiSub::kFsUser, MauiSub::kFsGroup, MauiSub::kFsAccount, MauiSub::kFsQos,
                                MauiSub::kFsClass};
  for (std::size_t k = 0; k < kMauiCredentials; ++k) {
    const auto kind = static_cast<MauiCredential>(k);
    f.factor[Index(kCredSub[k])] = CredentialValue(cred_factor_, kind, ids[k]);
    f.factor[Index(kFsSub[k])] = CredentialValue(fs_factor_, kind, ids[k]);
  }
  const MauiCredentialTable& qos_table = c.table(MauiCredential::kQos);
  const MauiCredentialSettings* qos = qos_table.Find(ids[3]);
  if (qos == nullptr) qos = &qos_table.fallback;
  f.weight[Index(MauiSub::kQueueTime)] += static_cast<double>(qos->qt_weight);
  f.weight[Index(MauiSub::kXFactor)] += static_cast<double>(qos->xf_weight);

  // Service: queue time accrues from submission (ALWAYS) or from eligibility,
  // and not while the job is held or waits on a predecessor; it stops at start.
  const Time accrual_start = c.accrual == QueueTimeAccrual::kAlways ? shard.submit[row] : shard.eligible_since(row);
  const Time queue_end = running && extras != nullptr ? extras->start : now;
  double queue_seconds = std::max<double>(0.0, static_cast<double>(queue_end - accrual_start));
  if (role == RowRole::kInactive && c.accrual != QueueTimeAccrual::kAlways) queue_seconds = 0;
  const double xfactor = ExpansionFactor(queue_seconds, req.wclimit, c.xf_min_wclimit);
  f.factor[Index(MauiSub::kQueueTime)] = queue_seconds / 60.0;
  f.factor[Index(MauiSub::kXFactor)] = xfactor;
  f.factor[Index(MauiSub::kBypass)] = shard.bypass(row);
  // Target: grows as the QOS's queue-time and expansion-factor targets come near.
  if (qos->qt_target > 0) {
    const double left = static_cast<double>(qos->qt_target) / 60.0 - queue_seconds / 60.0;
    f.factor[Index(MauiSub::kTargetQueueTime)] = std::pow(std::max(0.0001, left), -2.0);
  }
  if (qos->xf_target > 0) {
    f.factor[Index(MauiSub::kTargetXFactor)] = std::pow(std::max(0.0001, qos->xf_target - xfactor), -2.0);
  }
  // Resources requested.
  const double wclimit = static_cast<double>(req.wclimit);
  f.factor[Index(MauiSub::kNode)] = nodes;
  f.factor[Index(MauiSub::kProc)] = procs;
  f.factor[Index(MauiSub::kMem)] = req.mem;
  f.factor[Index(MauiSub::kSwap)] = req.swap;
  f.factor[Index(MauiSub::kDisk)] = req.disk;
  f.factor[Index(MauiSub::kProcSeconds)] = procs * wclimit;
  double share = total_procs_ > 0 ? procs / total_procs_ : 0.0;
  if (total_mem_ > 0) share = std::max(share, req.mem / total_mem_);
  if (total_swap_ > 0) share = std::max(share, req.swap / total_swap_);
  if (total_disk_ > 0) share = std::max(share, req.disk / total_disk_);
  f.factor[Index(MauiSub::kProcEquivalent)] = share * total_procs_;
  f.factor[Index(MauiSub::kWalltime)] = wclimit;
  // Usage: running jobs only.
  if (running && extras != nullptr) {
    const double elapsed = std::max<double>(0.0, static_cast<double>(now - extras->start));
    f.factor[Index(MauiSub::kConsumed)] = procs * elapsed;
    f.factor[Index(MauiSub::kRemaining)] = procs * std::max(0.0, wclimit - elapsed);
    f.factor[Index(MauiSub::kPercent)] = wclimit > 0 ? elapsed / wclimit * 100.0 : 0.0;
    f.factor[Index(MauiSub::kExecutionTime)] = elapsed;
  }
  // Subcomponent caps (the credential and fair-share ones are already applied), then the sums.
  for (std::size_t s = 0; s < kMauiSubs; ++s) {
    const auto sub = static_cast<MauiSub>(s);
    const MauiComponent comp = ComponentOf(sub);
    if (comp != MauiComponent::kCred && comp != MauiComponent::kFairShare) f.factor[s] = Capped(f.factor[s], c.sub_cap[s]);
    f.component[Index(comp)] += f.weight[s] * f.factor[s];
  }
  for (std::size_t k = 0; k < kMauiComponents; ++k) {
    f.component[k] = Capped(f.component[k], c.component_cap[k]);
    const double part = static_cast<double>(c.component_weight[k]) * f.component[k];
    f.total += part;
    f.abs_total += std::fabs(part);
  }
  double priority = f.total;
  if (!c.enable_negative_priority && !c.reject_negative_priority && priority < 1.0) priority = 1.0;
  priority = std::min(priority, kMauiMaxPriority);
  f.priority = std::trunc(priority);
  return f;
}

namespace {

// A row in the order: priority (descending), submission, job number, then the row's first task.
struct RowKey {
  SortKey128 key;
  TaskNumber first_task;
  std::uint32_t row;
};
bool operator<(const RowKey& a, const RowKey& b) {
  return std::tie(a.key, a.first_task, a.row) < std::tie(b.key, b.first_task, b.row);
}

RowKey MakeRowKey(double priority, const JobShard& shard, std::size_t r, std::uint32_t flat) {
  const std::uint64_t low = (std::uint64_t{static_cast<std::uint32_t>(shard.submit[r])} << 32) | shard.number[r];
  return RowKey{{DescendingBits(priority), low}, shard.task_first[r], flat};
}

}  // namespace

PriorityResult ComputeMauiPriorities(const Cluster& cluster, const JobTable& jobs, ExecutionMode mode) {
  PriorityResult result;
  result.policy = PriorityPolicy::kMaui;
  result.roles = ClassifyRows(jobs, mode);
  const MauiPriorityContext context(cluster, jobs);
  const RowIndex index(jobs);
  const std::size_t rows = jobs.rows();
  // Each row's key, or none for rows whose priority orders nothing.
  enum Section : std::uint8_t { kDispatch, kRunning, kRest };
  std::vector<RowKey> keys(rows);
  std::vector<std::uint8_t> section(rows);
  auto rank = [&](std::size_t flat) {
    const JobShard& shard = jobs.shards()[index.shard(static_cast<std::uint32_t>(flat))];
    const std::size_t r = index.row(static_cast<std::uint32_t>(flat));
    const RowRole role = result.roles[flat];
    if (role == RowRole::kInactive) {
      section[flat] = kRest;
      keys[flat] = RowKey{{0, shard.number[r]}, shard.task_first[r], static_cast<std::uint32_t>(flat)};
      return;
    }
    const MauiFactors f = context.Factors(shard, r, role);
    keys[flat] = MakeRowKey(f.priority, shard, r, static_cast<std::uint32_t>(flat));
    if (role == RowRole::kDispatchable) {
      const bool rejected = cluster.maui.reject_negative_priority && f.priority < 0;
      section[flat] = rejected ? kRest : kDispatch;
      if (rejected) keys[flat] = RowKey{{0, shard.number[r]}, shard.task_first[r], static_cast<std::uint32_t>(flat)};
    } else {
      section[flat] = kRunning;
    }
  };
  ForEachRange(mode, 0, rows, 4096, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i != end; ++i) rank(i);
  });
  // Sections in order, each sorted by its key.
  std::vector<RowKey> ordered[3];
  for (std::size_t i = 0; i < rows; ++i) ordered[section[i]].push_back(keys[i]);
  std::vector<RowKey>().swap(keys);
  for (auto& part : ordered) {
    if (mode == ExecutionMode::kParallel) tbb::parallel_sort(part.begin(), part.end());
    else std::sort(part.begin(), part.end());
  }
  // Expand rows into tasks: each section's rows in order, each row's tasks in task order.
  std::size_t total = 0;
  std::vector<std::size_t> first[3];
  for (int s = 0; s < 3; ++s) {
    first[s].resize(ordered[s].size() + 1);
    for (std::size_t k = 0; k < ordered[s].size(); ++k) {
      first[s][k] = total;
      const std::uint32_t flat = ordered[s][k].row;
      total += jobs.shards()[index.shard(flat)].task_count(index.row(flat));
    }
    first[s].back() = total;
    if (s == kDispatch) result.dispatchable_tasks = total;
  }
  result.order.resize(total);
  for (int s = 0; s < 3; ++s) {
    auto expand = [&](std::size_t k) {
      const std::uint32_t flat = ordered[s][k].row;
      const JobShard& shard = jobs.shards()[index.shard(flat)];
      const std::size_t r = index.row(flat);
      std::size_t out = first[s][k];
      for (TaskNumber t = shard.task_first[r];; t += shard.task_step[r]) {
        result.order[out] = DispatchEntry{flat, t, kNoRef, out == first[s][k]};
        ++out;
        if (shard.task_last[r] - t < shard.task_step[r]) break;
      }
    };
    ForEachRange(mode, 0, ordered[s].size(), 4096, [&](std::size_t begin, std::size_t end) {
      for (std::size_t k = begin; k != end; ++k) expand(k);
    });
  }
  return result;
}

}  // namespace schedk
