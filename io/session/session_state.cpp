#include "io/session/session_state.hpp"

#include <algorithm>
#include <atomic>
#include <deque>
#include <functional>
#include <iterator>
#include <memory>

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "io/block_kinds.hpp"
#include "io/ge_value.hpp"
#include "io/json_text.hpp"
#include "io/untrusted_text.hpp"
#include "kernel/dispatch/queue_instances.hpp"
#include "kernel/dispatch/schedule.hpp"
#include "kernel/priority/usage_decay.hpp"

namespace schedk::io {
namespace {

constexpr const char* kSessionSource = "<session>";

// Whether a job parser's message is about the shape of the record (400)
// rather than one of its values (422).
bool IsSyntaxError(const std::string& message) {
  for (const char* prefix : {"expected", "unknown job key", "unterminated", "text after"}) {
    if (message.rfind(prefix, 0) == 0) return true;
  }
  return message.find("given twice") != std::string::npos;
}

std::string JobObject(JobNumber job) { return "job:" + std::to_string(job); }

// How an `add job` is refused: a record that does not parse, one that does not
// resolve against the cluster, one whose job exists.
SessionError Unparsed(const std::string& reason) {
  return Refuse(IsSyntaxError(reason) ? ErrorCode::kBadSyntax : ErrorCode::kInvalidValue, reason);
}
SessionError Unresolved(const std::string& reason, JobNumber job) {
  return Refuse(ErrorCode::kInvalidValue, reason, JobObject(job));
}
SessionError Exists(JobNumber job) {
  return Refuse(ErrorCode::kStateConflict, "job " + std::to_string(job) + " exists", JobObject(job));
}

// A row without submit= was submitted now.
void SubmittedNowUnlessGiven(ParsedJob& row, Time now) {
  if (row.has_submit) return;
  row.has_submit = true;
  row.submit = now;
}

bool HoldsTask(const ParsedJob& r, TaskNumber t) {
  return t >= r.first && t <= r.last && (t - r.first) % r.step == 0;
}

// Splits the row holding task t so that t has a row of its own; returns its index.
std::size_t IsolateTask(std::vector<ParsedJob>& rows, std::size_t i, TaskNumber t) {
  const ParsedJob row = rows[i];
  if (row.first == row.last) return i;
  std::vector<ParsedJob> parts;
  auto part = [&](TaskNumber first, TaskNumber last) {
    ParsedJob p = row;
    p.first = first;
    p.last = last;
    p.step = first == last ? 1 : row.step;
    parts.push_back(p);
  };
  if (t > row.first) part(row.first, t - row.step);
  const std::size_t at = i + parts.size();
  part(t, t);
  if (t < row.last) part(t + row.step, row.last);
  rows.erase(rows.begin() + static_cast<std::ptrdiff_t>(i));
  rows.insert(rows.begin() + static_cast<std::ptrdiff_t>(i), parts.begin(), parts.end());
  return at;
}

// The job-level fields of `from` on `to` (everything but the task range and the running state).
void CopyJobLevel(const ParsedJob& from, ParsedJob& to) {
  ParsedJob r = from;
  r.line = to.line;
  r.number = to.number;
  r.first = to.first;
  r.last = to.last;
  r.step = to.step;
  r.task_range_given = to.task_range_given;
  r.state = to.state;
  r.has_start = to.has_start;
  r.start = to.start;
  r.granted = to.granted;
  r.master = to.master;
  r.assumed = to.assumed;
  r.flags = static_cast<std::uint8_t>((from.flags & ~kJobEnrolled) | (to.flags & kJobEnrolled));  // the row's own
  to = r;
}

void BackToPending(ParsedJob& r) {
  r.state = JobState::kPending;
  r.has_start = false;
  r.start = 0;
  r.granted = r.master = kNoName;
  r.assumed = false;
}

std::uint64_t Fnv1a(std::uint64_t h, std::string_view text) {
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}
constexpr std::uint64_t kFnvOffset = 14695981039346656037ull;

std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    lines.push_back(text.substr(start, end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return lines;
}

// Usage values "name=value,..." as (name, value) pairs.
std::optional<std::vector<UsageValue>> ParseUsageValues(std::string_view text) {
  std::vector<UsageValue> values;
  for (std::string_view item : SplitList(text)) {
    const std::size_t eq = item.find('=');
    auto d = eq == std::string_view::npos ? std::nullopt : ParseGeNumber(item.substr(eq + 1));
    if (!d || *d < 0 || *d > kLargestAmount) return std::nullopt;
    const std::string name(item.substr(0, eq));
    for (const UsageValue& v : values) {
      if (v.name == name) return std::nullopt;
    }
    values.push_back({name, *d});
  }
  return values;
}

std::string UsageText(const std::vector<UsageValue>& values) {
  std::string out;
  for (const UsageValue& v : values) {
    if (!out.empty()) out += ',';
    out += v.name;
    out += '=';
    AppendJsonNumber(out, v.value);
  }
  return out;
}

}  // namespace

std::optional<TaskSelector> ParseTaskSelector(std::string_view text) {
  const std::size_t dot = text.find('.');
  auto job = ParseUnsigned(text.substr(0, dot));
  if (!job || *job == 0 || *job > UINT32_MAX) return std::nullopt;
  TaskSelector id{static_cast<JobNumber>(*job), std::nullopt};
  if (dot != std::string_view::npos) {
    auto task = ParseUnsigned(text.substr(dot + 1));
    if (!task || *task == 0 || *task > UINT32_MAX) return std::nullopt;
    id.task = static_cast<TaskNumber>(*task);
  }
  return id;
}

SessionState::SessionState() {
  auto parts = ReadSnapshotParts(ConfigText(config_), kSessionSource);
  base_ = std::move(parts.value());  // the empty configuration always builds
}

Time SessionState::now() const {
  std::shared_lock<std::shared_mutex> lock(config_mutex_);
  return config_.now;
}

// --- configuration ---------------------------------------------------------------------------------

std::string SessionState::ConfigText(const Config& config) {
  std::string text = "schedk-snapshot 1\nnow " + std::to_string(config.now) + "\n";
  for (const ObjectBlock& b : config.blocks) {
    text += "begin " + b.kind + (b.name.empty() ? "" : " " + b.name) + "\n";
    for (const Attribute& a : b.attributes) text += a.key + (a.value.empty() ? "" : " " + a.value) + "\n";
    text += "end " + b.kind + "\n";
  }
  for (const LoadEntry& l : config.loads) {
    if (l.values.empty()) continue;
    text += "load " + l.host + " ";
    for (std::size_t i = 0; i < l.values.size(); ++i) {
      text += (i ? "," : "") + l.values[i].first + "=" + l.values[i].second;
    }
    text += "\n";
  }
  for (const auto& [host, down] : config.host_states) {
    if (down) text += "hoststate " + host + " down\n";
  }
  for (const UsageLine& u : config.usage) {
    text += std::string("usage ") + UsageKindName(u.kind) + " " + u.name + " " + u.values;
    if (!u.project.empty()) text += " project=" + u.project;
    if (u.at != 0) text += " at=" + std::to_string(u.at);
    text += "\n";
  }
  return text;
}

bool SessionState::KnownRow(const ParsedJob& row) const {
  auto known = [](const std::vector<std::uint8_t>& checked, std::uint32_t id) {
    return id < checked.size() && checked[id] != 0;
  };
  return known(request_checked_, row.requests) && (row.project == kNoName || known(project_checked_, row.project)) &&
         row.department == kNoName && row.granted == kNoName && row.master == kNoName && row.hold_jid == kNoName;
}

Reason SessionState::ResolveRow(const ParsedJob& row, const JobNameSpace& names, RequestSet& set) const {
  const Snapshot& base = base_.snapshot;
  // ClusterBuilder only reads here (FindComplex), but takes the snapshot by reference.
  ClusterBuilder builder(const_cast<Snapshot&>(base));
  if (auto error = ResolveRequestKey(names.requests.Name(row.requests), builder, base, set)) return error;
  return CheckJobReferences(row, names, base);
}

namespace {

// Notes id as checked in `checked` (request_checked_ or project_checked_).
void MarkChecked(std::vector<std::uint8_t>& checked, std::uint32_t id) {
  if (checked.size() <= id) checked.resize(id + 1, 0);
  checked[id] = 1;
}

}  // namespace

Reason SessionState::CheckRow(const ParsedJob& row) const {
  {
    std::lock_guard<std::mutex> lock(checked_mutex_);
    if (KnownRow(row)) return std::nullopt;
  }
  Reason error;
  jobs_->ReadNames([&](const JobNameSpace& names) {
    // The set resolved here is kept for the passes (a job category resolved once, as it arrives).
    RequestSet set;
    if ((error = ResolveRow(row, names, set))) return;
    request_cache_.Put(names, row.requests, std::move(set));
  });
  if (error) return error;
  std::lock_guard<std::mutex> lock(checked_mutex_);
  MarkChecked(request_checked_, row.requests);
  if (row.project != kNoName) MarkChecked(project_checked_, row.project);
  return std::nullopt;
}

SessionStatus SessionState::Rebuild(Config config, const std::string& what) {
  // Called with the exclusive lock held.
  auto parts = ReadSnapshotParts(ConfigText(config), kSessionSource);
  // The message names the object; a line of the rebuilt text would mean nothing to the client.
  if (!parts.ok()) return Refuse(ErrorCode::kInvalidValue, parts.status().message());
  const Snapshot& base = parts->snapshot;
  // Every job must still resolve: each request combination once, then each row.
  const LiveJobs::View view = jobs_->Snapshot();
  std::optional<JobNumber> stranded_job;  // the lowest job number that no longer resolves
  std::string stranded_why;
  jobs_->ReadNames([&](const JobNameSpace& names) {
    ClusterBuilder builder(parts->snapshot);
    std::vector<std::optional<Reason>> request_error(names.requests.size());
    for (const auto& shard : view) {
      for (const ParsedJob& row : shard->rows) {
        if (stranded_job && row.number >= *stranded_job) break;  // rows are in job order
        auto& known = request_error[row.requests];
        if (!known) known = CheckRequestKey(names.requests.Name(row.requests), builder, base);
        Reason e = *known;
        if (!e) e = CheckJobReferences(row, names, base);
        if (e) {
          stranded_job = row.number;
          stranded_why = *e;
        }
      }
    }
  });
  if (stranded_job) {
    return Refuse(ErrorCode::kStateConflict,
                  what + " would leave job " + std::to_string(*stranded_job) + " unresolvable: " + stranded_why,
                  JobObject(*stranded_job));
  }
  // The full build with the jobs, as a pass will do it (users, usage, share tree).
  {
    Snapshot trial = parts->snapshot;
    std::optional<Status> failed;
    jobs_->ReadNames([&](const JobNameSpace& names) {
      std::vector<JobSource> sources;
      for (const auto& shard : view) sources.push_back({&names, shard->rows});
      if (Status st = CompleteSnapshot(trial, sources, config.usage, false); !st.ok()) failed = st;
    });
    if (failed) {
      const std::string message = failed->message();
      const bool named = message.rfind(what + ": ", 0) == 0;  // the maui reader names its block itself
      return Refuse(ErrorCode::kInvalidValue, named ? message : what + ": " + message);
    }
  }
  parts->job_chunks.clear();
  config_ = std::move(config);
  base_ = std::move(parts.value());
  {
    std::lock_guard<std::mutex> lock(checked_mutex_);
    request_checked_.clear();
    project_checked_.clear();
  }
  request_cache_.Clear();
  Changed();
  return std::nullopt;
}

SessionStatus SessionState::Load(std::string_view text, const std::string& source) {
  auto parts = ReadSnapshotParts(text, source);
  if (!parts.ok()) return FromStatus(parts.status(), ErrorCode::kInvalidValue);
  const std::vector<ParsedChunk> parsed = ParseJobChunks(parts->job_chunks, parts->snapshot.source);
  for (const ParsedChunk& r : parsed) {
    if (r.error) return FromStatus(*r.error, IsSyntaxError(r.error->message()) ? ErrorCode::kBadSyntax : ErrorCode::kInvalidValue);
  }
  {
    Snapshot trial = parts->snapshot;
    std::vector<JobSource> sources;
    for (const ParsedChunk& r : parsed) sources.push_back({&r.names, r.jobs});
    if (Status st = CompleteSnapshot(trial, sources, parts->usage, true); !st.ok()) {
      return FromStatus(st, ErrorCode::kInvalidValue);
    }
  }
  // One name space for the session; rows re-pointed into it.
  JobNameSpace names;
  std::vector<const JobNameSpace*> spaces;
  std::vector<std::size_t> offset(parsed.size() + 1, 0);
  for (std::size_t c = 0; c < parsed.size(); ++c) {
    spaces.push_back(&parsed[c].names);
    offset[c + 1] = offset[c] + parsed[c].jobs.size();
  }
  const std::vector<NameMapping> maps = NameMapping::Merge(spaces, names);
  const Time now = parts->snapshot.cluster.now;
  std::vector<ParsedJob> rows(offset.back());
  tbb::parallel_for(std::size_t{0}, parsed.size(), [&](std::size_t c) {
    for (std::size_t i = 0; i < parsed[c].jobs.size(); ++i) {
      ParsedJob r = parsed[c].jobs[i];
      r.line = 0;
      maps[c].Repoint(r);
      SubmittedNowUnlessGiven(r, now);
      rows[offset[c] + i] = r;
    }
  });
  auto jobs = std::make_shared<LiveJobs>(std::move(rows), std::move(names));
  // The configuration as read.
  Config config;
  config.now = now;
  config.blocks = parts->snapshot.blocks;
  for (const LoadLine& l : parts->loads) {
    auto it = std::find_if(config.loads.begin(), config.loads.end(), [&](const LoadEntry& e) { return e.host == l.host; });
    if (it == config.loads.end()) it = config.loads.insert(config.loads.end(), LoadEntry{l.host, {}});
    for (std::string_view item : SplitList(l.values)) {
      const std::size_t eq = item.find('=');
      const std::string name(item.substr(0, eq)), value(item.substr(eq + 1));
      auto v = std::find_if(it->values.begin(), it->values.end(), [&](const auto& p) { return p.first == name; });
      if (v != it->values.end()) v->second = value;
      else it->values.emplace_back(name, value);
    }
  }
  for (const HostStateLine& h : parts->host_states) {
    auto it = std::find_if(config.host_states.begin(), config.host_states.end(), [&](const auto& p) { return p.first == h.host; });
    if (it != config.host_states.end()) it->second = h.down;
    else config.host_states.emplace_back(h.host, h.down);
  }
  std::erase_if(config.host_states, [](const auto& p) { return !p.second; });
  config.usage = parts->usage;
  for (UsageLine& u : config.usage) u.line = 0;
  parts->job_chunks.clear();
  {
    std::unique_lock<std::shared_mutex> lock(config_mutex_);
    config_ = std::move(config);
    base_ = std::move(parts.value());
    jobs_ = std::move(jobs);
    std::lock_guard<std::mutex> checked(checked_mutex_);
    request_checked_.clear();
    project_checked_.clear();
    request_cache_.Clear();
  }
  Changed();
  return std::nullopt;
}

SessionStatus SessionState::PutObject(const std::string& kind, const std::string& name, std::string_view body) {
  auto block = ReadObjectBlock(kind, name, body, kSessionSource);
  if (!block.ok()) {
    return FromStatus(block.status(), ErrorCode::kBadSyntax);
  }
  std::unique_lock<std::shared_mutex> lock(config_mutex_);
  Config config = config_;
  auto it = std::find_if(config.blocks.begin(), config.blocks.end(),
                         [&](const ObjectBlock& b) { return b.kind == kind && b.name == name; });
  if (it != config.blocks.end()) *it = std::move(block.value());
  else config.blocks.push_back(std::move(block.value()));
  return Rebuild(std::move(config), kind + (name.empty() ? "" : " " + name));
}

SessionStatus SessionState::DeleteObject(const std::string& kind, const std::string& name) {
  std::unique_lock<std::shared_mutex> lock(config_mutex_);
  Config config = config_;
  auto it = std::find_if(config.blocks.begin(), config.blocks.end(),
                         [&](const ObjectBlock& b) { return b.kind == kind && b.name == name; });
  const std::string object = kind + ":" + name;
  if (it == config.blocks.end()) return Refuse(ErrorCode::kNoSuchObject, "no " + kind + " " + name, object);
  config.blocks.erase(it);
  if (kind == "exechost") {  // its reported load and state go with it
    std::erase_if(config.loads, [&](const LoadEntry& l) { return l.host == name; });
    std::erase_if(config.host_states, [&](const auto& h) { return h.first == name; });
  }
  auto refused = Rebuild(std::move(config), "deleting " + kind + (name.empty() ? "" : " " + name));
  if (refused && refused->object.empty()) refused->object = object;
  return refused;
}

SessionStatus SessionState::SetLoad(const std::string& host, std::string_view values) {
  std::unique_lock<std::shared_mutex> lock(config_mutex_);
  Snapshot& base = base_.snapshot;
  ComplexValueList* target = nullptr;
  if (host == "global") {
    target = &base.cluster.global.load_values;
  } else if (auto h = base.names.hosts.Find(host)) {
    target = &base.cluster.hosts[*h].load_values;
  } else {
    return Refuse(ErrorCode::kNoSuchObject, "no host " + host, "exechost:" + host);
  }
  std::vector<std::pair<std::string, std::string>> items;
  for (std::string_view item : SplitList(values)) {
    const std::size_t eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0) {
      return Refuse(ErrorCode::kBadSyntax, "load " + host + ": expected name=value, not " + Quote(item));
    }
    items.emplace_back(std::string(item.substr(0, eq)), std::string(item.substr(eq + 1)));
  }
  if (items.empty()) return Refuse(ErrorCode::kBadSyntax, "load " + host + ": expected name=value[,...]");
  const ComplexValueList before = *target;
  const std::size_t warnings = base.warnings.size();
  Status st = ClusterBuilder(base).ApplyLoad({LoadLine{0, host, std::string(values)}});
  base.warnings.resize(warnings);  // unknown names are ignored, as in a snapshot
  if (!st.ok()) {
    *target = before;
    return FromStatus(st, ErrorCode::kInvalidValue);  // a load record of its own: no line
  }
  auto it = std::find_if(config_.loads.begin(), config_.loads.end(), [&](const LoadEntry& e) { return e.host == host; });
  if (it == config_.loads.end()) it = config_.loads.insert(config_.loads.end(), LoadEntry{host, {}});
  for (auto& [name, value] : items) {
    auto v = std::find_if(it->values.begin(), it->values.end(), [&](const auto& p) { return p.first == name; });
    if (v != it->values.end()) v->second = value;
    else it->values.emplace_back(name, value);
  }
  Changed();
  return std::nullopt;
}

SessionStatus SessionState::SetHostState(const std::string& host, bool down) {
  std::unique_lock<std::shared_mutex> lock(config_mutex_);
  auto h = base_.snapshot.names.hosts.Find(host);
  if (!h) return Refuse(ErrorCode::kNoSuchObject, "no host " + host, "exechost:" + host);
  base_.snapshot.cluster.hosts[*h].down = down;
  auto it = std::find_if(config_.host_states.begin(), config_.host_states.end(), [&](const auto& p) { return p.first == host; });
  if (down && it == config_.host_states.end()) config_.host_states.emplace_back(host, true);
  if (!down && it != config_.host_states.end()) config_.host_states.erase(it);
  Changed();
  return std::nullopt;
}

SessionStatus SessionState::SetClock(Time now) {
  std::unique_lock<std::shared_mutex> lock(config_mutex_);
  config_.now = now;
  base_.snapshot.cluster.now = now;
  Changed();
  return std::nullopt;
}

SessionStatus SessionState::Advance(Duration d) {
  if (d < 0) return Refuse(ErrorCode::kInvalidValue, "advance: the clock does not go back (" + std::to_string(d) + ")");
  std::unique_lock<std::shared_mutex> lock(config_mutex_);
  if (d > kLastTime - config_.now) {
    return Refuse(ErrorCode::kInvalidValue, "advance: the clock would pass " + std::to_string(kLastTime) +
                                                ", the last second Grid Engine can express");
  }
  config_.now += d;
  base_.snapshot.cluster.now = config_.now;
  Changed();
  return std::nullopt;
}

// --- jobs --------------------------------------------------------------------------------------------

Reason SessionState::ParseRow(std::string_view record, ParsedJob& row) {
  return jobs_->WithNames([&](JobNameSpace& names) {
    std::vector<JobToken> tokens;
    std::deque<std::string> storage;
    return ParseJobLine(record, 0, names, tokens, storage, row);
  });
}

bool SessionState::HasJob(JobNumber job) const {
  std::shared_lock<std::shared_mutex> lock(config_mutex_);
  return !jobs_->Rows(job).empty();
}

SessionStatus SessionState::AddJob(std::string_view record) {
  std::shared_lock<std::shared_mutex> lock(config_mutex_);
  ParsedJob row;
  if (auto e = ParseRow(record, row)) return Unparsed(*e);
  SubmittedNowUnlessGiven(row, config_.now);
  if (auto e = CheckRow(row)) return Unresolved(*e, row.number);
  if (!jobs_->Insert(row)) return Exists(row.number);
  Changed();
  return std::nullopt;
}

namespace {

// Job records parsed in chunks: record i is row i % kChunk of chunk i / kChunk.
struct ParsedRecords {
  static constexpr std::size_t kChunk = 1024;  // fewer chunks: fewer names to intern twice
  struct Chunk {
    std::vector<ParsedJob> rows;
    JobNameSpace names;
    std::vector<RecordRefusal> refusals;  // the records that do not parse
  };
  std::vector<Chunk> chunks;
  std::vector<ParsedJob*> rows;       // by record, with the session's name ids; null: refused
  std::vector<std::uint32_t> shards;  // by record: its job's shard

