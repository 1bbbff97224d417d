// session_support.hpp
// Helpers for tests that drive a Session (io/session) in process: feeding a
// whole input line by line as `schedk serve` does (cutting lines at the
// limit), building request lists, a small two-host cluster, and reading reply
// fields.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "io/session/session.hpp"

namespace schedk::io {

inline constexpr std::size_t kGoldenLineLimit = 256;

// Feeds `input` line by line, cutting lines as the serve command does.
inline void Feed(Session& session, std::string_view input, std::size_t limit) {
  std::size_t start = 0;
  while (start < input.size() && !session.ended()) {
    std::size_t end = input.find('\n', start);
    if (end == std::string_view::npos) end = input.size();
    const std::string_view line = input.substr(start, end - start);
    session.HandleLine(line.substr(0, limit), line.size() > limit);
    start = end + 1;
  }
  if (!session.ended()) session.EndOfInput();
}

struct Transcript {
  std::string out;
  std::unique_ptr<Session> session;
};

inline Transcript Converse(std::string_view input, std::size_t limit = kGoldenLineLimit) {
  Transcript t;
  SessionOptions options;
  options.version = "test";
  options.max_line_bytes = limit;
  t.session = std::make_unique<Session>(options, [&t](std::string_view s) {
    t.out.append(s);
    return true;
  }, Session::Sink());
  Feed(*t.session, input, limit);
  return t;
}

inline const char* const kSmallCluster = R"(schedk-snapshot 1
now 1000
begin sconf
max_reservation 10
weight_tickets_functional 10000
end sconf
begin exechost n1
complex_values slots=4
end exechost
begin exechost n2
complex_values slots=4
end exechost
begin pe mpi
slots 8
allocation_rule $fill_up
end pe
begin queue all.q
hostlist n1 n2
slots 4
pe_list mpi
end queue
)";

inline std::string Requests(const std::vector<std::string>& lines) {
  std::string s;
  for (const std::string& l : lines) s += l + "\n";
  return s;
}

// The value of `key=` in a reply line.
inline std::string Field(const std::string& text, const std::string& key) {
  const std::size_t at = text.find(" " + key + "=");
  if (at == std::string::npos) return {};
  const std::size_t start = at + key.size() + 2;
  return text.substr(start, text.find_first_of(" \n", start) - start);
}

// `text` without the numbers after " ms=": a pass's wall time, the one part
// of the replies that differs from run to run.
inline std::string WithoutPassTimes(std::string_view text) {
  std::string kept;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t ms = text.find(" ms=", at);
    if (ms == std::string_view::npos) {
      kept.append(text.substr(at));
      break;
    }
    kept.append(text.substr(at, ms + 4 - at));
    at = ms + 4;
    while (at < text.size() && text[at] >= '0' && text[at] <= '9') ++at;
  }
  return kept;
}

inline std::string LastLine(const std::string& text) {
  const std::size_t end = text.size() - 1;
  return text.substr(text.rfind('\n', end - 1) + 1);
}

}  // namespace schedk::io
