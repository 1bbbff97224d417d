#include "io/job_reader.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <atomic>
#include <deque>
#include <functional>
#include <limits>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>

#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>
#include <tbb/task_arena.h>

#include "io/ge_value.hpp"
#include "io/line_cursor.hpp"
#include "io/tuning.hpp"
#include "io/untrusted_text.hpp"
#include "kernel/complex/string_expression.hpp"
#include "kernel/util/first_occurrence.hpp"

namespace schedk::io {
namespace {

constexpr std::uint64_t kOpenRangeThreshold = 9999999;  // JSV writes 9999999 for "n-"

void ParseChunk(const JobChunk& input, const std::string& source, ParsedChunk& chunk) {
  if (const std::size_t bad = FindNonText(input.text); bad != std::string_view::npos) {
    const std::string_view before = input.text.substr(0, bad);
    const auto line = input.first_line + static_cast<int>(std::count(before.begin(), before.end(), '\n'));
    const std::size_t line_start = before.rfind('\n') == std::string_view::npos ? 0 : before.rfind('\n') + 1;
    chunk.error = Status::InvalidInput(
        source, line,
        NonTextMessage(input.text.substr(line_start), bad - line_start) + " (the input must be UTF-8 text)");
    return;
  }
  std::vector<JobToken> tokens;
  std::deque<std::string> storage;  // joined continuation lines and unquoted values, per line
  LineCursor cursor(input.text, input.first_line - 1);
  std::string_view physical;
  while (cursor.NextPhysical(physical)) {
    const int start_line = cursor.line();
    storage.clear();
    const std::string_view trimmed = Trim(cursor.Logical(physical, storage));
    if (trimmed.empty() || trimmed.front() == '#') continue;
    ParsedJob job;
    if (auto e = ParseJobLine(trimmed, start_line, chunk.names, tokens, storage, job)) {
      chunk.error = Status::InvalidInput(source, start_line, *e);
      return;
    }
    chunk.jobs.push_back(job);
  }
}

// Maps each name space's ids to the snapshot's ids, keeping the earliest line of use.
struct GlobalNames {
  std::vector<std::vector<std::uint32_t>> map;  // [name space][local] -> global
  std::vector<int> first_line;                  // [global]
};

// Which names of each name space some row uses: a session's name space also
// holds names of refused requests and of jobs gone since, which must not
// become users or be resolved.
struct UsedNames {
  std::vector<std::uint8_t> owners, groups, projects, departments, job_names, requests, qos;
};

std::vector<UsedNames> MarkUsedNames(const std::vector<const JobNameSpace*>& spaces,
                                     const std::vector<JobSource>& sources, const std::vector<std::size_t>& space_of) {
  std::vector<UsedNames> used(spaces.size());
  for (std::size_t c = 0; c < spaces.size(); ++c) {
    const JobNameSpace& n = *spaces[c];
    used[c] = {std::vector<std::uint8_t>(n.owners.size()),    std::vector<std::uint8_t>(n.groups.size()),
               std::vector<std::uint8_t>(n.projects.size()),  std::vector<std::uint8_t>(n.departments.size()),
               std::vector<std::uint8_t>(n.job_names.size()), std::vector<std::uint8_t>(n.requests.size()),
               std::vector<std::uint8_t>(n.qos.size())};
  }
  tbb::parallel_for(std::size_t{0}, sources.size(), [&](std::size_t i) {
    UsedNames& u = used[space_of[i]];
    // Read before writing: most rows name the same few owners and request
    // sets, and stores from both cores to one line would pass it back and forth.
    auto mark = [](std::vector<std::uint8_t>& v, std::uint32_t id) {
      if (id == kNoName) return;
      std::atomic_ref<std::uint8_t> flag(v[id]);
      if (flag.load(std::memory_order_relaxed) == 0) flag.store(1, std::memory_order_relaxed);
    };
    for (const ParsedJob& j : sources[i].jobs) {
      mark(u.owners, j.owner);
      mark(u.groups, j.group);
      mark(u.projects, j.project);
      mark(u.departments, j.department);
      mark(u.job_names, j.name);
      mark(u.requests, j.requests);
      mark(u.qos, j.qos);
    }
  });
  return used;
}

template <class Intern>
GlobalNames MergeNames(const std::vector<const JobNameSpace*>& spaces, JobNames JobNameSpace::*field,
                       const std::vector<UsedNames>& used, std::vector<std::uint8_t> UsedNames::*used_field,
                       Intern intern) {
  GlobalNames out;
  out.map.resize(spaces.size());
  for (std::size_t c = 0; c < spaces.size(); ++c) {
    const JobNames& local = spaces[c]->*field;
    const std::vector<std::uint8_t>& in_use = used[c].*used_field;
    out.map[c].assign(local.size(), kNoName);
    for (std::uint32_t i = 0; i < local.size(); ++i) {
      if (!in_use[i]) continue;
      const std::uint32_t g = intern(local.Name(i));
      out.map[c][i] = g;
      if (out.first_line.size() <= g) out.first_line.resize(g + 1, std::numeric_limits<int>::max());
      out.first_line[g] = std::min(out.first_line[g], local.Line(i));
    }
  }
  return out;
}

// What a numeric request may ask for: a consumable debits it (once per slot,
// job or host), so it is a finite amount from 0 up; a time or memory limit
// (h_rt, h_vmem) is never negative.
Reason CheckAmount(const ComplexAttribute& a, double value) {
  const bool consumable = a.consumable != Consumable::kNo;
  if ((consumable || a.type == ValueType::kTime || a.type == ValueType::kMemory) && value < 0) {
    return std::string("cannot be negative");
  }
  if (consumable && value > kLargestAmount) return std::string("must be a finite amount (at most 1e300)");
  return std::nullopt;
}

class RequestParser {
 public:
  RequestParser(const ClusterBuilder& builder, const Snapshot& s) : builder_(builder), s_(s) {}

