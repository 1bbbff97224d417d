#include "io/session/session.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "io/ge_value.hpp"
#include "io/priority_writer.hpp"
#include "io/schedule_writer.hpp"
#include "io/untrusted_text.hpp"
#include "kernel/dispatch/schedule.hpp"
#include "kernel/priority/priority.hpp"

namespace schedk::io {
namespace {

constexpr const char* kCaps = "load,snapshot,objects,jobs,hosts,clock,schedule,assume,priorities,explain,dump,digest";

// One argument of a request: a bare word (possibly "quoted") or key=value.
struct Arg {
  std::string key;    // empty for a bare word
  std::string value;  // the word, or the value
  bool bare = false;
};

// Splits request arguments; values and bare words may be double-quoted with
// \" and \\ escapes. Returns what is wrong.
std::optional<std::string> SplitArgs(std::string_view text, std::vector<Arg>& args) {
  args.clear();
  std::size_t i = 0;
  auto quoted = [&](std::string& out) -> bool {  // at the opening quote
    ++i;
    while (i < text.size()) {
      const char c = text[i++];
      if (c == '\\' && i < text.size()) {
        out.push_back(text[i++]);
      } else if (c == '"') {
        return i == text.size() || text[i] == ' ' || text[i] == '\t';
      } else {
        out.push_back(c);
      }
    }
    return false;
  };
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    if (i == text.size()) break;
    Arg arg;
    if (text[i] == '"') {
      arg.bare = true;
      if (!quoted(arg.value)) return std::string("unterminated or misplaced quote");
      args.push_back(std::move(arg));
      continue;
    }
    const std::size_t start = i;
    while (i < text.size() && text[i] != ' ' && text[i] != '\t' && text[i] != '=') ++i;
    if (i == text.size() || text[i] != '=') {
      arg.bare = true;
      arg.value = std::string(text.substr(start, i - start));
      args.push_back(std::move(arg));
      continue;
    }
    arg.key = std::string(text.substr(start, i - start));
    ++i;
    if (i < text.size() && text[i] == '"') {
      if (!quoted(arg.value)) return "unterminated or misplaced quote in " + Quote(arg.key);
    } else {
      const std::size_t vstart = i;
      while (i < text.size() && text[i] != ' ' && text[i] != '\t') ++i;
      arg.value = std::string(text.substr(vstart, i - vstart));
    }
    args.push_back(std::move(arg));
  }
  return std::nullopt;
}

std::pair<std::string_view, std::string_view> FirstWord(std::string_view text) {
  text = Trim(text);
  std::size_t i = 0;
  while (i < text.size() && text[i] != ' ' && text[i] != '\t') ++i;
  return {text.substr(0, i), Trim(text.substr(i))};
}

std::string Quoted(std::string_view message) {
  const std::string text = PrintableMessage(message);
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c == '\n' ? ' ' : c;
  }
  return out + "\"";
}

SessionError Syntax(std::string message) { return Refuse(ErrorCode::kBadSyntax, std::move(message)); }

bool IsRecordKind(std::string_view kind) {
  for (const char* k : {"job", "now", "load", "hoststate", "usage", "complex", "sconf", "conf", "global", "exechost",
                        "hostgroup", "queue", "pe", "sharetree", "user", "project", "department", "maui"}) {
    if (kind == k) return true;
  }
  return false;
}

// Calls f(line) for each line of `text`.
template <class F>
void ForEachLine(std::string_view text, F f) {
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    f(text.substr(0, end));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
}

struct Pass {
  Snapshot snapshot;
  PriorityResult priorities;
  QueueInstanceTable instances;
  ScheduleResult result;
  double ms = 0;
};

// Hears of a pass's interval records as they become final (ScheduleProgress),
// with the pass they belong to (its snapshot and instances are complete by then).
using PassProgress = std::function<void(const Pass& pass, const ScheduleResult& so_far)>;

