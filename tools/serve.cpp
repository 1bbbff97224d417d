#include "tools/serve.hpp"

#include <poll.h>
#include <pthread.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

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

// Batches of input lines on their way from the reader thread, at most
// kMaxBatches of them.
class BatchQueue {
 public:
  // False once closed: the session has ended and reads nothing more.
  bool Push(io::InputBatch batch) {
    std::unique_lock<std::mutex> lock(mutex_);
    room_.wait(lock, [&] { return closed_ || batches_.size() < kMaxBatches; });
    if (closed_) return false;
    batches_.push_back(std::move(batch));
    ready_.notify_one();
    return true;
  }
  bool Empty() {
    const std::lock_guard<std::mutex> lock(mutex_);
    return batches_.empty();
  }
  // The next batch, once there is one.
  io::InputBatch Pop() {
    std::unique_lock<std::mutex> lock(mutex_);
    ready_.wait(lock, [&] { return !batches_.empty(); });
    io::InputBatch batch = std::move(batches_.front());
    batches_.pop_front();
    room_.notify_one();
    return batch;
  }
  void Close() {
    const std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
    room_.notify_all();
  }

 private:
  static constexpr std::size_t kMaxBatches = 4;
  std::mutex mutex_;
  std::condition_variable ready_, room_;
  std::deque<io::InputBatch> batches_;
  bool closed_ = false;
};

// The reader thread: reads standard input and hands over its whole lines, in
// batches that end where no more input is waiting (so a request that arrives
// alone is answered at once) or at a batch's size; the last batch says the
// input ended.
void ReadBatches(std::shared_ptr<BatchQueue> batches, std::size_t max_line_bytes) {
  constexpr std::size_t kBatchLines = 65536, kBatchBytes = std::size_t{4} << 20;
  io::LineCutter cutter(max_line_bytes);
  std::vector<char> buffer(std::size_t{1} << 20);
  for (;;) {
    const ssize_t n = ::read(STDIN_FILENO, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      cutter.Finish();
      batches->Push(cutter.Take());
      return;
    }
    cutter.Append({buffer.data(), static_cast<std::size_t>(n)});
    const bool full = cutter.line_count() >= kBatchLines || cutter.byte_count() >= kBatchBytes;
    if (cutter.line_count() > 0 && (full || !InputWaiting()) && !batches->Push(cutter.Take())) return;
  }
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

  // A reader thread cuts standard input into batches of lines; this thread
  // handles them in order. A few batches at most wait between the two.
  auto batches = std::make_shared<BatchQueue>();
  std::thread(ReadBatches, batches, options.max_line_bytes).detach();
  while (!session.ended()) {
    if (batches->Empty()) {  // about to wait: the master must see every reply so far
      const std::lock_guard<std::timed_mutex> lock(out_mutex);
      if (std::fflush(stdout) != 0) break;
      if (log != nullptr) std::fflush(log);
    }
    const io::InputBatch batch = batches->Pop();
    session.HandleLines(batch.lines);
    if (batch.end) break;
  }
  batches->Close();  // a reader still waiting to hand a batch over stops
  if (!session.ended()) session.EndOfInput();
  const std::lock_guard<std::timed_mutex> lock(out_mutex);  // the watcher must not write to a closed log
  std::fflush(stdout);
  if (log != nullptr) std::fclose(log);
  output.log = nullptr;
  return 0;
}

}  // namespace schedk::tools
