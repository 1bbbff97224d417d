#include "io/snapshot_reader.hpp"

#include <cstring>
#include <deque>
#include <set>

#include <tbb/parallel_for.h>

#include "io/block_kinds.hpp"
#include "io/cluster_builder.hpp"
#include "io/ge_value.hpp"
#include "io/job_reader.hpp"
#include "io/line_cursor.hpp"
#include "io/maui_config_reader.hpp"
#include "io/quota_set_reader.hpp"
#include "io/tuning.hpp"
#include "io/untrusted_text.hpp"
#include "kernel/model/array_task_limit.hpp"

namespace schedk::io {
namespace {

std::pair<std::string_view, std::string_view> FirstWord(std::string_view line) {
  line = Trim(line);
  std::size_t i = 0;
  while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
  return {line.substr(0, i), Trim(line.substr(i))};
}

// Whether a trimmed line is a job record: "job" and a blank. The fixed-size
// comparison compiles to a few loads, where comparing prefixes of a
// line's length called memcmp for each of a million lines.
bool StartsJobRecord(std::string_view line) {
  return line.size() > 3 && std::memcmp(line.data(), "job", 3) == 0 && (line[3] == ' ' || line[3] == '\t');
}

// The snapshot's structure: blocks, records and runs of job lines, read line
// by line (Step) in file order. Read walks every line; ReadSegments walks only
// the lines a parallel scan could not vouch for (its twin).
class StructureReader {
 public:
  StructureReader(std::string_view text, Snapshot& s) : text_(text), s_(s), cursor_(text, 0) {}

  // The reference: every physical line in order, runs cut every kLinesPerChunk lines.
  Status Read();
  // The same structure from segments of about `segment_bytes` scanned in
  // parallel; runs are cut where a segment begins instead (the chunks differ,
  // the job lines in them do not).
  Status ReadSegments(std::size_t segment_bytes);
  std::vector<JobChunk>& chunks() { return chunks_; }
  std::vector<UsageLine>& usage() { return usage_; }
  std::vector<LoadLine>& loads() { return loads_; }
  std::vector<HostStateLine>& host_states() { return host_states_; }
  bool has_now() const { return has_now_; }

 private:
  // A stretch of the text between line starts [begin, end), its lines, and
  // the lines in it that Step must read: all but job records and the blank
  // and comment lines after them (each line with its continuations).
  struct Segment {
    std::size_t begin = 0, end = 0;
    int lines = 0;
    std::vector<std::pair<std::size_t, int>> read;  // offset, line number within the segment
  };
  static std::vector<Segment> CutSegments(std::string_view text, std::size_t segment_bytes);
  static void ScanSegment(std::string_view text, Segment& segment);
  // The lines of [begin, end) that no scan listed, `line_before` the number of
  // the line before them: a run of job lines, unless a block is open or the
  // header has not come, when Step reads each.
  Status Unlisted(std::size_t begin, std::size_t end, int line_before);

  // Ends the current run of job lines just before `end` (a byte offset); an
  // empty run makes no chunk.
  void CloseJobRun(std::size_t end) {
    if (run_start_ != std::string_view::npos && end > run_start_) {
      chunks_.push_back({text_.substr(run_start_, end - run_start_), run_first_line_});
    }
    run_start_ = std::string_view::npos;
  }
  Status Error(int line, std::string message) const { return Status::InvalidInput(s_.source, line, std::move(message)); }
  // One physical line just read by cursor_ (and the continuations it pulls in).
  Status Step(std::string_view physical);
  Status Record(std::string_view line, int line_no);
  // After the last of `lines` lines.
  Status Finish(int lines);

