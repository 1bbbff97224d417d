#include "io/ge_import/ge_import.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <map>

#include "io/ge_import/qstat_xml.hpp"
#include "io/ge_import/share_usage.hpp"
#include "io/ge_value.hpp"
#include "io/job_line.hpp"
#include "io/snapshot_reader.hpp"
#include "io/tuning.hpp"
#include "io/untrusted_text.hpp"

namespace schedk::io {
namespace {

// The configuration objects, in the order the snapshot lists them: the block
// kind, the qconf option that lists the names ("" for one unnamed object) and
// the option that shows one.
struct ObjectKind {
  const char* block;
  const char* list;
  const char* show;
};
constexpr ObjectKind kObjectKinds[] = {
    {"complex", "", "-sc"},         {"sconf", "", "-ssconf"},         {"conf", "", "-sconf"},
    {"department", "-sul", "-su"},  {"project", "-sprjl", "-sprj"},   {"user", "-suserl", "-suser"},
    {"hostgroup", "-shgrpl", "-shgrp"}, {"exechost", "-sel", "-se"},  {"pe", "-spl", "-sp"},
    {"queue", "-sql", "-sq"},       {"rqs", "-srqsl", "-srqs"},
};

// What a cell may use that a snapshot cannot say yet: the import stops.
struct UnsupportedObject {
  CommandLine argv;
  const char* what;
};
const UnsupportedObject kUnsupportedObjects[] = {
    {{"qrstat", "-u", "*"}, "advance reservations"},
};

constexpr const char* kMessagesCapture = "qmaster-messages";
constexpr const char* kClockCapture = "date";

std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
  }
  return lines;
}

std::vector<std::string> Names(std::string_view listing) {
  std::vector<std::string> names;
  for (std::string_view line : Lines(listing)) {
    line = Trim(line);
    if (!line.empty()) names.emplace_back(line);
  }
  return names;
}

Result<std::vector<std::string>> NameList(std::string_view listing, const CommandLine& argv) {
  std::vector<std::string> names;
  int line_no = 0;
  for (std::string_view line : Lines(listing)) {
    ++line_no;
    line = Trim(line);
    if (line.empty()) continue;
    if (!IsObjectName(line)) {
      return Status::InvalidInput(CommandText(argv), line_no,
                                  Quote(line) + " is not an object name (letters, digits and . _ @ + -, at most 256)");
    }
    names.emplace_back(line);
  }
  return names;
}

// One cell read: the snapshot text under construction and what it counted.
class CellReader {
 public:
  CellReader(const CellCommands& cell, const GeImportOptions& options) : cell_(cell), options_(options) {}

  Status Read(GeImport& out);

 private:
  Result<std::optional<SchedulerRun>> LastSchedulerRun();
  Result<std::string> Ask(const CellCommand& c) { return cell_(c); }
  Result<std::string> Ask(CommandLine argv) { return cell_(Command(std::move(argv))); }
  Status Block(const char* kind, const std::string& name, const CommandLine& argv);
  Result<std::vector<std::string>> InQueueListOrder(std::vector<std::string> names);
  Status Objects();
  Status Unsupported();
  Status QueueStates();
  Status Jobs(GeImport& out);
  Status ShareTreeUsage(GeImport& out);
  Status Clock(GeImport& out);

  const CellCommands& cell_;
  const GeImportOptions& options_;
  std::string text_;
  std::map<std::string, std::string> queue_states_;  // cqueue -> ",[host=letters]..." overrides
  std::vector<std::string> queues_;
  std::size_t hosts_ = 0;
  bool share_tree_ = false;
  std::optional<SchedulerRun> last_run_;
};