  // f(record, row) for each record of chunk c.
  template <class F>
  void ForEachRecord(std::size_t c, F&& f) {
    for (std::size_t i = 0; i < chunks[c].rows.size(); ++i) f(c * kChunk + i, chunks[c].rows[i]);
  }
};

// Parses `records` in parallel chunks, each with a name space of its own,
// interns their names into `jobs`' in record order (the ids one ParseRow after
// another would have given), and re-points the rows to them. A record that
// does not parse gets no row, and its chunk a refusal.
ParsedRecords ParseRecords(std::span<const std::string_view> records, LiveJobs& jobs, Time now,
                           const IngestListener* stages) {
  const std::size_t n = records.size();
  EnterStage(stages, IngestStage::kParse);
  ParsedRecords parsed;
  parsed.chunks.resize((n + ParsedRecords::kChunk - 1) / ParsedRecords::kChunk);
  tbb::parallel_for(std::size_t{0}, parsed.chunks.size(), [&](std::size_t c) {
    parsed.chunks[c].rows.resize(std::min(n, (c + 1) * ParsedRecords::kChunk) - c * ParsedRecords::kChunk);
    std::vector<JobToken> tokens;
    std::deque<std::string> storage;
    parsed.ForEachRecord(c, [&](std::size_t i, ParsedJob& row) {
      storage.clear();
      if (auto e = ParseJobLine(records[i], 0, parsed.chunks[c].names, tokens, storage, row)) {
        parsed.chunks[c].refusals.push_back({i, Unparsed(*e)});
      }
    });
  });
  std::vector<const JobNameSpace*> spaces(parsed.chunks.size());
  for (std::size_t c = 0; c < spaces.size(); ++c) spaces[c] = &parsed.chunks[c].names;
  EnterStage(stages, IngestStage::kMergeNames);
  const std::vector<NameMapping> maps =
      jobs.WithNames([&](JobNameSpace& names) { return NameMapping::Merge(spaces, names); });
  EnterStage(stages, IngestStage::kRepoint);
  parsed.rows.resize(n);
  parsed.shards.resize(n);
  tbb::parallel_for(std::size_t{0}, parsed.chunks.size(), [&](std::size_t c) {
    std::size_t next_refused = 0;
    const std::vector<RecordRefusal>& refused = parsed.chunks[c].refusals;
    parsed.ForEachRecord(c, [&](std::size_t i, ParsedJob& row) {
      if (next_refused < refused.size() && refused[next_refused].record == i) {
        ++next_refused;
        return;  // no row
      }
      maps[c].Repoint(row);
      SubmittedNowUnlessGiven(row, now);
      parsed.rows[i] = &row;
      parsed.shards[i] = jobs.ShardOf(row.number);
    });
    parsed.chunks[c].names = {};  // freed here, on every core
  });
  return parsed;
}

}  // namespace

std::vector<RecordRefusal> SessionState::AddJobs(std::span<const std::string_view> records,
                                                 const IngestListener* stages) {
  std::shared_lock<std::shared_mutex> lock(config_mutex_);
  ParsedRecords parsed = ParseRecords(records, *jobs_, config_.now, stages);
  std::vector<RecordRefusal> refusals = InsertByShard(parsed.rows, parsed.shards, stages);
  for (ParsedRecords::Chunk& chunk : parsed.chunks) {
    std::move(chunk.refusals.begin(), chunk.refusals.end(), std::back_inserter(refusals));
  }
  std::sort(refusals.begin(), refusals.end(),
            [](const RecordRefusal& a, const RecordRefusal& b) { return a.record < b.record; });
  return refusals;
}

std::vector<RecordRefusal> SessionState::InsertByShard(std::span<ParsedJob* const> rows,
                                                       std::span<const std::uint32_t> shards,
                                                       const IngestListener* stages) {
  EnterStage(stages, IngestStage::kSortByShard);
  // The rows, sorted by shard, each shard's in record order.
  std::vector<std::size_t> first(jobs_->shard_count() + 1, 0);
  for (std::size_t i = 0; i < rows.size(); ++i) first[shards[i] + 1] += rows[i] != nullptr;
  for (std::size_t s = 1; s < first.size(); ++s) first[s] += first[s - 1];
  std::vector<std::size_t> by_shard(first.back());
  {
    std::vector<std::size_t> next(first.begin(), first.end() - 1);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (rows[i] != nullptr) by_shard[next[shards[i]]++] = i;
    }
  }
  std::vector<std::vector<RecordRefusal>> refused(jobs_->shard_count());
  const std::vector<std::uint8_t> passed = CheckRows(rows, first, by_shard, refused, stages);
  EnterStage(stages, IngestStage::kInsert);
  std::atomic<std::size_t> added_count{0};
  tbb::parallel_for(std::size_t{0}, jobs_->shard_count(), [&](std::size_t s) {
    std::vector<std::size_t> valid;  // records
    std::vector<const ParsedJob*> valid_rows;
    for (std::size_t k = first[s]; k < first[s + 1]; ++k) {
      const std::size_t i = by_shard[k];
      if (passed[i] == 0) continue;
      valid.push_back(i);
      valid_rows.push_back(rows[i]);
    }
    std::unique_ptr<bool[]> added(new bool[valid.size()]);
    jobs_->InsertAll(static_cast<std::uint32_t>(s), valid_rows, {added.get(), valid.size()});
    std::size_t count = 0;
    for (std::size_t v = 0; v < valid.size(); ++v) {
      if (added[v]) {
        ++count;
        continue;
      }
      refused[s].push_back({valid[v], Exists(valid_rows[v]->number)});
    }
    added_count += count;
  });
  generation_ += added_count.load();
  std::vector<RecordRefusal> all;
  for (std::vector<RecordRefusal>& r : refused) std::move(r.begin(), r.end(), std::back_inserter(all));
  return all;
}

