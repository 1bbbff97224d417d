// test_support.hpp
// Helpers shared by the tests: loading and generating snapshot text, gzip, finding a
// task's row in a priority result, comparing interval results, and the paths of
// the source tree and the schedk binary.
#pragma once

#include <gtest/gtest.h>
#include <zlib.h>

#include <string>
#include <tuple>

#include "io/snapshot_generator.hpp"
#include "io/snapshot_reader.hpp"
#include "kernel/dispatch/schedule_result.hpp"
#include "kernel/priority/priority.hpp"

namespace schedk::testing {

// A file's bytes ("" when it cannot be read).
inline std::string ReadText(const std::string& path) {
  auto text = io::ReadWholeFile(path);
  return text.ok() ? std::move(text.value()) : std::string();
}

// Parses snapshot text; fails the test (and returns an empty snapshot) on error.
inline io::Snapshot Load(const std::string& text) {
  auto s = io::ReadSnapshot(text, "test.snap");
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  if (!s.ok()) return io::Snapshot{};
  return std::move(s).value();
}

// The text `schedk generate` writes for `spec`.
inline std::string GeneratedText(const io::GeneratorSpec& spec) {
  std::string text;
  EXPECT_TRUE(io::GenerateSnapshot(spec, [&](std::string_view piece) {
    text += piece;
    return true;
  }));
  return text;
}

// The status of reading `text`, for bad-input tests.
inline io::Status LoadError(const std::string& text) {
  auto s = io::ReadSnapshot(text, "bad.snap");
  return s.ok() ? io::Status::Ok() : s.status();
}

struct Row {
  TaskPriority values;
  std::size_t position = 0;  // in dispatch order
};

// `text` compressed with gzip framing, as a .swf.gz file holds it.
inline std::string Gzip(const std::string& text) {
  z_stream z{};
  deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);  // 15 + 16: gzip framing
  std::string out(deflateBound(&z, static_cast<uLong>(text.size())) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

// The values shown for job `job`, task `task`.
inline Row Find(const io::Snapshot& s, const PriorityResult& r, JobNumber job, TaskNumber task = 1) {
  const RowIndex index(s.jobs);
  for (std::size_t i = 0; i < r.order.size(); ++i) {
    const DispatchEntry& e = r.order[i];
    if (s.jobs.shards()[index.shard(e.row)].number[index.row(e.row)] == job && e.task == task) {
      return {r.Values(s.cluster, s.jobs, index, e), i};
    }
  }
  ADD_FAILURE() << "job " << job << "." << task << " not in the result";
  return {};
}

// Whether two intervals decided the same: decisions, grants and monitor lines, field by field.
inline bool SameSchedule(const ScheduleResult& a, const ScheduleResult& b) {
  if (a.decisions.size() != b.decisions.size() || a.grants.size() != b.grants.size() ||
      a.monitor.size() != b.monitor.size()) {
    return false;
  }
  for (std::size_t i = 0; i < a.decisions.size(); ++i) {
    const Decision &x = a.decisions[i], &y = b.decisions[i];
    if (std::tie(x.job, x.task, x.kind, x.at, x.duration, x.slots, x.pe, x.reason, x.never, x.object) !=
        std::tie(y.job, y.task, y.kind, y.at, y.duration, y.slots, y.pe, y.reason, y.never, y.object)) {
      return false;
    }
  }
  for (std::size_t i = 0; i < a.grants.size(); ++i) {
    if (a.grants[i].instance != b.grants[i].instance || a.grants[i].slots != b.grants[i].slots) return false;
  }
  for (std::size_t i = 0; i < a.monitor.size(); ++i) {
    const MonitorRecord &x = a.monitor[i], &y = b.monitor[i];
    if (std::tie(x.job, x.task, x.state, x.start, x.duration, x.container.level, x.container.index, x.resource,
                 x.amount) != std::tie(y.job, y.task, y.state, y.start, y.duration, y.container.level,
                                       y.container.index, y.resource, y.amount)) {
      return false;
    }
  }
  return true;
}

inline std::string SourceDir() { return SCHEDK_SOURCE_DIR; }
// The team's shared material (seeds, specification, datasets) beside the
// checkout; tests that need it skip with a message where it is absent.
inline std::string SharedDir() { return SourceDir() + "/../shared"; }
inline std::string SchedkBinary() { return SCHEDK_BINARY; }

}  // namespace schedk::testing