Status CellReader::Block(const char* kind, const std::string& name, const CommandLine& argv) {
  auto body = Ask(argv);
  if (!body.ok()) return body.status();
  if (const std::size_t bad = FindNonText(body.value()); bad != std::string::npos) {
    const int line = 1 + static_cast<int>(std::count(body->begin(), body->begin() + static_cast<std::ptrdiff_t>(bad), '\n'));
    return Status::InvalidInput(CommandText(argv), line, NonTextMessage(body.value(), bad));
  }
  // qconf -srqs wraps a set in braces and indents it: the block's begin and
  // end replace the braces, and its lines are pasted without the indent.
  const bool braced = std::string_view(kind) == "rqs";
  std::string pasted;
  const std::vector<std::string_view> lines = Lines(body.value());
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string_view text = braced ? Trim(lines[i]) : lines[i];
    if (braced && (text == "{" || text == "}")) continue;
    pasted.append(text).push_back('\n');
    const std::size_t blank = text.find_first_of(" \t");
    const std::string_view first = text.substr(0, blank);
    const int line = static_cast<int>(i + 1);
    if (first == "begin" || first == "end") {
      return Status::InvalidInput(CommandText(argv), line,
                                  "a line starting with " + Quote(first) + " cannot be pasted into a snapshot block");
    }
    if (std::string_view(kind) == "queue" && first == "calendar" && blank != std::string_view::npos &&
        !IsNone(Trim(text.substr(blank)))) {
      return Status::InvalidInput(CommandText(argv), line, "the queue uses a calendar, which a schedk snapshot cannot hold yet");
    }
  }
  text_ += "begin " + std::string(kind) + (name.empty() ? "" : " " + name) + "\n";
  text_ += pasted;
  if (std::string(kind) == "queue") {
    auto states = queue_states_.find(name);
    if (states != queue_states_.end()) text_ += "states NONE" + states->second + "\n";
  }
  text_ += "end " + std::string(kind) + "\n";
  return Status::Ok();
}

// qconf -sql sorts the cluster queues by name; the qmaster keeps them in the
// order they were added, and dispatch breaks seq_no ties in that order.
// qselect lists the queue instances in it (queues without instances last).
Result<std::vector<std::string>> CellReader::InQueueListOrder(std::vector<std::string> names) {
  const CommandLine argv = {"qselect"};
  auto listing = Ask(argv);
  if (!listing.ok()) return listing.status();
  auto instances = NameList(listing.value(), argv);
  if (!instances.ok()) return instances.status();
  std::map<std::string, bool> placed;  // queue -> already in `ordered`
  for (const std::string& name : names) placed[name] = false;
  std::vector<std::string> ordered;
  for (const std::string& instance : instances.value()) {
    auto it = placed.find(instance.substr(0, instance.find('@')));
    if (it == placed.end() || it->second) continue;
    it->second = true;
    ordered.push_back(it->first);
  }
  for (const std::string& name : names) {
    if (!placed[name]) ordered.push_back(name);
  }
  return ordered;
}

Status CellReader::Objects() {
  for (const ObjectKind& k : kObjectKinds) {
    if (*k.list == '\0') {
      if (Status st = Block(k.block, "", {"qconf", k.show}); !st.ok()) return st;
      if (std::string_view(k.block) == "conf") {  // the global host follows the cluster configuration
        if (Status st = Block("global", "", {"qconf", "-se", "global"}); !st.ok()) return st;
      }
      continue;
    }
    const CommandLine list_argv = {"qconf", k.list};
    auto listing = Ask(list_argv);
    if (!listing.ok()) return listing.status();
    auto listed = NameList(listing.value(), list_argv);
    if (!listed.ok()) return listed.status();
    std::vector<std::string> names = std::move(listed.value());
    if (std::string_view(k.block) == "queue") {
      auto ordered = InQueueListOrder(std::move(names));
      if (!ordered.ok()) return ordered.status();
      names = std::move(ordered.value());
    }
    for (const std::string& name : names) {
      if (Status st = Block(k.block, name, {"qconf", k.show, name}); !st.ok()) return st;
      if (std::string_view(k.block) == "exechost") ++hosts_;
      if (std::string_view(k.block) == "queue") queues_.push_back(name);
    }
  }
  auto tree = Ask({"qconf", "-sstree"});
  if (!tree.ok()) return tree.status();
  share_tree_ = !Names(tree.value()).empty();
  if (share_tree_) {
    if (Status st = Block("sharetree", "", {"qconf", "-sstree"}); !st.ok()) return st;
  }
  return Status::Ok();
}

Status CellReader::Unsupported() {
  for (const UnsupportedObject& u : kUnsupportedObjects) {
    auto listing = Ask(u.argv);
    if (!listing.ok()) return listing.status();
    if (!Names(listing.value()).empty()) {
      return Status::InvalidInput(CommandText(u.argv), 1,
                                  std::string("the cell uses ") + u.what + ", which a schedk snapshot cannot hold yet");
    }
  }
  return Status::Ok();
}