// `book`: the running tasks' bookings of the session's previous pass. The pass
// lives on the heap, so that a listener may keep referring to it.
Result<std::unique_ptr<Pass>> RunPass(const SessionState& state, bool dispatch, RunningBook* book = nullptr,
                                      const PassProgress* listen = nullptr) {
  const auto started = std::chrono::steady_clock::now();
  auto view = state.View();
  if (!view.ok()) return view.status();
  auto pass = std::make_unique<Pass>();
  pass->snapshot = std::move(view.value());
  pass->priorities = ComputePriorities(pass->snapshot.cluster, pass->snapshot.jobs);
  if (dispatch) {
    pass->instances = QueueInstanceTable::Build(pass->snapshot.cluster);
    const ScheduleProgress progress = [&](const ScheduleResult& so_far) { (*listen)(*pass, so_far); };
    pass->result = ScheduleInterval(pass->snapshot.cluster, pass->snapshot.jobs, pass->priorities, pass->instances,
                                    ExecutionMode::kParallel, book, listen != nullptr ? &progress : nullptr);
  }
  pass->ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  return pass;
}

// A pass's records written while its interval goes on: each slice of final
// decisions is formatted and handed to the sink by a thread of its own, so
// that formatting and the pipe to the master overlap the dispatch loop. The
// bytes are those WriteScheduleRecords writes for the whole result.
class RecordStream {
 public:
  RecordStream(std::function<bool(std::string_view)> sink, std::string tag)
      : sink_(std::move(sink)), tag_(std::move(tag)) {}
  RecordStream(const RecordStream&) = delete;
  RecordStream& operator=(const RecordStream&) = delete;
  ~RecordStream() { Finish(); }

  // On the interval's thread: the decisions not taken yet, as a slice of their own.
  void Take(const Pass& pass, const ScheduleResult& so_far) {
    ScheduleResult slice = ScheduleSlice(so_far, taken_, so_far.decisions.size(), !started_);
    taken_ = so_far.decisions.size();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      slices_.push_back(std::move(slice));
    }
    ready_.notify_one();
    if (!started_) {
      started_ = true;
      writer_ = std::thread([this, &pass] { Write(pass); });
    }
  }
  // Waits until every slice taken is written; false if the sink refused one.
  bool Finish() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      closed_ = true;
    }
    ready_.notify_one();
    if (writer_.joinable()) writer_.join();
    return sink_ok_;
  }

 private:
  void Write(const Pass& pass) {
    for (;;) {
      ScheduleResult slice;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        ready_.wait(lock, [&] { return closed_ || !slices_.empty(); });
        if (slices_.empty()) return;
        slice = std::move(slices_.front());
        slices_.pop_front();
      }
      if (sink_ok_) {
        sink_ok_ = WriteScheduleRecords(pass.snapshot, pass.instances, slice, ScheduleFormat::kText, sink_, tag_);
      }
    }
  }

  std::function<bool(std::string_view)> sink_;
  std::string tag_;
  std::size_t taken_ = 0;  // decisions sliced so far
  bool started_ = false;   // the running tasks' lines are taken, the writer runs
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<ScheduleResult> slices_;
  bool closed_ = false;
  bool sink_ok_ = true;  // written by the writer only; read after the join
  std::thread writer_;
};

}  // namespace

Session::Session(SessionOptions options, Sink out, Sink log)
    : options_(std::move(options)), out_(std::move(out)), log_(std::move(log)) {}

void Session::Reply(std::string_view line) {
  if (ended_) return;
  if (!out_(line)) ended_ = true;  // the reader is gone: nothing more to say
}

void Session::Ok(const std::string& id, const std::string& extra) {
  Reply("ok " + id + (extra.empty() ? "" : " " + extra) + "\n");
  Log(id, verb_, extra.empty() ? "ok" : "ok " + extra);
}

bool IsRequestId(std::string_view id) {
  if (id.empty()) return false;
  for (char c : id) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
                    c == '.' || c == '-';
    if (!ok) return false;
  }
  return true;
}

