#include "io/ge_accounting.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "io/ge_value.hpp"
#include "io/untrusted_text.hpp"

namespace schedk::io {
namespace {

// Field positions of accounting(5), the same in 8.1 and 8.2 up to io.
enum Field : std::size_t {
  kQueue = 0, kHost = 1, kGroup = 2, kOwner = 3, kJobName = 4, kJob = 5, kSubmit = 8, kStart = 9, kEnd = 10,
  kFailed = 11, kProject = 31, kSlots = 34, kTask = 35, kCpu = 36, kMem = 37, kIo = 38, kCategory = 39,
};
constexpr std::size_t kFields81 = 45, kFields82 = 52;

std::vector<std::string_view> Split(std::string_view line) {
  std::vector<std::string_view> fields;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= line.size(); ++i) {
    if (i < line.size() && line[i] != ':') continue;
    fields.push_back(line.substr(start, i - start));
    start = i + 1;
  }
  return fields;
}

// The h_rt of a category such as "-l h_rt=2000,lic=1 -q all.q".
Duration CategoryHrt(std::string_view category) {
  const std::size_t at = category.find("h_rt=");
  if (at == std::string_view::npos) return -1;
  std::string_view value = category.substr(at + 5);
  value = value.substr(0, value.find_first_of(", "));
  const auto d = ParseDuration(value);
  return d ? *d : -1;
}

}  // namespace

Result<std::vector<AccountingRecord>> ReadAccounting(std::string_view text, const std::string& source) {
  std::vector<AccountingRecord> records;
  int line_no = 0;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line.front() == '#') continue;
    if (const std::size_t bad = FindNonText(line); bad != std::string_view::npos) {
      return Status::InvalidInput(source, line_no, NonTextMessage(line, bad));
    }
    const std::vector<std::string_view> f = Split(line);
    if (f.size() != kFields81 && f.size() != kFields82) {
      return Status::InvalidInput(source, line_no,
                                  "expected 45 fields (Grid Engine 8.1) or 52 (8.2), not " + std::to_string(f.size()));
    }
    const double scale = f.size() == kFields82 ? 1000.0 : 1.0;  // 8.2 writes milliseconds
    AccountingRecord r;
    r.line = line_no;
    r.queue = f[kQueue];
    r.host = f[kHost];
    r.group = f[kGroup];
    r.owner = f[kOwner];
    r.job_name = f[kJobName];
    r.project = IsNone(f[kProject]) ? "" : std::string(f[kProject]);
    auto number = [&](Field field, double& out, const char* name) -> Status {
      const auto v = ParseGeNumber(f[field]);
      if (!v || !std::isfinite(*v) || *v < 0 || *v > 1e300) {
        return Status::InvalidInput(source, line_no, std::string(name) + ": expected a number, not " + Quote(f[field]));
      }
      out = *v;
      return Status::Ok();
    };
    double job = 0, task = 0, slots = 0, submit = 0, start = 0, finish = 0, failed = 0;
    for (const auto& [field, out, name] : {std::tuple<Field, double*, const char*>{kJob, &job, "job_number"},
                                           {kTask, &task, "task_number"}, {kSlots, &slots, "slots"},
                                           {kSubmit, &submit, "submission_time"}, {kStart, &start, "start_time"},
                                           {kEnd, &finish, "end_time"}, {kFailed, &failed, "failed"},
                                           {kCpu, &r.cpu, "cpu"}, {kMem, &r.mem, "mem"}, {kIo, &r.io, "io"}}) {
      if (Status st = number(field, *out, name); !st.ok()) return st;
    }
    if (job < 1 || job > 4294967295.0 || slots > 4294967295.0 || task > 4294967295.0 || submit / scale > 4294967295.0 ||
        start / scale > 4294967295.0 || finish / scale > 4294967295.0) {
      return Status::InvalidInput(source, line_no, "a job number, slot count or time out of Grid Engine's range");
    }
    r.job = static_cast<std::uint64_t>(job);
    r.task = static_cast<std::uint32_t>(task);
    r.slots = std::max<std::uint32_t>(1, static_cast<std::uint32_t>(slots));
    r.submit = static_cast<Time>(submit / scale);
    r.start = static_cast<Time>(start / scale);
    r.end = static_cast<Time>(finish / scale);
    r.failed = static_cast<int>(failed);
    r.h_rt = CategoryHrt(f[kCategory]);
    if (r.start != 0 && r.end < r.start) return Status::InvalidInput(source, line_no, "end_time before start_time");
    records.push_back(std::move(r));
  }
  return records;
}