Status CellReader::QueueStates() {
  const CommandLine argv = {"qstat", "-f", "-xml"};
  auto xml = Ask(argv);
  if (!xml.ok()) return xml.status();
  auto instances = ParseQstatQueues(xml.value(), CommandText(argv));
  if (!instances.ok()) return instances.status();
  for (const CellQueueInstance& q : instances.value()) {
    if (q.state.empty()) continue;
    const std::size_t at = q.name.find('@');
    queue_states_[q.name.substr(0, at)] += ",[" + q.name.substr(at + 1) + "=" + q.state + "]";
  }
  return Status::Ok();
}

// qstat's job state letters as a snapshot state: "" leaves the task out.
std::string_view SnapshotState(std::string_view state, bool running) {
  auto has = [&](char c) { return state.find(c) != std::string_view::npos; };
  if (running) return has('s') || has('S') || has('T') ? "s" : "r";
  if (has('d')) return "";  // deleted: Grid Engine schedules it no more
  if (has('E')) return "Eqw";
  if (has('h')) return "hqw";
  return "qw";
}

std::string Joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& i : items) out += (out.empty() ? "" : ",") + i;
  return out;
}

// The keys every task of `job` shares, as ` key=value` pairs.
std::string JobKeys(const CellJob& job) {
  std::string out;
  AppendKeyValue(out, "owner", job.owner);
  if (!job.group.empty()) AppendKeyValue(out, "group", job.group);
  if (!job.project.empty()) AppendKeyValue(out, "project", job.project);
  if (!job.department.empty()) AppendKeyValue(out, "department", job.department);
  if (!job.name.empty()) AppendKeyValue(out, "name", job.name);
  AppendKeyValue(out, "submit", std::to_string(job.submit));
  if (job.posix_priority != 0) AppendKeyValue(out, "p", std::to_string(job.posix_priority));
  if (job.reserve) AppendKeyValue(out, "R", "y");
  auto requests = [&](const char* key, const std::vector<std::pair<std::string, std::string>>& list) {
    std::vector<std::string> items;
    for (const auto& [name, value] : list) items.push_back(name + "=" + value);
    if (!items.empty()) AppendKeyValue(out, key, Joined(items));
  };
  requests("l_hard", job.hard_requests);
  requests("l_soft", job.soft_requests);
  if (!job.hard_queues.empty()) AppendKeyValue(out, "q_hard", Joined(job.hard_queues));
  if (!job.soft_queues.empty()) AppendKeyValue(out, "q_soft", Joined(job.soft_queues));
  if (!job.master_queues.empty()) AppendKeyValue(out, "masterq", Joined(job.master_queues));
  if (!job.pe.empty()) {
    AppendKeyValue(out, "pe_name", job.pe);
    AppendKeyValue(out, "pe_min", std::to_string(job.pe_min));
    AppendKeyValue(out, "pe_max", std::to_string(job.pe_max));
  }
  std::vector<std::string> predecessors;
  for (std::uint64_t p : job.predecessors) predecessors.push_back(std::to_string(p));
  if (!predecessors.empty()) AppendKeyValue(out, "hold_jid", Joined(predecessors));
  if (job.deadline != 0) AppendKeyValue(out, "dl", std::to_string(job.deadline));
  if (job.override_tickets != 0) AppendKeyValue(out, "oticket", std::to_string(job.override_tickets));
  if (job.jobshare != 0) AppendKeyValue(out, "js", std::to_string(job.jobshare));
  if (job.task_concurrency != 0) AppendKeyValue(out, "tc", std::to_string(job.task_concurrency));
  return out;
}

// A pending task range ("7", "2-9", "1-9:2") in runs of tasks that exist as
// objects (enrolled: a rescheduled task, say) and tasks that do not. A range
// that does not parse is passed on whole, for the snapshot reader to judge.
std::vector<std::pair<std::string, bool>> EnrolledRuns(const std::string& range, const std::set<std::uint32_t>& objects) {
  ParsedJob parsed;
  if (objects.empty() || range.empty() || ParseJobId("1." + range, parsed)) return {{range, false}};
  std::vector<std::pair<std::string, bool>> runs;
  auto text = [&](TaskNumber first, TaskNumber last) {
    if (first == last) return std::to_string(first);
    return std::to_string(first) + "-" + std::to_string(last) +
           (parsed.step == 1 ? "" : ":" + std::to_string(parsed.step));
  };
  TaskNumber run_first = parsed.first;
  for (TaskNumber t = parsed.first;; t += parsed.step) {
    const bool last = parsed.last - t < parsed.step;
    const bool enrolled = objects.count(t) > 0;
    if (last || enrolled != (objects.count(t + parsed.step) > 0)) {
      runs.emplace_back(text(run_first, t), enrolled);
      run_first = t + parsed.step;
    }
    if (last) break;
  }
  return runs;
}

