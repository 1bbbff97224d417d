#include "io/schedule_writer.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <vector>

#include "io/json_text.hpp"
#include "io/quota_text.hpp"
#include "io/row_text.hpp"
#include "io/tuning.hpp"

namespace schedk::io {
namespace {

// Appends `value` in decimal.
template <class Integer>
void AppendInteger(std::string& out, Integer value) {
  char digits[24];  // a 64-bit number has at most 20 digits and a sign
  out.append(digits, std::to_chars(digits, digits + sizeof digits, value).ptr);
}

void AppendInstanceName(std::string& out, const Snapshot& s, const QueueInstanceTable& instances, std::uint32_t i) {
  out += s.names.queues.Name(instances.queue[i].value);
  out += '@';
  out += s.names.hosts.Name(instances.host[i].value);
}

std::string InstanceName(const Snapshot& s, const QueueInstanceTable& instances, std::uint32_t i) {
  std::string name;
  AppendInstanceName(name, s, instances, i);
  return name;
}

std::string ComplexName(const Snapshot& s, std::uint32_t id) {
  return id < s.names.complexes.size() ? s.names.complexes.Name(id) : std::string("?");
}

const char* StateName(UsageState state) {
  switch (state) {
    case UsageState::kRunning: return "RUNNING";
    case UsageState::kSuspended: return "SUSPENDED";
    case UsageState::kStarting: return "STARTING";
    case UsageState::kReserving: return "RESERVING";
  }
  return "?";
}

char LevelLetter(ContainerLevel level) {
  switch (level) {
    case ContainerLevel::kPe: return 'P';
    case ContainerLevel::kGlobal: return 'G';
    case ContainerLevel::kHost: return 'H';
    case ContainerLevel::kQueue: return 'Q';
    case ContainerLevel::kQuota: return 'L';
  }
  return '?';
}

void AppendObjectName(std::string& out, const Snapshot& s, const QueueInstanceTable& instances, const ScheduleResult& r,
                      ContainerRef c) {
  switch (c.level) {
    case ContainerLevel::kPe:
      out += s.names.pes.Name(c.index);
      return;
    case ContainerLevel::kGlobal:
      out += "global";
      return;
    case ContainerLevel::kHost:
      out += s.names.hosts.Name(c.index);
      return;
    case ContainerLevel::kQueue:
      AppendInstanceName(out, s, instances, c.index);
      return;
    case ContainerLevel::kQuota:
      out += s.cluster.quota_sets[r.quota_keys[c.index].set].name;
      return;
  }
  out += '?';
}

std::string ObjectName(const Snapshot& s, const QueueInstanceTable& instances, const ScheduleResult& r,
                       ContainerRef c) {
  std::string name;
  AppendObjectName(name, s, instances, r, c);
  return name;
}

// The name field: the resource, or for a quota line (L) the rule instance's usage key.
void AppendResourceName(std::string& out, const Snapshot& s, const ScheduleResult& r, const MonitorRecord& m) {
  if (m.container.level == ContainerLevel::kQuota) {
    out += QuotaKeyText(s.names, r.quota_keys[m.container.index]);
  } else if (m.resource.value < s.names.complexes.size()) {
    out += s.names.complexes.Name(m.resource.value);
  } else {
    out += '?';
  }
}

std::string ResourceName(const Snapshot& s, const ScheduleResult& r, const MonitorRecord& m) {
  std::string name;
  AppendResourceName(name, s, r, m);
  return name;
}

}  // namespace

void AppendFixedAmount(std::string& out, double amount) {
  char digits[512];  // %f of the largest double has 309 integer digits
  const std::to_chars_result end = std::to_chars(digits, digits + sizeof digits, amount, std::chars_format::fixed, 6);
  out.append(digits, end.ptr);
}

namespace {

// schedd_serf_record_func's line: %f amounts, `end - start` capped at U32MAX.
void AppendMonitorLine(std::string& out, const Snapshot& s, const QueueInstanceTable& instances,
                       const ScheduleResult& r, const MonitorRecord& m) {
  const Time end = DiagramEnd(m.start, m.duration);
  AppendInteger(out, m.job);
  out += ':';
  AppendInteger(out, m.task);
  out += ':';
  out += StateName(m.state);
  out += ':';
  AppendInteger(out, m.start);
  out += ':';
  AppendInteger(out, end - m.start);
  out += ':';
  out += LevelLetter(m.container.level);
  out += ':';
  AppendObjectName(out, s, instances, r, m.container);
  out += ':';
  AppendResourceName(out, s, r, m);
  out += ':';
  AppendFixedAmount(out, m.amount);
}

// The record's type, then the session's request id when there is one.
void AppendType(std::string& out, const char* type, std::string_view tag, bool text) {
  if (text) {
    out += type;
    if (!tag.empty()) {
      out += ' ';
      out += tag;
    }
    return;
  }
  out += "{\"type\":\"";
  out += type;
  out += '"';
  if (!tag.empty()) {
    out += ",\"id\":";
    AppendJsonString(out, tag);
  }
}

void AppendMonitorJson(std::string& out, const Snapshot& s, const QueueInstanceTable& instances,
                       const ScheduleResult& r, const MonitorRecord& m, std::string_view tag) {
  AppendType(out, "sched", tag, false);
  out += ",\"job\":";
  AppendInteger(out, m.job);
  out += ",\"task\":";
  AppendInteger(out, m.task);
  out += ",\"state\":\"";
  out += StateName(m.state);
  out += "\",\"start\":";
  AppendInteger(out, m.start);
  out += ",\"duration\":";
  AppendInteger(out, DiagramEnd(m.start, m.duration) - m.start);
  out += ",\"level\":\"";
  out += LevelLetter(m.container.level);
  out += "\",\"object\":";
  AppendJsonString(out, ObjectName(s, instances, r, m.container));
  out += ",\"resource\":";
  AppendJsonString(out, ResourceName(s, r, m));
  out += ",\"amount\":";
  AppendJsonNumber(out, m.amount);
  out += "}\n";
}

// The text after `pending <job>.<task>`: ` reason=<code> "<text>"` and the
// newline. Most pending tasks share a few reasons, so a block keeps the ones
// it has written.
class PendingTails {
 public:
  const std::string& Of(const Snapshot& s, const QueueInstanceTable& instances, const ScheduleResult& r,
                        const Decision& d) {
    const std::uint64_t key = (std::uint64_t{static_cast<std::uint8_t>(d.reason)} << 40) |
                              (std::uint64_t{static_cast<std::uint8_t>(d.never)} << 32) | d.object;
    for (const auto& [k, tail] : tails_) {
      if (k == key) return tail;
    }
    std::string tail = " reason=" + ReasonCode(s, instances, r, d) + " \"";
    for (char c : ReasonText(s, instances, r, d)) {
      if (c == '"' || c == '\\') tail += '\\';
      tail += c;
    }
    tail += "\"\n";
    if (tails_.size() == kKept) tails_.erase(tails_.begin());
    tails_.emplace_back(key, std::move(tail));
    return tails_.back().second;
  }

