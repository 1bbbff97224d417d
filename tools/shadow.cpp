#include "tools/shadow.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>

#include "io/ge_import/ge_import.hpp"
#include "io/ge_import/snapshot_diff.hpp"
#include "tools/report.hpp"
#include "tools/shared_options.hpp"
#include "tools/write_file.hpp"

extern char** environ;

namespace schedk::tools {
namespace {

// A `schedk serve` child, spoken to as a master does: one request, then its
// replies up to the terminal line.
class ServeChild {
 public:
  bool Start() {
    int in[2], out[2];
    if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0) return false;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in[0], 0);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    char self[] = "/proc/self/exe", verb[] = "serve";
    char* argv[] = {self, verb, nullptr};
    const bool spawned = posix_spawn(&pid_, self, &actions, nullptr, argv, environ) == 0;
    posix_spawn_file_actions_destroy(&actions);
    ::close(in[0]);
    ::close(out[1]);
    to_ = ::fdopen(in[1], "w");
    from_ = ::fdopen(out[0], "r");
    return spawned && to_ != nullptr && from_ != nullptr && Ask("hello proto=1 client=schedk-shadow").ok;
  }
  ~ServeChild() {
    if (to_ != nullptr) std::fclose(to_);
    if (from_ != nullptr) std::fclose(from_);
    if (pid_ > 0) ::waitpid(pid_, nullptr, 0);
  }

  struct Answer {
    bool ok = false;                  // the terminal line is not an `err`
    std::vector<std::string> lines;   // every reply line, the terminal one last
  };
  // Sends `request` (its first line gets the id; a block's lines follow).
  Answer Ask(const std::string& request) {
    const std::string id = "s" + std::to_string(++next_id_);
    Answer answer;
    if (std::fprintf(to_, "%s %s\n", id.c_str(), request.c_str()) < 0 || std::fflush(to_) != 0) return answer;
    char* line = nullptr;
    std::size_t capacity = 0;
    while (::getline(&line, &capacity, from_) > 0) {
      std::string text(line);
      if (!text.empty() && text.back() == '\n') text.pop_back();
      answer.lines.push_back(text);
      const std::size_t blank = text.find(' ');
      if (blank == std::string::npos) continue;  // every reply line is `<type> <id> ...`
      const std::string type = text.substr(0, blank);
      const std::string rest = text.substr(blank + 1);
      if (rest.rfind(id + " ", 0) != 0 && rest != id) continue;
      if (type == "hello" || type == "ok" || type == "done" || type == "err" || type == "bye") {
        answer.ok = type != "err";
        break;
      }
    }
    std::free(line);
    return answer;
  }

 private:
  pid_t pid_ = 0;
  std::FILE* to_ = nullptr;
  std::FILE* from_ = nullptr;
  int next_id_ = 0;
};

// One decision: a start or a reservation at a time in queue instances, in order.
struct Decision {
  std::string kind;  // start, reserve
  std::string at;
  std::vector<std::string> queues;
  bool operator==(const Decision&) const = default;
};
using Decisions = std::map<std::string, Decision>;  // "job.task" -> decision

// The cell's: STARTING and RESERVING lines of one MONITOR section.
Decisions FromMonitor(const std::string& section) {
  Decisions out;
  std::istringstream lines(section);
  for (std::string line; std::getline(lines, line);) {
    std::vector<std::string> f;
    std::istringstream fields(line);
    for (std::string field; std::getline(fields, field, ':');) f.push_back(field);
    if (f.size() < 9 || (f[2] != "STARTING" && f[2] != "RESERVING")) continue;
    Decision& d = out[f[0] + "." + f[1]];
    d.kind = f[2] == "STARTING" ? "start" : "reserve";
    d.at = f[3];
    if (f[5] == "Q" && (d.queues.empty() || d.queues.back() != f[6])) d.queues.push_back(f[6]);
  }
  return out;
}

