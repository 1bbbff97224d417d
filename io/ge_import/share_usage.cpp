#include "io/ge_import/share_usage.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>

#include "io/ge_value.hpp"
#include "io/untrusted_text.hpp"

namespace schedk::io {
namespace {

// The fields asked for, in the order they are printed (`-n`: name=value).
constexpr const char* kFields[] = {"usage_time", "node_name", "user_name", "project_name", "cpu", "mem", "io"};
constexpr std::size_t kFieldCount = std::size(kFields);

struct Row {
  Time usage_time = 0;
  std::string_view node, user, project;
  std::string_view values[3];  // cpu, mem, io, as printed
};

bool IsNumber(std::string_view text) {
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  return ec == std::errc() && end == text.data() + text.size() && std::isfinite(v) && v >= 0;
}

Result<Row> ParseRow(std::string_view line, const std::string& source, int line_no) {
  std::string_view fields[kFieldCount];
  std::size_t n = 0;
  for (std::string_view rest = line; !rest.empty();) {
    const std::size_t tab = rest.find('\t');
    const std::string_view field = rest.substr(0, tab);
    rest = tab == std::string_view::npos ? std::string_view() : rest.substr(tab + 1);
    if (field.empty()) continue;
    if (n == kFieldCount) return Status::InvalidInput(source, line_no, "unexpected field " + Quote(field));
    const std::string_view name = kFields[n];
    if (field.substr(0, name.size() + 1) != std::string(name) + "=") {
      return Status::InvalidInput(source, line_no, "expected " + std::string(name) + "=..., not " + Quote(field));
    }
    fields[n++] = field.substr(name.size() + 1);
  }
  if (n != kFieldCount) {
    return Status::InvalidInput(source, line_no,
                                "expected the fields usage_time,node_name,user_name,project_name,cpu,mem,io");
  }
  Row row;
  const auto [end, ec] = std::from_chars(fields[0].data(), fields[0].data() + fields[0].size(), row.usage_time);
  if (ec != std::errc() || end != fields[0].data() + fields[0].size() || row.usage_time < 0) {
    return Status::InvalidInput(source, line_no, "usage_time: expected epoch seconds, not " + Quote(fields[0]));
  }
  row.node = fields[1];
  row.user = fields[2];
  row.project = fields[3];
  for (std::string_view name : {row.user, row.project}) {
    if (!name.empty() && !IsObjectName(name))
      return Status::InvalidInput(source, line_no, Quote(name) + " is not an object name");
  }
  for (std::size_t i = 0; i < 3; ++i) {
    row.values[i] = fields[4 + i];
    if (!IsNumber(row.values[i])) {
      return Status::InvalidInput(
          source, line_no,
          std::string(kFields[4 + i]) + ": expected a finite number >= 0, not " + Quote(row.values[i]));
    }
  }
  return row;
}

std::string_view LastComponent(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

std::string Values(const Row& row) {
  return "cpu=" + std::string(row.values[0]) + ",mem=" + std::string(row.values[1]) +
         ",io=" + std::string(row.values[2]);
}

bool Executable(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

}  // namespace

CellCommand ShareUsageCommand(const std::string& program) {
  CommandLine argv = {"sge_share_mon", "-c", "1", "-n", "-f", "usage_time,node_name,user_name,project_name,cpu,mem,io"};
  std::string capture = CaptureFileName(argv);
  argv[0] = program;
  return {std::move(argv), std::move(capture)};
}

Result<ShareUsage> ParseShareUsage(std::string_view output, const std::string& source) {
  if (const std::size_t bad = FindNonText(output); bad != std::string_view::npos) {
    const int line =
        1 + static_cast<int>(std::count(output.begin(), output.begin() + static_cast<std::ptrdiff_t>(bad), '\n'));
    return Status::InvalidInput(source, line, NonTextMessage(output, bad));
  }
  std::map<std::pair<std::string, std::string>, std::string> users;  // (user, project) -> values and stamp
  std::map<std::string, std::string> projects;                       // project -> values
  std::map<std::string, Time> project_stamps;                        // project -> latest stamp of its users
  Time latest = 0;
  bool default_node = false;
  int line_no = 0;
  for (std::string_view rest = output; !rest.empty();) {
    const std::size_t end = rest.find('\n');
    const std::string_view line = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    ++line_no;
    if (Trim(line).empty()) continue;
    auto row = ParseRow(line, source, line_no);
    if (!row.ok()) return row.status();
    const Row& r = row.value();
    if (LastComponent(r.node) == "default") default_node = true;
    if (!r.user.empty()) {
      users.emplace(std::pair(std::string(r.user), std::string(r.project)),
                    Values(r) + " at=" + std::to_string(r.usage_time));
      latest = std::max(latest, r.usage_time);
      if (!r.project.empty())
        project_stamps[std::string(r.project)] = std::max(project_stamps[std::string(r.project)], r.usage_time);
    } else if (!r.project.empty() && LastComponent(r.node) == r.project) {
      projects.emplace(std::string(r.project), Values(r));
    }
  }
  ShareUsage out;
  for (const auto& [key, values] : users) {
    out.records +=
        "usage user " + key.first + " " + values + (key.second.empty() ? "" : " project=" + key.second) + "\n";
  }
  for (const auto& [project, values] : projects) {
    auto stamp = project_stamps.find(project);
    const Time at = stamp != project_stamps.end() ? stamp->second : latest;
    out.records += "usage project " + project + " " + values + (at > 0 ? " at=" + std::to_string(at) : "") + "\n";
  }
  if (default_node) {
    out.notes.push_back(
        "the share tree has a 'default' node: sge_share_mon prints no usage for the users it stands "
        "for, so they are read without past usage");
  }
  return out;
}

std::string ShareMonitorPath() {
  if (const char* path = std::getenv("PATH")) {
    for (std::string_view dirs = path; !dirs.empty();) {
      const std::size_t colon = dirs.find(':');
      const std::string dir(dirs.substr(0, colon));
      dirs = colon == std::string_view::npos ? std::string_view() : dirs.substr(colon + 1);
      if (!dir.empty() && Executable(dir + "/sge_share_mon")) return dir + "/sge_share_mon";
    }
  }
  std::vector<std::string> candidates;
  if (const char* root = std::getenv("SGE_ROOT"); root != nullptr && *root != '\0') {
    std::error_code ec;
    for (const auto& arch : std::filesystem::directory_iterator(std::string(root) + "/utilbin", ec)) {
      candidates.push_back(arch.path().string() + "/sge_share_mon");
    }
    std::sort(candidates.begin(), candidates.end());
  }
  candidates.push_back("/usr/lib/gridengine/sge_share_mon");
  for (const std::string& c : candidates) {
    if (Executable(c)) return c;
  }
  return "";
}

}  // namespace schedk::io