std::vector<std::uint8_t> SessionState::CheckRows(std::span<ParsedJob* const> rows, std::span<const std::size_t> first,
                                                  std::span<const std::size_t> by_shard,
                                                  std::vector<std::vector<RecordRefusal>>& refused,
                                                  const IngestListener* stages) const {
  EnterStage(stages, IngestStage::kCheckRows);
  std::vector<std::uint8_t> passed(rows.size(), 0);
  // Per shard: the request sets it resolved first (each id once), the projects of its rows that passed.
  std::vector<RequestCache::Found> sets(refused.size());
  std::vector<std::vector<std::uint32_t>> projects(refused.size());
  // The marks are read on every core and written once they are done; isolated,
  // a core waiting under the locks takes no unrelated task that might want them.
  std::lock_guard<std::mutex> checked(checked_mutex_);
  jobs_->ReadNames([&](const JobNameSpace& names) {
    std::vector<std::atomic<std::uint8_t>> claimed(names.requests.size());
    tbb::this_task_arena::isolate([&] {
      tbb::parallel_for(std::size_t{0}, refused.size(), [&](std::size_t s) {
        for (std::size_t k = first[s]; k < first[s + 1]; ++k) {
          const std::size_t i = by_shard[k];
          const ParsedJob& row = *rows[i];
          if (KnownRow(row)) {
            passed[i] = 1;
            continue;
          }
          RequestSet set;
          if (auto e = ResolveRow(row, names, set)) {
            refused[s].push_back({i, Unresolved(*e, row.number)});
            continue;
          }
          passed[i] = 1;
          if (claimed[row.requests].exchange(1, std::memory_order_relaxed) == 0) {
            sets[s].emplace_back(row.requests, std::move(set));
          }
          if (row.project != kNoName) projects[s].push_back(row.project);
        }
      });
    });
    EnterStage(stages, IngestStage::kKeepRequestSets);
    request_cache_.PutAll(names, sets);
  });
  for (std::size_t s = 0; s < sets.size(); ++s) {
    for (const auto& [id, set] : sets[s]) MarkChecked(request_checked_, id);
    for (std::uint32_t project : projects[s]) MarkChecked(project_checked_, project);
  }
  return passed;
}

