#include "tools/serve.hpp"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <string_view>

#include "io/session/session.hpp"
#include "tools/allocator.hpp"

namespace schedk::tools {
namespace {

// Whether more input can be read without waiting.
bool InputWaiting() {
  pollfd p{STDIN_FILENO, POLLIN, 0};
  return ::poll(&p, 1, 0) > 0;
}

}  // namespace

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
  bool out_ok = true;
  auto out = [&](std::string_view text) {
    out_ok = out_ok && std::fwrite(text.data(), 1, text.size(), stdout) == text.size();
    return out_ok;
  };
  auto log_line = [&](std::string_view text) {
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
  std::fflush(stdout);
  if (log != nullptr) std::fclose(log);
  return 0;
}

}  // namespace schedk::tools