// A running task: its granted queue instances, in qstat's order, and its master.
struct RunningTask {
  int line = 0;
  std::string state;
  std::vector<std::pair<std::string, std::uint32_t>> granted;
  std::string master;
};

Status CellReader::Jobs(GeImport& out) {
  const CommandLine details_argv = {"qstat", "-j", "*", "-xml"};
  const CommandLine tasks_argv = {"qstat", "-u", "*", "-g", "t", "-xml"};
  auto tasks_xml = Ask(tasks_argv);
  if (!tasks_xml.ok()) return tasks_xml.status();
  auto details_xml = Ask(details_argv);
  if (!details_xml.ok()) return details_xml.status();
  const std::string tasks_source = CommandText(tasks_argv), details_source = CommandText(details_argv);
  auto rows = ParseQstatTasks(tasks_xml.value(), tasks_source);
  if (!rows.ok()) return rows.status();
  auto jobs = ParseQstatJobs(details_xml.value(), details_source);
  if (!jobs.ok()) return jobs.status();

  std::map<std::uint64_t, const CellJob*> by_number;
  for (const CellJob& job : jobs.value()) {
    if (!by_number.emplace(job.number, &job).second) {
      return Status::InvalidInput(details_source, job.line, "job " + std::to_string(job.number) + " is listed twice");
    }
    if (!job.unsupported.empty()) {
      std::string options;
      for (const std::string& u : job.unsupported) options += (options.empty() ? "" : ", ") + u;
      return Status::InvalidInput(details_source, job.line,
                                  "job " + std::to_string(job.number) + " uses " + options +
                                      ", which a schedk snapshot cannot hold yet");
    }
  }
  // Running tasks by (job, task); pending task ranges by job, in qstat's order.
  std::map<std::pair<std::uint64_t, std::string>, RunningTask> running;
  std::map<std::uint64_t, std::vector<const CellTaskRow*>> pending;
  for (const CellTaskRow& row : rows.value()) {
    if (!by_number.count(row.number)) {
      return Status::InvalidInput(tasks_source, row.line,
                                  "job " + std::to_string(row.number) + " is not in " + details_source +
                                      " (the cell changed while it was read: import again)");
    }
    if (row.queue.empty()) {
      pending[row.number].push_back(&row);
      continue;
    }
    RunningTask& task = running[{row.number, row.tasks}];
    task.line = row.line;
    task.state = row.state;
    if (row.master) task.master = row.queue;
    auto g = std::find_if(task.granted.begin(), task.granted.end(), [&](const auto& p) { return p.first == row.queue; });
    if (g == task.granted.end()) task.granted.emplace_back(row.queue, row.slots);
    else g->second += row.slots;
  }
  for (const auto& [number, job] : by_number) {
    const std::string keys = JobKeys(*job);
    const std::string id = std::to_string(number);
    for (auto it = running.lower_bound({number, ""}); it != running.end() && it->first.first == number; ++it) {
      const std::string& task = it->first.second;
      const RunningTask& r = it->second;
      const std::uint32_t task_number = task.empty() ? 1 : static_cast<std::uint32_t>(std::stoul(task));
      auto start = job->task_start.find(task_number);
      if (start == job->task_start.end() || r.master.empty()) {
        return Status::InvalidInput(tasks_source, r.line,
                                    "running task " + id + (task.empty() ? "" : "." + task) +
                                        " has no start time or no master queue (the cell changed while it was read: "
                                        "import again)");
      }
      std::vector<std::string> granted;
      for (const auto& [queue, slots] : r.granted) granted.push_back(queue + ":" + std::to_string(slots));
      text_ += "job " + id + (task.empty() ? "" : "." + task) + keys;
      AppendKeyValue(text_, "state", SnapshotState(r.state, true));
      AppendKeyValue(text_, "start", std::to_string(start->second));
      AppendKeyValue(text_, "granted", Joined(granted));
      // The master is the first granted queue unless said otherwise (a
      // session's `run` keeps it so, and the dumps compare equal).
      if (r.master != r.granted.front().first) AppendKeyValue(text_, "master", r.master);
      text_ += '\n';
    }
    for (const CellTaskRow* row : pending[number]) {
      const std::string_view state = SnapshotState(row->state, false);
      if (state.empty()) continue;
      std::vector<std::string> ranges;
      if (row->tasks.empty()) ranges.emplace_back();
      for (std::string_view range : SplitList(row->tasks)) ranges.emplace_back(range);
      for (const std::string& range : ranges) {
        for (const auto& [run, enrolled] : EnrolledRuns(range, job->task_objects)) {
          text_ += "job " + id + (run.empty() ? "" : "." + run) + keys;
          if (state != "qw") AppendKeyValue(text_, "state", state);
          if (enrolled) AppendKeyValue(text_, "enrolled", "y");
          text_ += '\n';
        }
      }
    }
  }
  out.jobs = by_number.size();
  return Status::Ok();
}

