// The breakpoint index against a plain ordered set of (time, diagram)
// postings: random insertions and erasures across many buckets, and range
// reads of every shape (empty, within a bucket, across buckets, unbounded,
// stopped early), forwards and backwards.
#include "kernel/reservation/breakpoint_index.hpp"

#include <gtest/gtest.h>

#include <iterator>
#include <random>
#include <set>
#include <utility>
#include <vector>

namespace schedk {
namespace {

using Posting = std::pair<Time, std::uint32_t>;

// The postings in [from, to), at most `limit`, earliest first (or latest first).
std::vector<Posting> Read(const BreakpointIndex& index, Time from, Time to, std::size_t limit = SIZE_MAX,
                          bool reverse = false) {
  std::vector<Posting> out;
  auto visit = [&](Time t, std::uint32_t d) {
    out.emplace_back(t, d);
    return out.size() < limit;
  };
  if (reverse) {
    index.ForEachInReverse(from, to, visit);
  } else {
    index.ForEachIn(from, to, visit);
  }
  return out;
}

std::vector<Posting> Expected(const std::set<Posting>& set, Time from, Time to, std::size_t limit = SIZE_MAX) {
  std::vector<Posting> out;
  for (auto it = set.lower_bound({from, 0}); it != set.end() && it->first < to && out.size() < limit; ++it) {
    out.push_back(*it);
  }
  return out;
}

std::vector<Posting> ReadReverse(const BreakpointIndex& index, Time from, Time to, std::size_t limit = SIZE_MAX) {
  return Read(index, from, to, limit, true);
}

std::vector<Posting> ExpectedReverse(const std::set<Posting>& set, Time from, Time to, std::size_t limit = SIZE_MAX) {
  std::vector<Posting> all = Expected(set, from, to);
  std::vector<Posting> out(all.rbegin(), all.rend());
  if (out.size() > limit) out.resize(limit);
  return out;
}

TEST(BreakpointIndexTest, MatchesAnOrderedSetOfPostings) {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<Time> time(0, 20000);
  std::uniform_int_distribution<std::uint32_t> diagram(0, 40);
  std::set<Posting> truth;
  std::vector<std::uint64_t> initial;
  while (truth.size() < 3000) {
    const Posting p{time(rng), diagram(rng)};
    if (truth.insert(p).second) initial.push_back(BreakpointIndex::Pack(p.first, p.second));
  }
  BreakpointIndex index(initial);
  for (int step = 0; step < 20000; ++step) {
    if (rng() % 2 == 0 && !truth.empty()) {
      auto it = truth.begin();
      std::advance(it, static_cast<long>(rng() % truth.size()));
      index.Erase(it->first, it->second);
      truth.erase(it);
    } else {
      const Posting p{time(rng), diagram(rng)};
      if (!truth.insert(p).second) continue;
      index.Insert(p.first, p.second);
    }
    ASSERT_EQ(index.size(), truth.size());
    if (step % 500 == 0) {
      const Time from = time(rng), to = from + static_cast<Time>(rng() % 3000);
      ASSERT_EQ(Read(index, from, to), Expected(truth, from, to)) << "step " << step;
      ASSERT_EQ(Read(index, from, from + 1), Expected(truth, from, from + 1));
      ASSERT_EQ(Read(index, from, to, 3), Expected(truth, from, to, 3));
      ASSERT_EQ(ReadReverse(index, from, to), ExpectedReverse(truth, from, to)) << "step " << step;
      ASSERT_EQ(ReadReverse(index, from, from + 1), ExpectedReverse(truth, from, from + 1));
      ASSERT_EQ(ReadReverse(index, from, to, 3), ExpectedReverse(truth, from, to, 3));
    }
  }
  EXPECT_EQ(Read(index, 0, BreakpointIndex::kMaxTime + 1), Expected(truth, 0, BreakpointIndex::kMaxTime + 1));
  EXPECT_EQ(Read(index, -50, 100), Expected(truth, 0, 100));  // nothing lies before 0
  EXPECT_EQ(ReadReverse(index, 0, BreakpointIndex::kMaxTime + 1),
            ExpectedReverse(truth, 0, BreakpointIndex::kMaxTime + 1));
  EXPECT_EQ(ReadReverse(index, -50, 100), ExpectedReverse(truth, 0, 100));
  EXPECT_TRUE(ReadReverse(index, 500, 500).empty());
  EXPECT_TRUE(Read(index, 500, 500).empty());
  EXPECT_TRUE(Read(index, 600, 500).empty());
}

// Thousands of diagrams with breakpoints at a few shared times, as when many
// bookings start or end together: buckets of many chunks, split as they grow
// and emptied chunk by chunk, read from inside any chunk.
TEST(BreakpointIndexTest, CrowdedTimesMatchAnOrderedSetOfPostings) {
  std::mt19937_64 rng(11);
  const Time times[] = {100, 101, 163, 5000};
  std::set<Posting> truth;
  std::vector<std::uint64_t> initial;
  while (truth.size() < 4000) {
    const Posting p{times[rng() % 4], static_cast<std::uint32_t>(rng() % 20000)};
    if (truth.insert(p).second) initial.push_back(BreakpointIndex::Pack(p.first, p.second));
  }
  BreakpointIndex index(initial);
  for (int step = 0; step < 30000; ++step) {
    // Grow for a while, then shrink: chunks split and are emptied.
    const bool erase = step < 15000 ? rng() % 4 == 0 : rng() % 4 != 0;
    if (erase && !truth.empty()) {
      auto it = truth.begin();
      std::advance(it, static_cast<long>(rng() % truth.size()));
      index.Erase(it->first, it->second);
      truth.erase(it);
    } else {
      const Posting p{times[rng() % 4], static_cast<std::uint32_t>(rng() % 20000)};
      if (!truth.insert(p).second) continue;
      index.Insert(p.first, p.second);
    }
    ASSERT_EQ(index.size(), truth.size());
    if (step % 1000 == 0) {
      ASSERT_EQ(Read(index, 0, BreakpointIndex::kMaxTime + 1), Expected(truth, 0, BreakpointIndex::kMaxTime + 1))
          << "step " << step;
      ASSERT_EQ(Read(index, 101, 102), Expected(truth, 101, 102)) << "step " << step;
      ASSERT_EQ(Read(index, 101, 5000, 700), Expected(truth, 101, 5000, 700)) << "step " << step;
      // Read backwards from inside a time whose postings fill chunks.
      ASSERT_EQ(ReadReverse(index, 0, BreakpointIndex::kMaxTime + 1),
                ExpectedReverse(truth, 0, BreakpointIndex::kMaxTime + 1))
          << "step " << step;
      ASSERT_EQ(ReadReverse(index, 101, 164, 700), ExpectedReverse(truth, 101, 164, 700)) << "step " << step;
      ASSERT_EQ(ReadReverse(index, 100, 101), ExpectedReverse(truth, 100, 101)) << "step " << step;
    }
  }
  EXPECT_EQ(Read(index, 0, BreakpointIndex::kMaxTime + 1), Expected(truth, 0, BreakpointIndex::kMaxTime + 1));
}

TEST(BreakpointIndexTest, TheLargestTimesAndDiagramsPack) {
  const Time last = BreakpointIndex::kMaxTime;
  const std::uint32_t top = BreakpointIndex::kMaxDiagrams - 1;
  EXPECT_TRUE(BreakpointIndex::Packable(last, top));
  EXPECT_FALSE(BreakpointIndex::Packable(last + 1, 0));
  EXPECT_FALSE(BreakpointIndex::Packable(-1, 0));
  EXPECT_FALSE(BreakpointIndex::Packable(0, top + 1));
  BreakpointIndex index({BreakpointIndex::Pack(last, top), BreakpointIndex::Pack(0, 0)});
  index.Insert(4294967295, 3);  // kDiagramForever, the end of every plan
  EXPECT_EQ(Read(index, 1, last + 5), (std::vector<Posting>{{4294967295, 3}, {last, top}}));
  EXPECT_EQ(Read(index, 0, last), (std::vector<Posting>{{0, 0}, {4294967295, 3}}));
  index.Erase(last, top);
  index.Erase(0, 0);
  EXPECT_EQ(Read(index, 0, last + 1), (std::vector<Posting>{{4294967295, 3}}));
}

}  // namespace
}  // namespace schedk
