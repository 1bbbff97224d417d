#include "kernel/priority/ticket_categories.hpp"

#include <algorithm>
#include <numeric>
#include <type_traits>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "kernel/util/chunk_starts.hpp"
#include "kernel/util/flat_id_map.hpp"
#include "kernel/priority/entity_values.hpp"

namespace schedk {
namespace {

struct CategoryKey {
  std::uint32_t job_value;
  std::uint32_t user;  // id value, or None when the user's value is 0
  std::uint32_t project;
  std::uint32_t department;
  friend bool operator==(const CategoryKey&, const CategoryKey&) = default;
};

// A task's four values in one category kind.
struct TaskValues {
  double user = 0, project = 0, department = 0;
  std::uint32_t job = 0;
};

TaskValues ValuesOf(const TicketRefs& refs, const EntityValues& values, bool functional, std::size_t i) {
  return TaskValues{values.of(refs.user[i]), values.of(refs.project[i]), values.of(refs.department[i]),
                    functional ? refs.jobshare[i] : refs.job_oticket[i]};
}

// The tasks' category keys, made from the job values and, for each entity
// kind, a column holding an entity's id where its value is not 0 and None
// where it is (and for None). Values are never negative (they are read as
// unsigned), so a task has a category exactly when its key is not the empty
// key {0, None, None, None}; the per-task loop reads one id per entity and
// compares no values.
class CategoryKeys {
 public:
  CategoryKeys(const TicketRefs& refs, const EntityValues& values, bool functional)
      : refs_(refs),
        job_values_(functional ? refs.jobshare.data() : refs.job_oticket.data()),
        user_(Ids(values.user)),
        project_(Ids(values.project)),
        department_(Ids(values.department)) {}

  CategoryKey operator()(std::size_t i) const {
    return CategoryKey{job_values_[i], At(user_, refs_.user[i].value), At(project_, refs_.project[i].value),
                       At(department_, refs_.department[i].value)};
  }

 private:
  // Column (values ending with the 0 a None id reads) -> ids ending with None.
  static std::vector<std::uint32_t> Ids(const std::vector<double>& column) {
    std::vector<std::uint32_t> ids(column.size(), UserId::kNoneValue);
    for (std::size_t id = 0; id + 1 < column.size(); ++id) {
      if (column[id] > 0) ids[id] = static_cast<std::uint32_t>(id);
    }
    return ids;
  }
  static std::uint32_t At(const std::vector<std::uint32_t>& ids, std::uint32_t id) {
    return ids[std::min<std::size_t>(id, ids.size() - 1)];
  }

  const TicketRefs& refs_;
  const std::uint32_t* job_values_;  // -js or -ot, by ref
  std::vector<std::uint32_t> user_, project_, department_;
};

// The order inside a category of a dependent policy: earlier tickets
// (descending), then submission time, job and task. A total order, so the
// (unstable, allocation-free) sorts are deterministic.
struct DependentBefore {
  const TicketRefs& refs;
  bool operator()(std::uint32_t a, std::uint32_t b) const {
    if (refs.tickets[a] != refs.tickets[b]) return refs.tickets[a] > refs.tickets[b];
    if (refs.submit[a] != refs.submit[b]) return refs.submit[a] < refs.submit[b];
    if (refs.job[a] != refs.job[b]) return refs.job[a] < refs.job[b];
    return refs.task[a] < refs.task[b];
  }
};

// CategoryKey's hash for the category id table.
struct CategoryHash {
  std::uint64_t operator()(const CategoryKey& key) const {
    std::uint64_t h = (std::uint64_t{key.job_value} << 32 | key.user) * 0x9e3779b97f4a7c15ull;
    h ^= (std::uint64_t{key.project} << 32 | key.department) * 0xc2b2ae3d27d4eb4full;
    return h ^ (h >> 29);
  }
};

// The submission times of members met in ref order: whether they never fall,
// and the first and last of them.
struct SubmitRun {
  bool rising = true;
  bool empty = true;
  std::uint32_t first = 0, last = 0;