  Reason Parse(std::string_view key, RequestSet& out) const {
    auto part = [&](RequestPart p) { return RequestKeyPart(key, p); };
    if (auto e = Resources(part(RequestPart::kHard), "l_hard", out.hard)) return e;
    if (auto e = Resources(part(RequestPart::kSoft), "l_soft", out.soft)) return e;
    if (auto e = Queues(part(RequestPart::kQueueHard), "q_hard", out.queue_hard)) return e;
    if (auto e = Queues(part(RequestPart::kQueueSoft), "q_soft", out.queue_soft)) return e;
    if (auto e = Queues(part(RequestPart::kQueueMaster), "masterq", out.queue_master)) return e;
    if (!part(RequestPart::kPeName).empty()) {
      out.has_pe = true;
      if (auto e = Pe(part(RequestPart::kPeName), part(RequestPart::kPeMin), part(RequestPart::kPeMax), out.pe))
        return e;
    }
    if (!out.queue_master.empty() && !out.has_pe) {
      return std::string("masterq: only for parallel jobs (qsub refuses -masterq without -pe)");
    }
    return std::nullopt;
  }

 private:
  Reason Resources(std::string_view text, const char* key, ComplexValueList& out) const {
    if (text.empty()) return std::nullopt;
    for (std::string_view item : SplitList(text)) {
      const std::size_t eq = item.find('=');
      const std::string_view name = item.substr(0, eq);
      auto id = builder_.FindComplex(name);
      if (!id) return std::string(key) + ": unknown complex attribute " + Quote(name);
      const ComplexAttribute& a = s_.cluster.complexes[*id];
      if (*id == s_.cluster.complexes.slots) {
        return std::string(key) + ": slots cannot be requested with -l; use pe_name/pe_min/pe_max";
      }
      if (a.requestable == Requestable::kNo) {
        return std::string(key) + ": complex attribute " + Quote(name) + " is not requestable";
      }
      ComplexValue v;
      v.complex = *id;
      if (eq == std::string_view::npos) {
        if (a.type != ValueType::kBool) return std::string(key) + ": " + Quote(name) + " needs a value";
        v.number = 1;
      } else if (IsNumeric(a.type)) {
        auto d = ParseTypedNumber(item.substr(eq + 1), a.type);
        if (!d)
          return std::string(key) + ": malformed value " + Quote(item.substr(eq + 1)) + " for " + std::string(name);
        v.number = *d;
        if (auto e = CheckAmount(a, v.number)) return std::string(key) + ": " + std::string(name) + " " + *e;
      } else {
        v.text = std::string(item.substr(eq + 1));
        if (StringExpressionTooDeep(v.text)) {
          return std::string(key) + ": the expression for " + std::string(name) + " nests '(' and '!' deeper than " +
                 std::to_string(kMaxStringExpressionDepth) + " levels";
        }
      }
      for (const ComplexValue& prior : out) {
        if (prior.complex == v.complex) return std::string(key) + ": " + Quote(name) + " is requested twice";
      }
      out.push_back(std::move(v));
    }
    return std::nullopt;
  }

  Reason Queues(std::string_view text, const char* key, std::vector<QueueSelector>& out) const {
    for (std::string_view item : SplitList(text)) {
      QueueSelector q;
      const std::size_t at = item.find('@');
      const std::string_view queue = item.substr(0, at);
      if (queue != "*" && !queue.empty()) {
        auto id = s_.names.queues.Find(queue);
        if (!id) return std::string(key) + ": unknown queue " + Quote(queue);
        q.queue = QueueId(*id);
      }
      if (at != std::string_view::npos) {
        const std::string_view where = item.substr(at + 1);
        if (!where.empty() && where.front() == '@') {
          auto g = s_.names.hostgroups.Find(where);
          if (!g) return std::string(key) + ": unknown hostgroup " + Quote(where);
          q.group = HostgroupId(*g);
        } else if (where != "*") {
          auto h = s_.names.hosts.Find(where);
          if (!h) return std::string(key) + ": unknown host " + Quote(where);
          q.host = HostId(*h);
        }
      }
      if (item.find_first_of("?[]") != std::string_view::npos ||
          (queue.find('*') != std::string_view::npos && queue != "*")) {
        return std::string(key) + ": wildcard patterns other than '*' are not supported in queue lists (" +
               Quote(item) + ")";
      }
      out.push_back(q);
    }
    return std::nullopt;
  }

  Reason Pe(std::string_view name, std::string_view min_text, std::string_view max_text,
                                PeRequest& pe) const {
    const std::string pattern(name);
    pe.wildcard = name.find_first_of("*?[") != std::string_view::npos;
    for (std::uint32_t id = 0; id < s_.names.pes.size(); ++id) {
      if (fnmatch(pattern.c_str(), s_.names.pes.Name(id).c_str(), 0) == 0) pe.matching.emplace_back(id);
    }
    if (pe.matching.empty()) return "pe_name: no parallel environment matches " + Quote(pattern);
    auto min = ParseUnsigned(min_text);
    if (!min || *min == 0 || *min > UINT32_MAX) return "pe_min: expected a positive slot count, not " + Quote(min_text);
    std::optional<std::uint64_t> max = min;
    if (!max_text.empty()) max = EqualsIgnoreCase(max_text, "infinity") ? kOpenRangeThreshold : ParseUnsigned(max_text);
    if (!max || *max < *min) return "pe_max: expected a slot count >= pe_min, not " + Quote(max_text);
    pe.min = static_cast<std::uint32_t>(*min);
    pe.max = *max >= kOpenRangeThreshold ? kOpenSlotRange : static_cast<std::uint32_t>(*max);
    return std::nullopt;
  }

