#include "kernel/priority/ticket_categories.hpp"

#include <algorithm>
#include <numeric>
#include <type_traits>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "kernel/execution_mode.hpp"
#include "kernel/util/chunk_starts.hpp"
#include "kernel/priority/entity_values.hpp"
#include "kernel/tuning.hpp"

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

// A chunk's category ids by key: open addressing over the ids alone, each
// compared through the chunk's list of keys, so that a slot holds 4 bytes
// rather than a key's 16 and its id's 4. Every chunk keeps its table until the
// global numbering, and most categories recur in every chunk: on many threads
// these copies made the pass's memory peak.
// Invariants: at most half the slots are used; every id in a slot indexes
// the key list the table was given, where that key lies.
class ChunkKeyTable {
 public:
  // The id of `key` (whose CategoryHash is `hash`) in `keys`, where it is
  // appended when new.
  std::uint32_t Intern(const CategoryKey& key, std::uint64_t hash, std::vector<CategoryKey>& keys) {
    if ((keys.size() + 1) * 2 > slots_.size()) Grow(keys);
    for (std::size_t i = hash & mask_;; i = (i + 1) & mask_) {
      const std::uint32_t id = slots_[i];
      if (id == kFree) {
        slots_[i] = static_cast<std::uint32_t>(keys.size());
        keys.push_back(key);
        return slots_[i];
      }
      if (keys[id] == key) return id;
    }
  }

  // The id of `key` in `keys`, or nullptr.
  const std::uint32_t* Find(const CategoryKey& key, std::uint64_t hash, const std::vector<CategoryKey>& keys) const {
    if (slots_.empty()) return nullptr;
    for (std::size_t i = hash & mask_;; i = (i + 1) & mask_) {
      const std::uint32_t& id = slots_[i];
      if (id == kFree) return nullptr;
      if (keys[id] == key) return &id;
    }
  }

 private:
  static constexpr std::uint32_t kFree = UINT32_MAX;

  void Grow(const std::vector<CategoryKey>& keys) {
    slots_.assign(std::max<std::size_t>(64, slots_.size() * 2), kFree);
    mask_ = slots_.size() - 1;
    for (std::uint32_t id = 0; id < keys.size(); ++id) {
      std::size_t i = CategoryHash{}(keys[id]) & mask_;
      while (slots_[i] != kFree) i = (i + 1) & mask_;
      slots_[i] = id;
    }
  }

  std::vector<std::uint32_t> slots_;
  std::size_t mask_ = 0;
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

// One grouping, in stages: each chunk of the pending refs numbers its
// categories in order of first appearance (NumberInChunks); the chunks' ids
// become global ids in that order (NumberGlobally); members are counted per
// category (CountMembers) and placed by a stable counting sort, so ref order
// holds inside each category (PlaceMembers); each category takes its values
// from its first member (Describe); a dependent policy's categories are then
// ordered (OrderMembers). The pending refs are cut into chunks, one per worker
// thread; the result is the same for every chunk count.
class CategoryGrouping {
 public:
  CategoryGrouping(const TicketRefs& refs, const EntityTables& entities, CategoryValues values, bool dependent,
                   Twin twin, MemberOrder order)
      : refs_(refs),
        functional_(values == CategoryValues::kFunctionalShares),
        columns_(functional_ ? EntityValues::FunctionalShares(entities) : EntityValues::OverrideTickets(entities)),
        key_of_(refs, columns_, functional_),
        dependent_(dependent),
        mode_(ThreadsFor(twin)),
        order_(order),
        // The reference keeps the plain search of every category's order.
        track_ref_order_(dependent && twin == Twin::kOptimised),
        first_pending_(refs.running),
        pending_(refs.size() - refs.running),
        chunks_(mode_ == ExecutionMode::kSerial || pending_ < 65536
                    ? 1
                    : static_cast<std::size_t>(std::max(1, tbb::this_task_arena::max_concurrency()))),
        parts_(chunks_),
        tables_(chunks_),
        global_of_(chunks_) {
    result_.category_of.resize(pending_);
    category_of_ = result_.category_of.data() - first_pending_;
  }

  TicketCategories Build() {
    NumberInChunks();
    NumberGlobally();
    CountMembers();
    MarkInRefOrder();
    PlaceMembers();
    Describe();
    if (dependent_) OrderMembers();
    return std::move(result_);
  }

 private:
  // No member has this key: it has no job value and no entity with a value.
  static constexpr std::uint32_t kNone = UserId::kNoneValue;
  static constexpr CategoryKey kEmpty{0, kNone, kNone, kNone};
  // Members a chunk may list beyond its share before it stops listing them.
  static constexpr std::size_t kListedSlack = 32;