void Session::Error(const std::string& id, const SessionError& e) {
  std::string line = "err " + id + " " + std::to_string(static_cast<int>(e.code)) + " " + ErrorName(e.code) + " " +
                     Quoted(e.message);
  if (e.line > 0) line += " line=" + std::to_string(e.line);
  if (!e.object.empty()) line += " obj=" + PrintableMessage(e.object, kQuoteLimit);
  Reply(line + "\n");
  Log(id, verb_, std::to_string(static_cast<int>(e.code)) + " " + PrintableMessage(e.message));
}

void Session::Log(const std::string& id, std::string_view verb, std::string_view outcome) {
  if (!log_) return;
  std::string line = id;
  line += ' ';
  line += verb;
  line += ' ';
  line += outcome;
  line += '\n';
  log_(line);
}

bool Session::HandleLine(std::string_view line, bool too_long) {
  if (ended_) return false;
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  const std::size_t invalid = FindNonText(line);
  if (body_) {
    if (invalid != std::string_view::npos && !body_->refusal) {
      const auto line_no = static_cast<int>(std::count(body_->text.begin(), body_->text.end(), '\n')) + 1;
      body_->refusal = Refuse(ErrorCode::kBadSyntax, NonTextMessage(line, invalid), {}, line_no);
    }
    const std::string_view trimmed = Trim(line);
    const bool end = body_->snapshot ? trimmed == "end snapshot"
                                     : trimmed == "end" || trimmed == "end " + body_->kind;
    if (end && !too_long) {
      FinishBody();
    } else {
      if (too_long) body_->too_long = true;
      else body_->text.append(line).push_back('\n');
    }
    return !ended_;
  }
  const std::string_view trimmed = Trim(line);
  if (trimmed.empty() || trimmed.front() == '#') return true;
  const auto [id_text, rest] = FirstWord(trimmed);
  const std::string id = IsRequestId(id_text) ? std::string(id_text) : "-";
  verb_ = "?";
  if (too_long) {
    Error(id, Refuse(ErrorCode::kLineTooLong,
                     "request line longer than " + std::to_string(options_.max_line_bytes) + " bytes"));
    return !ended_;
  }
  if (id == "-") {
    Error(id, Syntax("expected '<id> <verb> [args]' with an id of letters, digits, '_', '.' or '-'"));
    return !ended_;
  }
  const auto [verb, args] = FirstWord(rest);
  verb_ = verb.empty() ? "?" : PrintableMessage(verb, kQuoteLimit);
  if (verb.empty()) {
    Error(id, Syntax("expected a verb after the id"));
    return !ended_;
  }
  if (invalid != std::string_view::npos) {
    const SessionError refusal = Syntax(NonTextMessage(line, invalid) + " of the request line");
    if (verb != "snapshot" && verb != "begin") {
      Error(id, refusal);
      return !ended_;
    }
    Handle(id, verb, args);  // its body follows all the same, and is refused at its end
    if (body_ && !body_->refusal) body_->refusal = refusal;
    return !ended_;
  }
  Handle(id, verb, args);
  return !ended_;
}

void Session::EndOfInput() {
  if (body_) {
    const std::string id = body_->id;
    const std::string what = body_->snapshot ? "snapshot" : "begin " + body_->kind;
    verb_ = body_->snapshot ? "snapshot" : "begin";
    body_.reset();
    Error(id, Syntax("end of input inside the " + what + " request"));
  }
}

void Session::FinishBody() {
  Body body = std::move(*body_);
  body_.reset();
  verb_ = body.snapshot ? "snapshot" : "begin";
  if (body.refusal) {
    Error(body.id, *body.refusal);
    return;
  }
  if (body.too_long) {
    Error(body.id, Refuse(ErrorCode::kLineTooLong,
                          "a line of the body is longer than " + std::to_string(options_.max_line_bytes) + " bytes"));
    return;
  }
  SessionStatus refused = body.snapshot ? state_.Load(body.text, "<snapshot>")
                                        : state_.PutObject(body.kind, body.name, body.text);
  if (refused) {
    Error(body.id, *refused);
    return;
  }
  Ok(body.id);
}

