#include "kernel/priority/ticket_categories.hpp"

#include <tuple>

#include <tbb/parallel_sort.h>

namespace schedk {
namespace {

struct CategoryKey {
  std::uint32_t job_value;
  std::uint32_t user;  // id value, or None when the user's value is 0
  std::uint32_t project;
  std::uint32_t department;
  friend bool operator==(const CategoryKey&, const CategoryKey&) = default;
  friend auto operator<=>(const CategoryKey&, const CategoryKey&) = default;
};

struct EntityValues {
  double user = 0, project = 0, department = 0;
  std::uint32_t job = 0;
};

EntityValues ValuesOf(const TicketRefs& refs, const EntityTables& entities, CategoryValues kind, std::size_t i) {
  EntityValues v;
  const bool functional = kind == CategoryValues::kFunctionalShares;
  if (refs.user[i].valid()) {
    const User& u = entities.user(refs.user[i]);
    v.user = functional ? u.fshare : u.oticket;
  }
  if (refs.project[i].valid()) {
    const Project& p = entities.project(refs.project[i]);
    v.project = functional ? p.fshare : p.oticket;
  }
  if (refs.department[i].valid()) {
    const Userset& d = entities.userset(refs.department[i]);
    v.department = functional ? d.fshare : d.oticket;
  }
  v.job = functional ? refs.jobshare[i] : refs.job_oticket[i];
  return v;
}

CategoryKey KeyOf(const TicketRefs& refs, const EntityValues& v, std::size_t i) {
  constexpr std::uint32_t kNone = UserId::kNoneValue;
  return CategoryKey{v.job, v.user > 0 ? refs.user[i].value : kNone, v.project > 0 ? refs.project[i].value : kNone,
                     v.department > 0 ? refs.department[i].value : kNone};
}

}  // namespace

TicketCategories BuildTicketCategories(const TicketRefs& refs, const EntityTables& entities, CategoryValues values,
                                       bool dependent) {
  TicketCategories result;
  std::vector<CategoryKey> keys(refs.size());
  std::vector<std::uint32_t>& members = result.members;
  for (std::size_t i = refs.running; i < refs.size(); ++i) {
    const EntityValues v = ValuesOf(refs, entities, values, i);
    if (v.job == 0 && v.user == 0 && v.project == 0 && v.department == 0) continue;
    keys[i] = KeyOf(refs, v, i);
    members.push_back(static_cast<std::uint32_t>(i));
  }
  // Sort by category, then by the order inside the category. Both are total
  // orders over distinct (job, task) pairs, so any sort yields the same sequence.
  tbb::parallel_sort(members.begin(), members.end(), [&](std::uint32_t a, std::uint32_t b) {
    if (keys[a] != keys[b]) return keys[a] < keys[b];
    if (dependent) {
      if (refs.tickets[a] != refs.tickets[b]) return refs.tickets[a] > refs.tickets[b];
      if (refs.submit[a] != refs.submit[b]) return refs.submit[a] < refs.submit[b];
    }
    return std::tie(refs.job[a], refs.task[a]) < std::tie(refs.job[b], refs.task[b]);
  });
  for (std::size_t m = 0; m < members.size(); ++m) {
    const std::uint32_t i = members[m];
    if (m == 0 || keys[i] != keys[members[m - 1]]) {
      const EntityValues v = ValuesOf(refs, entities, values, i);
      TicketCategory c;
      c.job_value = v.job;
      c.user_value = v.user;
      c.project_value = v.project;
      c.department_value = v.department;
      c.begin = static_cast<std::uint32_t>(m);
      result.categories.push_back(c);
    }
    result.categories.back().end = static_cast<std::uint32_t>(m + 1);
  }
  return result;
}

}  // namespace schedk