std::string AccountingUsageRecords(const std::vector<AccountingRecord>& records, Time now, double halftime_hours) {
  struct Usage {
    double cpu = 0, mem = 0, io = 0;
  };
  std::map<std::pair<std::string, std::string>, Usage> users;  // (owner, project or "")
  std::map<std::string, Usage> projects;
  for (const AccountingRecord& r : records) {
    if (r.start == 0 || r.end > now) continue;
    const double age_hours = static_cast<double>(now - r.end) / 3600.0;
    const double factor = halftime_hours > 0 ? std::exp2(-age_hours / halftime_hours) : 1.0;
    auto add = [&](Usage& u) {
      u.cpu += r.cpu * factor;
      u.mem += r.mem * factor;
      u.io += r.io * factor;
    };
    add(users[{r.owner, ""}]);
    if (!r.project.empty()) {
      add(users[{r.owner, r.project}]);
      add(projects[r.project]);
    }
  }
  std::string out;
  auto line = [&](const std::string& head, const Usage& u, const std::string& tail) {
    char values[160];
    std::snprintf(values, sizeof values, " cpu=%.17g,mem=%.17g,io=%.17g", u.cpu, u.mem, u.io);
    out += head + values + tail + "\n";
  };
  for (const auto& [key, u] : users) {
    line("usage user " + key.first, u, key.second.empty() ? "" : " project=" + key.second);
  }
  for (const auto& [project, u] : projects) line("usage project " + project, u, "");
  return out;
}

SwfTrace AccountingAsSwf(const std::vector<AccountingRecord>& records, const std::string& source) {
  SwfTrace trace;
  trace.source = source;
  std::vector<const AccountingRecord*> ran;
  for (const AccountingRecord& r : records) {
    if (r.start != 0) ran.push_back(&r);
  }
  std::stable_sort(ran.begin(), ran.end(), [](const AccountingRecord* a, const AccountingRecord* b) {
    return std::tie(a->submit, a->job, a->task) < std::tie(b->submit, b->job, b->task);
  });
  std::map<std::string, int> user_ids;
  std::vector<std::pair<Time, long long>> changes;  // slots in use, +at start, -at end
  for (std::size_t i = 0; i < ran.size(); ++i) {
    const AccountingRecord& r = *ran[i];
    SwfJob job;
    job.field.fill(-1);
    job.line = r.line;
    job.field[kSwfJob] = static_cast<double>(i + 1);
    job.field[kSwfSubmit] = static_cast<double>(r.submit - ran.front()->submit);
    job.field[kSwfWait] = static_cast<double>(r.start - r.submit);
    job.field[kSwfRunTime] = static_cast<double>(r.end - r.start);
    job.field[kSwfAllocatedProcs] = job.field[kSwfRequestedProcs] = r.slots;
    // The estimate: the job's h_rt where the category gives it, never below
    // the run time (a run can pass h_rt by the execd's reaction time), and
    // never 0 (a task of milliseconds).
    job.field[kSwfRequestedTime] = static_cast<double>(std::max<Duration>({r.h_rt, r.end - r.start, 1}));
    job.field[kSwfStatus] = r.failed == 0 ? 1 : 0;
    job.field[kSwfUser] = user_ids.emplace(r.owner, static_cast<int>(user_ids.size()) + 1).first->second;
    trace.jobs.push_back(job);
    changes.emplace_back(r.start, r.slots);
    changes.emplace_back(r.end, -static_cast<long long>(r.slots));
  }
  std::sort(changes.begin(), changes.end());  // ends before starts at the same second
  long long in_use = 0, most = 1;
  for (const auto& [t, delta] : changes) most = std::max(most, in_use += delta);
  trace.max_procs = most;
  if (!ran.empty()) trace.unix_start_time = ran.front()->submit;
  return trace;
}

}  // namespace schedk::io
