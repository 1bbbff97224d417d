// ticket_categories.hpp
// Pending tasks grouped the way Grid Engine's pending ticket loops group them
// (build_functional_categories in sgeee.c): tasks whose user, department,
// project and job carry the same shares (functional policy) or override
// tickets (override policy) form one category, and within a category only the
// first task (the head) competes in each round. Tasks whose four values are all
// zero never get tickets and are left out.
// Order inside a category: for a dependent policy by the tickets of earlier
// policies (descending), then submission time, job number and task number;
// otherwise job-list order (job number, task number). A loop that reaches
// only the first few members of most categories can ask for the head alone
// (MemberOrder::kHeadFirst) and order the rest of a category when it first
// moves past its head (OrderAfterHead).
#pragma once

#include <cstdint>
#include <vector>

#include "kernel/util/column.hpp"
#include "kernel/twin.hpp"
#include "kernel/model/entities.hpp"
#include "kernel/priority/ticket_refs.hpp"

namespace schedk {

enum class CategoryValues : std::uint8_t { kFunctionalShares, kOverrideTickets };

struct TicketCategory {
  std::uint32_t job_value = 0;  // jobshare or the job's override tickets
  double user_value = 0;        // the entity's fshare or oticket; 0 if none
  double project_value = 0;
  double department_value = 0;
  // The entities the category is keyed by: those whose value is not 0 (the
  // same for every member); None otherwise.
  UserId user;
  ProjectId project;
  UsersetId department;
  std::uint32_t begin = 0;      // members[begin, end) in category order
  std::uint32_t end = 0;
};

inline constexpr std::uint32_t kNoCategory = UINT32_MAX;

struct TicketCategories {
  std::vector<TicketCategory> categories;
  Column<std::uint32_t> members;      // ref indices, category after category
  Column<std::uint32_t> category_of;  // by pending ref (ref - refs.running): its category, or kNoCategory
};

// kFull: every category in its order. kHeadFirst: each category's first
// member in its order at `begin`, the others after it in no set order.
enum class MemberOrder : std::uint8_t { kFull, kHeadFirst };

// Groups the pending refs. The optimised twin groups in parallel and, for a
// dependent policy, keeps track of each category's ref order (which the
// optimised loops read); the reference groups on one thread and orders every
// category by a plain search. Either gives the same categories.
TicketCategories BuildTicketCategories(const TicketRefs& refs, const EntityTables& entities, CategoryValues values,
                                       bool dependent, Twin twin, MemberOrder order = MemberOrder::kFull);

// Puts category c's members after its head in order (for kHeadFirst; a
// category ordered already stays as it is).
void OrderAfterHead(TicketCategories& categories, const TicketRefs& refs, bool dependent, std::uint32_t c);

}  // namespace schedk
