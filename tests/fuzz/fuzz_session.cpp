// fuzz_session: the input is the lines a master sends to `schedk serve`
// (docs/protocol.md §3, io/session/session.hpp), fed to a Session after a fixed
// prefix that says hello and loads a small cluster through a `snapshot` body,
// so every input starts from a live state; then EndOfInput. Lines longer than
// the session's max_line_bytes (4096 here) are cut and flagged as the serve
// loop does. Not fed: `load <file>` (it reads the file system) and, beyond
// kMaxPasses or kMaxTasks, the requests that run a pass.
// Properties:
//   * exactly one terminal reply line (hello, ok, done, err, bye) per request,
//     in order, tagged with the request's id, after any records it has
//     (start, reserve, pending, sched, prio, data); none for blank and #
//     lines or a body's lines, one at the body's end; nothing after `bye`;
//   * a request refused with `err` leaves the digest (generation, counts and
//     hash of SessionState::Digest) unchanged; for a body, from its request line;
//   * every reply line is valid UTF-8 with no control byte but its newline,
//     and an err line is at most kMaxErrorLine bytes;
//   * the log gets one line per request;
//   * at the end, the state's dump loads into a fresh state with the same digest;
//   * the same lines in one batch to Session::HandleLines, with every run of
//     `add job` lines through SessionState::AddJobs, give the same replies
//     (but the wall times of `done` lines), log and digest.
#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "io/ge_value.hpp"
#include "io/session/session.hpp"
#include "tests/fuzz/fuzz_checks.hpp"
#include "tests/session_support.hpp"

namespace schedk::fuzz {
namespace {

constexpr std::size_t kMaxLineBytes = 4096;
constexpr std::size_t kMaxPasses = 8, kMaxTasks = 2000;
constexpr std::size_t kMaxErrorLine = 4096;

constexpr const char* kPrefix = R"(h0 hello proto=1 client=fuzz
s0 snapshot
schedk-snapshot 1
now 1077903416
begin complex
slots     s     INT      <=  YES  YES  1      1000
h_rt      h_rt  TIME     <=  YES  NO   0:0:0  0
license   lic   INT      <=  YES  YES  0      100
arch      a     RESTRING ==  YES  NO   NONE   0
end complex
begin sconf
max_reservation            20
weight_tickets_functional  10000
params                     MONITOR=1,DURATION_OFFSET=0
end sconf
begin global
complex_values  license=5
end global
begin hostgroup @nodes
hostlist  carc dell
end hostgroup
begin exechost carc
complex_values  slots=4
load_values     arch=lx-amd64
end exechost
begin exechost dell
complex_values  slots=2
end exechost
begin pe mpi
slots            6
allocation_rule  $round_robin
end pe
begin queue all.q
hostlist  @nodes
slots     4
pe_list   mpi
end queue
begin project astro
fshare  100
end project
begin user andreas
fshare  10
end user
job 3127 owner=andreas name=L4_RR submit=1077903386 p=100 R=y l_hard=h_rt=30,license=4
job 3128 owner=andreas name=L5_RR submit=1077903387 R=y l_hard=h_rt=30,license=5
job 3129 owner=andreas name=L1_RR submit=1077903388 R=y l_hard=h_rt=31,license=1
job 3130.1-4 owner=bob project=astro submit=1077903390 pe_name=mpi pe_min=2 pe_max=4 l_hard=h_rt=60,arch=lx*
job 3131 owner=carol submit=1077903300 state=r start=1077903400 granted=all.q@dell:1 l_hard=h_rt=100
job 3132 owner=carol submit=1077903301 state=hqw
end snapshot
)";

std::pair<std::string_view, std::string_view> FirstWord(std::string_view text) {
  text = io::Trim(text);
  std::size_t i = 0;
  while (i < text.size() && text[i] != ' ' && text[i] != '\t') ++i;
  return {text.substr(0, i), io::Trim(text.substr(i))};
}

auto Key(const io::StateDigest& d) { return std::tie(d.generation, d.jobs, d.tasks, d.objects, d.hash); }

std::string DigestText(const io::StateDigest& d) {
  return "gen=" + std::to_string(d.generation) + " jobs=" + std::to_string(d.jobs) + " tasks=" +
         std::to_string(d.tasks) + " objects=" + std::to_string(d.objects) + " hash=" + std::to_string(d.hash);
}

// Drives one session and checks each request's replies.
class Driver {
 public:
  Driver()
      : session_({"fuzz", kMaxLineBytes},
                 [this](std::string_view piece) {
                   out_.append(piece);
                   return true;
                 },
                 [this](std::string_view piece) {
                   log_.append(piece);
                   return true;
                 }) {}

