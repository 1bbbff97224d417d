// session.hpp
// The line protocol of `schedk serve` (docs/protocol.md §3): requests
// `<id> <verb> [args]` one per line (with the bodies of `snapshot` and
// `begin` requests on the lines that follow), replies `<type> <id> ...` with
// exactly one terminal line (`hello`, `ok`, `done`, `err` or `bye`) per
// request, strictly in order. The state lives in a SessionState; passes build
// their snapshot from it and call the same kernel and writers as the batch
// commands, so a session's decisions are those of `schedk schedule` on the
// equivalent snapshot. The running tasks' bookings in the utilisation
// diagrams are kept from one pass to the next (kernel/dispatch/running_book.hpp):
// a pass books only what started, ended or changed since the last one, and a
// `schedule` reply's records go out while its interval runs. The verbs are
// one table (session_verbs.cpp) of {verb, capabilities, arguments, keys,
// handler}; the `hello` reply's caps= is derived from it. Nothing here
// touches a file descriptor: lines come in
// through HandleLine and replies go out through the sink, so tests and
// benchmarks drive it exactly as the serve command does.
// Invariants: an error never ends the session and never leaves a request
// half-applied; only `quit` or the end of input end it.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "io/session/input_lines.hpp"
#include "io/session/ingest_stage.hpp"
#include "io/session/session_state.hpp"
#include "kernel/dispatch/running_book.hpp"
#include "kernel/stage_profile.hpp"

namespace schedk::io {

// A request id: letters, digits, '_', '.' and '-'; a line with any other
// first word is refused with the id "-".
bool IsRequestId(std::string_view id);

// The first word of a reply line. Terminal replies end a request; records
// come before them. docs/protocol.md §3 lists both kinds; this is their table.
enum class ReplyKind { kUnknown, kRecord, kTerminal };
ReplyKind KindOfReply(std::string_view type);

struct SessionOptions {
  std::string version = "0";          // kernel=schedk/<version> in the hello reply
  std::size_t max_line_bytes = 1 << 20;  // longer lines get 413
  std::size_t min_add_run = 64;          // HandleLines: fewer `add job` lines in a row go one by one
  const StageListener* stages = nullptr;  // hears where each pass's kernel stages begin (serve_stress's profile)
  const IngestListener* ingest_stages = nullptr;  // hears where each ingest stage begins (serve_stress's profile)
};

class Session {
 public:
  // `out` receives the replies in whole lines (one or many at a time, each with
  // its newline) and returns false when the reader is gone; `log` (may be
  // empty) receives one line per request.
  using Sink = std::function<bool(std::string_view)>;
  Session(SessionOptions options, Sink out, Sink log);

  // One input line without its newline. `too_long`: the reader cut it at
  // max_line_bytes and dropped the rest. Returns false once the session has
  // ended (quit, or the reply sink failed).
  bool HandleLine(std::string_view line, bool too_long = false);
  // Lines in order, handled exactly as HandleLine one after the other would
  // handle them, except that runs of `add job` requests are parsed and
  // applied on every core (SessionState::AddJobs), their replies in order.
  // Should the reply sink fail inside such a run, the session ends with the
  // whole run applied.
  bool HandleLines(std::span<const InputLine> lines);
  // The end of input: a request still collecting its body is refused.
  void EndOfInput();

  bool ended() const { return ended_; }
  SessionState& state() { return state_; }

 private:
  struct Body {  // a snapshot or begin request collecting its lines
    std::string id;
    bool snapshot = false;
    std::string kind, name;
    std::string text;
    bool too_long = false;
    std::optional<SessionError> refusal;  // a malformed request line, reported at the end
  };

  struct Request;  // one request as its verb's handler sees it (session_verbs.cpp)
  struct LineKind;  // what a line is before the session's state is considered (session.cpp)
  static LineKind KindOf(const InputLine& line);  // as HandleLine reads it
  struct Verb;     // a row of the verb table (session_verbs.cpp)

  // Finds the request's verb in the table, checks its arguments against the
  // row, and calls the row's handler (session_verbs.cpp).
  void Handle(const std::string& id, std::string_view verb, std::string_view args);
  static bool TakesBody(std::string_view verb);  // its lines follow the request line
  void FinishBody();
  void Reply(std::string_view line);
  void Ok(const std::string& id, const std::string& extra = {});
  void Error(const std::string& id, const SessionError& error);
  void Log(std::string_view id, std::string_view verb, std::string_view outcome);
  // A run of `add job` lines (`adds` of them) and lines that say nothing,
  // added by SessionState::AddJobs.
  void AddJobRun(std::span<const LineKind> kinds, std::size_t adds);

  // The verbs' handlers, one per row of the table in session_verbs.cpp. Each
  // returns its refusal, or nullopt; then the session replies `ok` unless the
  // handler has answered the request itself.
  SessionStatus Hello(Request& request);
  SessionStatus Ping(Request& request);
  SessionStatus Quit(Request& request);
  SessionStatus LoadFileOrHost(Request& request);
  SessionStatus BeginSnapshot(Request& request);
  SessionStatus BeginObject(Request& request);
  SessionStatus Delete(Request& request);
  SessionStatus AddJob(Request& request);
  SessionStatus ModJob(Request& request);
  // hold, release, suspend, resume: one task selector and the state's change.
  template <SessionStatus (SessionState::*change)(const TaskSelector&)>
  SessionStatus ChangeJob(Request& request);
  SessionStatus RunJob(Request& request);
  SessionStatus FailJob(Request& request);
  SessionStatus FinishJob(Request& request);
  SessionStatus HostState(Request& request);
  SessionStatus Clock(Request& request);
  SessionStatus Advance(Request& request);
  SessionStatus Schedule(Request& request);
  SessionStatus Priorities(Request& request);
  SessionStatus Quota(Request& request);  // the quota table (quota_writer.hpp) as `data` lines
  // Answers `request` with `data <id> <line>` per line, then `done <id> lines=<n>`.
  void ReplyData(Request& request, const char* verb, const std::vector<std::string>& lines);
  SessionStatus Explain(Request& request);
  SessionStatus Dump(Request& request);
  SessionStatus Digest(Request& request);

  SessionOptions options_;
  Sink out_, log_;
  SessionState state_;
  RunningBook running_book_;  // used by one pass at a time: passes run in request order
  bool greeted_ = false;
  bool ended_ = false;
  std::optional<Body> body_;
  std::string reply_;  // scratch
  std::string verb_;   // of the request being answered, for the log
};

}  // namespace schedk::io
