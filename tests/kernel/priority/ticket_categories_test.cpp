// BuildTicketCategories against the grouping written out plainly: each pending
// ref with a value belongs to the category of its (job value, user, project,
// department) key, the entities counting only where their value is not 0;
// categories are numbered in order of first appearance and list their members
// in ref order (MemberOrder::kFull, not dependent). The refs are sparse (few
// tasks with a value, as with override tickets) or sparse in their first half
// and dense in their second, so that one chunk lists its members, another
// walks all its refs, and a single chunk switches over midway; on one, two
// and three threads and as the reference twin, with enough refs for several chunks.
// Dependent groupings are checked against the members sorted plainly.
#include "kernel/priority/ticket_categories.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <random>
#include <vector>

#include <tbb/task_arena.h>

namespace schedk {
namespace {

struct Fixture {
  EntityTables entities;
  TicketRefs refs;
};

// `dense_from`: the pending position from which most tasks carry a job value.
Fixture MakeRefs(std::size_t pending, std::size_t dense_from, std::uint32_t seed) {
  std::mt19937 rng(seed);
  auto chance = [&](double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; };
  auto below = [&](std::uint32_t n) { return static_cast<std::uint32_t>(rng() % n); };
  Fixture f;
  f.entities.users.resize(300);
  f.entities.projects.resize(20);
  f.entities.usersets.resize(6);
  // A few entities with a value (the same for both kinds of value).
  auto value = [&](auto& entity, double p) {
    if (chance(p)) entity.fshare = entity.oticket = 1 + below(50);
  };
  for (User& u : f.entities.users) value(u, 0.05);
  for (Project& p : f.entities.projects) value(p, 0.1);
  for (Userset& d : f.entities.usersets) value(d, 0.2);
  TicketRefs& refs = f.refs;
  refs.running = 7;
  refs.Resize(refs.running + pending);
  for (std::size_t i = 0; i < refs.size(); ++i) {
    refs.user[i] = UserId(below(300));
    refs.project[i] = chance(0.8) ? ProjectId(below(20)) : ProjectId::None();
    refs.department[i] = chance(0.9) ? UsersetId(below(6)) : UsersetId::None();
    const double job_value_share = i >= refs.running + dense_from ? 0.7 : 0.01;
    refs.jobshare[i] = chance(job_value_share) ? 1 + below(20) : 0;
    refs.job_oticket[i] = chance(job_value_share) ? 1 + below(20) : 0;
    refs.job[i] = static_cast<std::uint32_t>(i);
    refs.task[i] = 1;
    refs.submit[i] = static_cast<std::uint32_t>(i);
    refs.ClearResults(i);
  }
  return f;
}

using Key = std::array<std::uint32_t, 4>;  // job value, user, project, department

struct Grouping {
  std::vector<Key> keys;
  std::vector<std::vector<std::uint32_t>> members;
  std::vector<std::uint32_t> category_of;
};

Grouping Expected(const Fixture& f, CategoryValues values) {
  const bool functional = values == CategoryValues::kFunctionalShares;
  auto of = [&](const auto& entity) { return functional ? entity.fshare : entity.oticket; };
  const TicketRefs& refs = f.refs;
  Grouping g;
  std::map<Key, std::uint32_t> ids;
  for (std::size_t i = refs.running; i < refs.size(); ++i) {
    const std::uint32_t job = functional ? refs.jobshare[i] : refs.job_oticket[i];
    const double user = of(f.entities.user(refs.user[i]));
    const double project = refs.project[i].valid() ? of(f.entities.project(refs.project[i])) : 0;
    const double department = refs.department[i].valid() ? of(f.entities.userset(refs.department[i])) : 0;
    if (job == 0 && user == 0 && project == 0 && department == 0) {
      g.category_of.push_back(kNoCategory);
      continue;
    }
    constexpr std::uint32_t kNone = UserId::kNoneValue;
    const Key key{job, user != 0 ? refs.user[i].value : kNone, project != 0 ? refs.project[i].value : kNone,
                  department != 0 ? refs.department[i].value : kNone};
    const auto [it, fresh] = ids.emplace(key, static_cast<std::uint32_t>(g.keys.size()));
    if (fresh) {
      g.keys.push_back(key);
      g.members.emplace_back();
    }
    g.members[it->second].push_back(static_cast<std::uint32_t>(i));
    g.category_of.push_back(it->second);
  }
  return g;
}

void ExpectGrouping(const TicketCategories& got, const Grouping& want) {
  ASSERT_EQ(got.categories.size(), want.keys.size());
  for (std::size_t c = 0; c < want.keys.size(); ++c) {
    const TicketCategory& cat = got.categories[c];
    EXPECT_EQ((Key{cat.job_value, cat.user.value, cat.project.value, cat.department.value}), want.keys[c])
        << "category " << c;
    const std::vector<std::uint32_t> members(got.members.begin() + cat.begin, got.members.begin() + cat.end);
    ASSERT_EQ(members, want.members[c]) << "category " << c;
  }
  ASSERT_EQ(got.category_of.size(), want.category_of.size());
  for (std::size_t k = 0; k < want.category_of.size(); ++k) {
    ASSERT_EQ(got.category_of[k], want.category_of[k]) << "pending ref " << k;
  }
}

TEST(TicketCategoriesTest, GroupsLikeTheStraightforwardLoop) {
  constexpr std::size_t kPending = 200000;  // several chunks: grouped in parallel from 65,536
  for (const std::size_t dense_from : {kPending, kPending / 2}) {
    const Fixture f = MakeRefs(kPending, dense_from, static_cast<std::uint32_t>(dense_from));
    for (const CategoryValues values : {CategoryValues::kOverrideTickets, CategoryValues::kFunctionalShares}) {
      SCOPED_TRACE(testing::Message() << "dense from " << dense_from << ", functional "
                                      << (values == CategoryValues::kFunctionalShares));
      const Grouping want = Expected(f, values);
      ASSERT_GT(want.keys.size(), 100u);
      ExpectGrouping(BuildTicketCategories(f.refs, f.entities, values, false, Twin::kReference), want);
      for (const int threads : {1, 2, 3}) {  // three chunks look keys up in two earlier tables
        tbb::task_arena(threads).execute([&] {
          ExpectGrouping(BuildTicketCategories(f.refs, f.entities, values, false, Twin::kOptimised), want);
        });
      }
    }
  }
}

// A dependent grouping orders each category by the earlier tickets
// (descending), then submission time, job and task. Where the submission times
// rise with the refs, a category whose members hold no earlier tickets is in
// that order already, and the parallel grouping leaves it so; the refs here
// have categories of both kinds, with submission times rising and not.
TEST(TicketCategoriesTest, DependentOrderIsTheSortedMembers) {
  constexpr std::size_t kPending = 200000;
  for (const bool rising : {true, false}) {
    Fixture f = MakeRefs(kPending, kPending / 2, 7);
    TicketRefs& refs = f.refs;
    std::mt19937 rng(11);
    for (std::size_t i = refs.running; i < refs.size(); ++i) {
      // Earlier tickets for every task of one user in five, and one task in a hundred of the others.
      if (refs.user[i].value % 5 == 0 || rng() % 100 == 0) refs.tickets[i] = 1 + rng() % 4;
      if (!rising && rng() % 50 == 0) refs.submit[i] = static_cast<std::uint32_t>(rng() % refs.size());
    }
    auto before = [&](std::uint32_t a, std::uint32_t b) {
      if (refs.tickets[a] != refs.tickets[b]) return refs.tickets[a] > refs.tickets[b];
      if (refs.submit[a] != refs.submit[b]) return refs.submit[a] < refs.submit[b];
      return refs.job[a] != refs.job[b] ? refs.job[a] < refs.job[b] : refs.task[a] < refs.task[b];
    };
    for (const CategoryValues values : {CategoryValues::kOverrideTickets, CategoryValues::kFunctionalShares}) {
      Grouping want = Expected(f, values);
      std::size_t in_ref_order = 0;
      for (std::vector<std::uint32_t>& members : want.members) {
        in_ref_order += std::is_sorted(members.begin(), members.end(), before);
        std::sort(members.begin(), members.end(), before);
      }
      // Both kinds of category are there to be told apart.
      ASSERT_GT(in_ref_order, 50u);
      ASSERT_LT(in_ref_order, want.members.size() - 50);
      auto check = [&](const char* how, Twin twin) {
        SCOPED_TRACE(testing::Message() << how << ", rising " << rising << ", functional "
                                        << (values == CategoryValues::kFunctionalShares));
        ExpectGrouping(BuildTicketCategories(refs, f.entities, values, true, twin, MemberOrder::kFull), want);
        const TicketCategories heads =
            BuildTicketCategories(refs, f.entities, values, true, twin, MemberOrder::kHeadFirst);
        ASSERT_EQ(heads.categories.size(), want.members.size());
        for (std::size_t c = 0; c < want.members.size(); ++c) {
          const TicketCategory& cat = heads.categories[c];
          std::vector<std::uint32_t> members(heads.members.begin() + cat.begin, heads.members.begin() + cat.end);
          ASSERT_EQ(members.front(), want.members[c].front()) << "head of category " << c;
          std::sort(members.begin(), members.end());
          std::vector<std::uint32_t> all = want.members[c];
          std::sort(all.begin(), all.end());
          ASSERT_EQ(members, all) << "category " << c;
        }
      };
      check("serial", Twin::kReference);
      for (const int threads : {1, 2, 3}) {
        tbb::task_arena(threads).execute([&] { check("parallel", Twin::kOptimised); });
      }
    }
  }
}

}  // namespace
}  // namespace schedk