  // Feeds one input line (no newline), as the serve loop would.
  void Line(std::string_view line) {
    if (session_.ended()) return;
    fed_.emplace_back(line);
    const bool too_long = line.size() > kMaxLineBytes;
    if (too_long) line = line.substr(0, kMaxLineBytes);
    std::string_view bare = line;
    if (!bare.empty() && bare.back() == '\r') bare.remove_suffix(1);
    const std::string_view trimmed = io::Trim(bare);
    if (in_body_) {
      const bool end = body_snapshot_ ? trimmed == "end snapshot"
                                      : trimmed == "end" || trimmed == "end " + body_kind_;
      if (end && !too_long) {
        in_body_ = false;
        Feed(line, too_long, body_id_, &body_before_);
      } else {
        Feed(line, too_long, {}, nullptr);
      }
      return;
    }
    if (trimmed.empty() || trimmed.front() == '#') {
      Feed(line, too_long, {}, nullptr);
      return;
    }
    const auto [id_text, rest] = FirstWord(trimmed);
    const std::string id = io::IsRequestId(id_text) ? std::string(id_text) : "-";
    const auto [verb, args] = FirstWord(rest);
    // A request line that is too long or has no valid id is refused at once:
    // it starts no body and runs nothing.
    if (!too_long && id != "-") {
      if (verb == "load" && !args.empty() && FirstWord(args).second.empty()) return fed_.pop_back();  // a file
      if (verb == "schedule" || verb == "priorities" || verb == "explain") {
        if (passes_ >= kMaxPasses || session_.state().Digest().tasks > kMaxTasks) return fed_.pop_back();
        ++passes_;
      }
      if (verb == "snapshot" || verb == "begin") {
        in_body_ = true;
        body_snapshot_ = verb == "snapshot";
        body_kind_ = std::string(FirstWord(args).first);
        body_id_ = id;
        body_before_ = session_.state().Digest();
        Feed(line, too_long, {}, nullptr);
        return;
      }
    }
    const io::StateDigest before = session_.state().Digest();
    Feed(line, too_long, id, &before);
  }

  void End() {
    if (session_.ended()) return;
    const bool body = in_body_;
    in_body_ = false;
    out_.clear();
    log_.clear();
    session_.EndOfInput();
    Replies(body ? body_id_ : std::string(), body ? &body_before_ : nullptr, "end of input");
  }

  // The lines fed, in one batch to a session that takes every run of `add
  // job` lines through AddJobs: the same replies, log and digest.
  void CheckBatchTwin() {
    std::string out, log;
    io::SessionOptions options{"fuzz", kMaxLineBytes};
    options.min_add_run = 1;
    io::Session twin(
        options, [&](std::string_view piece) { return out.append(piece), true; },
        [&](std::string_view piece) { return log.append(piece), true; });
    std::vector<io::InputLine> lines;
    for (const std::string& line : fed_) {
      const bool too_long = line.size() > kMaxLineBytes;
      lines.push_back({std::string_view(line).substr(0, kMaxLineBytes), too_long});
    }
    twin.HandleLines(lines);
    if (!twin.ended()) twin.EndOfInput();
    Check(io::WithoutPassTimes(out) == io::WithoutPassTimes(all_out_), "HandleLines replies as HandleLine does",
          Shown(out) + " vs " + Shown(all_out_));
    Check(log == all_log_, "HandleLines logs as HandleLine does", Shown(log) + " vs " + Shown(all_log_));
    Check(Key(twin.state().Digest()) == Key(session_.state().Digest()), "HandleLines leaves HandleLine's digest",
          DigestText(twin.state().Digest()) + " vs " + DigestText(session_.state().Digest()));
  }