  const ClusterBuilder& builder_;
  const Snapshot& s_;
};

// Resolves granted=queue@host:slots[,...] of a running row.
Reason ParseGranted(std::string_view text, const Snapshot& s, std::vector<GrantedSlots>& out) {
  for (std::string_view item : SplitList(text)) {
    const std::size_t colon = item.rfind(':');
    const std::size_t at = item.find('@');
    auto slots = colon == std::string_view::npos ? std::nullopt : ParseUnsigned(item.substr(colon + 1));
    if (at == std::string_view::npos || !slots || *slots == 0 || *slots > UINT32_MAX || at > colon) {
      return "granted: expected queue@host:slots, not " + Quote(item);
    }
    const std::string_view queue = item.substr(0, at);
    const std::string_view host = item.substr(at + 1, colon - at - 1);
    auto q = s.names.queues.Find(queue);
    if (!q) return "granted: unknown queue " + Quote(queue);
    auto h = s.names.hosts.Find(host);
    const auto& hosts = s.cluster.queues[*q].hosts;
    if (!h || !std::binary_search(hosts.begin(), hosts.end(), HostId(*h))) {
      return "granted: host " + Quote(host) + " is not in the hostlist of queue " + std::string(queue);
    }
    out.push_back({QueueId(*q), HostId(*h), static_cast<std::uint32_t>(*slots)});
  }
  return std::nullopt;
}

// Returns true if the task sets first1..last1:step1 and first2..last2:step2
// share a task: the smallest x >= max(first1, first2) with x = first1 (mod
// step1) and x = first2 (mod step2), by the Chinese remainder theorem, is at
// most min(last1, last2). Constant time, whatever the task counts.
bool TasksOverlap(std::uint64_t f1, std::uint64_t l1, std::uint64_t s1, std::uint64_t f2, std::uint64_t l2,
                  std::uint64_t s2) {
  __extension__ typedef __int128 Wide;  // task numbers and steps are below 2^32, so products fit
  const std::uint64_t lo = std::max(f1, f2), hi = std::min(l1, l2);
  if (lo > hi) return false;
  // Extended Euclid: s1 * p = g (mod s2), g = gcd(s1, s2).
  Wide old_r = s1, r = s2, old_p = 1, p = 0;
  while (r != 0) {
    const Wide q = old_r / r;
    old_r = std::exchange(r, old_r - q * r);
    old_p = std::exchange(p, old_p - q * p);
  }
  const Wide g = old_r;
  const Wide diff = Wide(f2) - Wide(f1);
  if (diff % g != 0) return false;
  const Wide m = Wide(s2) / g;  // t is unique modulo m
  Wide t = (diff / g % m) * (old_p % m) % m;
  if (t < 0) t += m;
  const Wide period = Wide(s1) * m;  // lcm(s1, s2)
  Wide x = Wide(f1) + Wide(s1) * t;  // a common element of both progressions
  if (x < Wide(lo)) {
    x += (Wide(lo) - x + period - 1) / period * period;
  } else {
    x -= (x - Wide(lo)) / period * period;
  }
  return x <= Wide(hi);
}

// The job-level attributes the rows of one job share, by their job keys, in
// the order they are compared: a row is reported for the first that differs.
using Row = std::uint32_t;  // a row of a JobShard
struct JobLevelField {
  const char* key;
  bool (*differs)(const JobShard& shard, Row a, Row b);
};
constexpr JobLevelField kJobLevelFields[] = {
    {"owner", [](const JobShard& sh, Row a, Row b) { return sh.owner[a] != sh.owner[b]; }},
    {"project", [](const JobShard& sh, Row a, Row b) { return sh.project[a] != sh.project[b]; }},
    {"submit", [](const JobShard& sh, Row a, Row b) { return sh.submit[a] != sh.submit[b]; }},
    {"requests", [](const JobShard& sh, Row a, Row b) { return sh.requests[a] != sh.requests[b]; }},
    {"p", [](const JobShard& sh, Row a, Row b) { return sh.posix_priority[a] != sh.posix_priority[b]; }},
    {"tc", [](const JobShard& sh, Row a, Row b) { return sh.task_concurrency(a) != sh.task_concurrency(b); }},
};

// Rows of one job must have disjoint tasks and the same job-level attributes.
// Attributes are compared with the job's earliest line; tasks with the earlier
// rows whose range still reaches the row's first task (a sweep over task_first),
// so a job spread over many lines costs linear time in the usual layouts.
std::optional<Status> CheckJobRows(const JobShard& shard, const std::vector<int>& lines, const std::string& source) {
  std::vector<std::uint32_t> order(shard.size());
  for (std::uint32_t r = 0; r < order.size(); ++r) order[r] = r;
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return std::tie(shard.number[a], shard.task_first[a], lines[a]) <
           std::tie(shard.number[b], shard.task_first[b], lines[b]);
  });
  std::optional<Status> first;
  auto report = [&](std::uint32_t row, const std::string& what) {
    Status st = Status::InvalidInput(source, lines[row], "job " + std::to_string(shard.number[row]) + ": " + what);
    if (!first || st.line() < first->line()) first = st;
  };
  std::vector<std::uint32_t> reaching;  // earlier rows of the job whose last task >= the current first
  for (std::size_t begin = 0; begin < order.size();) {
    std::size_t end = begin + 1;
    while (end < order.size() && shard.number[order[end]] == shard.number[order[begin]]) ++end;
    if (end - begin > 1) {
      const std::uint32_t head = *std::min_element(order.begin() + static_cast<std::ptrdiff_t>(begin),
                                                   order.begin() + static_cast<std::ptrdiff_t>(end),
                                                   [&](auto a, auto b) { return lines[a] < lines[b]; });
      const std::string other = " differs from line " + std::to_string(lines[head]);
      reaching.clear();
      for (std::size_t i = begin; i < end; ++i) {
        const std::uint32_t b = order[i];
        if (b != head) {
          for (const JobLevelField& f : kJobLevelFields) {
            if (f.differs(shard, b, head)) {
              report(b, f.key + other);
              break;
            }
          }
        }
        std::erase_if(reaching, [&](std::uint32_t a) { return shard.task_last[a] < shard.task_first[b]; });
        for (std::uint32_t a : reaching) {
          if (TasksOverlap(shard.task_first[a], shard.task_last[a], shard.task_step[a], shard.task_first[b],
                           shard.task_last[b], shard.task_step[b])) {
            const std::uint32_t later = lines[a] > lines[b] ? a : b;
            const std::uint32_t earlier = later == a ? b : a;
            report(later, "duplicate object: a task is also on line " + std::to_string(lines[earlier]));
          }
        }
        reaching.push_back(b);
      }
    }
    begin = end;
  }
  return first;
}