void Session::Handle(const std::string& id, std::string_view verb, std::string_view args_text) {
  const SessionError not_greeted = Refuse(ErrorCode::kProtoUnsupported, "send 'hello proto=1' first");
  if (!greeted_ && verb != "hello" && verb != "snapshot" && verb != "begin") {
    Error(id, not_greeted);
    return;
  }
  // Requests with a body: the body is collected even when the request is
  // refused, so its lines are never taken for requests.
  if (verb == "snapshot" || verb == "begin") {
    Body body;
    body.id = id;
    body.snapshot = verb == "snapshot";
    if (!body.snapshot) {
      const auto [kind, more] = FirstWord(args_text);
      const auto [name, extra] = FirstWord(more);
      body.kind = std::string(kind);
      body.name = std::string(name);
      // The body follows in any case: it is collected and refused at its end.
      if (kind.empty() || !extra.empty()) body.refusal = Syntax("begin: expected 'begin <kind> [<name>]'");
    } else if (!args_text.empty()) {
      body.refusal = Syntax("snapshot takes no arguments (its lines follow, up to 'end snapshot')");
    }
    if (!greeted_) body.refusal = not_greeted;
    body_ = std::move(body);
    return;
  }
  SessionStatus refused;
  std::vector<Arg> args;
  auto want_args = [&](std::size_t min, std::size_t max) -> bool {
    if (auto e = SplitArgs(args_text, args)) {
      refused = Syntax(std::string(verb) + ": " + *e);
      return false;
    }
    if (args.size() < min || args.size() > max) {
      refused = Syntax(std::string(verb) + ": expected " +
                       (min == max ? std::to_string(min) : std::to_string(min) + " to " + std::to_string(max)) +
                       " arguments, not " + std::to_string(args.size()));
      return false;
    }
    return true;
  };
  auto selector = [&](const Arg& a) -> std::optional<TaskSelector> {
    auto s = a.bare ? ParseTaskSelector(a.value) : std::nullopt;
    if (!s) refused = Refuse(ErrorCode::kInvalidValue, "expected a job id <n> or <n>.<task>, not " + Quote(a.value));
    return s;
  };
  // Checks that every argument after the first `from` is one of `keys`.
  auto only_keys = [&](std::size_t from, std::initializer_list<std::string_view> keys) {
    for (std::size_t i = from; i < args.size(); ++i) {
      if (args[i].bare || std::find(keys.begin(), keys.end(), args[i].key) == keys.end()) {
        refused = Syntax(std::string(verb) + ": unexpected " + Quote(args[i].bare ? args[i].value : args[i].key));
        return false;
      }
    }
    return true;
  };
  auto find = [&](std::string_view key) -> const Arg* {
    for (const Arg& a : args) {
      if (!a.bare && a.key == key) return &a;
    }
    return nullptr;
  };
  // The time given as `key=`, if any; a malformed one refuses the request.
  auto time_arg = [&](std::string_view key) -> std::optional<Time> {
    const Arg* a = find(key);
    if (a == nullptr) return std::nullopt;
    auto t = ParseTime(a->value);
    if (!t) {
      refused = Refuse(ErrorCode::kInvalidValue, std::string(verb) + ": " + std::string(key) +
                                                     ": expected a time, not " + Quote(a->value));
    }
    return t;
  };
  std::string extra;
  if (verb == "hello") {
    if (!want_args(0, 8) || !only_keys(0, {"proto", "client"})) {
    } else if (const Arg* proto = find("proto"); proto == nullptr) {
      refused = Syntax("hello: expected proto=<versions>");
    } else {
      bool one = false;
      for (std::string_view v : SplitList(proto->value)) one |= v == "1";
      if (!one) {
        refused = Refuse(ErrorCode::kProtoUnsupported, "this kernel speaks protocol 1 only");
      } else {
        greeted_ = true;
        Reply("hello " + id + " proto=1 kernel=schedk/" + options_.version + " caps=" + kCaps + "\n");
        Log(id, verb, "hello");
        return;
      }
    }
  } else if (verb == "ping") {
    if (want_args(0, 0)) {
      Ok(id);
      return;
    }
  } else if (verb == "quit") {
    if (want_args(0, 0)) {
      Reply("bye " + id + "\n");
      Log(id, verb, "bye");
      ended_ = true;
      return;
    }
  } else if (verb == "load") {
    const auto [first, rest] = FirstWord(args_text);
    if (first.empty()) {
      refused = Syntax("load: expected 'load <file>' or 'load <host> name=value[,...]'");
    } else if (rest.empty()) {
      // Only a regular file: /dev/zero or a FIFO would read for ever.
      struct stat info {};
      const std::string path(first);
      auto text = ::stat(path.c_str(), &info) == 0 && !S_ISREG(info.st_mode)
                      ? Result<std::string>(Status::IoError(path, "not a regular file"))
                      : ReadWholeFile(path);
      if (!text.ok()) {
        refused = Refuse(ErrorCode::kNoSuchObject, text.status().ToString(), "file:" + std::string(first));
      } else {
        refused = state_.Load(text.value(), std::string(first));
      }
    } else {
      refused = state_.SetLoad(std::string(first), rest);
    }
  } else if (verb == "del") {
    if (want_args(1, 2) && args[0].bare && (args.size() == 1 || args[1].bare)) {
      const std::string kind = args[0].value, name = args.size() > 1 ? args[1].value : "";
      if (kind == "job") {
        if (auto s = selector(args.size() > 1 ? args[1] : Arg{"", "", true})) refused = state_.DeleteJob(*s);
      } else if (!IsRecordKind(kind) || kind == "now" || kind == "load" || kind == "usage") {
        refused = Syntax("del: unknown kind " + Quote(kind));
      } else if (kind == "hoststate") {
        refused = state_.SetHostState(name, false);
      } else {
        refused = state_.DeleteObject(kind, name);
      }
    } else if (!refused) {
      refused = Syntax("del: expected 'del <kind> [<name>]'");
    }
  } else if (verb == "add" || verb == "mod") {
    const auto [kind, record] = FirstWord(args_text);
    if (kind != "job") {
      refused = Syntax(std::string(verb) + ": expected '" + std::string(verb) + " job <id> key=value ...'");
    } else if (verb == "add") {
      refused = state_.AddJob("job " + std::string(record));
    } else if (want_args(2, 64) && args[1].bare) {
      if (auto s = selector(args[1])) {
        std::vector<KeyValue> changes;
        for (std::size_t i = 2; i < args.size(); ++i) {
          if (args[i].bare) {
            refused = Syntax("mod: expected key=value, not " + Quote(args[i].value));
            break;
          }
          changes.push_back({args[i].key, args[i].value});
        }
        if (!refused) refused = state_.ModJob(*s, changes);
      }
    }
  } else if (verb == "hold" || verb == "release" || verb == "suspend" || verb == "resume") {
    if (want_args(1, 1)) {
      if (auto s = selector(args[0])) {
        refused = verb == "hold"      ? state_.Hold(*s)
                  : verb == "release" ? state_.Release(*s)
                  : verb == "suspend" ? state_.Suspend(*s)
                                      : state_.Resume(*s);
      }
    }
  } else if (verb == "run") {
    if (want_args(1, 3) && only_keys(1, {"start", "granted"})) {
      if (auto s = selector(args[0])) {
        const std::optional<Time> start = time_arg("start");
        const Arg* granted = find("granted");
        if (!refused) refused = state_.Run(*s, start, granted ? granted->value : "");
      }
    }
  } else if (verb == "fail") {
    if (want_args(1, 2) && (args.size() == 1 || args[1].bare)) {
      if (auto s = selector(args[0])) {
        refused = state_.Fail(*s);
        if (!refused && args.size() == 2) extra = "reason " + Quoted(args[1].value);
      }
    } else if (!refused) {
      refused = Syntax("fail: expected 'fail <id> \"<reason>\"'");
    }
  } else if (verb == "finish") {
    if (want_args(1, 3) && only_keys(1, {"at", "usage"})) {
      if (auto s = selector(args[0])) {
        const std::optional<Time> at = time_arg("at");
        const Arg* usage = find("usage");
        if (!refused) refused = state_.Finish(*s, at, usage ? usage->value : "");
      }
    }
  } else if (verb == "hoststate") {
    if (want_args(2, 2) && args[0].bare && args[1].bare) {
      if (args[1].value == "up" || args[1].value == "down") {
        refused = state_.SetHostState(args[0].value, args[1].value == "down");
      } else {
        refused = Refuse(ErrorCode::kInvalidValue, "hoststate: expected up or down, not " + Quote(args[1].value));
      }
    } else if (!refused) {
      refused = Syntax("hoststate: expected 'hoststate <host> up|down'");
    }
  } else if (verb == "clock" || verb == "advance") {
    if (want_args(1, 1) && args[0].bare) {
      if (verb == "clock") {
        auto t = ParseTime(args[0].value);
        refused = t ? state_.SetClock(*t)
                    : Refuse(ErrorCode::kInvalidValue, "clock: expected epoch seconds or ISO-8601, not " + Quote(args[0].value));
      } else {
        auto d = ParseDuration(args[0].value);
        refused = d ? state_.Advance(*d)
                    : Refuse(ErrorCode::kInvalidValue, "advance: expected a duration, not " + Quote(args[0].value));
      }
    } else if (!refused) {
      refused = Syntax(std::string(verb) + ": expected one time");
    }
  } else if (verb == "schedule") {
    Schedule(id, args_text);
    return;
  } else if (verb == "priorities") {
    if (want_args(0, 0)) {
      Priorities(id);
      return;
    }
  } else if (verb == "explain") {
    Explain(id, args_text);
    return;
  } else if (verb == "dump") {
    Dump(id, args_text);
    return;
  } else if (verb == "digest") {
    if (want_args(0, 0)) {
      const StateDigest d = state_.Digest();
      char hash[17];
      std::snprintf(hash, sizeof hash, "%016" PRIx64, d.hash);
      Ok(id, "gen=" + std::to_string(d.generation) + " jobs=" + std::to_string(d.jobs) + " tasks=" +
                 std::to_string(d.tasks) + " objects=" + std::to_string(d.objects) + " hash=" + hash);
      return;
    }
  } else {
    refused = Syntax("unknown verb " + Quote(verb));
  }
  if (refused) {
    Error(id, *refused);
    return;
  }
  Ok(id);
}