SessionStatus SessionState::ChangeJob(const TaskSelector& id, const TaskChange& change) {
  std::optional<SessionError> error;
  auto refused = jobs_->Apply(id.job, [&](const std::vector<ParsedJob>& current, std::vector<ParsedJob>& next) {
    if (current.empty()) {
      error = Refuse(ErrorCode::kNoSuchObject, "no job " + std::to_string(id.job), JobObject(id.job));
    } else {
      next = current;
      if (id.task && std::none_of(next.begin(), next.end(), [&](const ParsedJob& r) { return HoldsTask(r, *id.task); })) {
        error = Refuse(ErrorCode::kNoSuchObject,
                       "job " + std::to_string(id.job) + " has no task " + std::to_string(*id.task), JobObject(id.job));
      } else {
        error = change(next);
      }
    }
    return error ? Reason(error->message) : std::nullopt;
  });
  if (refused) return error;
  Changed();
  return std::nullopt;
}

namespace {

// The tasks of `id` in rows that satisfy `want`, each isolated in a row of its
// own when a task is named; returns the row indices (after isolation).
std::vector<std::size_t> Select(std::vector<ParsedJob>& rows, const TaskSelector& id,
                                const std::function<bool(const ParsedJob&)>& want) {
  std::vector<std::size_t> picked;
  if (id.task) {
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (HoldsTask(rows[i], *id.task)) {
        if (want(rows[i])) picked.push_back(IsolateTask(rows, i, *id.task));
        break;
      }
    }
    return picked;
  }
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (want(rows[i])) picked.push_back(i);
  }
  return picked;
}