 private:
  static constexpr std::size_t kKept = tuning::kKeptPendingTails;
  std::vector<std::pair<std::uint64_t, std::string>> tails_;
};

void AppendTaskId(std::string& out, JobNumber job, TaskNumber task) {
  AppendInteger(out, job);
  out += '.';
  AppendInteger(out, task);
}

void AppendDecision(std::string& out, const Snapshot& s, const QueueInstanceTable& instances,
                    const ScheduleResult& r, const Decision& d, ScheduleFormat format, std::string_view tag,
                    PendingTails& tails) {
  const bool text = format == ScheduleFormat::kText;
  if (d.kind == DecisionKind::kPending && text) {
    AppendType(out, "pending", tag, true);
    out += ' ';
    AppendTaskId(out, d.job, d.task);
    out += tails.Of(s, instances, r, d);
    return;
  }
  const std::string id = std::to_string(d.job) + "." + std::to_string(d.task);
  if (d.kind == DecisionKind::kPending) {
    const std::string code = ReasonCode(s, instances, r, d);
    const std::string why = ReasonText(s, instances, r, d);
    AppendType(out, "pending", tag, false);
    {
      out += ",\"job\":" + std::to_string(d.job) + ",\"task\":" + std::to_string(d.task) +
             ",\"reason\":";
      AppendJsonString(out, code);
      out += ",\"text\":";
      AppendJsonString(out, why);
      out += "}\n";
    }
    return;
  }
  const char* kind = d.kind == DecisionKind::kStart ? "start" : "reserve";
  const Duration dur = d.duration;  // the assumed duration; kInfiniteDuration for an unlimited job
  AppendType(out, kind, tag, text);
  if (text) {
    out += " " + id + " at=" + std::to_string(d.at) + " dur=" + std::to_string(dur) +
           " slots=" + std::to_string(d.slots);
    if (d.pe.valid()) out += " pe=" + s.names.pes.Name(d.pe.value);
    out += " granted=";
    for (std::uint32_t g = d.grant_begin; g < d.grant_end; ++g) {
      if (g > d.grant_begin) out += ',';
      AppendInstanceName(out, s, instances, r.grants[g].instance);
      out += ':';
      AppendInteger(out, r.grants[g].slots);
    }
    out += '\n';
  } else {
    out += ",\"job\":" + std::to_string(d.job) +
           ",\"task\":" + std::to_string(d.task) + ",\"at\":" + std::to_string(d.at) +
           ",\"dur\":" + std::to_string(dur) + ",\"slots\":" + std::to_string(d.slots);
    if (d.pe.valid()) {
      out += ",\"pe\":";
      AppendJsonString(out, s.names.pes.Name(d.pe.value));
    }
    out += ",\"granted\":[";
    for (std::uint32_t g = d.grant_begin; g < d.grant_end; ++g) {
      if (g > d.grant_begin) out += ',';
      out += "{\"qi\":";
      AppendJsonString(out, InstanceName(s, instances, r.grants[g].instance));
      out += ",\"slots\":" + std::to_string(r.grants[g].slots) + "}";
    }
    out += "]}\n";
  }
}

void AppendMonitor(std::string& out, const Snapshot& s, const QueueInstanceTable& instances, const ScheduleResult& r,
                   std::uint32_t begin, std::uint32_t end, ScheduleFormat format, std::string_view tag) {
  for (std::uint32_t m = begin; m < end; ++m) {
    if (format == ScheduleFormat::kText) {
      AppendType(out, "sched", tag, true);
      out += ' ';
      AppendMonitorLine(out, s, instances, r, r.monitor[m]);
      out += '\n';
    } else {
      AppendMonitorJson(out, s, instances, r, r.monitor[m], tag);
    }
  }
}

constexpr std::size_t kItemsPerBlock = tuning::kScheduleItemsPerBlock;

}  // namespace

std::string ReasonCode(const Snapshot& s, const QueueInstanceTable& instances, const ScheduleResult& r,
                       const Decision& d) {
  switch (d.reason) {
    case PendingReason::kNone: return "none";
    case PendingReason::kHold: return "hold";
    case PendingReason::kDependency: return "dependency";
    case PendingReason::kNoSlots: return "no-slots";
    case PendingReason::kResource: return "resource:" + ComplexName(s, d.object);
    case PendingReason::kQueue: return "queue:" + s.names.queues.Name(d.object);
    case PendingReason::kPe: return "pe:" + s.names.pes.Name(d.object);
    case PendingReason::kLoadThreshold:
      return d.object == UINT32_MAX ? "load-threshold" : "load-threshold:" + InstanceName(s, instances, d.object);
    case PendingReason::kUserLimit: return "user-limit";
    case PendingReason::kArrayTaskLimit: return "array-task-limit";
    case PendingReason::kReservationBlocked: return "reservation-blocked";
    case PendingReason::kQuota: return "rqs:" + QuotaRuleName(s.cluster, r.quota_excesses[d.object].instance);
    case PendingReason::kNever:
      switch (d.never) {
        case NeverCause::kNoQueue: return "never:no-queue";
        case NeverCause::kExceedsCapacity: return "never:capacity:" + ComplexName(s, d.object);
        case NeverCause::kBookedOut: return "never:booked-out:" + ComplexName(s, d.object);
        case NeverCause::kNoPe: return "never:pe";
        case NeverCause::kImmediate: return "never:immediate";
        case NeverCause::kErrorState: return "never:error";
        case NeverCause::kNone: return "never";
      }
  }
  return "none";
}

std::string ReasonText(const Snapshot& s, const QueueInstanceTable& instances, const ScheduleResult& r,
                       const Decision& d) {
  switch (d.reason) {
    case PendingReason::kNone: return "";
    case PendingReason::kHold: return "the job is on hold";
    case PendingReason::kDependency: return "waiting for the jobs it depends on (hold_jid)";
    case PendingReason::kNoSlots: return "no queue instance has a free slot";
    case PendingReason::kResource: return "not enough " + ComplexName(s, d.object) + " free now";
    case PendingReason::kQueue: return "no instance of queue " + s.names.queues.Name(d.object) + " fits";
    case PendingReason::kPe: return "parallel environment " + s.names.pes.Name(d.object) + " has too few free slots";
    case PendingReason::kLoadThreshold: return "the queue instances that fit are in load alarm or on hosts that are down";
    case PendingReason::kUserLimit: return "the user has maxujobs jobs running";
    case PendingReason::kArrayTaskLimit: return "not all array tasks may be started due to max_aj_instances or -tc";
    case PendingReason::kReservationBlocked:
      return "it would fit now, but reservations of higher-priority jobs block it";
    case PendingReason::kQuota: {
      const QuotaInstance& instance = r.quota_excesses[d.object].instance;
      return "cannot run because it exceeds limit \"" + QuotaKeyText(s.names, instance) + "\" in rule \"" +
             QuotaRuleName(s.cluster, instance) + "\"";
    }
    case PendingReason::kNever:
      switch (d.never) {
        case NeverCause::kNoQueue: return "no queue instance matches its requests and access lists";
        case NeverCause::kExceedsCapacity: return "it requests more " + ComplexName(s, d.object) + " than exists";
        case NeverCause::kBookedOut:
          return ComplexName(s, d.object) + " is booked out until the end of the plan";
        case NeverCause::kNoPe: return "no parallel environment can give it its slot range";
        case NeverCause::kImmediate: return "an immediate job that could not start now";
        case NeverCause::kErrorState: return "the job is in error state";
        case NeverCause::kNone: return "it can never run";
      }
  }
  (void)instances;
  return "";
}

bool WriteScheduleRecords(const Snapshot& snapshot, const QueueInstanceTable& instances, const ScheduleResult& result,
                          ScheduleFormat format, const std::function<bool(std::string_view)>& sink,
                          std::string_view tag) {
  // Blocks of the running tasks' monitor lines, then blocks of decisions (each
  // with its own lines), formatted in parallel a batch at a time and handed
  // over in order, so the text held at once stays bounded.
  const std::size_t running_blocks = (result.running_monitor + kItemsPerBlock - 1) / kItemsPerBlock;
  const std::size_t decision_blocks = (result.decisions.size() + kItemsPerBlock - 1) / kItemsPerBlock;
  const std::size_t blocks = running_blocks + decision_blocks;
  auto format_block = [&](std::size_t b, std::string& out) {
    if (b < running_blocks) {
      const auto begin = static_cast<std::uint32_t>(b * kItemsPerBlock);
      const auto end = static_cast<std::uint32_t>(std::min<std::size_t>(result.running_monitor, (b + 1) * kItemsPerBlock));
      AppendMonitor(out, snapshot, instances, result, begin, end, format, tag);
      return;
    }
    const std::size_t first = (b - running_blocks) * kItemsPerBlock;
    const std::size_t last = std::min(result.decisions.size(), first + kItemsPerBlock);
    PendingTails tails;
    for (std::size_t i = first; i < last; ++i) {
      const Decision& d = result.decisions[i];
      AppendDecision(out, snapshot, instances, result, d, format, tag, tails);
      AppendMonitor(out, snapshot, instances, result, d.monitor_begin, d.monitor_end, format, tag);
    }
  };
  return WriteBlocks(blocks, tuning::kScheduleBlocksPerBatch, format_block, sink);
}

bool WriteScheduleDone(const ScheduleResult& result, ScheduleFormat format, double elapsed_ms,
                       const std::function<bool(std::string_view)>& sink, std::string_view tag) {
  char ms[32];
  std::snprintf(ms, sizeof ms, "%.0f", elapsed_ms);
  std::string out;
  AppendType(out, "done", tag, format == ScheduleFormat::kText);
  if (format == ScheduleFormat::kText) {
    out += " starts=" + std::to_string(result.starts) + " reserves=" + std::to_string(result.reserves) +
           " pending=" + std::to_string(result.pending) + " ms=" + ms + "\n";
  } else {
    out += ",\"starts\":" + std::to_string(result.starts) + ",\"reserves\":" + std::to_string(result.reserves) +
           ",\"pending\":" + std::to_string(result.pending) + ",\"ms\":" + ms + "}\n";
  }
  return sink(out);
}

bool WriteSchedule(const Snapshot& snapshot, const QueueInstanceTable& instances, const ScheduleResult& result,
                   ScheduleFormat format, double elapsed_ms, const std::function<bool(std::string_view)>& sink,
                   std::string_view tag) {
  return WriteScheduleRecords(snapshot, instances, result, format, sink, tag) &&
         WriteScheduleDone(result, format, elapsed_ms, sink, tag);
}

std::string MonitorFileSection(const Snapshot& snapshot, const QueueInstanceTable& instances,
                               const ScheduleResult& result) {
  std::string out = "::::::::\n";
  for (const MonitorRecord& m : result.monitor) {
    AppendMonitorLine(out, snapshot, instances, result, m);
    out += '\n';
  }
  return out;
}

namespace {

// The soft -l request r or the soft -q entry r - soft.size().
std::string SoftItem(const Snapshot& s, const RequestSet& req, std::size_t r) {
  if (r < req.soft.size()) {
    const ComplexValue& v = req.soft[r];
    std::string item = ComplexName(s, v.complex.value) + "=";
    if (!IsNumeric(s.cluster.complexes[v.complex].type)) return item + v.text;
    char number[32];
    std::snprintf(number, sizeof number, "%.15g", v.number);
    return item + number;
  }
  const QueueSelector& q = req.queue_soft[r - req.soft.size()];
  std::string item = "q:" + (q.queue.valid() ? s.names.queues.Name(q.queue.value) : std::string("*"));
  if (q.host.valid()) item += "@" + s.names.hosts.Name(q.host.value);
  if (q.group.valid()) item += "@" + s.names.hostgroups.Name(q.group.value);
  return item;
}

const RequestSet* RequestsOf(const Snapshot& s, JobNumber job) {
  const JobShard& shard = s.jobs.shards()[s.jobs.ShardOf(job)];
  const auto row = std::find(shard.number.begin(), shard.number.end(), job);
  if (row == shard.number.end()) return nullptr;
  return &s.jobs.requests(shard.requests[static_cast<std::size_t>(row - shard.number.begin())]);
}

}  // namespace

std::string SoftRequestLines(const Snapshot& s, const QueueInstanceTable& instances, const ScheduleResult& result,
                             JobNumber job, std::string_view tag) {
  const RequestSet* req = RequestsOf(s, job);
  std::string out;
  if (req == nullptr) return out;
  const std::size_t items = req->soft.size() + req->queue_soft.size();
  for (const Decision& d : result.decisions) {
    if (d.job != job || d.soft_begin == UINT32_MAX) continue;
    for (std::uint32_t g = d.grant_begin; g < d.grant_end; ++g) {
      const SoftOutcome& outcome = result.soft[d.soft_begin + (g - d.grant_begin)];
      std::string met, missed;
      for (std::size_t r = 0; r < items && r < 64; ++r) {  // the outcome records the first 64
        std::string& list = (outcome.missed >> r & 1) != 0 ? missed : met;
        list += (list.empty() ? "" : ",") + SoftItem(s, *req, r);
      }
      out += "soft ";
      if (!tag.empty()) out.append(tag).push_back(' ');
      out += std::to_string(d.job) + "." + std::to_string(d.task) +
             " granted=" + InstanceName(s, instances, result.grants[g].instance) +
             " violations=" + std::to_string(outcome.violations) + " met=" + (met.empty() ? "-" : met) +
             " missed=" + (missed.empty() ? "-" : missed);
      if (items > 64) out += " unlisted=" + std::to_string(items - 64);
      out += "\n";
    }
  }
  return out;
}

}  // namespace schedk::io
