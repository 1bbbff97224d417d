// CowShards: a view never changes after it is taken, updates of one shard copy
// it only while a view holds it, and updates from several threads alongside
// views stay consistent (this test also runs under ThreadSanitizer in .ci/run).
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "kernel/live/cow_shards.hpp"

namespace schedk {
namespace {

// Two counters that every update raises together: a view that sees them
// differ saw an update half-way.
struct Pair {
  long a = 0;
  long b = 0;
};

TEST(CowShardsTest, AViewNeverChanges) {
  CowShards<Pair> shards(4);
  shards.Mutate(1, [](Pair& p) { p.a = p.b = 5; });
  {
    const auto view = shards.Snapshot();
    const Pair* before = view[1].get();
    shards.Mutate(1, [](Pair& p) { p.a = p.b = 6; });
    EXPECT_EQ(view[1]->a, 5);
    EXPECT_EQ(view[1].get(), before);
    EXPECT_EQ(shards.Read(1, [](const Pair& p) { return p.a; }), 6);
  }
  // Without a view holding it, the shard changes in place.
  const Pair* live = shards.Read(2, [](const Pair& p) { return &p; });
  shards.Mutate(2, [](Pair& p) { ++p.a; });
  EXPECT_EQ(shards.Read(2, [](const Pair& p) { return &p; }), live);
}

TEST(CowShardsConcurrencyTest, UpdatesFromManyThreadsWhileViewsAreTaken) {
  constexpr int kShards = 16, kWriters = 4, kUpdates = 20000;
  CowShards<Pair> shards(kShards);
  std::atomic<bool> stop{false};
  std::atomic<long> views{0}, torn{0};
  std::thread reader([&] {
    long last_total = 0;
    while (!stop.load()) {
      const auto view = shards.Snapshot();
      long total = 0;
      for (const auto& p : view) {
        torn += p->a != p->b;
        total += p->a;
      }
      torn += total < last_total;  // updates never go away
      last_total = total;
      ++views;
    }
  });
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      for (int i = 0; i < kUpdates; ++i) {
        shards.Mutate(static_cast<std::size_t>((w + i * kWriters) % kShards), [](Pair& p) {
          ++p.a;
          ++p.b;
        });
      }
    });
  }
  for (std::thread& t : writers) t.join();
  stop = true;
  reader.join();
  long total = 0;
  for (int s = 0; s < kShards; ++s) total += shards.Read(static_cast<std::size_t>(s), [](const Pair& p) { return p.a; });
  EXPECT_EQ(total, long{kWriters} * kUpdates);
  EXPECT_EQ(torn.load(), 0);
  EXPECT_GT(views.load(), 0);
}

}  // namespace
}  // namespace schedk