std::string Named(const TaskSelector& id) {
  return "job " + std::to_string(id.job) + (id.task ? " task " + std::to_string(*id.task) : "");
}

SessionError Conflict(const TaskSelector& id, const std::string& what) {
  return Refuse(ErrorCode::kStateConflict, Named(id) + ": " + what, JobObject(id.job));
}

}  // namespace

// `mod job <n>.<task> enrolled=y|n`: whether a pending, held or error task
// exists as a task object (array_task_limit.hpp); the one key a task takes.
SessionStatus SessionState::ModTask(const TaskSelector& id, const std::vector<KeyValue>& changes) {
  if (changes.size() != 1 || changes[0].key != "enrolled") {
    return Refuse(ErrorCode::kInvalidValue, "mod job <n>.<task> takes enrolled= alone; other keys are the job's",
                  JobObject(id.job));
  }
  const std::optional<bool> enrolled = ParseBool(changes[0].value);
  if (!enrolled) return Refuse(ErrorCode::kInvalidValue, "mod job: enrolled: expected y or n", JobObject(id.job));
  return ChangeJob(id, [&](std::vector<ParsedJob>& rows) -> std::optional<SessionError> {
    const auto picked = Select(rows, id, [](const ParsedJob& r) { return !r.running(); });
    if (picked.empty()) return Conflict(id, "not pending, held or in error (running tasks are objects anyway)");
    for (std::size_t i : picked) {
      rows[i].flags = static_cast<std::uint8_t>(*enrolled ? rows[i].flags | kJobEnrolled : rows[i].flags & ~kJobEnrolled);
    }
    return std::nullopt;
  });
}