// A row whose extras (deadline, placement of a running row, dependencies and
// the other rarely given keys) are resolved once every row has its place.
struct PendingExtras {
  std::uint32_t shard, row;
  const ParsedJob* job;
  const JobNameSpace* names;
};

// Line order of pending extras: the error reported is the one on the earliest
// line, as a sequential pass in line order would find.
struct ByLine {
  bool operator()(const PendingExtras* a, const PendingExtras* b) const {
    return std::tie(a->job->line, a->job->number, a->job->first) <
           std::tie(b->job->line, b->job->number, b->job->first);
  }
};

bool HasExtras(const ParsedJob& j) {
  return j.deadline != 0 || j.has_start || j.runtime >= 0 || j.hold_jid != kNoName || j.eligible != 0 ||
         j.bypass != 0 || j.task_concurrency != 0;
}

// AddJobs in stages, in the order Load runs them; each stage reads what the
// ones before it left in the members. Names are interned into the snapshot in
// the same order whatever the thread count, so ids do not depend on it.
class JobTableLoader {
 public:
  JobTableLoader(const std::vector<JobSource>& sources, const ClusterBuilder& builder, Snapshot& s, RequestCache* cache)
      : sources_(sources), builder_(builder), s_(s), names_(s.names), entities_(s.cluster.entities), cache_(cache) {}

  Status Load(bool check_rows) {
    FindNameSpaces();
    used_ = MarkUsedNames(spaces_, sources_, space_of_);
    if (Status st = MergeJobNames(); !st.ok()) return st;
    MergeRequestKeys();
    if (Status st = ResolveProjectsAndDepartments(); !st.ok()) return st;
    if (Status st = ResolveRequestSets(); !st.ok()) return st;
    // Users known so far (declared, ACL entries, job owners) get objects now.
    entities_.users.resize(names_.users.size());
    FindDefaultDepartments();
    SizeShards();
    PlaceRows();
    if (Status st = ResolveExtras(); !st.ok()) return st;
    if (!check_rows) return Status::Ok();
    return CheckRows();
  }

 private:
  using GrantedSeen = std::unordered_map<std::string_view, std::vector<GrantedSlots>>;

  // The distinct name spaces, and each source's.
  void FindNameSpaces() {
    space_of_.resize(sources_.size());
    for (std::size_t i = 0; i < sources_.size(); ++i) {
      auto it = std::find(spaces_.begin(), spaces_.end(), sources_[i].names);
      space_of_[i] = static_cast<std::size_t>(it - spaces_.begin());
      if (it == spaces_.end()) spaces_.push_back(sources_[i].names);
    }
  }

  template <class Intern>
  GlobalNames Merge(JobNames JobNameSpace::*field, std::vector<std::uint8_t> UsedNames::*used_field,
                    Intern intern) const {
    return MergeNames(spaces_, field, used_, used_field, intern);
  }

  // Owners, groups, job names and QOS names become the snapshot's; projects
  // and departments get ids of their own, resolved against the cluster next.
  Status MergeJobNames() {
    owners_ =
        Merge(&JobNameSpace::owners, &UsedNames::owners, [&](std::string_view n) { return names_.users.Intern(n); });
    groups_ =
        Merge(&JobNameSpace::groups, &UsedNames::groups, [&](std::string_view n) { return names_.groups.Intern(n); });
    job_names_ = Merge(&JobNameSpace::job_names, &UsedNames::job_names,
                       [&](std::string_view n) { return names_.job_names.Intern(n); });
    qos_ = Merge(&JobNameSpace::qos, &UsedNames::qos, [&](std::string_view n) { return names_.qos.Intern(n); });
    if (names_.qos.size() > std::size_t{kMaxQos} + 1) {
      const int line = kMaxQos + 1 < qos_.first_line.size() ? qos_.first_line[kMaxQos + 1] : 0;
      return Status::InvalidInput(s_.source, line,
                                  "job key 'qos': more than " + std::to_string(kMaxQos + 1) + " distinct QOS names");
    }
    projects_ = Merge(&JobNameSpace::projects, &UsedNames::projects,
                      [&](std::string_view n) { return project_names_.Intern(n); });
    departments_ = Merge(&JobNameSpace::departments, &UsedNames::departments,
                         [&](std::string_view n) { return department_names_.Intern(n); });
    return Status::Ok();
  }