// The users' and projects' share-tree usage, stored by the last scheduler run
// (share_usage.hpp); read between the same two looks at the clock as the jobs.
Status CellReader::ShareTreeUsage(GeImport& out) {
  if (!share_tree_) return Status::Ok();
  if (options_.live && options_.share_monitor.empty()) {
    return Status::IoError("sge_share_mon",
                           "not found (on PATH, in $SGE_ROOT/utilbin/<arch>/ or /usr/lib/gridengine/): the cell has "
                           "a share tree, and its usage is read with it");
  }
  const CellCommand command = ShareUsageCommand(options_.live ? options_.share_monitor : "sge_share_mon");
  auto output = Ask(command);
  if (!output.ok()) return output.status();
  auto usage = ParseShareUsage(output.value(), CommandText(command.argv));
  if (!usage.ok()) return usage.status();
  text_ += usage->records;
  for (std::string& note : usage->notes) out.notes.push_back(std::move(note));
  return Status::Ok();
}

// The stamp of a qmaster messages line, such as
// "11/25/2026 23:37:56|schedu|vm|P|PROF: schedd run took: ...", in local time.
std::optional<Time> RunTime(std::string_view line) {
  std::tm tm{};
  const std::string stamp(line.substr(0, line.find('|')));
  const char* end = strptime(stamp.c_str(), "%m/%d/%Y %H:%M:%S", &tm);
  if (end == nullptr || *end != '\0') return std::nullopt;
  tm.tm_isdst = -1;
  const std::time_t t = std::mktime(&tm);
  if (t == static_cast<std::time_t>(-1)) return std::nullopt;
  return static_cast<Time>(t);
}

Result<std::optional<SchedulerRun>> CellReader::LastSchedulerRun() {
  if (options_.messages_file.empty() && options_.live) return std::optional<SchedulerRun>();
  return io::LastSchedulerRun(cell_, options_.messages_file);
}

Status CellReader::Clock(GeImport& out) {
  if (options_.now) {
    text_ += "now " + std::to_string(*options_.now) + "\n";
    out.notes.push_back("now: " + std::to_string(*options_.now) + ", as given");
    return Status::Ok();
  }
  auto run = LastSchedulerRun();
  if (!run.ok()) return run.status();
  last_run_ = run.value();
  if (last_run_) {
    text_ += "now " + std::to_string(last_run_->urgency) + "\n";
    out.notes.push_back("now: " + std::to_string(last_run_->urgency) +
                        ", when the cell's last scheduler run weighed urgency (PROFILE)");
    out.run = last_run_;
    return Status::Ok();
  }
  const CommandLine argv = {"date", "+%s"};
  auto clock = Ask(CellCommand{argv, kClockCapture});
  if (!clock.ok()) return clock.status();
  std::string_view digits = clock.value();
  while (!digits.empty() && std::isspace(static_cast<unsigned char>(digits.back()))) digits.remove_suffix(1);
  Time t = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), t);
  if (ec != std::errc() || end != digits.data() + digits.size()) {
    return Status::InvalidInput(CommandText(argv), 1, "expected epoch seconds, not " + Quote(digits));
  }
  text_ += "now " + std::to_string(t) + "\n";
  out.notes.push_back("now: " + std::to_string(t) +
                      ", the time of the capture: waiting-time urgency may differ from the cell's by up to one "
                      "schedule_interval (set params PROFILE=1 in the scheduler configuration, or give --now)");
  return Status::Ok();
}

