#include "io/ge_import/qstat_xml.hpp"

#include <pugixml.hpp>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <optional>

#include "io/untrusted_text.hpp"

namespace schedk::io {
namespace {

// Options a job can carry that a snapshot cannot say yet: the element that
// holds each, and when it counts as given.
struct UnsupportedOption {
  const char* element;
  const char* option;
  bool list;  // a list element counts when it has children; a value when it is not 0
};
constexpr UnsupportedOption kUnsupportedOptions[] = {
    {"JB_ja_ad_predecessor_list", "-hold_jid_ad", true},
    {"JB_checkpoint_name", "-ckpt", false},
    {"JB_execution_time", "-a", false},
    {"JB_ar", "-ar", false},
};

class XmlText {
 public:
  XmlText(std::string_view xml, const std::string& source) : xml_(xml), source_(source) {
    for (std::size_t i = xml.find('\n'); i != std::string_view::npos; i = xml.find('\n', i + 1)) newlines_.push_back(i);
  }

  Status Load(pugi::xml_document& doc) const {
    const pugi::xml_parse_result parsed = doc.load_buffer(xml_.data(), xml_.size(), pugi::parse_default, pugi::encoding_utf8);
    if (!parsed) {
      return Status::InvalidInput(source_, LineAt(static_cast<std::size_t>(parsed.offset)),
                                  std::string("not well-formed XML: ") + parsed.description());
    }
    return Status::Ok();
  }
  int LineAt(std::size_t offset) const {
    return 1 + static_cast<int>(std::lower_bound(newlines_.begin(), newlines_.end(), offset) - newlines_.begin());
  }
  int LineOf(const pugi::xml_node& node) const { return LineAt(static_cast<std::size_t>(node.offset_debug())); }
  Status Error(const pugi::xml_node& node, std::string message) const {
    return Status::InvalidInput(source_, LineOf(node), std::move(message));
  }