  // Request combinations. With a cache (one name space: a session's), the
  // name space's ids are the snapshot's, and a combination no row uses stays
  // an empty set; otherwise the used ones are numbered in order of first use.
  void MergeRequestKeys() {
    by_id_ = cache_ != nullptr && spaces_.size() == 1;
    if (!by_id_) {
      NumberRequestKeys();
      return;
    }
    const JobNames& keys = spaces_[0]->requests;
    requests_.map.assign(1, std::vector<std::uint32_t>(keys.size()));
    requests_.first_line.resize(keys.size());
    for (std::uint32_t r = 0; r < keys.size(); ++r) {
      requests_.map[0][r] = r;
      requests_.first_line[r] = keys.Line(r);
    }
  }

  // The request keys in use, numbered in the order they are first used
  // (space by space, each in its id order) on every core: the ids one table
  // interning them in that order would give (kernel/util/first_occurrence.hpp).
  void NumberRequestKeys() {
    std::vector<std::pair<std::uint32_t, std::uint32_t>> keys;  // space, its id
    requests_.map.resize(spaces_.size());
    for (std::uint32_t c = 0; c < spaces_.size(); ++c) {
      const std::vector<std::uint8_t>& in_use = used_[c].requests;
      requests_.map[c].assign(spaces_[c]->requests.size(), kNoName);
      for (std::uint32_t i = 0; i < in_use.size(); ++i) {
        if (in_use[i]) keys.emplace_back(c, i);
      }
    }
    auto key_of = [&](std::size_t k) { return spaces_[keys[k].first]->requests.Name(keys[k].second); };
    FirstOccurrence<std::string_view> numbered = NumberByFirstOccurrence<std::string_view, std::hash<std::string_view>>(
        keys.size(), key_of, ExecutionMode::kParallel);
    requests_.first_line.assign(numbered.distinct.size(), std::numeric_limits<int>::max());
    for (std::size_t k = 0; k < keys.size(); ++k) {
      const auto [c, i] = keys[k];
      const std::uint32_t g = numbered.ids[k];
      requests_.map[c][i] = g;
      requests_.first_line[g] = std::min(requests_.first_line[g], spaces_[c]->requests.Line(i));
    }
    request_keys_ = std::move(numbered.distinct);
  }

  // References to objects that must exist.
  Status ResolveProjectsAndDepartments() {
    project_of_.resize(project_names_.size());
    for (std::uint32_t p = 0; p < project_names_.size(); ++p) {
      auto id = names_.projects.Find(project_names_.Name(p));
      if (!id) {
        return Status::InvalidInput(s_.source, projects_.first_line[p],
                                    "job key 'project': unknown project " + Quote(project_names_.Name(p)));
      }
      project_of_[p] = ProjectId(*id);
    }
    department_of_.resize(department_names_.size());
    for (std::uint32_t d = 0; d < department_names_.size(); ++d) {
      auto id = names_.usersets.Find(department_names_.Name(d));
      if (!id || !entities_.usersets[*id].is_department) {
        return Status::InvalidInput(s_.source, departments_.first_line[d],
                                    "job key 'department': unknown department " + Quote(department_names_.Name(d)));
      }
      department_of_[d] = UsersetId(*id);
    }
    return Status::Ok();
  }

  // Request combinations: parsed once each; an error names the first line using it.
  Status ResolveRequestSets() {
    RequestParser parser(builder_, s_);
    std::vector<RequestSet>& sets = s_.jobs.request_sets();
    if (by_id_) {
      const JobNameSpace& space = *spaces_[0];
      auto parse = [&](std::string_view key, RequestSet& set) { return parser.Parse(key, set); };
      if (auto e = cache_->Fill(space, used_[0].requests, parse, sets)) {
        return Status::InvalidInput(s_.source, space.requests.Line(e->first), e->second);
      }
      return Status::Ok();
    }
    // Each combination on its own (Parse reads the cluster only), in parallel;
    // of the bad ones, the one first used in the file is named, as a walk in
    // line order would stop there.
    sets.assign(request_keys_.size(), RequestSet{});
    constexpr std::uint32_t kNone = UINT32_MAX;
    auto earlier = [&](std::uint32_t a, std::uint32_t b) {
      if (a == kNone || b == kNone) return std::min(a, b);
      return std::tie(requests_.first_line[a], a) < std::tie(requests_.first_line[b], b) ? a : b;
    };
    const std::uint32_t bad = tbb::parallel_reduce(
        tbb::blocked_range<std::uint32_t>(0, static_cast<std::uint32_t>(sets.size()), tuning::kRequestKeysPerTask),
        kNone,
        [&](const tbb::blocked_range<std::uint32_t>& range, std::uint32_t found) {
          for (std::uint32_t r = range.begin(); r != range.end(); ++r) {
            if (parser.Parse(request_keys_[r], sets[r])) found = earlier(found, r);
          }
          return found;
        },
        earlier);
    if (bad == kNone) return Status::Ok();
    RequestSet again;  // the message, from the same parse
    return Status::InvalidInput(s_.source, requests_.first_line[bad], *parser.Parse(request_keys_[bad], again));
  }

