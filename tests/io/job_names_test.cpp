// JobNames against a plain map of the same names: ids in order of first use,
// the first use's line, Find, and views that stay valid while the table grows
// and after it moves.
#include "io/job_names.hpp"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

namespace schedk::io {
namespace {

// Names of every length from empty to past the largest block (64 KiB), many repeated.
std::string NameNumber(std::mt19937& random, std::size_t k) {
  if (random() % 2000 == 0) return std::string(60000 + random() % 100000, static_cast<char>('a' + k % 26));
  switch (random() % 6) {
    case 0:
      return "";
    case 1:
      return "u" + std::to_string(random() % 50);  // repeated often
    default:
      return "l_hard=h_rt=" + std::to_string(random() % 100000) + "\x1f" + std::to_string(k % 7);
  }
}

TEST(JobNamesTest, InternsAsAPlainMapInOrderOfFirstUse) {
  std::mt19937 random(5);
  JobNames names;
  std::map<std::string, std::uint32_t> plain;
  std::vector<std::string> by_id;
  std::vector<int> lines;
  for (std::size_t k = 0; k < 60000; ++k) {
    const std::string name = NameNumber(random, k);
    const int line = static_cast<int>(k) + 1;
    const auto [it, added] = plain.emplace(name, static_cast<std::uint32_t>(by_id.size()));
    if (added) {
      by_id.push_back(name);
      lines.push_back(line);
    }
    ASSERT_EQ(names.Intern(name, line), it->second) << "name " << k;
  }
  ASSERT_EQ(names.size(), by_id.size());
  JobNames moved = std::move(names);  // the views stay valid
  EXPECT_EQ(names.size(), 0u);        // NOLINT(bugprone-use-after-move): a moved table is empty
  EXPECT_FALSE(names.Find("u1"));
  for (std::uint32_t id = 0; id < by_id.size(); ++id) {
    ASSERT_EQ(moved.Name(id), by_id[id]) << id;
    ASSERT_EQ(moved.Line(id), lines[id]) << id;
    ASSERT_EQ(moved.Find(by_id[id]), id) << id;
  }
  EXPECT_FALSE(moved.Find("never interned"));
  EXPECT_EQ(moved.Intern("never interned", 7), by_id.size());
  EXPECT_EQ(moved.Name(static_cast<std::uint32_t>(by_id.size())), "never interned");
}

TEST(JobNamesTest, EmptyTableFindsNothing) {
  const JobNames names;
  EXPECT_EQ(names.size(), 0u);
  EXPECT_FALSE(names.Find(""));
  EXPECT_FALSE(names.Find("owner"));
}

}  // namespace
}  // namespace schedk::io
