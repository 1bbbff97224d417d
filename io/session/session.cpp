#include "io/session/session.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "io/ge_value.hpp"
#include "io/row_text.hpp"
#include "io/session/request_words.hpp"
#include "io/untrusted_text.hpp"

namespace schedk::io {

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

ReplyKind KindOfReply(std::string_view type) {
  static constexpr std::pair<std::string_view, ReplyKind> kReplies[] = {
      {"hello", ReplyKind::kTerminal}, {"ok", ReplyKind::kTerminal},    {"done", ReplyKind::kTerminal},
      {"err", ReplyKind::kTerminal},   {"bye", ReplyKind::kTerminal},   {"start", ReplyKind::kRecord},
      {"reserve", ReplyKind::kRecord}, {"pending", ReplyKind::kRecord}, {"sched", ReplyKind::kRecord},
      {"prio", ReplyKind::kRecord},    {"soft", ReplyKind::kRecord},    {"data", ReplyKind::kRecord},
  };
  for (const auto& [name, kind] : kReplies) {
    if (name == type) return kind;
  }
  return ReplyKind::kUnknown;
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

namespace {

// The `err` reply line of a refusal, with its newline.
std::string ErrorLine(std::string_view id, const SessionError& e) {
  std::string line = "err " + std::string(id) + " " + std::to_string(static_cast<int>(e.code)) + " " +
                     ErrorName(e.code) + " " + Quoted(e.message);
  if (e.line > 0) line += " line=" + std::to_string(e.line);
  if (!e.object.empty()) line += " obj=" + PrintableMessage(e.object, kQuoteLimit);
  return line + "\n";
}

// How the log states a refusal.
std::string ErrorOutcome(const SessionError& e) {
  return std::to_string(static_cast<int>(e.code)) + " " + PrintableMessage(e.message);
}

}  // namespace

void Session::Error(const std::string& id, const SessionError& e) {
  Reply(ErrorLine(id, e));
  Log(id, verb_, ErrorOutcome(e));
}

namespace {

// What an `add job` request's log line and reply take, about, for reserving.
constexpr std::size_t kLogBytesPerAdd = 16, kReplyBytesPerAdd = 12;

// One log line: `<id> <verb> <outcome>`.
void AppendLogLine(std::string& to, std::string_view id, std::string_view verb, std::string_view outcome) {
  to.append(id).append(" ").append(verb).append(" ").append(outcome).push_back('\n');
}

}  // namespace

void Session::Log(std::string_view id, std::string_view verb, std::string_view outcome) {
  if (!log_) return;
  std::string line;
  AppendLogLine(line, id, verb, outcome);
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
    if (!TakesBody(verb)) {
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

// What a line is to a session outside a body: nothing (blank, a comment), an
// `add job` request (`record` its `job <id> ...` text), or any other line.
struct Session::LineKind {
  enum { kOther, kNothing, kAddJob } kind = kOther;
  std::string_view id, record;
};

Session::LineKind Session::KindOf(const InputLine& input) {
  std::string_view line = input.text;
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  const std::string_view trimmed = Trim(line);
  if (trimmed.empty() || trimmed.front() == '#') return {LineKind::kNothing, {}, {}};
  if (input.too_long) return {};
  const auto [id, rest] = FirstWord(trimmed);
  const auto [verb, args] = FirstWord(rest);
  if (verb != "add" || FirstWord(args).first != "job" || !IsRequestId(id)) return {};
  if (FindNonText(line) != std::string_view::npos) return {};
  return {LineKind::kAddJob, id, args};  // "job" and the record as one text: the same tokens as "job " + record
}

bool Session::HandleLines(std::span<const InputLine> lines) {
  EnterStage(options_.ingest_stages, IngestStage::kLineKinds);
  std::vector<LineKind> kinds(lines.size());
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, lines.size(), 1024), [&](const auto& range) {
    for (std::size_t i = range.begin(); i < range.end(); ++i) kinds[i] = KindOf(lines[i]);
  });
  EnterStage(options_.ingest_stages, IngestStage::kDone);
  std::size_t i = 0;
  while (i < lines.size() && !ended_) {
    std::size_t end = i, adds = 0;
    if (greeted_ && !body_) {
      for (; end < lines.size() && kinds[end].kind != LineKind::kOther; ++end) {
        adds += kinds[end].kind == LineKind::kAddJob;
      }
    }
    if (adds >= std::max<std::size_t>(options_.min_add_run, 1)) {
      AddJobRun({kinds.data() + i, end - i}, adds);
      i = end;
      continue;
    }
    for (end = std::max(end, i + 1); i < end && !ended_; ++i) HandleLine(lines[i].text, lines[i].too_long);
  }
  return !ended_;
}

void Session::AddJobRun(std::span<const LineKind> kinds, std::size_t adds) {
  std::vector<const LineKind*> requests;
  std::vector<std::string_view> records;
  requests.reserve(adds);
  records.reserve(adds);
  for (const LineKind& k : kinds) {
    if (k.kind != LineKind::kAddJob) continue;
    requests.push_back(&k);
    records.push_back(k.record);
  }
  const std::vector<RecordRefusal> refusals = state_.AddJobs(records, options_.ingest_stages);
  EnterStage(options_.ingest_stages, IngestStage::kReplies);
  verb_ = "add";
  // The log lines, then the replies, formatted in blocks on every core and handed over in order.
  auto refusal_of = [&](std::size_t k) -> const SessionError* {
    const auto it = std::lower_bound(refusals.begin(), refusals.end(), k,
                                     [](const RecordRefusal& r, std::size_t record) { return r.record < record; });
    return it != refusals.end() && it->record == k ? &it->error : nullptr;
  };
  if (log_) {
    WriteRowBlocks(
        adds, kLogBytesPerAdd,
        [&](std::size_t k, std::string& out) {
          const SessionError* refused = refusal_of(k);
          AppendLogLine(out, requests[k]->id, verb_, refused ? ErrorOutcome(*refused) : "ok");
        },
        log_);
  }
  WriteRowBlocks(
      adds, kReplyBytesPerAdd,
      [&](std::size_t k, std::string& out) {
        if (const SessionError* refused = refusal_of(k)) {
          out += ErrorLine(requests[k]->id, *refused);
        } else {
          out.append("ok ").append(requests[k]->id).push_back('\n');
        }
      },
      [this](std::string_view text) {
        Reply(text);
        return !ended_;
      });
  EnterStage(options_.ingest_stages, IngestStage::kDone);
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

}  // namespace schedk::io
