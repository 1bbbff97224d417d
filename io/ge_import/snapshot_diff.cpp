#include "io/ge_import/snapshot_diff.hpp"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <map>

#include "io/job_line.hpp"

namespace schedk::io {
namespace {

struct Parts {
  std::string now;
  std::map<std::string, std::string> blocks;             // "kind name" -> the block's lines, begin..end
  std::map<std::string, std::vector<std::string>> jobs;  // job number -> its records, in order
};

Parts Split(std::string_view text) {
  Parts parts;
  std::string block_key, block_text;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    const std::string line(text.substr(0, end));
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    if (!block_key.empty()) {
      block_text += line + "\n";
      if (line.rfind("end", 0) == 0 && (line.size() == 3 || line[3] == ' ')) {
        parts.blocks[block_key] = std::move(block_text);
        block_key.clear();
        block_text.clear();
      }
    } else if (line.rfind("begin ", 0) == 0) {
      block_key = line.substr(6);
      block_text = line + "\n";
    } else if (line.rfind("now ", 0) == 0) {
      parts.now = line.substr(4);
    } else if (line.rfind("job ", 0) == 0) {
      const std::size_t id_end = line.find_first_of(". ", 4);
      parts.jobs[line.substr(4, id_end - 4)].push_back(line);
    }
  }
  return parts;
}

// The requests that add a job as its `records` say. One record is one `add`.
// Several (an array job whose tasks differ in state) cannot be added one by
// one (a session refuses a job number twice), so the job comes as a master
// submits it: every task from the first to the last pending, the tasks not
// in the cell deleted, then each task put in its state (`run`, `suspend`,
// `hold`) and marked where it exists as a task object (`mod job n.t
// enrolled=y`).
std::vector<std::string> AddJob(const std::string& number, const std::vector<std::string>& records) {
  if (records.size() == 1) return {"add " + records.front()};
  struct Task {
    std::uint32_t task;
    std::string state, start, granted;
    bool enrolled = false;
  };
  std::vector<Task> tasks;
  std::string keys;  // the records' shared keys, from the first one
  for (const std::string& record : records) {
    std::vector<JobToken> tokens;
    std::deque<std::string> storage;
    ParsedJob id;
    if (TokenizeRecord(record, tokens, storage) || tokens.size() < 2 || !tokens[1].bare || ParseJobId(tokens[1].key, id)) {
      return {"add " + record};  // not a record of ours: the session says what is wrong
    }
    std::string state = "qw", start, granted, own;
    bool enrolled = false;
    for (std::size_t i = 2; i < tokens.size(); ++i) {
      const JobToken& t = tokens[i];
      if (t.key == "state") state = t.value;
      else if (t.key == "start") start = t.value;
      else if (t.key == "granted") granted = t.value;
      else if (t.key == "enrolled") enrolled = t.value == "y";
      else if (t.key != "master") AppendKeyValue(own, t.key, t.value);
    }
    if (keys.empty()) keys = own;
    for (std::uint64_t task = id.first; task <= id.last; task += id.step) {
      tasks.push_back({static_cast<std::uint32_t>(task), state, start, granted, enrolled});
      if (id.step == 0) break;
    }
  }
  std::sort(tasks.begin(), tasks.end(), [](const Task& a, const Task& b) { return a.task < b.task; });
  const std::uint32_t first = tasks.front().task, last = tasks.back().task;
  std::vector<std::string> requests = {"add job " + number + "." + std::to_string(first) + "-" +
                                       std::to_string(last) + keys};
  std::size_t next = 0;
  for (std::uint64_t task = first; task <= last; ++task) {
    const std::string id = number + "." + std::to_string(task);
    if (next == tasks.size() || tasks[next].task != task) {
      requests.push_back("del job " + id);
      continue;
    }
    const Task& t = tasks[next++];
    if (t.state == "r" || t.state == "s") requests.push_back("run " + id + " start=" + t.start + " granted=" + t.granted);
    if (t.state == "s") requests.push_back("suspend " + id);
    if (t.state == "hqw") requests.push_back("hold " + id);
    if (t.enrolled) requests.push_back("mod job " + id + " enrolled=y");
  }
  return requests;
}

}  // namespace

std::vector<std::string> SessionUpdates(std::string_view before_text, std::string_view after_text) {
  const Parts before = Split(before_text), after = Split(after_text);
  std::vector<std::string> requests;
  if (after.now != before.now && !after.now.empty()) requests.push_back("clock " + after.now);
  for (const auto& [key, text] : after.blocks) {
    auto it = before.blocks.find(key);
    if (it == before.blocks.end() || it->second != text) requests.push_back(text.substr(0, text.size() - 1));
  }
  std::vector<std::string> additions;
  for (const auto& [number, records] : after.jobs) {
    auto it = before.jobs.find(number);
    if (it != before.jobs.end() && it->second == records) continue;
    if (it != before.jobs.end()) requests.push_back("del job " + number);
    for (std::string& request : AddJob(number, records)) additions.push_back(std::move(request));
  }
  for (const auto& [number, records] : before.jobs) {
    if (!after.jobs.count(number)) requests.push_back("del job " + number);
  }
  requests.insert(requests.end(), additions.begin(), additions.end());
  for (const auto& [key, text] : before.blocks) {
    if (!after.blocks.count(key)) requests.push_back("del " + key);
  }
  return requests;
}

}  // namespace schedk::io