  // Whatever the requests did, the state's dump loads into a fresh state with the same digest.
  void CheckDumpLoadsBack() {
    std::vector<std::string> lines;
    if (auto e = session_.state().Dump("", "", lines)) Fail("the state dumps", e->message);
    std::string text;
    for (const std::string& l : lines) text += l + "\n";
    io::SessionState fresh;
    if (auto e = fresh.Load(text, "dump")) Check(false, "the dump loads back", e->message + ": " + Shown(text));
    const io::StateDigest a = session_.state().Digest(), b = fresh.Digest();
    Check(a.hash == b.hash && a.jobs == b.jobs && a.tasks == b.tasks && a.objects == b.objects,
          "the dump loads back to the same digest", DigestText(a) + " vs " + DigestText(b) + ": " + Shown(text));
  }

 private:
  // Hands the line to the session and checks its replies: one terminal line
  // tagged `id` when `id` is not empty, none otherwise.
  void Feed(std::string_view line, bool too_long, const std::string& id, const io::StateDigest* before) {
    out_.clear();
    log_.clear();
    session_.HandleLine(line, too_long);
    Replies(id, before, line);
  }

  void Replies(const std::string& id, const io::StateDigest* before, std::string_view request) {
    all_out_ += out_;
    all_log_ += log_;
    const std::string context = " (request: " + Shown(request) + ")";
    if (ended_) {
      Check(out_.empty() && log_.empty(), "nothing after bye", Shown(out_) + context);
      return;
    }
    Check(out_.empty() || out_.back() == '\n', "replies are whole lines", Shown(out_) + context);
    std::size_t terminals = 0;
    std::string_view terminal_type;
    ForEachLine(out_, [&](std::string_view reply) {
      CheckCleanLine(reply, "reply line");
      Check(terminals == 0, "the terminal reply is the request's last line", Shown(reply) + context);
      const auto [type, after] = FirstWord(reply);
      const std::string_view tag = FirstWord(after).first;
      Check(!id.empty(), "no reply to a line that is not a request", Shown(reply) + context);
      Check(tag == id, "reply tagged with the request's id", "expected " + Shown(id) + ": " + Shown(reply) + context);
      if (io::KindOfReply(type) == io::ReplyKind::kTerminal) {
        ++terminals;
        terminal_type = type;
        if (type == "err") Check(reply.size() <= kMaxErrorLine, "err line is bounded", Shown(reply) + context);
      } else {
        Check(io::KindOfReply(type) == io::ReplyKind::kRecord, "reply type is a protocol record",
              Shown(reply) + context);
      }
    });
    Check(terminals == (id.empty() ? 0u : 1u), "exactly one terminal reply per request",
          std::to_string(terminals) + " in: " + Shown(out_) + context);
    std::size_t log_lines = 0;
    for (char c : log_) log_lines += c == '\n';
    Check(log_lines == terminals && (log_.empty() || log_.back() == '\n'), "one log line per request",
          Shown(log_) + context);
    if (terminal_type == "err" && before != nullptr) {
      const io::StateDigest after = session_.state().Digest();
      Check(Key(after) == Key(*before), "a refused request leaves the digest unchanged",
            DigestText(*before) + " -> " + DigestText(after) + ": " + Shown(out_) + context);
    }
    if (terminal_type == "bye") ended_ = true;
  }

  io::Session session_;
  std::string out_, log_;
  std::string all_out_, all_log_;  // every reply and log line so far
  std::vector<std::string> fed_;   // every line handed to session_, as given
  bool ended_ = false;
  bool in_body_ = false, body_snapshot_ = false;
  std::string body_kind_, body_id_;
  io::StateDigest body_before_;
  std::size_t passes_ = 0;
};

void Run(std::string_view input) {
  Driver driver;
  ForEachLine(kPrefix, [&](std::string_view line) { driver.Line(line); });
  ForEachLine(input, [&](std::string_view line) { driver.Line(line); });
  driver.End();
  driver.CheckDumpLoadsBack();
  driver.CheckBatchTwin();
}

}  // namespace
}  // namespace schedk::fuzz

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // The prefix must leave a greeted session with the cluster loaded.
  using namespace schedk;
  std::string out;
  io::Session session({"fuzz", fuzz::kMaxLineBytes}, [&](std::string_view p) { out.append(p); return true; }, {});
  fuzz::ForEachLine(fuzz::kPrefix, [&](std::string_view line) { session.HandleLine(line); });
  if (out.rfind("hello h0 ", 0) != 0 || out.find("\nok s0\n") == std::string::npos) {
    fuzz::Fail("the fixed prefix loads", fuzz::Shown(out));
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  schedk::fuzz::Run(schedk::fuzz::AsText(data, size));
  return 0;
}
