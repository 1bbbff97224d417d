#include "io/job_line.hpp"

#include <algorithm>
#include <iterator>

#include <tbb/parallel_for.h>

#include "io/ge_value.hpp"
#include "io/tuning.hpp"
#include "io/untrusted_text.hpp"

namespace schedk::io {
namespace {

// A job record's key values land in the ParsedJob being parsed, except the
// request parts, which are joined into its request key once every key is read.
struct JobKeyTarget {
  JobNameSpace& names;
  ParsedJob& job;
  int line;
  std::string_view parts[kRequestParts] = {};  // by RequestPart
  bool has_pe_min = false, has_pe_max = false;
};

// Reads one key's value into `t`; returns what is wrong, naming the key.
using JobKeyParse = Reason (*)(std::string_view key, std::string_view value, JobKeyTarget& t);

std::string BadValue(std::string_view key, std::string_view value, const char* what) {
  return "job key " + Quote(key) + ": " + what + ", not " + Quote(value);
}

std::uint32_t InternText(JobNames& table, std::string_view value, int line) {
  return value.empty() ? kNoName : table.Intern(value, line);
}

// hold_jid is a comma-separated list of job numbers and job names (qsub
// -hold_jid). An empty item or a character no job name may hold is refused
// rather than dropped; so are wildcard patterns, which schedk does not expand.
Reason CheckHoldList(std::string_view list) {
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = std::min(list.find(',', start), list.size());
    const std::string_view item = list.substr(start, comma - start);
    if (item.empty()) return "empty job in the list " + Quote(list);
    if (item.find_first_of("*?[") != std::string_view::npos) {
      return "wildcard patterns are not supported, not " + Quote(item);
    }
    for (const char c : item) {
      if (c == '/' || c == ':' || c == '@' || c == '\\' || static_cast<unsigned char>(c) <= ' ') {
        return "expected a job number or job name, not " + Quote(item);
      }
    }
    if (comma == list.size()) return std::nullopt;
    start = comma + 1;
  }
}

// --- the value parsers of the key table ----------------------------------------------------------

// owner, group, department, name, qos: a name, interned as given.
template <JobNames JobNameSpace::*kTable, std::uint32_t ParsedJob::*kField>
Reason ParseName(std::string_view, std::string_view value, JobKeyTarget& t) {
  t.job.*kField = (t.names.*kTable).Intern(value, t.line);
  return std::nullopt;
}

// project: a name, or NONE for the owner's default project.
Reason ParseProject(std::string_view, std::string_view value, JobKeyTarget& t) {
  if (!IsNone(value)) t.job.project = t.names.projects.Intern(value, t.line);
  return std::nullopt;
}

// granted, master, hold_jid: texts resolved against the cluster later; empty is none.
template <std::uint32_t ParsedJob::*kField>
Reason ParseText(std::string_view, std::string_view value, JobKeyTarget& t) {
  t.job.*kField = InternText(t.names.texts, value, t.line);
  return std::nullopt;
}

Reason ParseHoldJid(std::string_view key, std::string_view value, JobKeyTarget& t) {
  if (auto e = CheckHoldList(value)) return "job key 'hold_jid': " + *e;
  return ParseText<&ParsedJob::hold_jid>(key, value, t);
}

// submit, start: a time, which the record then gives.
template <Time ParsedJob::*kField, bool ParsedJob::*kGiven>
Reason ParseGivenTime(std::string_view key, std::string_view value, JobKeyTarget& t) {
  auto v = ParseTime(value);
  if (!v) return BadValue(key, value, "expected epoch seconds or ISO-8601 with Z or an offset");
  t.job.*kField = *v;
  t.job.*kGiven = true;
  return std::nullopt;
}

// dl, eligible: a time after the epoch (0 stands for none).
template <Time ParsedJob::*kField>
Reason ParsePositiveTime(std::string_view key, std::string_view value, JobKeyTarget& t) {
  auto v = ParseTime(value);
  if (!v || *v <= 0) return BadValue(key, value, "expected epoch seconds or ISO-8601 with Z or an offset");
  t.job.*kField = *v;
  return std::nullopt;
}

// oticket, js, tc, bypass: a 32-bit count.
template <std::uint32_t ParsedJob::*kField>
Reason ParseCount(std::string_view key, std::string_view value, JobKeyTarget& t) {
  auto v = ParseUnsigned(value);
  if (!v || *v > UINT32_MAX) return BadValue(key, value, "expected a non-negative integer");
  t.job.*kField = static_cast<std::uint32_t>(*v);
  return std::nullopt;
}

// R, now, enrolled: y sets the job flag; n leaves it clear.
template <JobFlags kFlag>
Reason ParseFlag(std::string_view key, std::string_view value, JobKeyTarget& t) {
  auto v = ParseBool(value);
  if (!v) return BadValue(key, value, "expected y or n");
  if (*v) t.job.flags |= kFlag;
  return std::nullopt;
}

Reason ParseAssumed(std::string_view key, std::string_view value, JobKeyTarget& t) {
  auto v = ParseBool(value);
  if (!v) return BadValue(key, value, "expected y or n");
  t.job.assumed = *v;
  return std::nullopt;
}

// state: Grid Engine's state letters (qstat) for the states a snapshot row may be in.
struct StateName {
  std::string_view text;
  JobState state;
};
constexpr StateName kStateNames[] = {{"qw", JobState::kPending},
                                     {"hqw", JobState::kHeld},
                                     {"r", JobState::kRunning},
                                     {"s", JobState::kSuspended},
                                     {"Eqw", JobState::kError}};

Reason ParseState(std::string_view key, std::string_view value, JobKeyTarget& t) {
  for (const auto& [text, state] : kStateNames) {
    if (value == text) {
      t.job.state = state;
      return std::nullopt;
    }
  }
  return BadValue(key, value, "expected qw, hqw, r, s or Eqw");
}

Reason ParsePosixPriority(std::string_view key, std::string_view value, JobKeyTarget& t) {
  auto v = ParseInteger(value);
  if (!v || *v < -1023 || *v > 1024) return BadValue(key, value, "expected a POSIX priority from -1023 to 1024");
  t.job.posix_priority = static_cast<std::int16_t>(*v);
  return std::nullopt;
}

Reason ParseRuntime(std::string_view key, std::string_view value, JobKeyTarget& t) {
  auto v = ParseDuration(value);
  if (!v) return BadValue(key, value, "expected a duration (seconds or h:m:s)");
  t.job.runtime = *v;
  return std::nullopt;
}

// l_hard, l_soft, q_hard, q_soft, pe_name, masterq: kept as written for the request key.
template <RequestPart kPart>
Reason ParseRequestPart(std::string_view, std::string_view value, JobKeyTarget& t) {
  t.parts[static_cast<int>(kPart)] = value;
  return std::nullopt;
}

// pe_min, pe_max: an empty slot count would vanish from the canonical record,
// which then no longer parses.
template <RequestPart kPart, bool JobKeyTarget::*kGiven>
Reason ParseSlotCount(std::string_view key, std::string_view value, JobKeyTarget& t) {
  if (value.empty()) return BadValue(key, value, "expected a slot count");
  t.parts[static_cast<int>(kPart)] = value;
  t.*kGiven = true;
  return std::nullopt;
}

// The keys of a job record (docs/protocol.md §1.2) and what each sets.
// `assumed` is schedk's own: a session's start not yet confirmed by the
// master; so are the Maui policy's `qos` (quality of service), `eligible`
// (since when the job accrues queue time) and `bypass` (how often
// lower-priority jobs were backfilled past it). A key's index is its bit in
// the seen-set.
struct JobKeyRule {
  std::string_view key;
  JobKeyParse parse;
};
constexpr JobKeyRule kJobKeys[] = {
    {"owner", ParseName<&JobNameSpace::owners, &ParsedJob::owner>},
    {"group", ParseName<&JobNameSpace::groups, &ParsedJob::group>},
    {"project", ParseProject},
    {"department", ParseName<&JobNameSpace::departments, &ParsedJob::department>},
    {"name", ParseName<&JobNameSpace::job_names, &ParsedJob::name>},
    {"submit", ParseGivenTime<&ParsedJob::submit, &ParsedJob::has_submit>},
    {"state", ParseState},
    {"p", ParsePosixPriority},
    {"R", ParseFlag<kJobReserve>},
    {"now", ParseFlag<kJobImmediate>},
    {"l_hard", ParseRequestPart<RequestPart::kHard>},
    {"l_soft", ParseRequestPart<RequestPart::kSoft>},
    {"q_hard", ParseRequestPart<RequestPart::kQueueHard>},
    {"q_soft", ParseRequestPart<RequestPart::kQueueSoft>},
    {"pe_name", ParseRequestPart<RequestPart::kPeName>},
    {"pe_min", ParseSlotCount<RequestPart::kPeMin, &JobKeyTarget::has_pe_min>},
    {"pe_max", ParseSlotCount<RequestPart::kPeMax, &JobKeyTarget::has_pe_max>},
    {"hold_jid", ParseHoldJid},
    {"dl", ParsePositiveTime<&ParsedJob::deadline>},
    {"oticket", ParseCount<&ParsedJob::oticket>},
    {"js", ParseCount<&ParsedJob::jobshare>},
    {"start", ParseGivenTime<&ParsedJob::start, &ParsedJob::has_start>},
    {"granted", ParseText<&ParsedJob::granted>},
    {"master", ParseText<&ParsedJob::master>},
    {"runtime", ParseRuntime},
    {"assumed", ParseAssumed},
    {"qos", ParseName<&JobNameSpace::qos, &ParsedJob::qos>},
    {"eligible", ParsePositiveTime<&ParsedJob::eligible>},
    {"bypass", ParseCount<&ParsedJob::bypass>},
    {"masterq", ParseRequestPart<RequestPart::kQueueMaster>},
    {"tc", ParseCount<&ParsedJob::task_concurrency>},
    {"enrolled", ParseFlag<kJobEnrolled>},
};
static_assert(std::size(kJobKeys) <= 64);  // the seen-set is one 64-bit mask

// The checks of a record as a whole, once all its keys are read: an owner,
// the PE keys together, and start, granted and master only where the state
// allows them.
Reason CheckJobRecord(const JobKeyTarget& t) {
  const ParsedJob& job = t.job;
  const bool has_pe_name = !t.parts[static_cast<int>(RequestPart::kPeName)].empty();
  if (job.owner == kNoName) return std::string("job record has no owner= key");
  if ((t.has_pe_min || t.has_pe_max) && !has_pe_name) return std::string("pe_min/pe_max given without pe_name");
  if (has_pe_name && !t.has_pe_min) return std::string("pe_name given without pe_min");
  if (job.running()) {
    if (job.first != job.last) return std::string("a running or suspended record must name a single task");
    if (!job.has_start) return std::string("a running or suspended job needs start=");
    if (job.granted == kNoName) return std::string("a running or suspended job needs granted=");
  } else {
    if (job.has_start || job.granted != kNoName || job.master != kNoName) {
      return std::string("start=, granted= and master= are only for running and suspended jobs");
    }
    if (job.assumed) return std::string("assumed= is only for running jobs");
  }
  if (job.running() && (job.flags & kJobEnrolled)) {
    return std::string("enrolled= is for pending, held and error rows (running tasks always exist as objects)");
  }
  return std::nullopt;
}

// Joins the request parts into the job's request key (JobNameSpace::requests).
Reason InternRequestKey(JobKeyTarget& t) {
  std::string request_key;
  for (int i = 0; i < kRequestParts; ++i) {
    // The readers refuse control characters; this guards the key's separator for any other caller.
    if (t.parts[i].find('\x1f') != std::string_view::npos) {
      return std::string("a request holds the control character \\x1f");
    }
    request_key.append(t.parts[i]);
    if (i + 1 < kRequestParts) request_key.push_back('\x1f');
  }
  t.job.requests = t.names.requests.Intern(request_key, t.line);
  return std::nullopt;
}

}  // namespace