 private:
  std::string_view xml_;
  const std::string& source_;
  std::vector<std::size_t> newlines_;  // offsets, for LineAt in O(log n)
};

// A value goes into a snapshot record: one line of text, no control bytes.
Status CheckText(const XmlText& x, const pugi::xml_node& at, const char* what, std::string_view value) {
  for (unsigned char c : value) {
    if (c < 0x20 || c == 0x7f) return x.Error(at, std::string(what) + ": a control character in " + Quote(value));
  }
  if (FindNonText(value) != std::string_view::npos) return x.Error(at, std::string(what) + ": not UTF-8: " + Quote(value));
  return Status::Ok();
}

// Only the bytes of `allowed` (and letters and digits), at least one.
Status CheckWord(const XmlText& x, const pugi::xml_node& at, const char* what, std::string_view value,
                 std::string_view allowed) {
  const bool ok = !value.empty() && std::all_of(value.begin(), value.end(), [&](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           allowed.find(c) != std::string_view::npos;
  });
  return ok ? Status::Ok() : x.Error(at, std::string(what) + ": unexpected " + Quote(value));
}

// The strings of a job as it will be written: names as text, requests
// without the separators of the snapshot's lists.
Status CheckJob(const XmlText& x, const pugi::xml_node& e, const CellJob& job) {
  const std::pair<const char*, const std::string*> texts[] = {{"JB_owner", &job.owner},     {"JB_group", &job.group},
                                                              {"JB_project", &job.project}, {"JB_department", &job.department},
                                                              {"JB_job_name", &job.name},   {"JB_pe", &job.pe}};
  for (const auto& [what, value] : texts) {
    if (Status st = CheckText(x, e, what, *value); !st.ok()) return st;
  }
  if (job.owner.empty()) return x.Error(e, "job " + std::to_string(job.number) + " without JB_owner");
  for (const auto* list : {&job.hard_requests, &job.soft_requests}) {
    for (const auto& [name, value] : *list) {
      if (Status st = CheckWord(x, e, "CE_name", name, "_.-"); !st.ok()) return st;
      if (Status st = CheckText(x, e, "CE_stringval", value); !st.ok()) return st;
      if (value.empty() || value.find_first_of(", ") != std::string::npos) {
        return x.Error(e, "CE_stringval: a request value with a blank or ',' : " + Quote(value));
      }
    }
  }
  for (const auto* list : {&job.hard_queues, &job.soft_queues, &job.master_queues}) {
    for (const std::string& q : *list) {
      if (Status st = CheckWord(x, e, "QR_name", q, "._@+-*?[]|!"); !st.ok()) return st;
    }
  }
  return Status::Ok();
}

template <class T>
std::optional<T> Integer(std::string_view text) {
  T value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

// Reads the integer text of `parent`'s child `name` (absent: `fallback`).
template <class T>
Status ReadInteger(const XmlText& x, const pugi::xml_node& parent, const char* name, T& out, T fallback = T{}) {
  const pugi::xml_node node = parent.child(name);
  if (!node) {
    out = fallback;
    return Status::Ok();
  }
  auto v = Integer<T>(node.child_value());
  if (!v) return x.Error(node, std::string(name) + ": expected an integer, not " + Quote(node.child_value()));
  out = *v;
  return Status::Ok();
}

std::vector<std::pair<std::string, std::string>> Requests(const pugi::xml_node& list) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const pugi::xml_node& r : list.children()) {
    out.emplace_back(r.child_value("CE_name"), r.child_value("CE_stringval"));
  }
  return out;
}

std::vector<std::string> QueueNames(const pugi::xml_node& list) {
  std::vector<std::string> out;
  for (const pugi::xml_node& q : list.children()) out.emplace_back(q.child_value("QR_name"));
  return out;
}

Status ReadJob(const XmlText& x, const pugi::xml_node& e, CellJob& job) {
  job.line = x.LineOf(e);
  if (Status st = ReadInteger(x, e, "JB_job_number", job.number); !st.ok()) return st;
  if (job.number == 0) return x.Error(e, "a job without JB_job_number");
  job.owner = e.child_value("JB_owner");
  job.group = e.child_value("JB_group");
  job.project = e.child_value("JB_project");
  job.department = e.child_value("JB_department");
  job.name = e.child_value("JB_job_name");
  if (Status st = ReadInteger(x, e, "JB_submission_time", job.submit); !st.ok()) return st;
  if (Status st = ReadInteger(x, e, "JB_deadline", job.deadline); !st.ok()) return st;
  int priority = 1024;
  if (Status st = ReadInteger(x, e, "JB_priority", priority, 1024); !st.ok()) return st;
  job.posix_priority = priority - 1024;  // qstat stores -p shifted by 1024
  job.reserve = std::string_view(e.child_value("JB_reserve")) == "true";
  job.hard_requests = Requests(e.child("JB_hard_resource_list"));
  job.soft_requests = Requests(e.child("JB_soft_resource_list"));
  job.hard_queues = QueueNames(e.child("JB_hard_queue_list"));
  job.soft_queues = QueueNames(e.child("JB_soft_queue_list"));
  job.master_queues = QueueNames(e.child("JB_master_hard_queue_list"));
  job.pe = e.child_value("JB_pe");
  const pugi::xml_node ranges = e.child("JB_pe_range");
  int range_count = 0;
  for (const pugi::xml_node& r : ranges.children()) {
    ++range_count;
    std::uint32_t step = 1;
    if (Status st = ReadInteger(x, r, "RN_min", job.pe_min); !st.ok()) return st;
    if (Status st = ReadInteger(x, r, "RN_max", job.pe_max); !st.ok()) return st;
    if (Status st = ReadInteger(x, r, "RN_step", step, 1u); !st.ok()) return st;
    if (step != 1 && job.pe_min != job.pe_max) job.unsupported.push_back("-pe with a step in its slot range");
  }
  if (range_count > 1) job.unsupported.push_back("-pe with several slot ranges");
  for (const pugi::xml_node& p : e.child("JB_jid_predecessor_list").children()) {
    std::uint64_t n = 0;
    if (Status st = ReadInteger(x, p, "JRE_job_number", n); !st.ok()) return st;
    job.predecessors.push_back(n);
  }
  if (Status st = ReadInteger(x, e, "JB_override_tickets", job.override_tickets); !st.ok()) return st;
  if (Status st = ReadInteger(x, e, "JB_jobshare", job.jobshare); !st.ok()) return st;
  if (Status st = ReadInteger(x, e, "JB_ja_task_concurrency", job.task_concurrency); !st.ok()) return st;
  // JB_type carries JOB_TYPE_ARRAY (0x10 << 4 = bit 8 in JOB_TYPE's layout):
  // the array structure's range is the reliable sign.
  const pugi::xml_node range = e.child("JB_ja_structure").first_child();
  std::uint32_t first = 1, last = 1, step = 1;
  if (range) {
    if (Status st = ReadInteger(x, range, "RN_min", first, 1u); !st.ok()) return st;
    if (Status st = ReadInteger(x, range, "RN_max", last, 1u); !st.ok()) return st;
    if (Status st = ReadInteger(x, range, "RN_step", step, 1u); !st.ok()) return st;
  }
  job.is_array = !(first == 1 && last == 1);
  for (const pugi::xml_node& t : e.child("JB_ja_tasks").children()) {
    std::uint32_t task = 0;
    std::int64_t start = 0;
    if (Status st = ReadInteger(x, t, "JAT_task_number", task); !st.ok()) return st;
    if (Status st = ReadInteger(x, t, "JAT_start_time", start); !st.ok()) return st;
    if (start != 0) job.task_start[task] = start;
    job.task_objects.insert(task);
  }
  for (const UnsupportedOption& u : kUnsupportedOptions) {
    const pugi::xml_node node = e.child(u.element);
    if (!node) continue;
    const std::string_view value = node.child_value();
    const bool given = u.list ? static_cast<bool>(node.first_child().first_child())
                              : !value.empty() && value != "0" && value != "NONE";
    if (given) job.unsupported.emplace_back(u.option);
  }
  return Status::Ok();
}

// qstat -j writes the scheduler's messages (schedd_job_info true) after the
// jobs, each list element named after its list, and one list is named "job
// ids": `<job ids>` is not XML. Nothing in them is read, so the section is
// blanked (newlines kept, so lines and offsets stay the output's).
std::string WithoutSchedulerMessages(std::string_view xml) {
  std::string text(xml);
  const std::size_t jobs_end = text.find("</djob_info>");
  const std::size_t begin = text.find("<messages>", jobs_end == std::string::npos ? 0 : jobs_end);
  if (jobs_end == std::string::npos || begin == std::string::npos) return text;
  const std::size_t close = text.find("</messages>", begin);
  if (close == std::string::npos) return text;
  for (std::size_t i = begin; i < close + std::strlen("</messages>"); ++i) {
    if (text[i] != '\n') text[i] = ' ';
  }
  return text;
}

}  // namespace