SessionStatus SessionState::ModJob(const TaskSelector& id, const std::vector<KeyValue>& changes) {
  std::shared_lock<std::shared_mutex> lock(config_mutex_);
  if (id.task) return ModTask(id, changes);
  const std::vector<ParsedJob> current = jobs_->Rows(id.job);
  if (current.empty()) return Refuse(ErrorCode::kNoSuchObject, "no job " + std::to_string(id.job), JobObject(id.job));
  // The job's keys as written, the changes applied, read again.
  std::string line;
  jobs_->ReadNames([&](const JobNameSpace& names) {
    ParsedJob model = current.front();
    BackToPending(model);
    model.flags &= static_cast<std::uint8_t>(~kJobEnrolled);
    model.first = model.last = model.step = 1;
    model.task_range_given = false;
    RenderJobLine(model, names, line);
  });
  std::vector<JobToken> tokens;
  std::deque<std::string> storage;
  if (auto e = TokenizeRecord(line, tokens, storage)) return Refuse(ErrorCode::kInternal, *e);
  std::vector<std::pair<std::string, std::string>> keys;
  for (std::size_t t = 2; t < tokens.size(); ++t) keys.emplace_back(std::string(tokens[t].key), std::string(tokens[t].value));
  for (const KeyValue& c : changes) {
    if (c.key == "submit" && c.value.empty()) {
      // A job without a submit time would take the clock's at each load of a dump.
      return Refuse(ErrorCode::kInvalidValue, "mod job: submit cannot be removed", JobObject(id.job));
    }
    if (c.key == "enrolled") {
      return Refuse(ErrorCode::kInvalidValue, "mod job: enrolled= is a task's: mod job <n>.<task> enrolled=y",
                    JobObject(id.job));
    }
    for (const char* state_key : {"state", "start", "granted", "master", "assumed"}) {
      if (c.key == state_key) {
        return Refuse(ErrorCode::kInvalidValue,
                      "mod job: " + Quote(c.key) + " changes with hold, release, run, fail, suspend, resume or finish",
                      JobObject(id.job));
      }
    }
    auto it = std::find_if(keys.begin(), keys.end(), [&](const auto& k) { return k.first == c.key; });
    if (c.value.empty()) {
      if (it != keys.end()) keys.erase(it);
    } else if (it != keys.end()) {
      it->second = c.value;
    } else {
      keys.emplace_back(c.key, c.value);
    }
  }
  std::string changed = "job " + std::to_string(id.job);
  for (const auto& [key, value] : keys) AppendKeyValue(changed, key, value);
  ParsedJob model;
  if (auto e = ParseRow(changed, model)) {
    return Refuse(IsSyntaxError(*e) ? ErrorCode::kBadSyntax : ErrorCode::kInvalidValue, *e, JobObject(id.job));
  }
  if (auto e = CheckRow(model)) return Refuse(ErrorCode::kInvalidValue, *e, JobObject(id.job));
  return ChangeJob(id, [&](std::vector<ParsedJob>& rows) -> std::optional<SessionError> {
    for (ParsedJob& r : rows) CopyJobLevel(model, r);
    return std::nullopt;
  });
}

SessionStatus SessionState::DeleteJob(const TaskSelector& id) {
  std::shared_lock<std::shared_mutex> lock(config_mutex_);
  return ChangeJob(id, [&](std::vector<ParsedJob>& rows) -> std::optional<SessionError> {
    if (!id.task) {
      rows.clear();
      return std::nullopt;
    }
    const auto picked = Select(rows, id, [](const ParsedJob&) { return true; });
    rows.erase(rows.begin() + static_cast<std::ptrdiff_t>(picked.front()));
    return std::nullopt;
  });
}

SessionStatus SessionState::Transition(const TaskSelector& id, JobState from, JobState to, const char* nothing) {
  std::shared_lock<std::shared_mutex> lock(config_mutex_);
  return ChangeJob(id, [&](std::vector<ParsedJob>& rows) -> std::optional<SessionError> {
    const auto picked = Select(rows, id, [&](const ParsedJob& r) { return r.state == from; });
    if (picked.empty()) return Conflict(id, nothing);
    for (std::size_t i : picked) rows[i].state = to;
    return std::nullopt;
  });
}

SessionStatus SessionState::Hold(const TaskSelector& id) {
  return Transition(id, JobState::kPending, JobState::kHeld, "nothing pending to hold");
}

SessionStatus SessionState::Release(const TaskSelector& id) {
  std::shared_lock<std::shared_mutex> lock(config_mutex_);
  // Under the Maui policy a released task accrues queue time from now
  // (JOBPRIOACCRUALPOLICY QUEUEPOLICY and FULLPOLICY read eligible=).
  const bool maui = base_.snapshot.cluster.config.priority_policy == PriorityPolicy::kMaui;
  const Time now = config_.now;
  return ChangeJob(id, [&](std::vector<ParsedJob>& rows) -> std::optional<SessionError> {
    const auto picked = Select(rows, id, [](const ParsedJob& r) { return r.state == JobState::kHeld; });
    if (picked.empty()) return Conflict(id, "nothing held to release");
    for (std::size_t i : picked) {
      rows[i].state = JobState::kPending;
      if (maui && now > 0) rows[i].eligible = now;
    }
    return std::nullopt;
  });
}