// schedk's: `start` and `reserve` records of a schedule reply.
Decisions FromSchedule(const std::vector<std::string>& replies) {
  Decisions out;
  for (const std::string& line : replies) {
    std::istringstream words(line);
    std::string kind, id, task;
    words >> kind >> id >> task;
    if (kind != "start" && kind != "reserve") continue;
    Decision& d = out[task];
    d.kind = kind;
    for (std::string word; words >> word;) {
      if (word.rfind("at=", 0) == 0) d.at = word.substr(3);
      if (word.rfind("granted=", 0) != 0) continue;
      std::istringstream grants(word.substr(8));
      for (std::string g; std::getline(grants, g, ',');) d.queues.push_back(g.substr(0, g.rfind(':')));
    }
  }
  return out;
}

// The clock of a run's dispatch: its STARTING lines' time (dispatch_jobs reads
// the clock once, after weighing the jobs), else when it weighed urgency.
Time DispatchTime(const std::string& section, const io::SchedulerRun& run) {
  for (const auto& [task, d] : FromMonitor(section)) {
    Time at = 0;
    const auto [end, ec] = std::from_chars(d.at.data(), d.at.data() + d.at.size(), at);
    if (d.kind == "start" && ec == std::errc() && end == d.at.data() + d.at.size()) return at;
  }
  return run.urgency;
}

std::string Text(const Decision& d) {
  std::string text = d.kind + " at " + d.at + " in";
  for (const std::string& q : d.queues) text += " " + q;
  return text;
}

std::string DigestHash(const ServeChild::Answer& answer) {
  const std::string& line = answer.lines.empty() ? std::string() : answer.lines.back();
  const std::size_t at = line.find(" hash=");
  return at == std::string::npos ? "" : line.substr(at + 6);
}

// The last 8 MiB of the schedule file (Grid Engine appends to it for ever).
std::string ReadTail(const std::string& path) {
  constexpr std::streamoff kTail = 8 << 20;
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  const std::streamoff size = in.tellg();
  in.seekg(size > kTail ? size - kTail : 0);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The section `k` from the end (1: the last) of MONITOR text whose sections
// each start with a `::::::::` line; nullopt when there are fewer.
std::optional<std::string> SectionFromEnd(const std::string& text, std::size_t k) {
  std::vector<std::size_t> starts;
  for (std::size_t at = text.find("::::::::\n"); at != std::string::npos; at = text.find("::::::::\n", at + 9)) {
    if (at == 0 || text[at - 1] == '\n') starts.push_back(at);
  }
  if (k == 0 || k > starts.size()) return std::nullopt;
  const std::size_t begin = starts[starts.size() - k] + 9;
  const std::size_t end = k == 1 ? text.size() : starts[starts.size() - k + 1];
  return text.substr(begin, end - begin);
}

}  // namespace