  // Department of each user: the first department (in definition order) listing the user or the user's group.
  void FindDefaultDepartments() {
    user_department_.resize(names_.users.size());
    group_department_.resize(names_.groups.size());
    for (std::uint32_t d = 0; d < entities_.usersets.size(); ++d) {
      const Userset& u = entities_.usersets[d];
      if (!u.is_department) continue;
      for (UserId user : u.users) {
        if (!user_department_[user.index()].valid()) user_department_[user.index()] = UsersetId(d);
      }
      for (GroupId group : u.groups) {
        if (!group_department_[group.index()].valid()) group_department_[group.index()] = UsersetId(d);
      }
    }
  }

  // Scatter rows into shards: count per (source, shard), then fill in parallel
  // (PlaceRows), each source from its own start in each shard.
  void SizeShards() {
    JobTable& table = s_.jobs;
    const std::size_t n_shards = table.shards().size();
    std::vector<std::vector<std::uint32_t>> counts(sources_.size(), std::vector<std::uint32_t>(n_shards, 0));
    tbb::parallel_for(std::size_t{0}, sources_.size(), [&](std::size_t c) {
      for (const ParsedJob& j : sources_[c].jobs) ++counts[c][table.ShardOf(j.number)];
    });
    start_.assign(sources_.size(), std::vector<std::uint32_t>(n_shards, 0));
    std::vector<std::uint32_t> totals(n_shards, 0);
    for (std::size_t sh = 0; sh < n_shards; ++sh) {
      for (std::size_t c = 0; c < sources_.size(); ++c) {
        start_[c][sh] = totals[sh];
        totals[sh] += counts[c][sh];
      }
    }
    // The columns are made, and their pages first touched, on every core.
    s_.job_lines.assign(n_shards, {});
    tbb::parallel_for(std::size_t{0}, n_shards, [&](std::size_t sh) {
      table.shards()[sh].Resize(totals[sh]);
      s_.job_lines[sh].resize(totals[sh]);
    });
  }

  void PlaceRows() {
    JobTable& table = s_.jobs;
    const Time now = s_.cluster.now;
    extras_.assign(sources_.size(), std::vector<std::vector<PendingExtras>>(table.shards().size()));
    tbb::parallel_for(std::size_t{0}, sources_.size(), [&](std::size_t c) {
      const std::size_t space = space_of_[c];
      std::vector<std::uint32_t> next = start_[c];
      for (const ParsedJob& j : sources_[c].jobs) {
        const std::uint32_t sh = table.ShardOf(j.number);
        const std::uint32_t r = next[sh]++;
        PlaceRow(j, space, now, table.shards()[sh], r);
        s_.job_lines[sh][r] = j.line;
        if (HasExtras(j)) extras_[c][sh].push_back({sh, r, &j, sources_[c].names});
      }
    });
  }

  // Row r of `shard` becomes job row j, its names mapped from name space `space`
  // to the snapshot's, its project and department defaulted from its owner.
  void PlaceRow(const ParsedJob& j, std::size_t space, Time now, JobShard& shard, std::uint32_t r) const {
    shard.number[r] = j.number;
    shard.task_first[r] = j.first;
    shard.task_last[r] = j.last;
    shard.task_step[r] = j.step;
    shard.state[r] = j.state;
    shard.posix_priority[r] = j.posix_priority;
    shard.flags[r] = j.flags;
    const UserId owner(owners_.map[space][j.owner]);
    shard.owner[r] = owner;
    shard.group[r] = j.group == kNoName ? GroupId::None() : GroupId(groups_.map[space][j.group]);
    ProjectId project = j.project == kNoName ? ProjectId::None() : project_of_[projects_.map[space][j.project]];
    if (!project.valid()) project = entities_.users[owner.index()].default_project;
    shard.project[r] = project;
    UsersetId department = entities_.default_department;
    if (j.department != kNoName) {
      department = department_of_[departments_.map[space][j.department]];
    } else if (user_department_[owner.index()].valid()) {
      department = user_department_[owner.index()];
    } else if (j.group != kNoName && group_department_[shard.group[r].index()].valid()) {
      department = group_department_[shard.group[r].index()];
    }
    shard.department[r] = department;
    shard.name[r] = j.name == kNoName ? JobNameId::None() : JobNameId(job_names_.map[space][j.name]);
    shard.submit[r] = j.has_submit ? j.submit : now;
    shard.jobshare[r] = j.jobshare;
    shard.override_tickets[r] = j.oticket;
    shard.requests[r] = RequestSetId(requests_.map[space][j.requests]);
    shard.qos[r] = j.qos == kNoName ? kNoQos : static_cast<std::uint16_t>(qos_.map[space][j.qos]);
  }