std::string_view RequestKeyPart(std::string_view key, RequestPart part) {
  for (int i = 0; i < static_cast<int>(part); ++i) {
    const std::size_t sep = key.find('\x1f');
    key.remove_prefix(sep == std::string_view::npos ? key.size() : sep + 1);
  }
  return key.substr(0, key.find('\x1f'));
}

Reason TokenizeRecord(std::string_view line, std::vector<JobToken>& tokens,
                                          std::deque<std::string>& storage) {
  tokens.clear();
  bool keys_started = false;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    if (i == line.size()) break;
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '=') ++i;
    if (i == line.size() || line[i] != '=') {
      if (keys_started) return "expected key=value, not " + Quote(line.substr(start, i - start));
      tokens.push_back({line.substr(start, i - start), {}, true});
      continue;
    }
    keys_started = true;
    const std::string_view key = line.substr(start, i - start);
    ++i;  // '='
    if (i < line.size() && line[i] == '"') {
      std::string value;
      ++i;
      bool closed = false;
      while (i < line.size()) {
        const char c = line[i++];
        if (c == '\\' && i < line.size()) {
          value.push_back(line[i++]);
        } else if (c == '"') {
          closed = true;
          break;
        } else {
          value.push_back(c);
        }
      }
      if (!closed) return "unterminated quoted value of " + Quote(key);
      if (i < line.size() && line[i] != ' ' && line[i] != '\t') {
        return "text after the closing quote of " + Quote(key);
      }
      storage.push_back(std::move(value));
      tokens.push_back({key, storage.back(), false});
    } else {
      const std::size_t vstart = i;
      while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
      tokens.push_back({key, line.substr(vstart, i - vstart), false});
    }
  }
  return std::nullopt;
}