  void Add(std::uint32_t submit) {
    rising &= empty || last <= submit;
    if (empty) first = submit;
    empty = false;
    last = submit;
  }
  // The run of the members met after this run's.
  void Append(const SubmitRun& next) {
    if (next.empty) return;
    rising = rising && next.rising && (empty || last <= next.first);
    if (empty) first = next.first;
    empty = false;
    last = next.last;
  }
};

}  // namespace

TicketCategories BuildTicketCategories(const TicketRefs& refs, const EntityTables& entities, CategoryValues values,
                                       bool dependent, ExecutionMode mode, MemberOrder order) {
  TicketCategories result;
  const bool functional = values == CategoryValues::kFunctionalShares;
  const EntityValues columns =
      functional ? EntityValues::FunctionalShares(entities) : EntityValues::OverrideTickets(entities);
  // No member has this key: it has no job value and no entity with a value.
  constexpr std::uint32_t kNone = UserId::kNoneValue;
  const CategoryKey kEmpty{0, kNone, kNone, kNone};
  const CategoryKeys key_of(refs, columns, functional);
  // The pending refs are cut into chunks, one per worker thread. Each chunk
  // numbers its categories in order of first appearance and lists its members;
  // the result is the same for every chunk count.
  const std::size_t first_pending = refs.running, pending = refs.size() - refs.running;
  const std::size_t chunks =
      mode == ExecutionMode::kSerial || pending < 65536
          ? 1
          : static_cast<std::size_t>(std::max(1, tbb::this_task_arena::max_concurrency()));
  struct Chunk {
    std::vector<CategoryKey> keys;     // by chunk id
    std::vector<std::uint32_t> count;  // members per global category, later where they go
    // The chunk's members in ref order while they are few (most tasks have no
    // override tickets), so that the later walks skip the others; empty and
    // `listed` false once more than 1/kListedShare of the refs walked so far
    // (and a block) are members.
    std::vector<std::uint32_t> members;
    bool listed = true;
    // Dependent groupings (parallel): the submission times of the chunk's
    // members, and which categories have a member with earlier tickets.
    SubmitRun submits;
    std::vector<std::uint8_t> with_tickets;
  };
  constexpr std::size_t kListedShare = 8;
  std::vector<Chunk> parts(chunks);
  // Each chunk's keys and their chunk ids, kept until the global numbering.
  std::vector<FlatIdMap<CategoryKey, CategoryHash>> tables(chunks, FlatIdMap<CategoryKey, CategoryHash>(kEmpty));
  // Each member's chunk id, then its global id; written for every pending ref.
  // Chunk k's members are the refs of its range with a category.
  result.category_of.resize(pending);
  std::uint32_t* const category_of = result.category_of.data() - first_pending;  // indexed by ref
  auto chunk_begin = [&](std::size_t k) { return first_pending + pending * k / chunks; };
  auto for_each_member = [&](std::size_t k, auto&& f) {
    if (parts[k].listed) {
      for (std::uint32_t m : parts[k].members) f(m);
      return;
    }
    for (std::size_t i = chunk_begin(k); i < chunk_begin(k + 1); ++i) {
      if (category_of[i] != kNoCategory) f(static_cast<std::uint32_t>(i));
    }
  };
  ForEachIndex(mode, chunks, [&](std::size_t k) {
    Chunk& part = parts[k];
    FlatIdMap<CategoryKey, CategoryHash> ids(kEmpty);  // a local: its fields stay in registers
    // Keys are computed a block ahead and their slots prefetched: the table does
    // not fit in the nearest caches once categories number in the tens of thousands.
    constexpr std::size_t kBlock = 32;
    CategoryKey block_keys[kBlock];
    std::uint64_t block_hashes[kBlock];
    std::uint32_t block_refs[kBlock];
    const std::size_t stop = chunk_begin(k + 1);
    for (std::size_t begin = chunk_begin(k); begin < stop; begin += kBlock) {
      const std::size_t end = std::min(stop, begin + kBlock);
      std::size_t n = 0;
      for (std::size_t i = begin; i < end; ++i) {
        block_keys[n] = key_of(i);
        if (block_keys[n] == kEmpty) {
          category_of[i] = kNoCategory;
          continue;
        }
        block_hashes[n] = CategoryHash{}(block_keys[n]);
        block_refs[n] = static_cast<std::uint32_t>(i);
        ids.Prefetch(block_hashes[n]);
        ++n;
      }
      for (std::size_t b = 0; b < n; ++b) {
        const auto [id, fresh] = ids.TryEmplace(block_keys[b], block_hashes[b], static_cast<std::uint32_t>(part.keys.size()));
        if (fresh) part.keys.push_back(block_keys[b]);
        category_of[block_refs[b]] = id;
      }
      if (part.listed) {
        part.members.insert(part.members.end(), block_refs, block_refs + n);
        if (part.members.size() > (end - chunk_begin(k)) / kListedShare + kBlock) {
          part.listed = false;
          std::vector<std::uint32_t>().swap(part.members);
        }
      }
    }
    tables[k] = std::move(ids);
  });
  // Global ids in order of first appearance: chunk 0's own ids, then chunk by
  // chunk the keys no earlier chunk has, in the chunk's order of first
  // appearance. A chunk's keys are looked up in the earlier chunks' tables in
  // parallel; only the new ones are numbered in order.
  std::vector<std::vector<std::uint32_t>> global_of(chunks);
  {
    constexpr std::uint32_t kNew = kNoCategory;
    std::uint32_t n_categories = static_cast<std::uint32_t>(parts[0].keys.size());
    global_of[0].resize(n_categories);
    std::iota(global_of[0].begin(), global_of[0].end(), 0u);
    for (std::size_t k = 1; k < chunks; ++k) {
      std::vector<std::uint32_t>& global = global_of[k];
      global.resize(parts[k].keys.size());
      auto look_up = [&](std::size_t begin, std::size_t end) {
        for (std::size_t j = begin; j < end; ++j) {
          const CategoryKey& key = parts[k].keys[j];
          const std::uint64_t hash = CategoryHash{}(key);
          global[j] = kNew;
          for (std::size_t earlier = 0; earlier < k; ++earlier) {
            if (const std::uint32_t* id = tables[earlier].Find(key, hash)) {
              global[j] = global_of[earlier][*id];
              break;
            }
          }
        }
      };
      if (mode == ExecutionMode::kParallel) {
        tbb::parallel_for(tbb::blocked_range<std::size_t>(0, global.size(), 4096),
                          [&](const auto& r) { look_up(r.begin(), r.end()); });
      } else {
        look_up(0, global.size());
      }
      for (std::uint32_t& id : global) {
        if (id == kNew) id = n_categories++;
      }
    }
    result.categories.resize(n_categories);
    std::vector<FlatIdMap<CategoryKey, CategoryHash>>().swap(tables);
  }
  const std::size_t n_categories = result.categories.size();
  const bool track_order = dependent && mode == ExecutionMode::kParallel;
  ForEachIndex(mode, chunks, [&](std::size_t k) {
    Chunk& part = parts[k];
    part.count.assign(n_categories, 0);
    if (track_order) part.with_tickets.assign(n_categories, 0);
    // Locals, so that the byte stores below need not be assumed to change them.
    std::uint32_t* const count = part.count.data();
    std::uint8_t* const with_tickets = part.with_tickets.data();
    const std::uint32_t* const global = global_of[k].data();
    SubmitRun submits;
    auto number = [&](std::uint32_t m, auto track) {
      const std::uint32_t c = category_of[m] = global[category_of[m]];
      ++count[c];
      if constexpr (decltype(track)::value) {
        submits.Add(refs.submit[m]);
        with_tickets[c] |= static_cast<std::uint8_t>(refs.tickets[m] != 0);
      }
    };
    if (track_order) {
      for_each_member(k, [&](std::uint32_t m) { number(m, std::true_type{}); });
      part.submits = submits;
    } else {
      for_each_member(k, [&](std::uint32_t m) { number(m, std::false_type{}); });
    }
  });
  // Where the members' submission times rise with their refs (Grid Engine
  // numbers jobs as they are submitted) and no member of a category has
  // earlier tickets, the dependent order of that category is its ref order:
  // its members tie on tickets, and submission time, job number and task
  // number rise with the ref (job-list order). Such categories are marked
  // here and left as they are below.
  std::vector<std::uint8_t> in_ref_order;  // by category; empty: none marked
  if (track_order) {
    SubmitRun submits;
    for (const Chunk& part : parts) submits.Append(part.submits);
    if (submits.rising) {
      in_ref_order.assign(n_categories, 1);
      for (const Chunk& part : parts) {
        for (std::size_t c = 0; c < n_categories; ++c) in_ref_order[c] &= !part.with_tickets[c];
      }
    }
    for (Chunk& part : parts) std::vector<std::uint8_t>().swap(part.with_tickets);
  }
  // A stable counting sort by category keeps ref order inside each category:
  // each chunk's members go after the earlier chunks' members of their category.
  const std::vector<std::uint32_t> start = StableChunkStarts(
      chunks, n_categories, [&](std::size_t k) -> std::vector<std::uint32_t>& { return parts[k].count; });
  result.members.resize(start.back());
  ForEachIndex(mode, chunks, [&](std::size_t k) {
    Chunk& part = parts[k];
    for_each_member(k, [&](std::uint32_t m) { result.members[part.count[category_of[m]]++] = m; });
  });
  // Each category's values, read from its first member (they are the same for all).
  auto describe = [&](std::size_t c) {
    TicketCategory& cat = result.categories[c];
    cat.begin = start[c];
    cat.end = start[c + 1];
    const std::uint32_t head = result.members[cat.begin];
    const TaskValues v = ValuesOf(refs, columns, functional, head);
    cat.job_value = v.job;
    cat.user_value = v.user;
    cat.project_value = v.project;
    cat.department_value = v.department;
    if (v.user > 0) cat.user = refs.user[head];
    if (v.project > 0) cat.project = refs.project[head];
    if (v.department > 0) cat.department = refs.department[head];
  };
  if (mode == ExecutionMode::kParallel) {
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n_categories, 1024), [&](const auto& range) {
      for (std::size_t c = range.begin(); c != range.end(); ++c) describe(c);
    });
  } else {
    for (std::size_t c = 0; c < n_categories; ++c) describe(c);
  }
  if (dependent) {
    const DependentBefore before{refs};
    // Orders categories [begin, end). Their members are refs all over the
    // table; finding the heads fetches what it reads of them a few members
    // ahead, across the categories' bounds.
    auto order_categories = [&](std::size_t begin, std::size_t end) {
      constexpr std::size_t kAhead = 16;
      std::uint32_t* const members = result.members.data();
      const std::uint32_t fetch_end = start[end];
      auto fetch = [&](std::uint32_t m) {
        if (m < fetch_end) {
          __builtin_prefetch(&refs.tickets[members[m]]);
          __builtin_prefetch(&refs.submit[members[m]]);
        }
      };
      if (order == MemberOrder::kHeadFirst) {
        for (std::uint32_t m = start[begin]; m < std::min<std::uint32_t>(fetch_end, start[begin] + kAhead); ++m) fetch(m);
      }
      for (std::size_t c = begin; c < end; ++c) {
        if (!in_ref_order.empty() && in_ref_order[c]) continue;
        std::uint32_t* const first = members + start[c];
        std::uint32_t* const last = members + start[c + 1];
        if (order == MemberOrder::kHeadFirst) {
          std::uint32_t* best = first;
          for (std::uint32_t* it = first; it != last; ++it) {
            fetch(static_cast<std::uint32_t>(it - members) + kAhead);
            if (before(*it, *best)) best = it;
          }
          std::iter_swap(first, best);
        } else if (!std::is_sorted(first, last, before)) {
          std::sort(first, last, before);
        }
      }
    };
    if (mode == ExecutionMode::kParallel) {
      tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n_categories, 64),
                        [&](const auto& range) { order_categories(range.begin(), range.end()); });
    } else {
      order_categories(0, n_categories);
    }
  }
  return result;
}

void OrderAfterHead(TicketCategories& categories, const TicketRefs& refs, bool dependent, std::uint32_t c) {
  if (!dependent) return;  // ref order is the order
  const TicketCategory& cat = categories.categories[c];
  auto first = categories.members.begin() + cat.begin + 1;
  auto last = categories.members.begin() + cat.end;
  const DependentBefore before{refs};
  if (!std::is_sorted(first, last, before)) std::sort(first, last, before);
}

}  // namespace schedk