  // Extras (deadlines, placements of running rows, dependencies): resolved per
  // shard in parallel, each shard's in line order; the error reported is the
  // one on the earliest line, as a sequential pass in line order would find.
  Status ResolveExtras() {
    const std::size_t n_shards = s_.jobs.shards().size();
    // Each shard's extras, gathered from every source on the shard's core.
    std::vector<std::vector<const PendingExtras*>> extras_of_shard(n_shards);
    const bool any_hold_jid = tbb::parallel_reduce(
        tbb::blocked_range<std::size_t>(0, n_shards), false,
        [&](const tbb::blocked_range<std::size_t>& r, bool any) {
          for (std::size_t sh = r.begin(); sh != r.end(); ++sh) {
            for (const std::vector<std::vector<PendingExtras>>& source : extras_) {
              for (const PendingExtras& pe : source[sh]) {
                extras_of_shard[sh].push_back(&pe);
                any |= pe.job->hold_jid != kNoName;
              }
            }
          }
          return any;
        },
        [](bool a, bool b) { return a || b; });
    if (any_hold_jid) IndexJobsByName();
    std::vector<std::optional<std::pair<const PendingExtras*, Status>>> extras_error(n_shards);
    tbb::parallel_for(std::size_t{0}, n_shards, [&](std::size_t sh) {
      std::vector<const PendingExtras*>& mine = extras_of_shard[sh];
      std::sort(mine.begin(), mine.end(), ByLine());
      JobShard& shard = s_.jobs.shards()[sh];
      GrantedSeen granted_seen;  // running rows mostly share their granted lists (one slot of a queue instance)
      for (const PendingExtras* pe : mine) {
        JobExtras e;
        if (auto err = BuildExtras(*pe, shard, granted_seen, e)) {
          extras_error[sh].emplace(pe, Status::InvalidInput(s_.source, pe->job->line, std::move(*err)));
          return;
        }
        shard.extras_index[pe->row] = static_cast<std::uint32_t>(shard.extras.size());
        shard.extras.push_back(std::move(e));
      }
    });
    const std::pair<const PendingExtras*, Status>* first_error = nullptr;
    for (const auto& e : extras_error) {
      if (e && (first_error == nullptr || ByLine()(e->first, first_error->first))) first_error = &*e;
    }
    if (first_error != nullptr) return first_error->second;
    return Status::Ok();
  }

  // The job numbers of each job name, for hold_jid given by job name.
  void IndexJobsByName() {
    for (const JobShard& sh : s_.jobs.shards()) {
      for (std::size_t r = 0; r < sh.size(); ++r) {
        if (sh.name[r].valid()) jobs_by_name_[sh.name[r].value].push_back(sh.number[r]);
      }
    }
  }

  // The extras of one row: its keys as given, its granted queue instances
  // (master first) and its hold_jid list as job numbers.
  Reason BuildExtras(const PendingExtras& pe, const JobShard& shard, GrantedSeen& granted_seen,
                                         JobExtras& e) const {
    const ParsedJob& j = *pe.job;
    e.deadline = j.deadline;
    e.start = j.start;
    e.runtime = j.runtime;
    e.eligible = j.eligible;
    e.bypass = j.bypass;
    e.task_concurrency = j.task_concurrency;
    if (j.granted != kNoName) {
      if (auto err = ResolveGranted(pe, granted_seen, e)) return err;
      const RequestSet& rs = s_.jobs.requests(shard.requests[pe.row]);
      if (rs.has_pe) e.granted_pe = rs.pe.matching.front();
    }
    return ResolveHoldJid(pe, e);
  }

  Reason ResolveGranted(const PendingExtras& pe, GrantedSeen& granted_seen, JobExtras& e) const {
    const ParsedJob& j = *pe.job;
    const std::string_view granted = pe.names->texts.Name(j.granted);
    if (auto seen = granted_seen.find(granted); seen != granted_seen.end()) {
      e.granted = seen->second;
    } else {
      if (auto err = ParseGranted(granted, s_, e.granted)) return err;
      granted_seen.emplace(granted, e.granted);
    }
    if (j.master == kNoName) return std::nullopt;
    std::vector<GrantedSlots> master;
    if (auto err = ParseGranted(std::string(pe.names->texts.Name(j.master)) + ":1", s_, master))
      return "master: " + *err;
    auto it = std::find_if(e.granted.begin(), e.granted.end(), [&](const GrantedSlots& g) {
      return g.queue == master[0].queue && g.host == master[0].host;
    });
    if (it == e.granted.end()) return std::string("master: not one of the granted queue instances");
    std::rotate(e.granted.begin(), it, it + 1);
    return std::nullopt;
  }

  // hold_jid items: job numbers as given, job names as the numbers of the jobs so named.
  Reason ResolveHoldJid(const PendingExtras& pe, JobExtras& e) const {
    const ParsedJob& j = *pe.job;
    const std::string_view list = j.hold_jid == kNoName ? std::string_view() : pe.names->texts.Name(j.hold_jid);
    for (std::string_view item : SplitList(list)) {
      if (auto number = ParseUnsigned(item)) {
        if (*number == 0 || *number > UINT32_MAX) return "hold_jid: malformed job id " + Quote(item);
        e.hold_jid.push_back(static_cast<JobNumber>(*number));
        continue;
      }
      if (auto id = names_.job_names.Find(item)) {
        if (auto named = jobs_by_name_.find(*id); named != jobs_by_name_.end()) {
          e.hold_jid.insert(e.hold_jid.end(), named->second.begin(), named->second.end());
        }
      }
    }
    return std::nullopt;
  }

  // The rows of each job agree and share no task (CheckJobRows); the earliest line's error is reported.
  Status CheckRows() const {
    const std::size_t n_shards = s_.jobs.shards().size();
    std::vector<std::optional<Status>> shard_errors(n_shards);
    tbb::parallel_for(std::size_t{0}, n_shards, [&](std::size_t sh) {
      shard_errors[sh] = CheckJobRows(s_.jobs.shards()[sh], s_.job_lines[sh], s_.source);
    });
    std::optional<Status> earliest;
    for (auto& e : shard_errors) {
      if (e && (!earliest || e->line() < earliest->line())) earliest = e;
    }
    if (earliest) return *earliest;
    return Status::Ok();
  }

  const std::vector<JobSource>& sources_;
  const ClusterBuilder& builder_;
  Snapshot& s_;
  Names& names_;
  EntityTables& entities_;
  RequestCache* cache_;

