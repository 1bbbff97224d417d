// session_verbs.cpp
// The session's verbs as one table, declared once: each row names the verb,
// the capabilities it belongs to (the `hello` reply's caps= lists them in
// the order the table first names them), how its arguments are checked
// before its handler runs, the keys it takes, and its handler. A new verb is
// a row here plus its handler (declared beside the others in session.hpp).
// Invariant: a handler changes nothing unless it returns nullopt; a refusal
// it returns is the request's only reply.
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <memory>
#include <mutex>
#include <span>
#include <thread>
#include <vector>

#include "io/block_kinds.hpp"
#include "io/ge_value.hpp"
#include "io/priority_writer.hpp"
#include "io/quota_writer.hpp"
#include "io/schedule_writer.hpp"
#include "io/session/request_words.hpp"
#include "io/session/session.hpp"
#include "io/untrusted_text.hpp"
#include "kernel/dispatch/schedule.hpp"
#include "kernel/priority/priority.hpp"

namespace schedk::io {
namespace {

// How a verb's arguments reach its handler.
enum class Form {
  kCounted,  // split into Args (request_words.hpp), between min and max of them
  kText,     // as sent: the handler reads them itself
  kBody,     // as sent, and the request's body follows on the lines after it
};

struct Arguments {
  Form form = Form::kText;
  std::size_t min = 0, max = 0;  // kCounted only
};

constexpr Arguments Counted(std::size_t min, std::size_t max) { return {Form::kCounted, min, max}; }
constexpr Arguments kText{Form::kText, 0, 0};
constexpr Arguments kBody{Form::kBody, 0, 0};

// The items of a comma-separated list, as the table spells its caps and keys.
std::vector<std::string_view> Items(std::string_view list) {
  std::vector<std::string_view> items;
  while (!list.empty()) {
    const std::size_t comma = std::min(list.find(','), list.size());
    items.push_back(list.substr(0, comma));
    list.remove_prefix(std::min(comma + 1, list.size()));
  }
  return items;
}

bool IsKey(std::string_view keys, std::string_view key) {
  const std::vector<std::string_view> items = Items(keys);
  return std::find(items.begin(), items.end(), key) != items.end();
}

// Splits `text` into `args` and checks there are `min` to `max` of them.
SessionStatus SplitCounted(std::string_view verb, std::string_view text, std::size_t min, std::size_t max,
                           std::vector<Arg>& args) {
  if (auto e = SplitArgs(text, args)) return Syntax(std::string(verb) + ": " + *e);
  if (args.size() >= min && args.size() <= max) return std::nullopt;
  return Syntax(std::string(verb) + ": expected " +
                (min == max ? std::to_string(min) : std::to_string(min) + " to " + std::to_string(max)) +
                " arguments, not " + std::to_string(args.size()));
}

// Checks that every argument after the first `from` is key=value with one of `keys`.
SessionStatus OnlyKeys(std::string_view verb, const std::vector<Arg>& args, std::size_t from, std::string_view keys) {
  for (std::size_t i = from; i < args.size(); ++i) {
    if (args[i].bare || !IsKey(keys, args[i].key)) {
      return Syntax(std::string(verb) + ": unexpected " + Quote(args[i].bare ? args[i].value : args[i].key));
    }
  }
  return std::nullopt;
}

const Arg* Find(const std::vector<Arg>& args, std::string_view key) {
  for (const Arg& a : args) {
    if (!a.bare && a.key == key) return &a;
  }
  return nullptr;
}

// A job or task id argument.
SessionStatus ParseJob(const Arg& arg, TaskSelector& job) {
  auto s = arg.bare ? ParseTaskSelector(arg.value) : std::nullopt;
  if (!s) return Refuse(ErrorCode::kInvalidValue, "expected a job id <n> or <n>.<task>, not " + Quote(arg.value));
  job = *s;
  return std::nullopt;
}

// The time given as `key=`, if any; a malformed one refuses the request.
SessionStatus TimeArg(std::string_view verb, const std::vector<Arg>& args, std::string_view key,
                      std::optional<Time>& time) {
  const Arg* a = Find(args, key);
  if (a == nullptr) return std::nullopt;
  time = ParseTime(a->value);
  if (time) return std::nullopt;
  return Refuse(ErrorCode::kInvalidValue,
                std::string(verb) + ": " + std::string(key) + ": expected a time, not " + Quote(a->value));
}

SessionError NotGreeted() { return Refuse(ErrorCode::kProtoUnsupported, "send 'hello proto=1' first"); }

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
// lives on the heap, so that a listener may keep referring to it. `stages`
// (SessionOptions::stages) hears where the kernel's stages begin.
Result<std::unique_ptr<Pass>> RunPass(const SessionState& state, bool dispatch, const StageListener* stages,
                                      RunningBook* book = nullptr, const PassProgress* listen = nullptr) {
  const auto started = std::chrono::steady_clock::now();
  auto view = state.View();
  if (!view.ok()) return view.status();
  auto pass = std::make_unique<Pass>();
  pass->snapshot = std::move(view.value());
  pass->priorities = ComputePriorities(pass->snapshot.cluster, pass->snapshot.jobs, Twin::kOptimised, stages);
  if (dispatch) {
    pass->instances = QueueInstanceTable::Build(pass->snapshot.cluster);
    const ScheduleProgress progress = [&](const ScheduleResult& so_far) { (*listen)(*pass, so_far); };
    pass->result = ScheduleInterval(pass->snapshot.cluster, pass->snapshot.jobs, pass->priorities, pass->instances,
                                    Twin::kOptimised, book, listen != nullptr ? &progress : nullptr, stages);
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

// `add` and `mod` name the kind, which is always `job`.
SessionStatus ExpectJobKind(std::string_view verb, std::string_view kind) {
  if (kind == "job") return std::nullopt;
  return Syntax(std::string(verb) + ": expected '" + std::string(verb) + " job <id> key=value ...'");
}

// The lines of a schedule reply tagged `id` that concern job `number`.
std::string LinesOfJob(std::string_view text, const std::string& number) {
  std::string mine;
  ForEachLine(text, [&](std::string_view line) {
    const auto [type, after_type] = FirstWord(line);
    const auto [tag, rest] = FirstWord(after_type);
    const bool of_job = type == "sched" ? rest.rfind(number + ":", 0) == 0
                                        : type != "done" && rest.rfind(number + ".", 0) == 0;
    if (of_job) mine.append(line).push_back('\n');
  });
  return mine;
}

}  // namespace

// One request as its verb's handler sees it.
struct Session::Request {
  const std::string& id;
  std::string_view verb;
  std::string_view text;   // the arguments as sent
  std::vector<Arg> args;   // Form::kCounted: the arguments, checked against the row
  std::string extra;       // words after `ok <id>`
  bool answered = false;   // the handler wrote the request's reply itself
};

// A row of the verb table.
struct Session::Verb {
  std::string_view name;
  std::string_view caps;  // the capabilities it belongs to, comma-separated; empty: the base protocol
  Arguments arguments;
  // Form::kCounted: the key=value arguments allowed after the first `min`,
  // comma-separated; empty: the handler judges the arguments itself.
  std::string_view keys;
  bool before_hello;  // `hello?`: accepted before `hello` (a body request is collected, then refused)
  SessionStatus (Session::*handler)(Request&);

  static std::span<const Verb> Table();
  static const Verb* Find(std::string_view name);
  static const std::string& Caps();
  // Refuses arguments that do not fit the row; fills request.args.
  SessionStatus Check(Request& request) const;
};

std::span<const Session::Verb> Session::Verb::Table() {
  static constexpr Verb kVerbs[] = {
      // name        caps               arguments      keys             hello? handler
      {"hello",      "",                Counted(0, 8), "proto,client",  true,  &Session::Hello},
      {"ping",       "",                Counted(0, 0), "",              false, &Session::Ping},
      {"quit",       "",                Counted(0, 0), "",              false, &Session::Quit},
      {"load",       "load",            kText,         "",              false, &Session::LoadFileOrHost},
      {"snapshot",   "snapshot",        kBody,         "",              true,  &Session::BeginSnapshot},
      {"begin",      "objects",         kBody,         "",              true,  &Session::BeginObject},
      {"del",        "objects",         Counted(1, 2), "",              false, &Session::Delete},
      {"add",        "jobs",            kText,         "",              false, &Session::AddJob},
      {"mod",        "jobs",            kText,         "",              false, &Session::ModJob},
      {"hold",       "jobs",            Counted(1, 1), "",              false, &Session::ChangeJob<&SessionState::Hold>},
      {"release",    "jobs",            Counted(1, 1), "",              false, &Session::ChangeJob<&SessionState::Release>},
      {"suspend",    "jobs",            Counted(1, 1), "",              false, &Session::ChangeJob<&SessionState::Suspend>},
      {"resume",     "jobs",            Counted(1, 1), "",              false, &Session::ChangeJob<&SessionState::Resume>},
      {"run",        "jobs",            Counted(1, 3), "start,granted", false, &Session::RunJob},
      {"fail",       "jobs",            Counted(1, 2), "",              false, &Session::FailJob},
      {"finish",     "jobs",            Counted(1, 3), "at,usage",      false, &Session::FinishJob},
      {"hoststate",  "hosts",           Counted(2, 2), "",              false, &Session::HostState},
      {"clock",      "clock",           Counted(1, 1), "",              false, &Session::Clock},
      {"advance",    "clock",           Counted(1, 1), "",              false, &Session::Advance},
      {"schedule",   "schedule,assume", kText,         "",              false, &Session::Schedule},
      {"priorities", "priorities",      Counted(0, 0), "",              false, &Session::Priorities},
      {"explain",    "explain",         kText,         "",              false, &Session::Explain},
      {"quota",      "quota",           Counted(0, 0), "",              false, &Session::Quota},
      {"dump",       "dump",            kText,         "",              false, &Session::Dump},
      {"digest",     "digest",          Counted(0, 0), "",              false, &Session::Digest},
  };
  return kVerbs;
}

const Session::Verb* Session::Verb::Find(std::string_view name) {
  for (const Verb& verb : Table()) {
    if (verb.name == name) return &verb;
  }
  return nullptr;
}

// Every row's caps, each once, in the order the table first names them.
const std::string& Session::Verb::Caps() {
  static const std::string caps = [] {
    std::vector<std::string_view> seen;
    std::string joined;
    for (const Verb& verb : Table()) {
      for (std::string_view cap : Items(verb.caps)) {
        if (std::find(seen.begin(), seen.end(), cap) != seen.end()) continue;
        seen.push_back(cap);
        joined += (joined.empty() ? "" : ",") + std::string(cap);
      }
    }
    return joined;
  }();
  return caps;
}

SessionStatus Session::Verb::Check(Request& request) const {
  if (arguments.form != Form::kCounted) return std::nullopt;
  if (auto e = SplitCounted(name, request.text, arguments.min, arguments.max, request.args)) return e;
  if (keys.empty()) return std::nullopt;
  return OnlyKeys(name, request.args, arguments.min, keys);
}

bool Session::TakesBody(std::string_view verb) {
  const Verb* row = Verb::Find(verb);
  return row != nullptr && row->arguments.form == Form::kBody;
}

void Session::Handle(const std::string& id, std::string_view verb, std::string_view args_text) {
  const Verb* row = Verb::Find(verb);
  if (!greeted_ && (row == nullptr || !row->before_hello)) {
    Error(id, NotGreeted());
    return;
  }
  if (row == nullptr) {
    Error(id, Syntax("unknown verb " + Quote(verb)));
    return;
  }
  Request request{id, verb, args_text, {}, {}, false};
  SessionStatus refused = row->Check(request);
  if (!refused) refused = (this->*row->handler)(request);
  if (refused) {
    Error(id, *refused);
  } else if (!request.answered) {
    Ok(id, request.extra);
  }
}

// --- the base protocol ---

SessionStatus Session::Hello(Request& request) {
  const Arg* proto = Find(request.args, "proto");
  if (proto == nullptr) return Syntax("hello: expected proto=<versions>");
  bool one = false;
  for (std::string_view v : SplitList(proto->value)) one |= v == "1";
  if (!one) return Refuse(ErrorCode::kProtoUnsupported, "this kernel speaks protocol 1 only");
  greeted_ = true;
  Reply("hello " + request.id + " proto=1 kernel=schedk/" + options_.version + " caps=" + Verb::Caps() + "\n");
  Log(request.id, request.verb, "hello");
  request.answered = true;
  return std::nullopt;
}

SessionStatus Session::Ping(Request&) { return std::nullopt; }

SessionStatus Session::Quit(Request& request) {
  Reply("bye " + request.id + "\n");
  Log(request.id, request.verb, "bye");
  ended_ = true;
  request.answered = true;
  return std::nullopt;
}

// --- the state: whole, objects, hosts, clock ---

SessionStatus Session::LoadFileOrHost(Request& request) {
  const auto [first, rest] = FirstWord(request.text);
  if (first.empty()) return Syntax("load: expected 'load <file>' or 'load <host> name=value[,...]'");
  if (!rest.empty()) return state_.SetLoad(std::string(first), rest);
  // Only a regular file: /dev/zero or a FIFO would read for ever.
  struct stat info {};
  const std::string path(first);
  auto text = ::stat(path.c_str(), &info) == 0 && !S_ISREG(info.st_mode)
                  ? Result<FileText>(Status::IoError(path, "not a regular file"))
                  : ReadFileText(path);
  if (!text.ok()) return Refuse(ErrorCode::kNoSuchObject, text.status().ToString(), "file:" + path);
  return state_.Load(text.value().view(), path);
}

// Body requests: the body is collected even when the request is refused, so
// its lines are never taken for requests; the refusal is the reply at its end.
SessionStatus Session::BeginSnapshot(Request& request) {
  Body body;
  body.id = request.id;
  body.snapshot = true;
  if (!request.text.empty()) {
    body.refusal = Syntax("snapshot takes no arguments (its lines follow, up to 'end snapshot')");
  }
  if (!greeted_) body.refusal = NotGreeted();
  body_ = std::move(body);
  request.answered = true;
  return std::nullopt;
}

SessionStatus Session::BeginObject(Request& request) {
  const auto [kind, more] = FirstWord(request.text);
  const auto [name, extra] = FirstWord(more);
  Body body;
  body.id = request.id;
  body.kind = std::string(kind);
  body.name = std::string(name);
  if (kind.empty() || !extra.empty()) body.refusal = Syntax("begin: expected 'begin <kind> [<name>]'");
  if (!greeted_) body.refusal = NotGreeted();
  body_ = std::move(body);
  request.answered = true;
  return std::nullopt;
}

SessionStatus Session::Delete(Request& request) {
  const std::vector<Arg>& args = request.args;
  if (!args[0].bare || (args.size() > 1 && !args[1].bare)) return Syntax("del: expected 'del <kind> [<name>]'");
  const std::string kind = args[0].value, name = args.size() > 1 ? args[1].value : "";
  if (kind == kJobRecord) {
    TaskSelector job;
    if (auto e = ParseJob(args.size() > 1 ? args[1] : Arg{"", "", true}, job)) return e;
    return state_.DeleteJob(job);
  }
  if (kind == "hoststate") return state_.SetHostState(name, false);  // a host is up unless reported down
  if (FindBlockKind(kind) != nullptr) return state_.DeleteObject(kind, name);
  return Syntax("del: unknown kind " + Quote(kind));  // now, load and usage are set, not deleted
}

SessionStatus Session::HostState(Request& request) {
  const std::vector<Arg>& args = request.args;
  if (!args[0].bare || !args[1].bare) return Syntax("hoststate: expected 'hoststate <host> up|down'");
  if (args[1].value != "up" && args[1].value != "down") {
    return Refuse(ErrorCode::kInvalidValue, "hoststate: expected up or down, not " + Quote(args[1].value));
  }
  return state_.SetHostState(args[0].value, args[1].value == "down");
}

SessionStatus Session::Clock(Request& request) {
  if (!request.args[0].bare) return Syntax("clock: expected one time");
  const std::string& text = request.args[0].value;
  const auto t = ParseTime(text);
  if (!t) return Refuse(ErrorCode::kInvalidValue, "clock: expected epoch seconds or ISO-8601, not " + Quote(text));
  return state_.SetClock(*t);
}

SessionStatus Session::Advance(Request& request) {
  if (!request.args[0].bare) return Syntax("advance: expected one time");
  const std::string& text = request.args[0].value;
  const auto d = ParseDuration(text);
  if (!d) return Refuse(ErrorCode::kInvalidValue, "advance: expected a duration, not " + Quote(text));
  return state_.Advance(*d);
}

// --- jobs ---

SessionStatus Session::AddJob(Request& request) {
  const auto [kind, record] = FirstWord(request.text);
  if (auto e = ExpectJobKind(request.verb, kind)) return e;
  return state_.AddJob("job " + std::string(record));
}

SessionStatus Session::ModJob(Request& request) {
  if (auto e = ExpectJobKind(request.verb, FirstWord(request.text).first)) return e;
  std::vector<Arg>& args = request.args;
  if (auto e = SplitCounted(request.verb, request.text, 2, 64, args)) return e;
  if (!args[1].bare) return std::nullopt;  // as it always was: `ok`, and nothing changed
  TaskSelector job;
  if (auto e = ParseJob(args[1], job)) return e;
  std::vector<KeyValue> changes;
  for (std::size_t i = 2; i < args.size(); ++i) {
    if (args[i].bare) return Syntax("mod: expected key=value, not " + Quote(args[i].value));
    changes.push_back({args[i].key, args[i].value});
  }
  return state_.ModJob(job, changes);
}

template <SessionStatus (SessionState::*change)(const TaskSelector&)>
SessionStatus Session::ChangeJob(Request& request) {
  TaskSelector job;
  if (auto e = ParseJob(request.args[0], job)) return e;
  return (state_.*change)(job);
}

SessionStatus Session::RunJob(Request& request) {
  TaskSelector job;
  std::optional<Time> start;
  if (auto e = ParseJob(request.args[0], job)) return e;
  if (auto e = TimeArg(request.verb, request.args, "start", start)) return e;
  const Arg* granted = Find(request.args, "granted");
  return state_.Run(job, start, granted ? granted->value : "");
}

SessionStatus Session::FailJob(Request& request) {
  const std::vector<Arg>& args = request.args;
  if (args.size() == 2 && !args[1].bare) return Syntax("fail: expected 'fail <id> \"<reason>\"'");
  TaskSelector job;
  if (auto e = ParseJob(args[0], job)) return e;
  return state_.Fail(job);  // the reason is taken, not echoed: the reply is a plain `ok`
}

SessionStatus Session::FinishJob(Request& request) {
  TaskSelector job;
  std::optional<Time> at;
  if (auto e = ParseJob(request.args[0], job)) return e;
  if (auto e = TimeArg(request.verb, request.args, "at", at)) return e;
  const Arg* usage = Find(request.args, "usage");
  return state_.Finish(job, at, usage ? usage->value : "");
}

// --- passes and reading ---

SessionStatus Session::Schedule(Request& request) {
  const std::string& id = request.id;
  std::vector<Arg>& args = request.args;
  if (auto e = SplitArgs(request.text, args)) return Syntax("schedule: " + *e);
  bool assume = false;
  for (const Arg& a : args) {
    if (a.bare || a.key != "commit") {
      return Syntax("schedule: expected commit=assume|none, not " + Quote(a.bare ? a.value : a.key));
    }
    if (a.value != "assume" && a.value != "none") {
      return Refuse(ErrorCode::kInvalidValue, "schedule: commit: expected assume or none, not " + Quote(a.value));
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
  auto pass = RunPass(state_, true, options_.stages, &running_book_, &listen);
  const bool written = stream.Finish();
  if (!pass.ok()) return Refuse(ErrorCode::kInternal, pass.status().ToString());
  const Pass& done = *pass.value();
  if (assume) {
    if (SessionStatus refused = state_.Assume(done.snapshot, done.result, done.instances)) {
      return Refuse(ErrorCode::kInternal, "assume: " + refused->message);
    }
  }
  if (written) WriteScheduleDone(done.result, ScheduleFormat::kText, done.ms, sink, id);
  Log(id, "schedule", "done starts=" + std::to_string(done.result.starts) + (assume ? " assumed" : ""));
  request.answered = true;
  return std::nullopt;
}

SessionStatus Session::Priorities(Request& request) {
  const std::string& id = request.id;
  auto pass = RunPass(state_, false, options_.stages);
  if (!pass.ok()) return Refuse(ErrorCode::kInternal, pass.status().ToString());
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
  request.answered = true;
  return std::nullopt;
}

SessionStatus Session::Quota(Request& request) {
  auto pass = RunPass(state_, false, options_.stages);
  if (!pass.ok()) return Refuse(ErrorCode::kInternal, pass.status().ToString());
  ReplyData(request, "quota", QuotaTable(pass.value()->snapshot));
  return std::nullopt;
}

SessionStatus Session::Explain(Request& request) {
  const std::string& id = request.id;
  std::vector<Arg>& args = request.args;
  std::optional<TaskSelector> job;
  if (!SplitArgs(request.text, args) && args.size() == 1 && args[0].bare) job = ParseTaskSelector(args[0].value);
  if (!job || job->task) return Syntax("explain: expected 'explain <job>'");
  const std::string number = std::to_string(job->job);
  if (!state_.HasJob(job->job)) return Refuse(ErrorCode::kNoSuchObject, "no job " + number, "job:" + number);
  auto pass = RunPass(state_, true, options_.stages, &running_book_);
  if (!pass.ok()) return Refuse(ErrorCode::kInternal, pass.status().ToString());
  const Pass& done = *pass.value();
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
  reply_ += LinesOfJob(text, number);
  reply_ += SoftRequestLines(done.snapshot, done.instances, done.result, job->job, id);
  reply_ += "done " + id + " job=" + number + "\n";
  Reply(reply_);
  Log(id, "explain", "done");
  request.answered = true;
  return std::nullopt;
}

SessionStatus Session::Dump(Request& request) {
  std::vector<Arg>& args = request.args;
  if (SplitArgs(request.text, args) || args.size() > 2 ||
      std::any_of(args.begin(), args.end(), [](const Arg& a) { return !a.bare; })) {
    return Syntax("dump: expected 'dump [<kind> [<name>]]'");
  }
  const std::string kind = args.empty() ? "" : args[0].value, name = args.size() > 1 ? args[1].value : "";
  if (!kind.empty() && !IsSnapshotKind(kind)) return Syntax("dump: unknown kind " + Quote(kind));
  std::vector<std::string> lines;
  if (SessionStatus refused = state_.Dump(kind, name, lines)) return refused;
  ReplyData(request, "dump", lines);
  return std::nullopt;
}

void Session::ReplyData(Request& request, const char* verb, const std::vector<std::string>& lines) {
  const std::string& id = request.id;
  reply_.clear();
  for (const std::string& line : lines) reply_ += "data " + id + " " + line + "\n";
  reply_ += "done " + id + " lines=" + std::to_string(lines.size()) + "\n";
  Reply(reply_);
  Log(id, verb, "done");
  request.answered = true;
}

SessionStatus Session::Digest(Request& request) {
  const StateDigest d = state_.Digest();
  char hash[17];
  std::snprintf(hash, sizeof hash, "%016" PRIx64, d.hash);
  request.extra = "gen=" + std::to_string(d.generation) + " jobs=" + std::to_string(d.jobs) +
                  " tasks=" + std::to_string(d.tasks) + " objects=" + std::to_string(d.objects) + " hash=" + hash;
  return std::nullopt;
}

}  // namespace schedk::io