SessionStatus SessionState::Run(const TaskSelector& id, std::optional<Time> start, const std::string& granted) {
  std::shared_lock<std::shared_mutex> lock(config_mutex_);
  std::uint32_t granted_id = kNoName;
  if (!granted.empty()) {
    granted_id = jobs_->WithNames([&](JobNameSpace& names) { return names.texts.Intern(granted, 0); });
  }
  const Time now = config_.now;
  return ChangeJob(id, [&](std::vector<ParsedJob>& rows) -> std::optional<SessionError> {
    auto assumed = [](const ParsedJob& r) { return r.state == JobState::kRunning && r.assumed; };
    std::vector<std::size_t> picked = Select(rows, id, assumed);
    if (picked.empty()) {
      if (!id.task) {  // a job without assumed starts: its one pending task
        std::vector<std::size_t> pending;
        for (std::size_t i = 0; i < rows.size(); ++i) {
          if (rows[i].state == JobState::kPending) pending.push_back(i);
        }
        if (pending.size() != 1 || rows[pending[0]].first != rows[pending[0]].last) {
          return Conflict(id, pending.empty() ? "nothing pending or assumed to run" : "name the task to run");
        }
        picked = pending;
      } else {
        picked = Select(rows, id, [](const ParsedJob& r) { return r.state == JobState::kPending; });
        if (picked.empty()) return Conflict(id, "not pending and not assumed");
      }
      if (granted_id == kNoName) {
        return Refuse(ErrorCode::kInvalidValue, Named(id) + ": granted= is needed to run a task schedk did not start",
                      JobObject(id.job));
      }
    }
    if (granted_id != kNoName && picked.size() != 1) {
      return Refuse(ErrorCode::kInvalidValue, Named(id) + ": granted= names one task's queue instances",
                    JobObject(id.job));
    }
    for (std::size_t i : picked) {
      ParsedJob& r = rows[i];
      const bool was_pending = r.state == JobState::kPending;
      r.state = JobState::kRunning;
      r.flags &= static_cast<std::uint8_t>(~kJobEnrolled);  // running tasks are objects anyway
      r.assumed = false;
      if (start) {
        r.start = *start;
      } else if (was_pending) {
        r.start = now;
      }
      r.has_start = true;
      if (granted_id != kNoName) {
        r.granted = granted_id;
        r.master = kNoName;
      }
      if (auto e = CheckRow(r)) return Refuse(ErrorCode::kInvalidValue, *e, JobObject(id.job));
    }
    return std::nullopt;
  });
}

SessionStatus SessionState::Fail(const TaskSelector& id) {
  std::shared_lock<std::shared_mutex> lock(config_mutex_);
  return ChangeJob(id, [&](std::vector<ParsedJob>& rows) -> std::optional<SessionError> {
    const auto picked = Select(rows, id, [](const ParsedJob& r) { return r.state == JobState::kRunning && r.assumed; });
    if (picked.empty()) return Conflict(id, "no assumed start to refuse");
    for (std::size_t i : picked) BackToPending(rows[i]);
    return std::nullopt;
  });
}

SessionStatus SessionState::Suspend(const TaskSelector& id) {
  return Transition(id, JobState::kRunning, JobState::kSuspended, "nothing running to suspend");
}

SessionStatus SessionState::Resume(const TaskSelector& id) {
  return Transition(id, JobState::kSuspended, JobState::kRunning, "nothing suspended to resume");
}

SessionStatus SessionState::Finish(const TaskSelector& id, std::optional<Time> at, const std::string& usage) {
  // Usage changes the configuration's records, so a finish with usage is exclusive.
  std::unique_lock<std::shared_mutex> lock(config_mutex_);
  std::optional<std::vector<UsageValue>> added;
  if (!usage.empty()) {
    added = ParseUsageValues(usage);
    if (!added) return Refuse(ErrorCode::kInvalidValue, "finish: usage: expected name=value,... with numbers from 0 to 1e300");
  }
  const Time when = at.value_or(config_.now);
  // The records with the usage added are worked out while the job's rows are
  // changed, and refused with them: a finish applies whole or not at all.
  std::vector<UsageLine> next_usage;
  SessionStatus refused = ChangeJob(id, [&](std::vector<ParsedJob>& rows) -> std::optional<SessionError> {
    const auto picked = Select(rows, id, [](const ParsedJob& r) { return r.running(); });
    if (picked.empty()) return Conflict(id, "nothing running or suspended to finish");
    if (added) {
      next_usage = config_.usage;
      if (auto e = AddFinishedUsage(rows[picked.front()], *added, when, next_usage)) return e;
    }
    for (auto it = picked.rbegin(); it != picked.rend(); ++it) rows.erase(rows.begin() + static_cast<std::ptrdiff_t>(*it));
    return std::nullopt;
  });
  if (!refused && added) config_.usage = std::move(next_usage);
  return refused;
}

// Grid Engine adds a finished job's usage to its owner, the owner's usage in
// the job's project, and the project: each record decayed to `when` first.
// A sum above kLargestAmount is refused (a dump of it would not load back).
SessionStatus SessionState::AddFinishedUsage(const ParsedJob& finished, const std::vector<UsageValue>& added,
                                             Time when, std::vector<UsageLine>& usage) const {
  std::string owner, project;
  jobs_->ReadNames([&](const JobNameSpace& names) {
    owner = std::string(names.owners.Name(finished.owner));
    if (finished.project != kNoName) project = std::string(names.projects.Name(finished.project));
  });
  if (project.empty()) {  // the owner's default project, as a pass resolves it
    if (auto u = base_.snapshot.names.users.Find(owner); u && *u < base_.snapshot.cluster.entities.users.size()) {
      const ProjectId p = base_.snapshot.cluster.entities.users[*u].default_project;
      if (p.valid()) project = base_.snapshot.names.projects.Name(p.index());
    }
  }
  auto add_to = [&](bool is_project, const std::string& name, const std::string& in_project) -> SessionStatus {
    const UsageKind kind = is_project ? UsageKind::kProject : UsageKind::kUser;
    auto it = std::find_if(usage.begin(), usage.end(), [&](const UsageLine& u) {
      return u.kind == kind && u.name == name && u.project == in_project;
    });
    UsageRecord record;
    if (it != usage.end()) {
      record.values = *ParseUsageValues(it->values);
      record.time_stamp = it->at;
      record.values = DecayedUsage(record, when, base_.snapshot.cluster.config);
    }
    for (const UsageValue& v : added) {
      auto existing = std::find_if(record.values.begin(), record.values.end(), [&](const UsageValue& r) { return r.name == v.name; });
      const double sum = (existing != record.values.end() ? existing->value : 0) + v.value;
      if (!(sum <= kLargestAmount)) {
        return Refuse(ErrorCode::kInvalidValue, "finish: usage: " + Quote(v.name) + " of " + (is_project ? "project " : "user ") +
                                                    Quote(name) + " would exceed 1e300");
      }
      if (existing != record.values.end()) existing->value = sum;
      else record.values.push_back(v);
    }
    if (it == usage.end()) it = usage.insert(usage.end(), UsageLine{0, kind, name, "", in_project, 0});
    it->values = UsageText(record.values);
    it->at = when;
    return std::nullopt;
  };
  if (auto e = add_to(false, owner, "")) return e;
  if (project.empty()) return std::nullopt;
  if (auto e = add_to(false, owner, project)) return e;
  return add_to(true, project, "");
}