Status CellReader::Read(GeImport& out) {
  const std::string header = "schedk-snapshot 1\n# A Grid Engine cell, as `schedk import ge` read it.\n";
  if (Status st = Unsupported(); !st.ok()) return st;
  if (Status st = QueueStates(); !st.ok()) return st;
  if (Status st = Objects(); !st.ok()) return st;
  const std::string objects = std::move(text_);
  // The clock and the jobs between two looks at the scheduler's last run: a
  // run that ended in between may have started jobs, so they are read again.
  for (int attempt = 1;; ++attempt) {
    text_.clear();
    out.notes.clear();
    if (Status st = Clock(out); !st.ok()) return st;
    const std::string clock = std::move(text_);
    text_.clear();
    if (Status st = ShareTreeUsage(out); !st.ok()) return st;
    if (Status st = Jobs(out); !st.ok()) return st;
    if (options_.live && !options_.now) {
      auto after = LastSchedulerRun();
      if (!after.ok()) return after.status();
      if (after.value() != last_run_) {
        if (attempt < tuning::kLiveAttempts) continue;
        out.notes.push_back("the cell's scheduler ran while its jobs were read, " +
                            std::to_string(tuning::kLiveAttempts) + " times: jobs and priorities may be from two runs");
      }
    }
    out.snapshot = header + clock + objects + text_;
    break;
  }
  out.hosts = hosts_;
  out.queues = queues_.size();
  return Status::Ok();
}

}  // namespace

std::vector<SchedulerRun> SchedulerRuns(const CellCommands& cell, const std::string& messages_file) {
  auto messages = cell(CellCommand{{"tail", "-n", "400", messages_file}, kMessagesCapture});
  std::vector<SchedulerRun> runs;
  if (!messages.ok()) return runs;  // no messages file: the clock says when
  bool weighed = false;             // the current run has logged its urgency stamp
  Time urgency = 0;
  for (std::string_view line : Lines(messages.value())) {
    const bool urgency_line = line.find("|PROF: static urgency took") != std::string_view::npos;
    const bool end_line = line.find("|PROF: schedd run took") != std::string_view::npos;
    const auto t = urgency_line || end_line ? RunTime(line) : std::nullopt;
    if (!t) continue;
    if (urgency_line) {
      weighed = true;
      urgency = *t;
    } else if (end_line) {
      runs.push_back(SchedulerRun{weighed ? urgency : *t, *t});
      weighed = false;
    }
  }
  return runs;
}

std::optional<SchedulerRun> LastSchedulerRun(const CellCommands& cell, const std::string& messages_file) {
  const std::vector<SchedulerRun> runs = SchedulerRuns(cell, messages_file);
  return runs.empty() ? std::nullopt : std::optional<SchedulerRun>(runs.back());
}

std::string QmasterMessagesFile() {
  const char* root = std::getenv("SGE_ROOT");
  const char* cell = std::getenv("SGE_CELL");
  if (root == nullptr || *root == '\0') return "";
  std::ifstream bootstrap(std::string(root) + "/" + (cell != nullptr && *cell != '\0' ? cell : "default") +
                          "/common/bootstrap");
  std::string line;
  while (std::getline(bootstrap, line)) {
    const std::string_view l = Trim(line);
    if (l.rfind("qmaster_spool_dir", 0) == 0) return std::string(Trim(l.substr(17))) + "/messages";
  }
  return "";
}

GeImportOptions LiveCellOptions() {
  GeImportOptions options;
  options.live = true;
  options.messages_file = QmasterMessagesFile();
  options.share_monitor = ShareMonitorPath();
  return options;
}

Result<GeImport> ImportGeCell(const CellCommands& cell, const GeImportOptions& options) {
  GeImport out;
  CellReader reader(cell, options);
  if (Status st = reader.Read(out); !st.ok()) return st;
  auto check = ReadSnapshot(out.snapshot, "the imported snapshot");
  if (!check.ok()) return check.status();
  for (const Warning& w : check->warnings) out.notes.push_back(w.ToString());
  return out;
}

}  // namespace schedk::io
