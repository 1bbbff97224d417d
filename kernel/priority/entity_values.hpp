// entity_values.hpp
// One ticket-policy value of every user, project and department in dense
// columns: the functional shares (fshare) or the override tickets (oticket).
// The entity tables hold much more per entity (usage records, access lists),
// so the per-task loops of the pending ticket passes read these instead.
#pragma once

#include <vector>

#include "kernel/model/entities.hpp"

namespace schedk {

struct EntityValues {
  std::vector<double> user;        // by UserId
  std::vector<double> project;     // by ProjectId
  std::vector<double> department;  // by UsersetId

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
    v.user.reserve(e.users.size());
    for (const User& u : e.users) v.user.push_back(field(u));
    v.project.reserve(e.projects.size());
    for (const Project& p : e.projects) v.project.push_back(field(p));
    v.department.reserve(e.usersets.size());
    for (const Userset& d : e.usersets) v.department.push_back(field(d));
    return v;
  }
};

}  // namespace schedk
