#include "tools/serve.hpp"

#include <poll.h>
#include <pthread.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string_view>
#include <thread>

#include <CLI/CLI.hpp>

#include "io/session/session.hpp"
#include "tools/allocator.hpp"

namespace schedk::tools {
namespace {

// Whether more input can be read without waiting.
bool InputWaiting() {
  pollfd p{STDIN_FILENO, POLLIN, 0};
  return ::poll(&p, 1, 0) > 0;
}

// What reply writers and the signal watcher share. It has static storage: the
// watcher thread is detached and may wake while Serve returns.
struct Output {
  std::timed_mutex mutex;     // held while whole lines go to stdout or the log
  std::FILE* log = nullptr;   // under mutex; null once closed
};
Output output;

// SIGTERM, SIGINT and SIGHUP end the session between two reply writes, never
// inside one: the signals are blocked in every thread (those started later
// inherit the mask) and a watcher thread takes them with sigwait. It waits for
// the write in progress, flushes the whole lines written so far, logs the
// signal and exits with 128 + its number. A writer blocked on a full pipe
// would hold the lock for ever: after 5 s it exits without flushing instead.
void WatchSignals() {
  sigset_t signals;
  sigemptyset(&signals);
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) sigaddset(&signals, sig);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  std::thread([signals] {
    int sig = 0;
    while (sigwait(&signals, &sig) != 0) {
    }
    const bool idle = output.mutex.try_lock_for(std::chrono::seconds(5));
    if (idle) std::fflush(stdout);
    const char* name = sig == SIGTERM ? "SIGTERM" : sig == SIGINT ? "SIGINT" : "SIGHUP";
    std::fprintf(stderr, "schedk: serve: ended by %s\n", name);
    if (idle && output.log != nullptr) {
      std::fprintf(output.log, "- signal %s exit=%d\n", name, 128 + sig);
      std::fflush(output.log);
    }
    std::_Exit(128 + sig);
  }).detach();
}

}  // namespace

void SetupServe(CLI::App& command, ServeOptions& options) {
  command.add_option("--log-file", options.log_file, "Append one line per request to this file");
  command.add_option("--max-line-bytes", options.max_line_bytes, "Longer request lines get 413 line-too-long")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
}

int Serve(const ServeOptions& options) {
  RetainFreedPages();  // passes repeat: keep their pages between them
  std::signal(SIGPIPE, SIG_IGN);  // a closed stdout is an error from write, not a signal
  std::FILE* log = nullptr;
  if (!options.log_file.empty()) {
    log = std::fopen(options.log_file.c_str(), "a");
    if (log == nullptr) {
      std::fprintf(stderr, "schedk: cannot open log file %s: %s\n", options.log_file.c_str(), std::strerror(errno));
      return 1;
    }
  }
  output.log = log;
  WatchSignals();
  std::timed_mutex& out_mutex = output.mutex;
  bool out_ok = true;
  auto out = [&](std::string_view text) {
    const std::lock_guard<std::timed_mutex> lock(out_mutex);
    out_ok = out_ok && std::fwrite(text.data(), 1, text.size(), stdout) == text.size();
    return out_ok;
  };
  auto log_line = [&](std::string_view text) {
    const std::lock_guard<std::timed_mutex> lock(out_mutex);
    if (log != nullptr) std::fwrite(text.data(), 1, text.size(), log);
    return true;
  };
  io::SessionOptions session_options;
  session_options.version = SCHEDK_VERSION;
  session_options.max_line_bytes = options.max_line_bytes;
  io::Session session(session_options, out, log == nullptr ? io::Session::Sink() : io::Session::Sink(log_line));

  std::string line;       // the line being assembled
  bool too_long = false;  // its bytes beyond the limit were dropped
  char buffer[1 << 16];
  bool open = true;
  while (open && !session.ended()) {
    if (!InputWaiting()) {  // about to wait: the master must see every reply so far
      const std::lock_guard<std::timed_mutex> lock(out_mutex);
      if (std::fflush(stdout) != 0) break;
      if (log != nullptr) std::fflush(log);
    }
    const ssize_t n = ::read(STDIN_FILENO, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    std::string_view chunk(buffer, static_cast<std::size_t>(n));
    while (!chunk.empty() && !session.ended()) {
      const std::size_t newline = chunk.find('\n');
      const std::string_view piece = chunk.substr(0, newline);
      const std::size_t room = options.max_line_bytes - std::min(options.max_line_bytes, line.size());
      if (piece.size() > room) too_long = true;
      line.append(piece.substr(0, std::min(room, piece.size())));
      if (newline == std::string_view::npos) break;
      chunk.remove_prefix(newline + 1);
      session.HandleLine(line, too_long);
      line.clear();
      too_long = false;
    }
  }
  if (!session.ended()) {
    if (!line.empty()) session.HandleLine(line, too_long);  // a last line without newline
    session.EndOfInput();
  }
  const std::lock_guard<std::timed_mutex> lock(out_mutex);  // the watcher must not write to a closed log
  std::fflush(stdout);
  if (log != nullptr) std::fclose(log);
  output.log = nullptr;
  return 0;
}

}  // namespace schedk::tools