void Session::Schedule(const std::string& id, std::string_view args_text) {
  std::vector<Arg> args;
  bool assume = false;
  if (auto e = SplitArgs(args_text, args)) {
    Error(id, Syntax("schedule: " + *e));
    return;
  }
  for (const Arg& a : args) {
    if (a.bare || a.key != "commit") {
      Error(id, Syntax("schedule: expected commit=assume|none, not " + Quote(a.bare ? a.value : a.key)));
      return;
    }
    if (a.value != "assume" && a.value != "none") {
      Error(id, Refuse(ErrorCode::kInvalidValue, "schedule: commit: expected assume or none, not " + Quote(a.value)));
      return;
    }
    assume = a.value == "assume";
  }
  // The records go out while the interval runs; `done` (or an error, should
  // the assumption be refused) once it is over.
  auto sink = [&](std::string_view piece) {
    Reply(piece);
    return !ended_;
  };
  RecordStream stream(sink, id);
  const PassProgress listen = [&](const Pass& p, const ScheduleResult& so_far) { stream.Take(p, so_far); };
  auto pass = RunPass(state_, true, &running_book_, &listen);
  const bool written = stream.Finish();
  if (!pass.ok()) {
    Error(id, Refuse(ErrorCode::kInternal, pass.status().ToString()));
    return;
  }
  const Pass& done = *pass.value();
  if (assume) {
    if (SessionStatus refused = state_.Assume(done.snapshot, done.result, done.instances)) {
      Error(id, Refuse(ErrorCode::kInternal, "assume: " + refused->message));
      return;
    }
  }
  if (written) WriteScheduleDone(done.result, ScheduleFormat::kText, done.ms, sink, id);
  Log(id, "schedule", "done starts=" + std::to_string(done.result.starts) + (assume ? " assumed" : ""));
}

