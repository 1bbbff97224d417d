// SessionState from several threads: job updates on many shards while passes
// take views. Every view is consistent (a thread's jobs appear in the order it
// added them, none half-changed), and the end state is the one the same
// operations give one at a time. Runs under ThreadSanitizer in .ci/run.
#include <gtest/gtest.h>

#include <tbb/global_control.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "io/session/session_state.hpp"
#include "kernel/priority/priority.hpp"

namespace schedk::io {
namespace {

constexpr const char* kCluster = R"(schedk-snapshot 1
now 1000
begin exechost n1
complex_values slots=8
end exechost
begin queue all.q
hostlist n1
slots 8
end queue
)";

// Thread w's job i: numbers spread over every shard.
JobNumber NumberOf(int w, int i) { return static_cast<JobNumber>(1 + w * 1000000 + i * 997); }

void Work(SessionState& state, int w, int jobs) {
  for (int i = 0; i < jobs; ++i) {
    const JobNumber n = NumberOf(w, i);
    ASSERT_FALSE(state.AddJob("job " + std::to_string(n) + " owner=user" + std::to_string(w) + " submit=900"));
    if (i % 3 == 0) {
      ASSERT_FALSE(state.Hold({n, std::nullopt}));
      ASSERT_FALSE(state.Release({n, std::nullopt}));
    }
    if (i % 5 == 0) {
      ASSERT_FALSE(state.Run({n, std::nullopt}, std::nullopt, "all.q@n1:1"));
      ASSERT_FALSE(state.Finish({n, std::nullopt}, std::nullopt, ""));
    }
  }
}

TEST(SessionConcurrencyTest, UpdatesOnManyShardsWhilePassesRun) {
  // Workers run in the calling thread: the test's own threads are the concurrency under test.
  tbb::global_control one(tbb::global_control::max_allowed_parallelism, 1);
  constexpr int kWriters = 3, kJobs = 300;
  SessionState state;
  ASSERT_FALSE(state.Load(kCluster, "cluster"));
  std::atomic<bool> stop{false}, started{false};
  std::atomic<int> passes{0}, inconsistent{0};
  std::thread passer([&] {
    while (!stop.load()) {
      started = true;
      auto view = state.View();
      ASSERT_TRUE(view.ok()) << view.status().ToString();
      // A thread's job i is in the view only if its job i - 1 is (or was finished).
      for (int w = 0; w < kWriters; ++w) {
        std::vector<char> present(kJobs, 0);
        for (const JobShard& shard : view->jobs.shards()) {
          for (std::size_t r = 0; r < shard.size(); ++r) {
            const JobNumber n = shard.number[r];
            if (n >= NumberOf(w, 0) && n < NumberOf(w + 1, 0)) present[(n - NumberOf(w, 0)) / 997] = 1;
          }
        }
        for (int i = 1; i < kJobs; ++i) {
          inconsistent += present[i] && !present[i - 1] && (i - 1) % 5 != 0;
        }
      }
      const PriorityResult priorities = ComputePriorities(view->cluster, view->jobs);
      (void)priorities;
      ++passes;
    }
  });
  std::vector<std::thread> writers;
  // The writers start once the first pass has: on a busy machine they could
  // otherwise finish before the passer thread runs at all.
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      while (!started.load()) std::this_thread::yield();
      Work(state, w, kJobs);
    });
  }
  for (std::thread& t : writers) t.join();
  stop = true;
  passer.join();
  EXPECT_EQ(inconsistent.load(), 0);
  EXPECT_GT(passes.load(), 0);

  // The same operations one thread at a time give the same state.
  SessionState serial;
  ASSERT_FALSE(serial.Load(kCluster, "cluster"));
  for (int w = 0; w < kWriters; ++w) Work(serial, w, kJobs);
  EXPECT_EQ(state.Digest().hash, serial.Digest().hash);
  EXPECT_EQ(state.Digest().jobs, static_cast<std::size_t>(kWriters * (kJobs - (kJobs + 4) / 5)));
}

// Writer w's records, in batches of kBatch for AddJobs: new owners and
// request combinations keep arriving, so names are interned and requests
// resolved while passes read them.
std::vector<std::string> Records(int w, int jobs) {
  std::vector<std::string> records;
  for (int i = 0; i < jobs; ++i) {
    records.push_back("job " + std::to_string(NumberOf(w, i)) + " owner=u" + std::to_string(w) + "_" +
                      std::to_string(i % 11) + " submit=900 l_hard=h_rt=" + std::to_string(60 + i % 13));
  }
  return records;
}

TEST(SessionConcurrencyTest, BatchedAddsBesideUpdatesAndPasses) {
  tbb::global_control one(tbb::global_control::max_allowed_parallelism, 1);  // as above
  constexpr int kWriters = 3, kJobs = 300, kBatch = 50;
  SessionState state;
  ASSERT_FALSE(state.Load(kCluster, "cluster"));
  std::atomic<bool> stop{false}, started{false};
  std::atomic<int> passes{0};
  std::thread passer([&] {
    while (!stop.load()) {
      started = true;
      auto view = state.View();
      ASSERT_TRUE(view.ok()) << view.status().ToString();
      (void)ComputePriorities(view->cluster, view->jobs);
      ++passes;
    }
  });
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      while (!started.load()) std::this_thread::yield();
      const std::vector<std::string> records = Records(w, kJobs);
      for (int from = 0; from < kJobs; from += kBatch) {
        std::vector<std::string_view> batch(records.begin() + from, records.begin() + from + kBatch);
        const std::vector<RecordRefusal> refused = state.AddJobs(batch);
        ASSERT_TRUE(refused.empty()) << refused.front().error.message;
        ASSERT_FALSE(state.Hold({NumberOf(w, from), std::nullopt}));
      }
    });
  }
  for (std::thread& t : writers) t.join();
  stop = true;
  passer.join();
  EXPECT_GT(passes.load(), 0);

  SessionState serial;  // one record at a time
  ASSERT_FALSE(serial.Load(kCluster, "cluster"));
  for (int w = 0; w < kWriters; ++w) {
    const std::vector<std::string> records = Records(w, kJobs);
    for (int i = 0; i < kJobs; ++i) {
      ASSERT_FALSE(serial.AddJob(records[i]));
      if (i % kBatch == kBatch - 1) {
        ASSERT_FALSE(serial.Hold({NumberOf(w, i - kBatch + 1), std::nullopt}));
      }
    }
  }
  EXPECT_EQ(state.Digest().hash, serial.Digest().hash);
  EXPECT_EQ(state.Digest().jobs, static_cast<std::size_t>(kWriters * kJobs));
}

}  // namespace
}  // namespace schedk::io