void SetupShadow(CLI::App& command, ShadowOptions& options) {
  command.add_option("--rounds", options.rounds, "Scheduler runs to compare")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  command.add_option("--digest-every", options.digest_every,
                     "Rounds between digest checks of the fed session (0: never)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  AddTimeout(command, options.timeout, "Seconds a cell command, or the wait for a run, may take");
  command.add_option("--keep", options.log, "Keep each round's imported snapshot in this directory");
}

int Shadow(const ShadowOptions& options) {
  const char* root = std::getenv("SGE_ROOT");
  const char* cell_name = std::getenv("SGE_CELL");
  if (root == nullptr) {
    std::fprintf(stderr, "schedk: shadow: SGE_ROOT is not set: it runs beside a live cell\n");
    return kExitFailure;
  }
  const std::string schedule_file =
      std::string(root) + "/" + (cell_name != nullptr ? cell_name : "default") + "/common/schedule";
  io::GeImportOptions import_options = io::LiveCellOptions();
  const io::CellCommands cell = io::LiveCell(options.timeout);
  const std::string work = options.log.empty() ? "/tmp/schedk-shadow-" + std::to_string(::getpid()) : options.log;
  ::mkdir(work.c_str(), 0777);

  ServeChild session;
  if (!session.Start()) {
    std::fprintf(stderr, "schedk: shadow: cannot start schedk serve\n");
    return kExitFailure;
  }
  std::string previous;
  int agreed = 0, decided = 0, failures = 0;
  for (int round = 1; round <= options.rounds; ++round) {
    // 1. The cell as of its last run (`now`), fed to the session.
    auto imported = io::ImportGeCell(cell, import_options);
    if (!imported.ok()) return Fail(imported.status());
    const std::string& text = imported->snapshot;
    const Time now = std::stoll(text.substr(text.find("\nnow ") + 5));
    const std::string snapshot_path = work + "/round-" + std::to_string(round) + ".snap";
    if (!WriteWhole(snapshot_path, text)) {
      std::fprintf(stderr, "schedk: shadow: cannot write %s\n", snapshot_path.c_str());
      return kExitFailure;
    }
    const std::vector<std::string> requests =
        previous.empty() ? std::vector<std::string>{"load " + snapshot_path} : io::SessionUpdates(previous, text);
    for (const std::string& request : requests) {
      const ServeChild::Answer answer = session.Ask(request);
      if (answer.ok) continue;
      ++failures;
      std::printf("round %d: the session refused '%s': %s\n", round, request.substr(0, request.find('\n')).c_str(),
                  answer.lines.empty() ? "no reply" : answer.lines.back().c_str());
    }
    previous = text;
    if (options.digest_every > 0 && round % options.digest_every == 0) {
      ServeChild fresh;
      const std::string ours = DigestHash(session.Ask("digest"));
      const std::string theirs =
          fresh.Start() && fresh.Ask("load " + snapshot_path).ok ? DigestHash(fresh.Ask("digest")) : "";
      if (ours != theirs || ours.empty()) {
        ++failures;
        std::printf("round %d: drift: the fed session's digest %s, a fresh import's %s\n", round, ours.c_str(),
                    theirs.c_str());
      }
    }
    // 2. The cell's first run after the imported one: each run writes one
    //    MONITOR section, so it is the section as many from the end as runs
    //    ended since.
    std::optional<std::string> section;
    Time run = 0;
    for (int wait = 0; wait < 10 * options.timeout && !section; ++wait) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      const std::vector<io::SchedulerRun> runs = io::SchedulerRuns(cell, import_options.messages_file);
      const Time last_end = imported->run ? imported->run->end : now;
      const auto first_after =
          std::find_if(runs.begin(), runs.end(), [&](const io::SchedulerRun& r) { return r.end > last_end; });
      if (first_after == runs.end()) continue;
      const std::string tail = ReadTail(schedule_file);
      if (io::SchedulerRuns(cell, import_options.messages_file) != runs) continue;  // a run ended meanwhile
      section = SectionFromEnd(tail, static_cast<std::size_t>(runs.end() - first_after));
      run = DispatchTime(*section, *first_after);
    }
    if (!section) {
      std::fprintf(stderr,
                   "schedk: shadow: no scheduler run of the cell within %d s (it needs params MONITOR=1,PROFILE=1)\n",
                   options.timeout);
      return kExitFailure;
    }
    // 3. schedk's decisions at that run's time, against the cell's.
    session.Ask("clock " + std::to_string(run));
    const Decisions theirs = FromMonitor(*section), ours = FromSchedule(session.Ask("schedule").lines);
    std::map<std::string, std::pair<std::string, std::string>> differ;
    std::size_t total = theirs.size();
    for (const auto& [task, d] : theirs) {
      auto it = ours.find(task);
      if (it == ours.end() || !(it->second == d)) differ[task] = {Text(d), it == ours.end() ? "nothing" : Text(it->second)};
    }
    for (const auto& [task, d] : ours) {
      if (theirs.count(task)) continue;
      differ[task] = {"nothing", Text(d)};
      ++total;
    }
    decided += static_cast<int>(total);
    agreed += static_cast<int>(total - differ.size());
    std::printf("round %d, run at %lld: cell %zu decisions, schedk %zu, %zu of %zu agree; so far %.1f%% (%d of %d)\n",
                round, static_cast<long long>(run), theirs.size(), ours.size(), total - differ.size(), total,
                decided ? 100.0 * agreed / decided : 100.0, agreed, decided);
    for (const auto& [task, pair] : differ) {
      std::printf("  %s: cell %s | schedk %s\n", task.c_str(), pair.first.c_str(), pair.second.c_str());
    }
    std::fflush(stdout);
  }
  session.Ask("quit");
  return failures == 0 ? kExitOk : kExitFailure;
}

}  // namespace schedk::tools
