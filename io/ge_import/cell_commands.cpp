#include "io/ge_import/cell_commands.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "io/tuning.hpp"
#include "io/untrusted_text.hpp"

extern char** environ;

namespace schedk::io {
namespace {

bool PlainByte(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
         (c != '\0' && std::strchr(".@+=,-", c) != nullptr);  // strchr finds the terminator too
}

// qconf answers a listing of nothing with "no ... defined" (or "no sharetree
// element") on stderr and exit status 1.
bool EmptyListing(const std::string& out, const std::string& err) {
  if (out.find_first_not_of(" \t\r\n") != std::string::npos) return false;
  return err.rfind("no ", 0) == 0 &&
         (err.find(" defined") != std::string::npos || err.find("no sharetree element") != std::string::npos);
}

std::string FirstLine(const std::string& text) {
  const std::string line = text.substr(0, text.find('\n'));
  return Quote(line);
}

class Pipe {
 public:
  Pipe() {
    if (::pipe2(fd_, O_CLOEXEC) != 0) fd_[0] = fd_[1] = -1;
  }
  ~Pipe() {
    CloseRead();
    CloseWrite();
  }
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;
  bool ok() const { return fd_[0] >= 0; }
  int read_end() const { return fd_[0]; }
  int write_end() const { return fd_[1]; }
  void CloseRead() { Close(fd_[0]); }
  void CloseWrite() { Close(fd_[1]); }

 private:
  static void Close(int& fd) {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
  int fd_[2];
};

Result<std::string> Run(const CommandLine& argv, int timeout_seconds) {
  const std::string name = CommandText(argv);
  Pipe out, err;
  if (!out.ok() || !err.ok()) return Status::IoError(name, std::string("cannot create a pipe: ") + std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out.write_end(), 1);
  posix_spawn_file_actions_adddup2(&actions, err.write_end(), 2);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  out.CloseWrite();
  err.CloseWrite();
  if (spawned != 0) {
    return Status::IoError(name, std::string("cannot run it: ") + std::strerror(spawned) +
                                     " (is the Grid Engine client installed and on PATH?)");
  }
  std::string text[2];
  pollfd fds[2] = {{out.read_end(), POLLIN, 0}, {err.read_end(), POLLIN, 0}};
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds);
  bool timed_out = false, too_long = false;
  char buffer[65536];
  while (fds[0].fd >= 0 || fds[1].fd >= 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    if (::poll(fds, 2, static_cast<int>(left.count())) < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      const ssize_t n = ::read(fds[i].fd, buffer, sizeof buffer);
      if (n > 0) {
        text[i].append(buffer, static_cast<std::size_t>(n));
        if (text[i].size() > tuning::kMaxCommandOutputBytes) too_long = true;
      } else if (n == 0 || errno != EINTR) {
        fds[i].fd = -1;
      }
    }
    if (too_long) break;
  }
  if (timed_out || too_long) ::kill(pid, SIGKILL);
  int wstatus = 0;
  while (::waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) {
    return Status::IoError(name, "the cell did not answer within " + std::to_string(timeout_seconds) + " s");
  }
  if (too_long) return Status::IoError(name, "its output exceeds 1 GiB");
  if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0) return std::move(text[0]);
  if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 1 && EmptyListing(text[0], text[1])) return std::string();
  const std::string how = WIFEXITED(wstatus) ? "exit status " + std::to_string(WEXITSTATUS(wstatus))
                                             : "signal " + std::to_string(WTERMSIG(wstatus));
  const std::string& said = text[1].empty() ? text[0] : text[1];
  return Status::IoError(name, "failed (" + how + ")" + (said.empty() ? "" : ": " + FirstLine(said)));
}

}  // namespace

std::string CaptureFileName(const CommandLine& argv) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string name;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    if (i > 0) name += '_';
    for (char c : argv[i]) {
      if (PlainByte(c)) {
        name += c;
      } else {
        const auto byte = static_cast<unsigned char>(c);
        name += '%';
        name += kHex[byte >> 4];
        name += kHex[byte & 15];
      }
    }
  }
  return name;
}

bool IsObjectName(std::string_view name) {
  return !name.empty() && name.size() <= kMaxObjectNameBytes && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::string_view("._@+-").find(c) != std::string_view::npos;
  });
}

std::string CommandText(const CommandLine& argv) {
  std::string text;
  for (const std::string& a : argv) {
    if (!text.empty()) text += ' ';
    text += a.find_first_of(" *'\"") == std::string::npos ? a : "'" + a + "'";
  }
  return text;
}

CellCommand Command(CommandLine argv) {
  std::string capture = CaptureFileName(argv);
  return {std::move(argv), std::move(capture)};
}

CellCommands LiveCell(int timeout_seconds) {
  return [timeout_seconds](const CellCommand& c) { return Run(c.argv, timeout_seconds); };
}

CellCommands CaptureDirectory(std::string dir) {
  return [dir = std::move(dir)](const CellCommand& c) -> Result<std::string> {
    const std::string path = dir + "/" + c.capture;
    struct stat info {};
    std::ifstream in(path, std::ios::binary);
    if (::stat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode) || !in) {
      return Status::IoError(CommandText(c.argv), "the capture " + dir + " holds no output of it (file " + c.capture + ")");
    }
    if (static_cast<std::size_t>(info.st_size) > tuning::kMaxCommandOutputBytes) {
      return Status::IoError(path, "its output exceeds 1 GiB");
    }
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) return Status::IoError(path, "cannot be read");
    return text.str();
  };
}

CellCommands SavingTo(CellCommands inner, std::string dir) {
  return [inner = std::move(inner), dir = std::move(dir)](const CellCommand& c) -> Result<std::string> {
    Result<std::string> answer = inner(c);
    if (!answer.ok()) return answer;
    const std::string path = dir + "/" + c.capture;
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << answer.value();
    out.close();
    if (!out) return Status::IoError(path, "cannot be written");
    return answer;
  };
}

}  // namespace schedk::io
