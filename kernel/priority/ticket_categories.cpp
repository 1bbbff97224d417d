#include "kernel/priority/ticket_categories.hpp"

#include <algorithm>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "kernel/flat_id_map.hpp"
#include "kernel/priority/entity_values.hpp"

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

// A task's four values in one category kind.
struct TaskValues {
  double user = 0, project = 0, department = 0;
  std::uint32_t job = 0;
};

TaskValues ValuesOf(const TicketRefs& refs, const EntityValues& values, bool functional, std::size_t i) {
  TaskValues v;
  if (refs.user[i].valid()) v.user = values.user[refs.user[i].index()];
  if (refs.project[i].valid()) v.project = values.project[refs.project[i].index()];
  if (refs.department[i].valid()) v.department = values.department[refs.department[i].index()];
  v.job = functional ? refs.jobshare[i] : refs.job_oticket[i];
  return v;
}

CategoryKey KeyOf(const TicketRefs& refs, const TaskValues& v, std::size_t i) {
  constexpr std::uint32_t kNone = UserId::kNoneValue;
  return CategoryKey{v.job, v.user > 0 ? refs.user[i].value : kNone, v.project > 0 ? refs.project[i].value : kNone,
                     v.department > 0 ? refs.department[i].value : kNone};
}

// CategoryKey's hash for the category id table.
struct CategoryHash {
  std::uint64_t operator()(const CategoryKey& key) const {
    std::uint64_t h = (std::uint64_t{key.job_value} << 32 | key.user) * 0x9e3779b97f4a7c15ull;
    h ^= (std::uint64_t{key.project} << 32 | key.department) * 0xc2b2ae3d27d4eb4full;
    return h ^ (h >> 29);
  }
};

}  // namespace

TicketCategories BuildTicketCategories(const TicketRefs& refs, const EntityTables& entities, CategoryValues values,
                                       bool dependent, ExecutionMode mode) {
  TicketCategories result;
  // Members in ref order (which is job-list order) with their category id.
  const bool functional = values == CategoryValues::kFunctionalShares;
  const EntityValues columns =
      functional ? EntityValues::FunctionalShares(entities) : EntityValues::OverrideTickets(entities);
  std::vector<std::uint32_t> category_of;
  std::vector<std::uint32_t> in_order;
  category_of.reserve(refs.size() - refs.running);
  in_order.reserve(refs.size() - refs.running);
  // Category ids in order of first appearance.
  std::uint32_t n_categories = 0;
  // No member has this key: it has no job value and no entity with a value.
  constexpr std::uint32_t kNone = UserId::kNoneValue;
  FlatIdMap<CategoryKey, CategoryHash> ids(CategoryKey{0, kNone, kNone, kNone});
  // Keys are computed a block ahead and their slots prefetched: the table does
  // not fit in the nearest caches once categories number in the tens of thousands.
  constexpr std::size_t kBlock = 32;
  CategoryKey block_keys[kBlock];
  std::uint64_t block_hashes[kBlock];
  std::uint32_t block_refs[kBlock];
  for (std::size_t begin = refs.running; begin < refs.size(); begin += kBlock) {
    const std::size_t end = std::min(refs.size(), begin + kBlock);
    std::size_t n = 0;
    for (std::size_t i = begin; i < end; ++i) {
      const TaskValues v = ValuesOf(refs, columns, functional, i);
      if (v.job == 0 && v.user == 0 && v.project == 0 && v.department == 0) continue;
      block_keys[n] = KeyOf(refs, v, i);
      block_hashes[n] = CategoryHash{}(block_keys[n]);
      block_refs[n] = static_cast<std::uint32_t>(i);
      ids.Prefetch(block_hashes[n]);
      ++n;
    }
    for (std::size_t k = 0; k < n; ++k) {
      in_order.push_back(block_refs[k]);
      const auto [id, fresh] = ids.TryEmplace(block_keys[k], block_hashes[k], n_categories);
      if (fresh) ++n_categories;
      category_of.push_back(id);
    }
  }
  // A stable counting sort by category keeps job-list order inside each category.
  result.categories.resize(n_categories);
  std::vector<std::uint32_t> start(n_categories + 1, 0);
  for (std::uint32_t c : category_of) ++start[c + 1];
  for (std::size_t c = 0; c < n_categories; ++c) start[c + 1] += start[c];
  result.members.resize(in_order.size());
  {
    std::vector<std::uint32_t> fill(start.begin(), start.end() - 1);
    for (std::size_t m = 0; m < in_order.size(); ++m) result.members[fill[category_of[m]]++] = in_order[m];
  }
  for (std::size_t c = 0; c < n_categories; ++c) {
    TicketCategory& cat = result.categories[c];
    cat.begin = start[c];
    cat.end = start[c + 1];
    const std::uint32_t first = result.members[cat.begin];
    const TaskValues v = ValuesOf(refs, columns, functional, first);
    cat.job_value = v.job;
    cat.user_value = v.user;
    cat.project_value = v.project;
    cat.department_value = v.department;
    if (v.user > 0) cat.user = refs.user[first];
    if (v.project > 0) cat.project = refs.project[first];
    if (v.department > 0) cat.department = refs.department[first];
  }
  if (dependent) {
    // By earlier tickets (descending), then submission time, job and task: a
    // total order, so the (unstable, allocation-free) sort is deterministic.
    auto before = [&](std::uint32_t a, std::uint32_t b) {
      if (refs.tickets[a] != refs.tickets[b]) return refs.tickets[a] > refs.tickets[b];
      if (refs.submit[a] != refs.submit[b]) return refs.submit[a] < refs.submit[b];
      if (refs.job[a] != refs.job[b]) return refs.job[a] < refs.job[b];
      return refs.task[a] < refs.task[b];
    };
    auto order_category = [&](std::size_t c) {
      auto first = result.members.begin() + start[c];
      auto last = result.members.begin() + start[c + 1];
      if (!std::is_sorted(first, last, before)) std::sort(first, last, before);
    };
    if (mode == ExecutionMode::kParallel) {
      tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n_categories, 64), [&](const auto& range) {
        for (std::size_t c = range.begin(); c != range.end(); ++c) order_category(c);
      });
    } else {
      for (std::size_t c = 0; c < n_categories; ++c) order_category(c);
    }
  }
  return result;
}

}  // namespace schedk