Result<std::vector<CellJob>> ParseQstatJobs(std::string_view output, const std::string& source) {
  std::vector<CellJob> jobs;
  if (output.find_first_not_of(" \t\r\n") == std::string_view::npos) return jobs;
  const std::string xml = WithoutSchedulerMessages(output);
  const XmlText x(xml, source);
  pugi::xml_document doc;
  if (Status st = x.Load(doc); !st.ok()) return st;
  const pugi::xml_node root = doc.child("detailed_job_info");
  if (!root) {
    // An empty cell answers with <unknown_jobs>; anything else is not qstat -j.
    if (doc.child("unknown_jobs")) return jobs;
    return x.Error(doc.first_child(), "expected <detailed_job_info> (qstat -j '*' -xml)");
  }
  for (const pugi::xml_node& e : root.child("djob_info").children()) {
    CellJob job;
    if (Status st = ReadJob(x, e, job); !st.ok()) return st;
    if (Status st = CheckJob(x, e, job); !st.ok()) return st;
    jobs.push_back(std::move(job));
  }
  return jobs;
}

Result<std::vector<CellTaskRow>> ParseQstatTasks(std::string_view xml, const std::string& source) {
  const XmlText x(xml, source);
  pugi::xml_document doc;
  if (Status st = x.Load(doc); !st.ok()) return st;
  const pugi::xml_node root = doc.child("job_info");
  if (!root) return x.Error(doc.first_child(), "expected <job_info> (qstat -u '*' -g t -xml)");
  std::vector<CellTaskRow> rows;
  for (const char* part : {"queue_info", "job_info"}) {
    for (const pugi::xml_node& e : root.child(part).children("job_list")) {
      CellTaskRow row;
      row.line = x.LineOf(e);
      if (Status st = ReadInteger(x, e, "JB_job_number", row.number); !st.ok()) return st;
      if (Status st = ReadInteger(x, e, "slots", row.slots); !st.ok()) return st;
      row.state = e.child_value("state");
      row.tasks = e.child_value("tasks");
      row.queue = e.child_value("queue_name");
      row.master = std::string_view(e.child_value("master")) == "MASTER";
      if (row.number == 0 || row.state.empty()) return x.Error(e, "a job_list entry without job number or state");
      if (Status st = CheckWord(x, e, "state", row.state, ""); !st.ok()) return st;
      if (!row.tasks.empty()) {
        if (Status st = CheckWord(x, e, "tasks", row.tasks, ",-:"); !st.ok()) return st;
      }
      if (!row.queue.empty()) {
        if (Status st = CheckWord(x, e, "queue_name", row.queue, "._@+-"); !st.ok()) return st;
        const std::string_view tasks = row.tasks;
        std::uint32_t task = 0;
        const auto [end, ec] = std::from_chars(tasks.data(), tasks.data() + tasks.size(), task);
        if (!tasks.empty() && (ec != std::errc() || end != tasks.data() + tasks.size() || task == 0)) {
          return x.Error(e, "a running task's number must be one whole number, not " + Quote(tasks));
        }
      }
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

Result<std::vector<CellQueueInstance>> ParseQstatQueues(std::string_view xml, const std::string& source) {
  const XmlText x(xml, source);
  pugi::xml_document doc;
  if (Status st = x.Load(doc); !st.ok()) return st;
  const pugi::xml_node root = doc.child("job_info");
  if (!root) return x.Error(doc.first_child(), "expected <job_info> (qstat -f -xml)");
  std::vector<CellQueueInstance> out;
  for (const pugi::xml_node& q : root.child("queue_info").children("Queue-List")) {
    CellQueueInstance instance{q.child_value("name"), q.child_value("state")};
    if (Status st = CheckWord(x, q, "name", instance.name, "._@+-"); !st.ok()) return st;
    if (!instance.state.empty()) {
      if (Status st = CheckWord(x, q, "state", instance.state, ""); !st.ok()) return st;
    }
    if (instance.name.find('@') == std::string::npos) return x.Error(q, "a queue instance name without '@'");
    out.push_back(std::move(instance));
  }
  return out;
}

}  // namespace schedk::io
