// entity_values.hpp
// One ticket-policy value of every user, project and department in dense
// columns: the functional shares (fshare) or the override tickets (oticket).
// The entity tables hold much more per entity (usage records, access lists),
// so the per-task loops of the pending ticket passes read these instead.
// Invariant: each column ends with one extra 0, the value a None id reads, so
// that a per-task loop reads values without a branch per entity.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "kernel/model/entities.hpp"

namespace schedk {

struct EntityValues {
  std::vector<double> user;        // by UserId, then 0
  std::vector<double> project;     // by ProjectId, then 0
  std::vector<double> department;  // by UsersetId, then 0

  // The entity's value; 0 for None.
  double of(UserId id) const { return At(user, id.value); }
  double of(ProjectId id) const { return At(project, id.value); }
  double of(UsersetId id) const { return At(department, id.value); }

  static EntityValues FunctionalShares(const EntityTables& e) {
    return Collect(e, [](const auto& x) { return x.fshare; });
  }
  static EntityValues OverrideTickets(const EntityTables& e) {
    return Collect(e, [](const auto& x) { return x.oticket; });
  }

 private:
  template <class Field>
  static EntityValues Collect(const EntityTables& e, Field field) {
    EntityValues v;
    v.user.reserve(e.users.size() + 1);
    for (const User& u : e.users) v.user.push_back(field(u));
    v.project.reserve(e.projects.size() + 1);
    for (const Project& p : e.projects) v.project.push_back(field(p));
    v.department.reserve(e.usersets.size() + 1);
    for (const Userset& d : e.usersets) v.department.push_back(field(d));
    for (auto* column : {&v.user, &v.project, &v.department}) column->push_back(0);
    return v;
  }
  // None (and only None: ids index their tables) reads the trailing 0.
  static double At(const std::vector<double>& column, std::uint32_t id) {
    return column[std::min<std::size_t>(id, column.size() - 1)];
  }
};

}  // namespace schedk