  struct Chunk {
    std::vector<CategoryKey> keys;     // by chunk id
    std::vector<std::uint32_t> count;  // members per global category, later where they go
    // The chunk's members in ref order while they are few (most tasks have no
    // override tickets), so that the later walks skip the others; empty and
    // `listed` false once more than 1/tuning::kCategoryListedShare of the refs
    // walked so far (and kListedSlack) are members.
    std::vector<std::uint32_t> members;
    bool listed = true;
    // Dependent groupings (parallel): the submission times of the chunk's
    // members, and which categories have a member with earlier tickets.
    SubmitRun submits;
    std::vector<std::uint8_t> with_tickets;
  };

  std::size_t ChunkBegin(std::size_t k) const { return first_pending_ + pending_ * k / chunks_; }
  // Calls f(ref) for chunk k's members (the refs of its range with a category), in ref order.
  template <class F>
  void ForEachMember(std::size_t k, F&& f) const {
    if (parts_[k].listed) {
      for (std::uint32_t m : parts_[k].members) f(m);
      return;
    }
    for (std::size_t i = ChunkBegin(k); i < ChunkBegin(k + 1); ++i) {
      if (category_of_[i] != kNoCategory) f(static_cast<std::uint32_t>(i));
    }
  }

  // Each member's chunk id in category_of_, each chunk's keys in parts_ and tables_.
  void NumberInChunks() {
    ForEachIndex(mode_, chunks_, [&](std::size_t k) {
      Chunk& part = parts_[k];
      ChunkKeyTable ids;  // a local: its fields stay in registers
      const std::size_t begin = ChunkBegin(k), stop = ChunkBegin(k + 1);
      for (std::size_t i = begin; i < stop; ++i) {
        const CategoryKey key = key_of_(i);
        if (key == kEmpty) {
          category_of_[i] = kNoCategory;
          continue;
        }
        category_of_[i] = ids.Intern(key, CategoryHash{}(key), part.keys);
        if (!part.listed) continue;
        part.members.push_back(static_cast<std::uint32_t>(i));
        if (part.members.size() > (i + 1 - begin) / tuning::kCategoryListedShare + kListedSlack) {
          part.listed = false;
          std::vector<std::uint32_t>().swap(part.members);
        }
      }
      tables_[k] = std::move(ids);
    });
  }

  // Global ids in order of first appearance: chunk 0's own ids, then chunk by
  // chunk the keys no earlier chunk has, in the chunk's order of first
  // appearance. A chunk's keys are looked up in the earlier chunks' tables in
  // parallel; only the new ones are numbered in order.
  void NumberGlobally() {
    constexpr std::uint32_t kNew = kNoCategory;
    auto n_categories = static_cast<std::uint32_t>(parts_[0].keys.size());
    global_of_[0].resize(n_categories);
    std::iota(global_of_[0].begin(), global_of_[0].end(), 0u);
    for (std::size_t k = 1; k < chunks_; ++k) {
      std::vector<std::uint32_t>& global = global_of_[k];
      global.resize(parts_[k].keys.size());
      ForEachRange(mode_, 0, global.size(), 4096, [&](std::size_t begin, std::size_t end) {
        for (std::size_t j = begin; j < end; ++j) {
          const CategoryKey& key = parts_[k].keys[j];
          const std::uint64_t hash = CategoryHash{}(key);
          global[j] = kNew;
          for (std::size_t earlier = 0; earlier < k; ++earlier) {
            if (const std::uint32_t* id = tables_[earlier].Find(key, hash, parts_[earlier].keys)) {
              global[j] = global_of_[earlier][*id];
              break;
            }
          }
        }
      });
      for (std::uint32_t& id : global) {
        if (id == kNew) id = n_categories++;
      }
    }
    result_.categories.resize(n_categories);
    std::vector<ChunkKeyTable>().swap(tables_);
  }

  // Each member's global id in category_of_, and each chunk's members per
  // category (with the submission times and earlier tickets where tracked).
  void CountMembers() {
    const std::size_t n_categories = result_.categories.size();
    ForEachIndex(mode_, chunks_, [&](std::size_t k) {
      Chunk& part = parts_[k];
      part.count.assign(n_categories, 0);
      if (track_ref_order_) part.with_tickets.assign(n_categories, 0);
      // Locals, so that the byte stores below need not be assumed to change them.
      std::uint32_t* const count = part.count.data();
      std::uint8_t* const with_tickets = part.with_tickets.data();
      const std::uint32_t* const global = global_of_[k].data();
      std::uint32_t* const category_of = category_of_;
      SubmitRun submits;
      auto number = [&](std::uint32_t m, auto track) {
        const std::uint32_t c = category_of[m] = global[category_of[m]];
        ++count[c];
        if constexpr (decltype(track)::value) {
          submits.Add(refs_.submit[m]);
          with_tickets[c] |= static_cast<std::uint8_t>(refs_.tickets[m] != 0);
        }
      };
      if (track_ref_order_) {
        ForEachMember(k, [&](std::uint32_t m) { number(m, std::true_type{}); });
        part.submits = submits;
      } else {
        ForEachMember(k, [&](std::uint32_t m) { number(m, std::false_type{}); });
      }
    });
  }

