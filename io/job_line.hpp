// job_line.hpp
// One `job` record (docs/protocol.md §1.2) parsed without looking at the cluster:
// a ParsedJob holds the record's numbers and flags, and ids for its names and
// texts in a JobNameSpace. The snapshot reader parses chunks of lines in
// parallel, each with its own name space; the session's live job store keeps
// one name space for the whole session. RenderJobLine writes the canonical
// record back: parsing it gives the same ParsedJob.
// Invariant: a ParsedJob's ids index the name space it was parsed with (whose
// tables keep their ids: io/job_names.hpp).
#pragma once

#include <cstdint>
#include <deque>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "io/job_names.hpp"
#include "io/status.hpp"
#include "kernel/model/job_table.hpp"

namespace schedk::io {

inline constexpr std::uint32_t kNoName = std::numeric_limits<std::uint32_t>::max();

// The tables a ParsedJob's ids point into. `requests` holds request keys: the
// texts of l_hard, l_soft, q_hard, q_soft, pe_name, pe_min, pe_max and masterq joined
// by '\x1f' (RequestKeyPart splits them again); `texts` holds the granted,
// master and hold_jid values.
struct JobNameSpace {
  JobNames owners, groups, projects, departments, job_names, requests, texts, qos;
};

struct ParsedJob;

// The ids of one name space's names in another. Merging the name spaces of
// consecutive chunks into one, in chunk order and each in id order, gives
// every name the id that parsing all their lines with the one would have.
class NameMapping {
 public:
  // One mapping per space of `from`, in order; the tables merge in parallel.
  static std::vector<NameMapping> Merge(std::span<const JobNameSpace* const> from, JobNameSpace& into);
  // Re-points `row`'s ids (parsed with its space) into the merged one.
  void Repoint(ParsedJob& row) const;

 private:
  static constexpr int kTables = 8;
  std::vector<std::uint32_t> ids_[kTables];
};

enum class RequestPart : std::uint8_t { kHard, kSoft, kQueueHard, kQueueSoft, kPeName, kPeMin, kPeMax, kQueueMaster };
inline constexpr int kRequestParts = 8;
std::string_view RequestKeyPart(std::string_view key, RequestPart part);

struct ParsedJob {
  int line = 0;
  JobNumber number = 0;
  TaskNumber first = 1, last = 1, step = 1;
  bool task_range_given = false;
  JobState state = JobState::kPending;
  std::int16_t posix_priority = 0;
  std::uint8_t flags = 0;  // JobFlags
  bool has_submit = false;
  bool has_start = false;
  bool assumed = false;  // session: a start the master has not confirmed yet (key assumed=y)
  Time submit = 0;
  std::uint32_t jobshare = 0;
  std::uint32_t oticket = 0;
  std::uint32_t owner = kNoName, group = kNoName, project = kNoName, department = kNoName, name = kNoName;
  std::uint32_t requests = kNoName;
  Time deadline = 0;
  Time start = 0;
  Duration runtime = -1;
  std::uint32_t granted = kNoName, master = kNoName, hold_jid = kNoName;  // in `texts`
  std::uint32_t qos = kNoName;  // in `qos`
  Time eligible = 0;            // 0: since submission
  std::uint32_t bypass = 0;
  std::uint32_t task_concurrency = 0;  // qsub -tc; 0: none

  std::uint32_t task_count() const { return (last - first) / step + 1; }
  bool running() const { return state == JobState::kRunning || state == JobState::kSuspended; }
};

// A key=value token of a record; the first tokens of a line may be bare words.
struct JobToken {
  std::string_view key;
  std::string_view value;
  bool bare = false;  // no '=': a word such as "job" or the id
};

// Splits a line into tokens: bare words first, then key=value with optional
// double-quoted values (\" and \\ escapes; unescaped text goes to `storage`).
Reason TokenizeRecord(std::string_view line, std::vector<JobToken>& tokens,
                                          std::deque<std::string>& storage);

// Parses a job id `n[.first[-last[:step]]]` into number and task range.
Reason ParseJobId(std::string_view text, ParsedJob& job);

// Parses the key=value tokens of one job record (after "job <id>") into `job`,
// interning its names into `names`; returns what is wrong, naming the key.
// Checks the record on its own (owner given, PE keys together, running rows
// with one task, start and granted), not against the cluster.
Reason ParseJobKeys(const std::vector<JobToken>& tokens, std::size_t first_key, int line_no,
                                        JobNameSpace& names, ParsedJob& job);

// Parses a whole `job <id> key=value ...` line.
Reason ParseJobLine(std::string_view line, int line_no, JobNameSpace& names,
                                        std::vector<JobToken>& tokens, std::deque<std::string>& storage,
                                        ParsedJob& job);

// The id as written in records: "n", or "n.first[-last[:step]]" for a task range.
std::string JobIdText(const ParsedJob& job);

// Appends the canonical record `job <id> key=value ...` (no newline): keys in
// protocol order, values quoted where they need it, defaults left out.
void RenderJobLine(const ParsedJob& job, const JobNameSpace& names, std::string& out);

// Appends `key=value` with the value quoted when it holds blanks, quotes or backslashes.
void AppendKeyValue(std::string& out, std::string_view key, std::string_view value);

}  // namespace schedk::io
