// session_state.hpp
// The whole state of a `schedk serve` session: the configuration (object
// blocks in definition order, the clock, load values, host states, usage
// records), the cluster built from it, and the live jobs (live_jobs.hpp). Every
// operation validates first and applies only if everything is valid: a refused
// one changes nothing. View() assembles a complete Snapshot for a pass without
// re-reading any text; Dump() writes the state as a snapshot that loads back to
// the same state and digest.
// Thread safety: job operations may run from several threads at once (each
// locks the shard of its job); configuration changes, loads and the clock are
// exclusive. View() takes the shards at one instant and then reads them
// without blocking job updates, except those that intern a new name, which
// wait until it has resolved the names (a walk over the jobs' name ids); the
// pass that follows (priorities, dispatch) blocks nothing.
// Invariants: `base_` is the cluster of `config_`, and every job row resolves
// against it (a configuration change that would strand a job is refused);
// generation() counts the changes applied.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "io/session/ingest_stage.hpp"
#include "io/session/live_jobs.hpp"
#include "io/session/session_error.hpp"
#include "io/snapshot_reader.hpp"
#include "io/status.hpp"
#include "kernel/dispatch/queue_instances.hpp"
#include "kernel/dispatch/schedule_result.hpp"

namespace schedk::io {

// A job id in a request: a job, or one task of it.
struct TaskSelector {
  JobNumber job = 0;
  std::optional<TaskNumber> task;
};
std::optional<TaskSelector> ParseTaskSelector(std::string_view text);

// A `key=value` argument of a request.
struct KeyValue {
  std::string key;
  std::string value;
};

// A record of SessionState::AddJobs that was refused, and why.
struct RecordRefusal {
  std::size_t record = 0;
  SessionError error;
};

// Counts and the canonical hash for `digest`.
struct StateDigest {
  std::uint64_t generation = 0;
  std::size_t jobs = 0, tasks = 0, objects = 0;
  std::uint64_t hash = 0;
};

class SessionState {
 public:
  SessionState();

  std::uint64_t generation() const { return generation_.load(); }

  // --- the whole state ---
  // Replaces everything with a snapshot text; `source` names it in messages.
  SessionStatus Load(std::string_view text, const std::string& source);

  // --- objects ---
  // Adds or replaces one object block (body: its attribute lines).
  SessionStatus PutObject(const std::string& kind, const std::string& name, std::string_view body);
  SessionStatus DeleteObject(const std::string& kind, const std::string& name);

  // --- hosts and clock ---
  SessionStatus SetLoad(const std::string& host, std::string_view values);
  SessionStatus SetHostState(const std::string& host, bool down);
  SessionStatus SetClock(Time now);
  SessionStatus Advance(Duration d);
  Time now() const;

  // --- jobs ---
  // `record`: "job <id> key=value ..." as in a snapshot.
  SessionStatus AddJob(std::string_view record);
  // Adds many records as AddJob would add them one after the other, on every
  // core; returns the refused ones in record order, with AddJob's refusals.
  // The records are parsed in parallel chunks, their names interned in record
  // order, and the rows checked and inserted shard by shard; `stages` (may
  // be null) hears where each of these steps begins (ingest_stage.hpp).
  std::vector<RecordRefusal> AddJobs(std::span<const std::string_view> records, const IngestListener* stages = nullptr);
  // A job id changes job keys; a task id takes enrolled= alone.
  SessionStatus ModJob(const TaskSelector& id, const std::vector<KeyValue>& changes);
  SessionStatus DeleteJob(const TaskSelector& id);
  SessionStatus Hold(const TaskSelector& id);
  SessionStatus Release(const TaskSelector& id);
  SessionStatus Run(const TaskSelector& id, std::optional<Time> start, const std::string& granted);
  SessionStatus Fail(const TaskSelector& id);
  SessionStatus Suspend(const TaskSelector& id);
  SessionStatus Resume(const TaskSelector& id);
  SessionStatus Finish(const TaskSelector& id, std::optional<Time> at, const std::string& usage);
  bool HasJob(JobNumber job) const;

  // Books a pass's starts as assumed: each started task runs from now on the
  // granted queue instances until the master confirms (Run) or refuses (Fail).
  // `view` is the snapshot the pass ran on.
  SessionStatus Assume(const Snapshot& view, const ScheduleResult& result, const QueueInstanceTable& instances);