SessionStatus SessionState::Assume(const Snapshot& view, const ScheduleResult& result, const QueueInstanceTable& instances) {
  std::shared_lock<std::shared_mutex> lock(config_mutex_);
  const Time now = config_.now;
  for (const Decision& d : result.decisions) {
    if (d.kind != DecisionKind::kStart) continue;
    std::string granted;
    for (std::uint32_t g = d.grant_begin; g < d.grant_end; ++g) {
      const Grant& grant = result.grants[g];
      if (!granted.empty()) granted += ',';
      granted += view.names.queues.Name(instances.queue[grant.instance].index()) + "@" +
                 view.names.hosts.Name(instances.host[grant.instance].index()) + ":" + std::to_string(grant.slots);
    }
    const std::uint32_t granted_id = jobs_->WithNames([&](JobNameSpace& names) { return names.texts.Intern(granted, 0); });
    const TaskSelector id{d.job, d.task};
    SessionStatus refused = ChangeJob(id, [&](std::vector<ParsedJob>& rows) -> std::optional<SessionError> {
      const auto picked = Select(rows, id, [](const ParsedJob& r) { return r.state == JobState::kPending; });
      if (picked.empty()) return Conflict(id, "no longer pending");
      ParsedJob& r = rows[picked.front()];
      r.state = JobState::kRunning;
      r.flags &= static_cast<std::uint8_t>(~kJobEnrolled);  // running tasks are objects anyway
      r.has_start = true;
      r.start = now;
      r.granted = granted_id;
      r.master = kNoName;
      r.assumed = true;
      return std::nullopt;
    });
    if (refused) return refused;
  }
  // Maui's bypass counts: jobs a lower-priority job started ahead of.
  if (view.cluster.config.priority_policy == PriorityPolicy::kMaui) {
    for (JobNumber job : BypassedJobs(result)) {
      const TaskSelector id{job, std::nullopt};
      SessionStatus refused = ChangeJob(id, [&](std::vector<ParsedJob>& rows) -> std::optional<SessionError> {
        for (ParsedJob& r : rows) {
          if (r.state == JobState::kPending) ++r.bypass;
        }
        return std::nullopt;
      });
      if (refused) return refused;
    }
  }
  return std::nullopt;
}

// --- reading -----------------------------------------------------------------------------------------

Result<Snapshot> SessionState::View() const {
  std::shared_lock<std::shared_mutex> lock(config_mutex_);
  Snapshot view = base_.snapshot;
  const LiveJobs::View shards = jobs_->Snapshot();
  const std::vector<UsageLine> usage = config_.usage;
  Status st;
  jobs_->ReadNames([&](const JobNameSpace& names) {
    std::vector<JobSource> sources;
    for (const auto& shard : shards) sources.push_back({&names, shard->rows});
    st = CompleteSnapshot(view, sources, usage, false, &request_cache_);
  });
  if (!st.ok()) return st;
  return view;
}

namespace {

// Each shard's job lines in (job, task) order.
std::vector<std::string> ShardTexts(const LiveJobs& jobs, const LiveJobs::View& shards) {
  std::vector<std::string> texts(shards.size());
  jobs.ReadNames([&](const JobNameSpace& names) {
    tbb::parallel_for(std::size_t{0}, shards.size(), [&](std::size_t s) {
      for (const ParsedJob& r : shards[s]->rows) {
        RenderJobLine(r, names, texts[s]);
        texts[s] += '\n';
      }
    });
  });
  return texts;
}

}  // namespace

SessionStatus SessionState::Dump(const std::string& kind, const std::string& name, std::vector<std::string>& lines) const {
  std::shared_lock<std::shared_mutex> lock(config_mutex_);
  lines.clear();
  auto add_jobs = [&](std::optional<JobNumber> only) {
    const LiveJobs::View shards = jobs_->Snapshot();
    std::vector<std::pair<JobNumber, std::string>> jobs;
    jobs_->ReadNames([&](const JobNameSpace& names) {
      for (const auto& shard : shards) {
        for (const ParsedJob& r : shard->rows) {
          if (only && r.number != *only) continue;
          std::string line;
          RenderJobLine(r, names, line);
          jobs.emplace_back(r.number, std::move(line));
        }
      }
    });
    std::stable_sort(jobs.begin(), jobs.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto& [number, line] : jobs) lines.push_back(std::move(line));
  };
  const std::vector<std::string> config = SplitLines(ConfigText(config_));
  if (kind.empty()) {
    lines = config;
    add_jobs(std::nullopt);
    return std::nullopt;
  }
  if (kind == "job") {
    if (name.empty()) {
      add_jobs(std::nullopt);
      return std::nullopt;
    }
    auto id = ParseTaskSelector(name);
    if (!id || id->task) return Refuse(ErrorCode::kInvalidValue, "dump job: expected a job number, not " + Quote(name));
    add_jobs(id->job);
    if (lines.empty()) return Refuse(ErrorCode::kNoSuchObject, "no job " + name, "job:" + name);
    return std::nullopt;
  }
  if (IsConfigRecord(kind)) {
    for (const std::string& line : config) {
      if (line.rfind(kind + " ", 0) == 0 && (name.empty() || line.rfind(kind + " " + name + " ", 0) == 0)) {
        lines.push_back(line);
      }
    }
    return std::nullopt;
  }
  bool known = false;
  for (const ObjectBlock& b : config_.blocks) {
    if (b.kind != kind || (!name.empty() && b.name != name)) continue;
    known = true;
    lines.push_back("begin " + b.kind + (b.name.empty() ? "" : " " + b.name));
    for (const Attribute& a : b.attributes) lines.push_back(a.key + (a.value.empty() ? "" : " " + a.value));
    lines.push_back("end " + b.kind);
  }
  if (!known && !name.empty()) return Refuse(ErrorCode::kNoSuchObject, "no " + kind + " " + name, kind + ":" + name);
  return std::nullopt;
}

StateDigest SessionState::Digest() const {
  std::shared_lock<std::shared_mutex> lock(config_mutex_);
  StateDigest d;
  d.generation = generation_.load();
  d.objects = config_.blocks.size();
  const LiveJobs::View shards = jobs_->Snapshot();
  std::uint64_t h = Fnv1a(kFnvOffset, ConfigText(config_));
  for (const std::string& text : ShardTexts(*jobs_, shards)) h = Fnv1a(h, text);
  d.hash = h;
  for (const auto& shard : shards) {
    for (std::size_t i = 0; i < shard->rows.size(); ++i) {
      d.jobs += i == 0 || shard->rows[i].number != shard->rows[i - 1].number;
      d.tasks += shard->rows[i].task_count();
    }
  }
  return d;
}

}  // namespace schedk::io