Reason ParseJobId(std::string_view t, ParsedJob& job) {
  const std::size_t dot = t.find('.');
  auto number = ParseUnsigned(t.substr(0, dot));
  if (!number || *number == 0 || *number > UINT32_MAX) return "malformed job id " + Quote(t);
  job.number = static_cast<JobNumber>(*number);
  job.first = job.last = job.step = 1;
  job.task_range_given = false;
  if (dot == std::string_view::npos) return std::nullopt;
  job.task_range_given = true;
  std::string_view range = t.substr(dot + 1);
  const std::size_t dash = range.find('-');
  const std::size_t colon = range.find(':');
  auto first = ParseUnsigned(range.substr(0, std::min(dash, colon)));
  std::optional<std::uint64_t> last = first, step = 1;
  if (dash != std::string_view::npos) {
    last = ParseUnsigned(range.substr(dash + 1, colon == std::string_view::npos ? colon : colon - dash - 1));
  }
  if (colon != std::string_view::npos) {
    if (dash == std::string_view::npos || colon < dash) return "malformed task range " + Quote(range);
    step = ParseUnsigned(range.substr(colon + 1));
  }
  if (!first || !last || !step || *first == 0 || *last < *first || *step == 0 || *last > UINT32_MAX ||
      *step > UINT32_MAX) {
    return "malformed task range " + Quote(range) + " (expected first[-last[:step]] with 1 <= first <= last)";
  }
  // Every task of a job line becomes an output row, so a line may not name
  // more than tuning::kMaxTasksPerLine (Grid Engine's own limit, max_aj_tasks, defaults to 75,000).
  if ((*last - *first) / *step + 1 > tuning::kMaxTasksPerLine) {
    return "task range " + Quote(range) + " has more than " + std::to_string(tuning::kMaxTasksPerLine) +
           " tasks (Grid Engine's max_aj_tasks limits array jobs too)";
  }
  job.first = static_cast<TaskNumber>(*first);
  job.step = static_cast<TaskNumber>(*step);
  // Normalise the last task onto the step grid, as Grid Engine's range lists do.
  job.last = static_cast<TaskNumber>(*first + (*last - *first) / *step * *step);
  if (job.first == job.last) job.step = 1;
  return std::nullopt;
}