  // --- reading ---
  // A complete snapshot of the state now, for a pass.
  Result<Snapshot> View() const;
  // The state in snapshot syntax, one line per element; kind/name narrow it
  // to one kind of object or record ("job" with a name: one job).
  SessionStatus Dump(const std::string& kind, const std::string& name, std::vector<std::string>& lines) const;
  StateDigest Digest() const;

 private:
  SessionStatus ModTask(const TaskSelector& id, const std::vector<KeyValue>& changes);
  struct LoadEntry {
    std::string host;
    std::vector<std::pair<std::string, std::string>> values;  // name, value text, first-set order
  };
  struct Config {
    Time now = 0;
    std::vector<ObjectBlock> blocks;  // definition order
    std::vector<LoadEntry> loads;     // first-report order
    std::vector<std::pair<std::string, bool>> host_states;  // host, down; first-report order
    std::vector<UsageLine> usage;
  };
  // The configuration as snapshot text (no jobs).
  static std::string ConfigText(const Config& config);
  // Builds the cluster of `config` and checks every job against it; on success
  // `config` and its cluster replace the current ones.
  SessionStatus Rebuild(Config config, const std::string& what);
  // Checks a parsed row's references against the cluster (caller holds the config lock).
  Reason CheckRow(const ParsedJob& row) const;
  // CheckRow's lookups without its locks: resolves `row`'s request set into
  // `set` and checks its other references (the caller reads `names`).
  Reason ResolveRow(const ParsedJob& row, const JobNameSpace& names, RequestSet& set) const;
  // CheckRow for InsertByShard's rows (`first`, `by_shard` as it sorts them;
  // `refused` per shard, added to), shard by shard in parallel, the checked
  // marks and the names locked once for all rather than per row; the sets
  // resolved and the marks go in once they are done. Returns per record
  // whether its row passed (0 where null).
  std::vector<std::uint8_t> CheckRows(std::span<ParsedJob* const> rows, std::span<const std::size_t> first,
                                      std::span<const std::size_t> by_shard,
                                      std::vector<std::vector<RecordRefusal>>& refused,
                                      const IngestListener* stages) const;
  // The second half of AddJobs: `rows` (by record, with the session's name
  // ids, null where refused already; `shards` their jobs' shards) are checked
  // and inserted shard by shard in parallel, each shard's in record order, so a
  // job number given twice is refused the second time, as it would be one
  // request after the other. Returns the refusals, in no particular order.
  std::vector<RecordRefusal> InsertByShard(std::span<ParsedJob* const> rows, std::span<const std::uint32_t> shards,
                                           const IngestListener* stages);
  // Whether CheckRow has nothing to look up: `row`'s request set and project
  // were checked before and it names nothing else (caller holds checked_mutex_).
  bool KnownRow(const ParsedJob& row) const;
  // Parses `record` into a row with the session's names.
  Reason ParseRow(std::string_view record, ParsedJob& row);
  // Applies a task-level change under the job's shard lock.
  using TaskChange = std::function<std::optional<SessionError>(std::vector<ParsedJob>& rows)>;
  SessionStatus ChangeJob(const TaskSelector& id, const TaskChange& change);
  // Adds a finished row's usage to the records in `usage` (a copy of config_.usage).
  SessionStatus AddFinishedUsage(const ParsedJob& finished, const std::vector<UsageValue>& added, Time when,
                                 std::vector<UsageLine>& usage) const;
  // Moves the selected tasks in state `from` to `to`; `nothing`: the 409 message when there are none.
  SessionStatus Transition(const TaskSelector& id, JobState from, JobState to, const char* nothing);
  void Changed() { generation_.fetch_add(1); }

  mutable std::shared_mutex config_mutex_;  // exclusive: configuration, clock, loads; shared: jobs, views
  Config config_;
  SnapshotParts base_;  // the cluster of config_ (no jobs)
  std::shared_ptr<LiveJobs> jobs_ = std::make_shared<LiveJobs>();
  mutable std::mutex checked_mutex_;
  mutable std::vector<std::uint8_t> request_checked_;  // per request key id: checked against base_
  mutable std::vector<std::uint8_t> project_checked_;  // per project name id: exists in base_
  mutable RequestCache request_cache_;                 // request sets resolved against base_
  std::atomic<std::uint64_t> generation_{0};
};

}  // namespace schedk::io
