// job_reader.hpp
// Reads the `job` records of a snapshot (docs/protocol.md §1.2) into the kernel's
// sharded JobTable. Job lines are independent, so chunks of them are parsed in
// parallel (job_line.hpp), each with its own name space; AddJobs then merges
// the distinct names (sequentially, they are few), numbers the request
// combinations by first use (in parallel: one per job, often), resolves them
// against the cluster and scatters the rows into their shards in parallel. The session's live job store hands its rows to AddJobs the same
// way, one source per shard over one name space. Errors carry file:line and
// the key; when several chunks fail, the earliest line is reported, so the
// message does not depend on the thread count. Nothing is added to the
// snapshot unless every job line is valid.
#pragma once

#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "io/cluster_builder.hpp"
#include "io/job_line.hpp"
#include "io/snapshot.hpp"
#include "io/status.hpp"

namespace schedk::io {

// A run of consecutive job lines (comments and blank lines may be mixed in).
struct JobChunk {
  std::string_view text;
  int first_line = 0;
};

// One chunk's rows in line order, its names, and its first error.
struct ParsedChunk {
  std::vector<ParsedJob> jobs;
  JobNameSpace names;
  std::optional<Status> error;
};

// Parsed rows and the name space their ids point into.
struct JobSource {
  const JobNameSpace* names = nullptr;
  std::span<const ParsedJob> jobs;
};

// Parses the chunks in parallel (syntax only); each result carries its own error.
std::vector<ParsedChunk> ParseJobChunks(const std::vector<JobChunk>& chunks, const std::string& source);

// Resolves a request key (JobNameSpace::requests) against the snapshot's
// cluster into `set`: the error is what AddJobs would report for the first
// row using it.
Reason ResolveRequestKey(std::string_view key, const ClusterBuilder& builder,
                                             const Snapshot& snapshot, RequestSet& set);
// The same check, the set discarded.
Reason CheckRequestKey(std::string_view key, const ClusterBuilder& builder, const Snapshot& snapshot);

// Checks one row's other references (project, department, granted queue
// instances and master, numeric hold_jid ids) as AddJobs resolves them.
Reason CheckJobReferences(const ParsedJob& job, const JobNameSpace& names, const Snapshot& snapshot);

// Request sets already resolved against one cluster, by the request key ids
// of one name space: a session keeps one per configuration, so a pass parses
// each combination once. Safe to share between passes running at once.
class RequestCache {
 public:
  using Parse = std::function<Reason(std::string_view key, RequestSet& set)>;
  // `sets` becomes one set per key id of `space`: parsed (once) for the ids
  // marked in `used`, empty for the others. On a parse error returns the id
  // and the message.
  std::optional<std::pair<std::uint32_t, std::string>> Fill(const JobNameSpace& space,
                                                            const std::vector<std::uint8_t>& used, const Parse& parse,
                                                            std::vector<RequestSet>& sets);
  // Keeps `set`, resolved elsewhere (a session checking a new job), for key
  // id `id` of `space`, so that the next Fill does not parse it again.
  void Put(const JobNameSpace& space, std::uint32_t id, RequestSet set);
  // Put for every (id, set) of every list, under one lock, the lists on every
  // core. Contract: no id occurs twice among them.
  using Found = std::vector<std::pair<std::uint32_t, RequestSet>>;
  void PutAll(const JobNameSpace& space, std::span<Found> lists);
  void Clear();

 private:
  // The sets are of `space`'s key ids: another space's drops them (caller holds the lock).
  void UseSpace(const JobNameSpace& space);

  std::mutex mutex_;
  const JobNameSpace* space_ = nullptr;
  std::deque<std::optional<RequestSet>> sets_;  // grows without moving the sets it holds
};

// Resolves the rows against the snapshot's cluster (projects, departments,
// requests, granted queue instances, hold_jid) and fills its JobTable, which
// must be empty. `check_rows`: also check that the rows of one job agree and
// do not share a task (a caller that keeps them so may skip it). `cache`, if
// given, must belong to this cluster's configuration; the sources must then
// share one name space, whose request key ids become the request set ids.
Status AddJobs(const std::vector<JobSource>& sources, const ClusterBuilder& builder, Snapshot& snapshot,
               bool check_rows, RequestCache* cache = nullptr);

}  // namespace schedk::io