Reason ParseJobKeys(const std::vector<JobToken>& tokens, std::size_t first_key, int line_no,
                                        JobNameSpace& names, ParsedJob& job) {
  job.line = line_no;
  JobKeyTarget target{names, job, line_no};
  std::uint64_t seen = 0;
  for (std::size_t t = first_key; t < tokens.size(); ++t) {
    const std::string_view key = tokens[t].key;
    if (tokens[t].bare) return "expected key=value, not " + Quote(key);
    std::size_t k = 0;
    while (k < std::size(kJobKeys) && kJobKeys[k].key != key) ++k;
    if (k == std::size(kJobKeys)) return "unknown job key " + Quote(key);
    if (seen & (std::uint64_t{1} << k)) return "job key " + Quote(key) + " given twice";
    seen |= std::uint64_t{1} << k;
    if (auto e = kJobKeys[k].parse(key, tokens[t].value, target)) return e;
  }
  if (auto e = CheckJobRecord(target)) return e;
  return InternRequestKey(target);
}

Reason ParseJobLine(std::string_view line, int line_no, JobNameSpace& names,
                                        std::vector<JobToken>& tokens, std::deque<std::string>& storage,
                                        ParsedJob& job) {
  if (auto e = TokenizeRecord(line, tokens, storage)) return e;
  if (tokens.size() < 2 || tokens[0].key != "job" || !tokens[1].bare) {
    return std::string("expected 'job <id> key=value ...'");
  }
  if (tokens.size() > 2 && tokens[2].bare) return "expected key=value, not " + Quote(tokens[2].key);
  if (auto e = ParseJobId(tokens[1].key, job)) return e;
  return ParseJobKeys(tokens, 2, line_no, names, job);
}

namespace {
constexpr JobNames JobNameSpace::*kNameTables[] = {
    &JobNameSpace::owners,    &JobNameSpace::groups,   &JobNameSpace::projects, &JobNameSpace::departments,
    &JobNameSpace::job_names, &JobNameSpace::requests, &JobNameSpace::texts,    &JobNameSpace::qos};
}  // namespace