  std::vector<const JobNameSpace*> spaces_;
  std::vector<std::size_t> space_of_;  // [source] -> index in spaces_
  std::vector<UsedNames> used_;
  GlobalNames owners_, groups_, job_names_, qos_, projects_, departments_, requests_;
  NameTable project_names_, department_names_;                 // this pass's own ids
  std::vector<std::string_view> request_keys_;                 // by this pass's id; views of the name spaces' keys
  bool by_id_ = false;                                         // request key ids are the request set ids
  std::vector<ProjectId> project_of_;                          // [project id] -> the snapshot's
  std::vector<UsersetId> department_of_;                       // [department id] -> the snapshot's
  std::vector<UsersetId> user_department_, group_department_;
  std::vector<std::vector<std::uint32_t>> start_;  // [source][shard] -> first row
  std::vector<std::vector<std::vector<PendingExtras>>> extras_;  // [source][shard]: rows with extras
  std::unordered_map<std::uint32_t, std::vector<JobNumber>> jobs_by_name_;
};

}  // namespace

std::vector<ParsedChunk> ParseJobChunks(const std::vector<JobChunk>& chunks, const std::string& source) {
  std::vector<ParsedChunk> results(chunks.size());
  tbb::parallel_for(std::size_t{0}, chunks.size(), [&](std::size_t c) { ParseChunk(chunks[c], source, results[c]); });
  return results;
}

Reason ResolveRequestKey(std::string_view key, const ClusterBuilder& builder, const Snapshot& s,
                                             RequestSet& set) {
  return RequestParser(builder, s).Parse(key, set);
}

Reason CheckRequestKey(std::string_view key, const ClusterBuilder& builder, const Snapshot& s) {
  RequestSet set;
  return ResolveRequestKey(key, builder, s, set);
}

Reason CheckJobReferences(const ParsedJob& j, const JobNameSpace& names, const Snapshot& s) {
  if (j.project != kNoName && !s.names.projects.Find(names.projects.Name(j.project))) {
    return "job key 'project': unknown project " + Quote(names.projects.Name(j.project));
  }
  if (j.department != kNoName) {
    auto id = s.names.usersets.Find(names.departments.Name(j.department));
    if (!id || !s.cluster.entities.usersets[*id].is_department) {
      return "job key 'department': unknown department " + Quote(names.departments.Name(j.department));
    }
  }
  if (j.granted != kNoName) {
    std::vector<GrantedSlots> granted;
    if (auto e = ParseGranted(names.texts.Name(j.granted), s, granted)) return e;
    if (j.master != kNoName) {
      std::vector<GrantedSlots> master;
      if (auto e = ParseGranted(std::string(names.texts.Name(j.master)) + ":1", s, master)) return "master: " + *e;
      if (std::none_of(granted.begin(), granted.end(),
                       [&](const GrantedSlots& g) { return g.queue == master[0].queue && g.host == master[0].host; })) {
        return std::string("master: not one of the granted queue instances");
      }
    }
  }
  if (j.hold_jid != kNoName) {
    for (std::string_view item : SplitList(names.texts.Name(j.hold_jid))) {
      auto number = ParseUnsigned(item);
      if (number && (*number == 0 || *number > UINT32_MAX)) return "hold_jid: malformed job id " + Quote(item);
    }
  }
  return std::nullopt;
}

std::optional<std::pair<std::uint32_t, std::string>> RequestCache::Fill(const JobNameSpace& space,
                                                                        const std::vector<std::uint8_t>& used,
                                                                        const Parse& parse,
                                                                        std::vector<RequestSet>& sets) {
  std::lock_guard<std::mutex> lock(mutex_);
  UseSpace(space);
  const std::size_t n = space.requests.size();
  if (sets_.size() < n) sets_.resize(n);
  for (std::uint32_t r = 0; r < n; ++r) {
    if (!used[r] || sets_[r]) continue;
    RequestSet set;
    if (auto e = parse(space.requests.Name(r), set)) return std::make_pair(r, *e);
    sets_[r] = std::move(set);
  }
  sets.assign(n, RequestSet{});
  for (std::uint32_t r = 0; r < n; ++r) {
    if (used[r]) sets[r] = *sets_[r];
  }
  return std::nullopt;
}

void RequestCache::UseSpace(const JobNameSpace& space) {
  if (space_ == &space) return;
  space_ = &space;
  sets_.clear();
}

void RequestCache::Put(const JobNameSpace& space, std::uint32_t id, RequestSet set) {
  std::lock_guard<std::mutex> lock(mutex_);
  UseSpace(space);
  if (sets_.size() <= id) sets_.resize(id + 1);
  if (!sets_[id]) sets_[id] = std::move(set);
}

void RequestCache::PutAll(const JobNameSpace& space, std::span<Found> lists) {
  std::lock_guard<std::mutex> lock(mutex_);
  UseSpace(space);
  std::size_t size = sets_.size();
  for (const Found& list : lists) {
    for (const auto& [id, set] : list) size = std::max<std::size_t>(size, id + std::size_t{1});
  }
  sets_.resize(size);
  // Isolated: a thread waiting here under the lock takes no unrelated task that might want it.
  tbb::this_task_arena::isolate([&] {
    tbb::parallel_for(std::size_t{0}, lists.size(), [&](std::size_t l) {
      for (auto& [id, set] : lists[l]) {
        if (!sets_[id]) sets_[id] = std::move(set);
      }
    });
  });
}

void RequestCache::Clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  space_ = nullptr;
  sets_.clear();
}

Status AddJobs(const std::vector<JobSource>& sources, const ClusterBuilder& builder, Snapshot& s, bool check_rows,
               RequestCache* cache) {
  return JobTableLoader(sources, builder, s, cache).Load(check_rows);
}

}  // namespace schedk::io
