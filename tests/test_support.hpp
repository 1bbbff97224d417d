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
  const auto offsets = s.jobs.Offsets();
  for (std::size_t i = 0; i < r.order.size(); ++i) {
    const DispatchEntry& e = r.order[i];
    const auto it = std::upper_bound(offsets.begin(), offsets.end(), e.row);
    const std::size_t shard = static_cast<std::size_t>(it - offsets.begin() - 1);
    if (s.jobs.shards()[shard].number[e.row - offsets[shard]] == job && e.task == task) {
      return {r.Values(s.cluster, s.jobs, offsets, e), i};
    }
  }
  ADD_FAILURE() << "job " << job << "." << task << " not in the result";
  return {};
}

inline std::string SourceDir() { return SCHEDK_SOURCE_DIR; }
inline std::string SchedkBinary() { return SCHEDK_BINARY; }

}  // namespace schedk::testing
