#include "io/priority_writer.hpp"

#include "io/job_line.hpp"
#include "io/job_templates.hpp"
#include "io/json_text.hpp"
#include "io/maui_priority_writer.hpp"
#include "io/row_text.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <optional>

namespace schedk::io {
namespace {

// qstat prints ticket counts as whole numbers, truncated.
long long Whole(double tickets) { return static_cast<long long>(tickets); }

struct RowText {
  JobNumber job;
  TaskNumber task;
  int ppri;
  const std::string* user;
  const std::string* project;  // nullptr: none
  const std::string* department;
  const char* state;  // qstat's state letters
};

void AppendTableRow(std::string& out, const RowText& r, const TaskPriority& v) {
  AppendFormat(out,
               "%8u %6u %7.5f %7.5f %7.5f %7.5f %8.0f %8.0f %8.0f %8.0f %5d %6lld %5lld %5lld %5lld %5lld %5.2f "
               "%-12s %-12s %-16s %s\n",
               r.job, r.task, v.prio, v.nurg, v.npprior, v.ntckts, v.urg, v.rrcontr, v.wtcontr, v.dlcontr, r.ppri,
               Whole(v.tckts), Whole(v.ovrts), Whole(v.otckt), Whole(v.ftckt), Whole(v.stckt), v.share,
               r.user->c_str(), r.project ? r.project->c_str() : "NONE", r.department->c_str(), r.state);
}

// A key with its quotes, colon and the comma before it (none before the first).
template <std::size_t N>
char* PutKey(char* out, const char (&key)[N]) {
  std::memcpy(out, key, N - 1);
  return out + N - 1;
}

// The numbers of a row are written into one buffer and appended at once, the
// strings after them, escaped.
void AppendJsonRow(std::string& out, const RowText& r, const TaskPriority& v) {
  // The keys take 162 chars, the three integers at most 31 and the 14 numbers
  // at most 24 each, the last with room to spare: under 600.
  char buffer[1024];
  char* p = PutKey(buffer, "{\"job\":");
  p = std::to_chars(p, p + 24, r.job).ptr;
  p = PutKey(p, ",\"task\":");
  p = std::to_chars(p, p + 24, r.task).ptr;
  p = WriteJsonNumber(PutKey(p, ",\"prio\":"), v.prio);
  p = WriteJsonNumber(PutKey(p, ",\"nurg\":"), v.nurg);
  p = WriteJsonNumber(PutKey(p, ",\"npprior\":"), v.npprior);
  p = WriteJsonNumber(PutKey(p, ",\"ntckts\":"), v.ntckts);
  p = WriteJsonNumber(PutKey(p, ",\"urg\":"), v.urg);
  p = WriteJsonNumber(PutKey(p, ",\"rrcontr\":"), v.rrcontr);
  p = WriteJsonNumber(PutKey(p, ",\"wtcontr\":"), v.wtcontr);
  p = WriteJsonNumber(PutKey(p, ",\"dlcontr\":"), v.dlcontr);
  p = PutKey(p, ",\"ppri\":");
  p = std::to_chars(p, p + 24, r.ppri).ptr;
  p = WriteJsonNumber(PutKey(p, ",\"tckts\":"), v.tckts);
  p = WriteJsonNumber(PutKey(p, ",\"ovrts\":"), v.ovrts);
  p = WriteJsonNumber(PutKey(p, ",\"otckt\":"), v.otckt);
  p = WriteJsonNumber(PutKey(p, ",\"ftckt\":"), v.ftckt);
  p = WriteJsonNumber(PutKey(p, ",\"stckt\":"), v.stckt);
  p = WriteJsonNumber(PutKey(p, ",\"share\":"), v.share);
  p = PutKey(p, ",\"user\":");
  out.append(buffer, p);
  AppendJsonString(out, *r.user);
  out += ",\"project\":";
  if (r.project) AppendJsonString(out, *r.project);
  else out += "null";
  out += ",\"department\":";
  AppendJsonString(out, *r.department);
  out += ",\"state\":";
  AppendJsonString(out, r.state);
  out += "}\n";
}

// docs/protocol.md §3's `prio` rows: the same keys as JSON Lines, as key=value.
void AppendKeyValueRow(std::string& out, const RowText& r, const TaskPriority& v) {
  auto number = [&](const char* name, double value) {
    out += ' ';
    out += name;
    out += '=';
    AppendJsonNumber(out, value);
  };
  out += "job=" + std::to_string(r.job) + " task=" + std::to_string(r.task);
  for (const auto& [name, value] : {std::pair<const char*, double>{"prio", v.prio}, {"nurg", v.nurg},
                                    {"npprior", v.npprior}, {"ntckts", v.ntckts}, {"urg", v.urg},
                                    {"rrcontr", v.rrcontr}, {"wtcontr", v.wtcontr}, {"dlcontr", v.dlcontr}}) {
    number(name, value);
  }
  out += " ppri=" + std::to_string(r.ppri);
  for (const auto& [name, value] : {std::pair<const char*, double>{"tckts", v.tckts}, {"ovrts", v.ovrts},
                                    {"otckt", v.otckt}, {"ftckt", v.ftckt}, {"stckt", v.stckt}, {"share", v.share}}) {
    number(name, value);
  }
  AppendKeyValue(out, "user", *r.user);
  AppendKeyValue(out, "project", r.project ? std::string_view(*r.project) : std::string_view("NONE"));
  AppendKeyValue(out, "department", *r.department);
  AppendKeyValue(out, "state", r.state);
  out += '\n';
}

// How far ahead of the row it formats a block asks for the memory of rows to come.
constexpr std::size_t kRowsAhead = tuning::kRowsPrefetchedAhead;

// The job's own columns of `v`; no prio and no tickets.
TaskPriority JobColumns(const TaskPriority& v) {
  TaskPriority out;
  out.nurg = v.nurg;
  out.npprior = v.npprior;
  out.urg = v.urg;
  out.rrcontr = v.rrcontr;
  out.wtcontr = v.wtcontr;
  out.dlcontr = v.dlcontr;
  out.ovrts = v.ovrts;
  return out;
}

}  // namespace

bool WritePriorities(const Snapshot& snapshot, const PriorityResult& result, PriorityFormat format,
                     const std::function<bool(std::string_view)>& sink, TaskValues values) {
  if (result.policy == PriorityPolicy::kMaui) return WriteMauiPriorities(snapshot, result, format, sink);
  if (format == PriorityFormat::kTable) {
    char header[256];
    std::snprintf(header, sizeof header,
                  "%8s %6s %7s %7s %7s %7s %8s %8s %8s %8s %5s %6s %5s %5s %5s %5s %5s %-12s %-12s %-16s %s\n", "job",
                  "task", "prio", "nurg", "npprior", "ntckts", "urg", "rrcontr", "wtcontr", "dlcontr", "ppri", "tckts",
                  "ovrts", "otckt", "ftckt", "stckt", "share", "user", "project", "department", "state");
    if (!sink(header)) return false;
  }
  const JobTable& jobs = snapshot.jobs;
  const RowIndex index(jobs);
  const std::optional<JobTemplates> templates =
      values == TaskValues::kQstat ? std::make_optional<JobTemplates>(jobs, result, index) : std::nullopt;
  auto format_row = [&](std::size_t i, std::string& out) {
    if (i + kRowsAhead < result.order.size()) result.PrefetchValues(jobs, index, result.order[i + kRowsAhead]);
    const DispatchEntry& e = result.order[i];
    const std::uint32_t s = index.shard(e.row);
    const JobShard& shard = jobs.shards()[s];
    const std::size_t r = index.row(e.row);
    const ProjectId project = shard.project[r];
    const RowText row{shard.number[r],
                      e.task,
                      shard.posix_priority[r],
                      &snapshot.names.users.Name(shard.owner[r].index()),
                      project.valid() ? &snapshot.names.projects.Name(project.index()) : nullptr,
                      &snapshot.names.usersets.Name(shard.department[r].index()),
                      QstatState(shard.state[r], shard.flags[r], result.roles[e.row])};
    const RowRole role = result.roles[e.row];
    const bool object = (shard.flags[r] & kJobEnrolled) != 0;
    const std::uint32_t* shown =
        templates && ((role == RowRole::kDispatchable && !object) || role == RowRole::kInactive)
            ? templates->Find(JobTemplates::Kind::kUnenrolled, s, row.job)
            : nullptr;
    TaskPriority v = result.Values(snapshot.cluster, jobs, index, shown ? result.order[*shown] : e);
    if (templates && role == RowRole::kInactive && shown == nullptr) {
      if (const std::uint32_t* first = templates->Find(JobTemplates::Kind::kEnrolled, s, row.job)) {
        v = JobColumns(result.Values(snapshot.cluster, jobs, index, result.order[*first]));
      }
    }
    switch (format) {
      case PriorityFormat::kTable: AppendTableRow(out, row, v); break;
      case PriorityFormat::kJsonl: AppendJsonRow(out, row, v); break;
      case PriorityFormat::kKeyValue: AppendKeyValueRow(out, row, v); break;
    }
  };
  return WriteRowBlocks(result.order.size(), format == PriorityFormat::kTable ? 170 : 330, format_row, sink);
}

}  // namespace schedk::io
