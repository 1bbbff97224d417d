// io/job_reader: the request-set cache a session keeps between passes.
#include "io/job_reader.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace schedk::io {
namespace {

RequestSet SetWithPeMin(std::uint32_t min) {
  RequestSet set;
  set.has_pe = true;
  set.pe.min = min;
  return set;
}

TEST(RequestCacheTest, SetsPutAtIngestAreNotParsedAgain) {
  JobNameSpace space;
  space.requests.Intern("l_hard=h_rt=60", 1);
  space.requests.Intern("l_hard=h_rt=120", 2);
  space.requests.Intern("l_hard=h_rt=180", 3);
  RequestCache cache;
  cache.Put(space, 1, SetWithPeMin(7));  // resolved when its first job arrived
  std::vector<std::string> parsed;
  const RequestCache::Parse parse = [&](std::string_view key, RequestSet& set) -> std::optional<std::string> {
    parsed.emplace_back(key);
    set = SetWithPeMin(static_cast<std::uint32_t>(parsed.size()) + 100);
    return std::nullopt;
  };
  std::vector<RequestSet> sets;
  ASSERT_FALSE(cache.Fill(space, {1, 1, 0}, parse, sets));
  EXPECT_EQ(parsed, std::vector<std::string>{"l_hard=h_rt=60"});  // id 1 came from Put, id 2 is unused
  ASSERT_EQ(sets.size(), 3u);
  EXPECT_EQ(sets[0].pe.min, 101u);
  EXPECT_EQ(sets[1].pe.min, 7u);
  EXPECT_FALSE(sets[2].has_pe);
  // A second pass parses nothing; a Put for a kept id does not replace it.
  cache.Put(space, 1, SetWithPeMin(8));
  ASSERT_FALSE(cache.Fill(space, {1, 1, 0}, parse, sets));
  EXPECT_EQ(parsed.size(), 1u);
  EXPECT_EQ(sets[1].pe.min, 7u);
  // Clear (a configuration change) forgets everything.
  cache.Clear();
  ASSERT_FALSE(cache.Fill(space, {0, 1, 0}, parse, sets));
  EXPECT_EQ(parsed.back(), "l_hard=h_rt=120");
  EXPECT_EQ(sets[1].pe.min, 102u);
}

TEST(RequestCacheTest, AnotherNameSpaceStartsAfresh) {
  JobNameSpace first, second;
  first.requests.Intern("a", 1);
  second.requests.Intern("a", 1);
  RequestCache cache;
  cache.Put(first, 0, SetWithPeMin(7));
  int calls = 0;
  const RequestCache::Parse parse = [&](std::string_view, RequestSet& set) -> std::optional<std::string> {
    ++calls;
    set = SetWithPeMin(9);
    return std::nullopt;
  };
  std::vector<RequestSet> sets;
  ASSERT_FALSE(cache.Fill(second, {1}, parse, sets));
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(sets[0].pe.min, 9u);
}

}  // namespace
}  // namespace schedk::io