std::vector<NameMapping> NameMapping::Merge(std::span<const JobNameSpace* const> from, JobNameSpace& into) {
  static_assert(std::size(kNameTables) == kTables);
  std::vector<NameMapping> maps(from.size());
  tbb::parallel_for(0, kTables, [&](int t) {
    JobNames& merged = into.*kNameTables[t];
    for (std::size_t c = 0; c < from.size(); ++c) {
      const JobNames& local = (*from[c]).*kNameTables[t];
      std::vector<std::uint32_t>& ids = maps[c].ids_[t];
      ids.resize(local.size());
      for (std::uint32_t i = 0; i < local.size(); ++i) ids[i] = merged.Intern(local.Name(i), 0);
    }
  });
  return maps;
}

void NameMapping::Repoint(ParsedJob& row) const {
  auto in = [](const std::vector<std::uint32_t>& ids, std::uint32_t& id) {
    if (id != kNoName) id = ids[id];
  };
  in(ids_[0], row.owner);
  in(ids_[1], row.group);
  in(ids_[2], row.project);
  in(ids_[3], row.department);
  in(ids_[4], row.name);
  in(ids_[5], row.requests);
  in(ids_[6], row.granted);
  in(ids_[6], row.master);
  in(ids_[6], row.hold_jid);
  in(ids_[7], row.qos);
}

std::string JobIdText(const ParsedJob& job) {
  std::string id = std::to_string(job.number);
  if (!job.task_range_given) return id;
  id += '.';
  id += std::to_string(job.first);
  if (job.last != job.first) {
    id += '-';
    id += std::to_string(job.last);
    if (job.step != 1) {
      id += ':';
      id += std::to_string(job.step);
    }
  }
  return id;
}

void AppendKeyValue(std::string& out, std::string_view key, std::string_view value) {
  out += ' ';
  out += key;
  out += '=';
  if (value.find_first_of(" \t\"\\") == std::string_view::npos) {
    out += value;
    return;
  }
  out += '"';
  for (char c : value) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  out += '"';
}

void RenderJobLine(const ParsedJob& job, const JobNameSpace& names, std::string& out) {
  out += "job ";
  out += JobIdText(job);
  auto name = [&](std::string_view key, const JobNames& table, std::uint32_t id) {
    if (id != kNoName) AppendKeyValue(out, key, table.Name(id));
  };
  auto number = [&](std::string_view key, long long v) { AppendKeyValue(out, key, std::to_string(v)); };
  name("owner", names.owners, job.owner);
  name("group", names.groups, job.group);
  name("project", names.projects, job.project);
  name("department", names.departments, job.department);
  name("name", names.job_names, job.name);
  if (job.has_submit) number("submit", job.submit);
  switch (job.state) {
    case JobState::kPending:
      break;
    case JobState::kHeld:
      AppendKeyValue(out, "state", "hqw");
      break;
    case JobState::kRunning:
      AppendKeyValue(out, "state", "r");
      break;
    case JobState::kSuspended:
      AppendKeyValue(out, "state", "s");
      break;
    case JobState::kError:
      AppendKeyValue(out, "state", "Eqw");
      break;
  }
  if (job.posix_priority != 0) number("p", job.posix_priority);
  if (job.flags & kJobReserve) AppendKeyValue(out, "R", "y");
  if (job.flags & kJobImmediate) AppendKeyValue(out, "now", "y");
  if (job.requests != kNoName) {
    const std::string_view key = names.requests.Name(job.requests);
    constexpr std::string_view kPartKeys[kRequestParts] = {"l_hard",  "l_soft", "q_hard", "q_soft",
                                                           "pe_name", "pe_min", "pe_max", "masterq"};
    for (int i = 0; i < kRequestParts; ++i) {
      const std::string_view part = RequestKeyPart(key, static_cast<RequestPart>(i));
      if (!part.empty()) AppendKeyValue(out, kPartKeys[i], part);
    }
  }
  name("hold_jid", names.texts, job.hold_jid);
  if (job.deadline != 0) number("dl", job.deadline);
  if (job.oticket != 0) number("oticket", job.oticket);
  if (job.jobshare != 0) number("js", job.jobshare);
  if (job.has_start) number("start", job.start);
  name("granted", names.texts, job.granted);
  name("master", names.texts, job.master);
  if (job.runtime >= 0) number("runtime", job.runtime);
  if (job.assumed) AppendKeyValue(out, "assumed", "y");
  name("qos", names.qos, job.qos);
  if (job.eligible != 0) number("eligible", job.eligible);
  if (job.bypass != 0) number("bypass", job.bypass);
  if (job.task_concurrency != 0) number("tc", job.task_concurrency);
  if (job.flags & kJobEnrolled) AppendKeyValue(out, "enrolled", "y");
}

}  // namespace schedk::io
