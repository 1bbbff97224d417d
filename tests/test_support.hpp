// test_support.hpp
// Helpers shared by the tests: loading snapshot text, finding a task's row in a
// priority result, and the paths of the source tree and the schedk binary.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "io/snapshot_reader.hpp"
#include "kernel/priority/priority.hpp"

namespace schedk::testing {

// Parses snapshot text; fails the test (and returns an empty snapshot) on error.
inline io::Snapshot Load(const std::string& text) {
  auto s = io::ReadSnapshot(text, "test.snap");
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  if (!s.ok()) return io::Snapshot{};
  return std::move(s).value();
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

inline std::string SourceDir() { return SCHEDK_SOURCE_DIR; }
// The team's shared material (seeds, specification, datasets) beside the
// checkout; tests that need it skip with a message where it is absent.
inline std::string SharedDir() { return SourceDir() + "/../shared"; }
inline std::string SchedkBinary() { return SCHEDK_BINARY; }

}  // namespace schedk::testing