  std::string_view text_;
  Snapshot& s_;
  LineCursor cursor_;
  std::deque<std::string> storage_;  // joined continuation lines
  std::vector<JobChunk> chunks_;
  std::size_t run_start_ = std::string_view::npos;
  int run_first_line_ = 0;
  int run_lines_ = 0;
  bool header_ = false;
  ObjectBlock* block_ = nullptr;  // the block open, if any
  std::set<std::pair<std::string, std::string>> objects_;
  std::vector<UsageLine> usage_;
  std::vector<LoadLine> loads_;
  std::vector<HostStateLine> host_states_;
  bool has_now_ = false;
};

Status StructureReader::Record(std::string_view line, int line_no) {
  const auto [word, rest] = FirstWord(line);
  if (word == "now") {
    if (has_now_) return Error(line_no, "duplicate object: 'now' is given twice");
    auto t = ParseTime(rest);
    if (!t) return Error(line_no, "now: expected epoch seconds or ISO-8601 with Z or an offset, not " + Quote(rest));
    s_.cluster.now = *t;
    has_now_ = true;
  } else if (word == "load") {
    const auto [host, values] = FirstWord(rest);
    if (host.empty() || values.empty()) return Error(line_no, "load: expected 'load <host> name=value[,...]'");
    loads_.push_back({line_no, std::string(host), std::string(values)});
  } else if (word == "usage") {
    const auto [kind, after_kind] = FirstWord(rest);
    const auto [name, after_name] = FirstWord(after_kind);
    std::optional<UsageKind> usage_kind;
    for (UsageKind k : {UsageKind::kUser, UsageKind::kProject, UsageKind::kGroup, UsageKind::kQos, UsageKind::kClass}) {
      if (kind == UsageKindName(k)) usage_kind = k;
    }
    if (!usage_kind || name.empty()) {
      return Error(line_no,
                   "usage: expected 'usage user|project|group|qos|class <name> cpu=<s>,mem=<GBs>,io=<GB> [project=<p>] "
                   "[at=<time>]'");
    }
    UsageLine u{line_no, *usage_kind, std::string(name), "", "", 0};
    std::string_view tail = after_name;
    while (!tail.empty()) {
      const auto [token, more] = FirstWord(tail);
      tail = more;
      if (token.substr(0, 8) == "project=") {
        if (u.kind != UsageKind::kUser) return Error(line_no, "usage: project= is only for user usage");
        u.project = std::string(token.substr(8));
      } else if (token.substr(0, 3) == "at=") {
        auto t = ParseTime(token.substr(3));
        if (!t) return Error(line_no, "usage: at: expected a time, not " + Quote(token.substr(3)));
        u.at = *t;
      } else if (u.values.empty()) {
        u.values = std::string(token);
      } else {
        return Error(line_no, "usage: unexpected " + Quote(token));
      }
    }
    usage_.push_back(std::move(u));
  } else if (word == "hoststate") {
    const auto [host, state] = FirstWord(rest);
    if (host.empty() || (state != "up" && state != "down")) {
      return Error(line_no, "hoststate: expected 'hoststate <host> up|down'");
    }
    host_states_.push_back({line_no, std::string(host), state == "down"});
  } else if (word == "end") {
    return Error(line_no, "'end' without a matching 'begin'");
  } else {
    return Error(line_no, "unknown record " + Quote(word) + " (expected " + LineStarts() + ")");
  }
  return Status::Ok();
}

Status StructureReader::Step(std::string_view physical) {
  const int line_no = cursor_.line();
  const std::string_view trimmed = Trim(physical);
  const bool in_run = run_start_ != std::string_view::npos;
  // Fast path: job lines, and comments or blank lines between them.
  if (header_ && block_ == nullptr &&
      (StartsJobRecord(trimmed) || (in_run && (trimmed.empty() || trimmed.front() == '#')))) {
    if (!in_run || run_lines_ >= tuning::kLinesPerChunk) {
      CloseJobRun(cursor_.line_start());
      run_start_ = cursor_.line_start();
      run_first_line_ = line_no;
      run_lines_ = 0;
    }
    ++run_lines_;
    // Continuation lines belong to the same record (and chunk).
    std::string_view p = physical;
    while (!p.empty() && p.back() == '\\' && cursor_.NextPhysical(p)) ++run_lines_;
    return Status::Ok();
  }
  CloseJobRun(cursor_.line_start());
  const std::string_view line = Trim(cursor_.Logical(physical, storage_));
  if (const std::size_t bad = FindNonText(line); bad != std::string_view::npos) {
    return Error(line_no, NonTextMessage(line, bad) + " (the input must be UTF-8 text)");
  }
  if (line.empty() || line.front() == '#') return Status::Ok();
  if (!header_) {
    if (line != "schedk-snapshot 1") {
      return Error(line_no, "not a schedk snapshot: the first line is not the header 'schedk-snapshot 1'");
    }
    header_ = true;
    return Status::Ok();
  }
  const auto [word, rest] = FirstWord(line);
  if (block_ != nullptr) {
    if (word == "end") {
      if (!rest.empty() && rest != block_->kind) {
        return Error(line_no, "'end' " + Quote(rest) + " closes a " + Quote(block_->kind) + " block");
      }
      block_ = nullptr;
      return Status::Ok();
    }
    if (word == "begin") {
      return Error(line_no, "'begin' inside the " + Quote(block_->kind) + " block opened on line " +
                                std::to_string(block_->line));
    }
    block_->attributes.push_back({std::string(word), std::string(rest), line_no});
    return Status::Ok();
  }
  if (word == "begin") {
    const auto [kind, name_rest] = FirstWord(rest);
    const auto [name, extra] = FirstWord(name_rest);
    const BlockKind* k = FindBlockKind(kind);
    if (k == nullptr) return Error(line_no, "unknown block kind " + Quote(kind));
    if (k->named && name.empty()) return Error(line_no, "begin " + std::string(kind) + ": the object needs a name");
    if (!k->named && !name.empty()) return Error(line_no, "begin " + std::string(kind) + ": takes no name");
    if (!extra.empty()) return Error(line_no, "begin: unexpected " + Quote(extra));
    if (kind == "hostgroup" && name.front() != '@') return Error(line_no, "hostgroup names start with '@'");
    if (!objects_.insert({std::string(kind), std::string(name)}).second) {
      return Error(line_no, "duplicate object: " + std::string(kind) + (name.empty() ? "" : " ") + std::string(name) +
                                " is defined twice");
    }
    s_.blocks.push_back(ObjectBlock{std::string(kind), std::string(name), line_no, {}, {}, ""});
    block_ = &s_.blocks.back();
    return Status::Ok();
  }
  return Record(line, line_no);
}

Status StructureReader::Finish(int lines) {
  CloseJobRun(text_.size());
  if (block_ != nullptr) return Error(block_->line, "'begin " + block_->kind + "' has no matching 'end'");
  if (!header_) return Error(std::max(lines, 1), "empty input: expected the header 'schedk-snapshot 1'");
  return Status::Ok();
}

Status StructureReader::Read() {
  std::string_view physical;
  while (cursor_.NextPhysical(physical)) {
    if (Status st = Step(physical); !st.ok()) return st;
  }
  return Finish(cursor_.line());
}

// Segments end at a line's start, never inside a record continued by "\\".
std::vector<StructureReader::Segment> StructureReader::CutSegments(std::string_view text, std::size_t segment_bytes) {
  std::vector<Segment> segments;
  std::size_t begin = 0;
  while (begin < text.size()) {
    std::size_t end = std::min(text.size(), begin + std::max<std::size_t>(segment_bytes, 1));
    // On to the start of the line after the one holding byte end - 1, past continued lines.
    for (std::size_t from = end - 1; end < text.size(); from = end) {
      const std::size_t newline = text.find('\n', from);
      if (newline == std::string_view::npos) {
        end = text.size();
        break;
      }
      end = newline + 1;
      std::size_t last = newline;  // one past the physical line's last byte, without its "\r"
      if (last > 0 && text[last - 1] == '\r') --last;
      if (last == 0 || text[last - 1] != '\\') break;
    }
    segments.push_back({begin, end, 0, {}});
    begin = end;
  }
  return segments;
}

void StructureReader::ScanSegment(std::string_view text, Segment& segment) {
  LineCursor cursor(text.substr(segment.begin, segment.end - segment.begin), 0);
  bool after_job = false;  // the previous line is a job record, or a blank or comment line after one
  std::string_view physical;
  while (cursor.NextPhysical(physical)) {
    const std::string_view trimmed = Trim(physical);
    after_job = StartsJobRecord(trimmed) || (after_job && (trimmed.empty() || trimmed.front() == '#'));
    if (!after_job) segment.read.emplace_back(segment.begin + cursor.line_start(), cursor.line());
    // Its continuation lines are part of the same record: passed over.
    while (!physical.empty() && physical.back() == '\\' && cursor.NextPhysical(physical)) continue;
  }
  segment.lines = cursor.line();
}

Status StructureReader::Unlisted(std::size_t begin, std::size_t end, int line_before) {
  if (begin >= end) return Status::Ok();
  if (header_ && block_ == nullptr) {  // Step would take each line on its fast path
    if (run_start_ == std::string_view::npos) {
      run_start_ = begin;
      run_first_line_ = line_before + 1;
      run_lines_ = 0;
    }
    return Status::Ok();
  }
  cursor_.Seek(begin, line_before);
  std::string_view physical;
  while (cursor_.pos() < end && cursor_.NextPhysical(physical)) {
    if (Status st = Step(physical); !st.ok()) return st;
  }
  return Status::Ok();
}

Status StructureReader::ReadSegments(std::size_t segment_bytes) {
  std::vector<Segment> segments = CutSegments(text_, segment_bytes);
  tbb::parallel_for(std::size_t{0}, segments.size(), [&](std::size_t k) { ScanSegment(text_, segments[k]); });
  int line_before = 0;  // lines before the segment
  std::string_view physical;
  for (const Segment& segment : segments) {
    if (run_start_ != std::string_view::npos) {  // the run goes on in a chunk of its own
      CloseJobRun(segment.begin);
      run_start_ = segment.begin;
      run_first_line_ = line_before + 1;
      run_lines_ = 0;
    }
    std::size_t pos = segment.begin;
    int line = line_before;
    for (const auto& [offset, line_in_segment] : segment.read) {
      if (Status st = Unlisted(pos, offset, line); !st.ok()) return st;
      cursor_.Seek(offset, line_before + line_in_segment - 1);
      cursor_.NextPhysical(physical);
      if (Status st = Step(physical); !st.ok()) return st;
      pos = cursor_.pos();
      line = cursor_.line();
    }
    if (Status st = Unlisted(pos, segment.end, line); !st.ok()) return st;
    line_before += segment.lines;
  }
  return Finish(line_before);
}

}  // namespace

Result<ObjectBlock> ReadObjectBlock(const std::string& kind, const std::string& name, std::string_view body,
                                    const std::string& source) {
  auto error = [&](int line, std::string message) { return Status::InvalidInput(source, line, std::move(message)); };
  const BlockKind* k = FindBlockKind(kind);
  if (k == nullptr) return error(0, "unknown block kind " + Quote(kind));
  if (k->named && name.empty()) return error(0, "begin " + kind + ": the object needs a name");
  if (!k->named && !name.empty()) return error(0, "begin " + kind + ": takes no name");
  if (kind == "hostgroup" && name.front() != '@') return error(0, "hostgroup names start with '@'");
  ObjectBlock block{kind, name, 0, {}, {}, ""};
  std::deque<std::string> storage;
  LineCursor cursor(body, 0);
  std::string_view physical;
  while (cursor.NextPhysical(physical)) {
    const int line_no = cursor.line();
    const std::string_view line = Trim(cursor.Logical(physical, storage));
    if (line.empty() || line.front() == '#') continue;
    const auto [word, rest] = FirstWord(line);
    if (word == "begin" || word == "end") return error(line_no, Quote(word) + " inside the " + Quote(kind) + " block");
    block.attributes.push_back({std::string(word), std::string(rest), line_no});
  }
  return block;
}

Result<SnapshotParts> ReadSnapshotParts(std::string_view text, const std::string& source, Twin twin,
                                        std::size_t segment_bytes) {
  SnapshotParts parts;
  Snapshot& s = parts.snapshot;
  s.source = source == "-" ? "<stdin>" : source;
  StructureReader structure(text, s);
  if (Status st = twin == Twin::kReference ? structure.Read() : structure.ReadSegments(segment_bytes); !st.ok()) {
    return st;
  }
  if (!structure.has_now()) return Status::InvalidInput(s.source, 0, "the snapshot has no 'now <time>' record");
  ClusterBuilder builder(s);
  if (Status st = builder.Build(); !st.ok()) return st;
  if (Status st = builder.ApplyLoad(structure.loads()); !st.ok()) return st;
  if (Status st = builder.ApplyHostStates(structure.host_states()); !st.ok()) return st;
  parts.job_chunks = std::move(structure.chunks());
  parts.usage = std::move(structure.usage());
  parts.loads = std::move(structure.loads());
  parts.host_states = std::move(structure.host_states());
  return parts;
}

Status CompleteSnapshot(Snapshot& s, const std::vector<JobSource>& jobs, const std::vector<UsageLine>& usage,
                        bool check_rows, RequestCache* cache) {
  ClusterBuilder builder(s);
  if (Status st = AddJobs(jobs, builder, s, check_rows, cache); !st.ok()) return st;
  s.cluster.host_names.assign(s.names.hosts.size(), {});
  for (std::uint32_t h = 0; h < s.names.hosts.size(); ++h) s.cluster.host_names[h] = s.names.hosts.Name(h);
  s.cluster.queue_names.assign(s.names.queues.size(), {});
  for (std::uint32_t q = 0; q < s.names.queues.size(); ++q) s.cluster.queue_names[q] = s.names.queues.Name(q);
  const auto sources = LimitArrayTasks(s.jobs, s.cluster.config.max_aj_instances);
  for (std::size_t shard = 0; shard < sources.size(); ++shard) {
    if (sources[shard].empty()) continue;
    std::vector<int> lines(sources[shard].size());
    for (std::size_t r = 0; r < lines.size(); ++r) lines[r] = s.job_lines[shard][sources[shard][r]];
    s.job_lines[shard] = std::move(lines);
  }
  if (Status st = builder.FinishUsers(usage); !st.ok()) return st;
  if (Status st = builder.BuildShareTree(); !st.ok()) return st;
  if (Status st = BuildQuotaSets(s, builder); !st.ok()) return st;
  return BuildMauiConfig(s, builder, usage);
}

Result<Snapshot> ReadSnapshot(std::string_view text, const std::string& source) {
  auto parts = ReadSnapshotParts(text, source);
  if (!parts.ok()) return parts.status();
  Snapshot& s = parts->snapshot;
  const std::vector<ParsedChunk> parsed = ParseJobChunks(parts->job_chunks, s.source);
  for (const ParsedChunk& r : parsed) {
    if (r.error) return *r.error;  // chunks are in file order, so this is the earliest error
  }
  std::vector<JobSource> sources;
  for (const ParsedChunk& r : parsed) sources.push_back({&r.names, r.jobs});
  if (Status st = CompleteSnapshot(s, sources, parts->usage, true); !st.ok()) return st;
  return std::move(s);
}

Result<Snapshot> ReadSnapshotFile(const std::string& path) {
  auto text = ReadFileText(path);
  if (!text.ok()) return text.status();
  return ReadSnapshot(text.value().view(), path);
}

}  // namespace schedk::io