void Session::Priorities(const std::string& id) {
  auto pass = RunPass(state_, false);
  if (!pass.ok()) {
    Error(id, Refuse(ErrorCode::kInternal, pass.status().ToString()));
    return;
  }
  const Pass& done = *pass.value();
  std::size_t rows = 0;
  WritePriorities(done.snapshot, done.priorities, PriorityFormat::kKeyValue, [&](std::string_view piece) {
    reply_.clear();
    ForEachLine(piece, [&](std::string_view line) {
      reply_ += "prio " + id + " ";
      reply_.append(line);
      reply_ += '\n';
      ++rows;
    });
    Reply(reply_);
    return !ended_;
  });
  Reply("done " + id + " rows=" + std::to_string(rows) + "\n");
  Log(id, "priorities", "done");
}

void Session::Explain(const std::string& id, std::string_view args_text) {
  std::vector<Arg> args;
  std::optional<TaskSelector> job;
  if (!SplitArgs(args_text, args) && args.size() == 1 && args[0].bare) job = ParseTaskSelector(args[0].value);
  if (!job || job->task) {
    Error(id, Syntax("explain: expected 'explain <job>'"));
    return;
  }
  if (!state_.HasJob(job->job)) {
    Error(id, Refuse(ErrorCode::kNoSuchObject, "no job " + std::to_string(job->job), "job:" + std::to_string(job->job)));
    return;
  }
  auto pass = RunPass(state_, true, &running_book_);
  if (!pass.ok()) {
    Error(id, Refuse(ErrorCode::kInternal, pass.status().ToString()));
    return;
  }
  const Pass& done = *pass.value();
  const std::string number = std::to_string(job->job);
  reply_.clear();
  WritePriorities(done.snapshot, done.priorities, PriorityFormat::kKeyValue, [&](std::string_view piece) {
    ForEachLine(piece, [&](std::string_view line) {
      if (line.rfind("job=" + number + " ", 0) == 0) reply_ += "prio " + id + " " + std::string(line) + "\n";
    });
    return true;
  });
  std::string text;
  WriteSchedule(done.snapshot, done.instances, done.result, ScheduleFormat::kText, done.ms,
                [&](std::string_view piece) {
                  text.append(piece);
                  return true;
                },
                id);
  ForEachLine(text, [&](std::string_view line) {
    const auto [type, after_type] = FirstWord(line);
    const auto [tag, rest] = FirstWord(after_type);
    const bool mine = type == "sched" ? rest.rfind(number + ":", 0) == 0
                                      : type != "done" && rest.rfind(number + ".", 0) == 0;
    if (mine) reply_.append(line).push_back('\n');
  });
  reply_ += "done " + id + " job=" + number + "\n";
  Reply(reply_);
  Log(id, "explain", "done");
}

void Session::Dump(const std::string& id, std::string_view args_text) {
  std::vector<Arg> args;
  if (SplitArgs(args_text, args) || args.size() > 2 || std::any_of(args.begin(), args.end(), [](const Arg& a) { return !a.bare; })) {
    Error(id, Syntax("dump: expected 'dump [<kind> [<name>]]'"));
    return;
  }
  const std::string kind = args.empty() ? "" : args[0].value, name = args.size() > 1 ? args[1].value : "";
  if (!kind.empty() && !IsRecordKind(kind)) {
    Error(id, Syntax("dump: unknown kind " + Quote(kind)));
    return;
  }
  std::vector<std::string> lines;
  if (SessionStatus refused = state_.Dump(kind, name, lines)) {
    Error(id, *refused);
    return;
  }
  reply_.clear();
  for (const std::string& line : lines) reply_ += "data " + id + " " + line + "\n";
  reply_ += "done " + id + " lines=" + std::to_string(lines.size()) + "\n";
  Reply(reply_);
  Log(id, "dump", "done");
}

}  // namespace schedk::io