  // Where the members' submission times rise with their refs (Grid Engine
  // numbers jobs as they are submitted) and no member of a category has
  // earlier tickets, the dependent order of that category is its ref order:
  // its members tie on tickets, and submission time, job number and task
  // number rise with the ref (job-list order). Such categories are marked
  // here and left as they are by OrderMembers.
  void MarkInRefOrder() {
    if (!track_ref_order_) return;
    const std::size_t n_categories = result_.categories.size();
    SubmitRun submits;
    for (const Chunk& part : parts_) submits.Append(part.submits);
    if (submits.rising) {
      in_ref_order_.assign(n_categories, 1);
      for (const Chunk& part : parts_) {
        for (std::size_t c = 0; c < n_categories; ++c) in_ref_order_[c] &= !part.with_tickets[c];
      }
    }
    for (Chunk& part : parts_) std::vector<std::uint8_t>().swap(part.with_tickets);
  }

  // A stable counting sort by category keeps ref order inside each category:
  // each chunk's members go after the earlier chunks' members of their category.
  void PlaceMembers() {
    start_ = StableChunkStarts(chunks_, result_.categories.size(),
                               [&](std::size_t k) -> std::vector<std::uint32_t>& { return parts_[k].count; });
    result_.members.resize(start_.back());
    ForEachIndex(mode_, chunks_, [&](std::size_t k) {
      Chunk& part = parts_[k];
      ForEachMember(k, [&](std::uint32_t m) { result_.members[part.count[category_of_[m]]++] = m; });
    });
  }

  // Each category's bounds and values, read from its first member (they are the same for all).
  void Describe() {
    ForEachRange(mode_, 0, result_.categories.size(), 1024, [&](std::size_t begin, std::size_t end) {
      for (std::size_t c = begin; c < end; ++c) {
        TicketCategory& cat = result_.categories[c];
        cat.begin = start_[c];
        cat.end = start_[c + 1];
        const std::uint32_t head = result_.members[cat.begin];
        const TaskValues v = ValuesOf(refs_, columns_, functional_, head);
        cat.job_value = v.job;
        cat.user_value = v.user;
        cat.project_value = v.project;
        cat.department_value = v.department;
        if (v.user > 0) cat.user = refs_.user[head];
        if (v.project > 0) cat.project = refs_.project[head];
        if (v.department > 0) cat.department = refs_.department[head];
      }
    });
  }

  // A dependent policy's order inside each category (MemberOrder: in full, or
  // the head alone).
  void OrderMembers() {
    const DependentBefore before{refs_};
    ForEachRange(mode_, 0, result_.categories.size(), 64, [&](std::size_t begin, std::size_t end) {
      for (std::size_t c = begin; c < end; ++c) {
        if (!in_ref_order_.empty() && in_ref_order_[c]) continue;
        std::uint32_t* const first = result_.members.data() + start_[c];
        std::uint32_t* const last = result_.members.data() + start_[c + 1];
        if (order_ == MemberOrder::kHeadFirst) {
          std::iter_swap(first, std::min_element(first, last, before));
        } else if (!std::is_sorted(first, last, before)) {
          std::sort(first, last, before);
        }
      }
    });
  }

  const TicketRefs& refs_;
  const bool functional_;
  const EntityValues columns_;
  const CategoryKeys key_of_;
  const bool dependent_;
  const ExecutionMode mode_;
  const MemberOrder order_;
  const bool track_ref_order_;
  const std::size_t first_pending_, pending_, chunks_;
  std::vector<Chunk> parts_;
  // Each chunk's keys and their chunk ids, kept until the global numbering.
  std::vector<ChunkKeyTable> tables_;
  // Per chunk: its chunk ids' global ids.
  std::vector<std::vector<std::uint32_t>> global_of_;
  TicketCategories result_;
  // Each member's chunk id, then its global id; written for every pending ref
  // (indexed by ref: result_.category_of shifted by the running refs).
  std::uint32_t* category_of_ = nullptr;
  std::vector<std::uint8_t> in_ref_order_;  // by category; empty: none marked
  std::vector<std::uint32_t> start_;        // per category: where its members begin, plus the end
};

}  // namespace

TicketCategories BuildTicketCategories(const TicketRefs& refs, const EntityTables& entities, CategoryValues values,
                                       bool dependent, Twin twin, MemberOrder order) {
  return CategoryGrouping(refs, entities, values, dependent, twin, order).Build();
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
