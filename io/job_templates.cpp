#include "io/job_templates.hpp"

#include <algorithm>
#include <atomic>
#include <limits>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

namespace schedk::io {
namespace {

constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();

JobTemplates::Kind KindOf(const JobShard& shard, std::uint32_t r) {
  return (shard.flags[r] & kJobEnrolled) ? JobTemplates::Kind::kEnrolled : JobTemplates::Kind::kUnenrolled;
}

}  // namespace

JobTemplates::JobTemplates(const JobTable& jobs, const PriorityResult& result, const RowIndex& index, Twin twin)
    : maps_(2 * jobs.shards().size(), Positions(0)) {  // job numbers start at 1
  if (twin == Twin::kReference) {
    BuildReference(jobs, result, index);
  } else {
    BuildParallel(jobs, result, index);
  }
}

void JobTemplates::BuildReference(const JobTable& jobs, const PriorityResult& result, const RowIndex& index) {
  for (std::size_t i = 0; i < result.order.size(); ++i) {
    const std::uint32_t row = result.order[i].row;
    if (result.roles[row] != RowRole::kDispatchable) continue;
    const std::uint32_t s = index.shard(row);
    const JobShard& shard = jobs.shards()[s];
    const JobNumber job = shard.number[index.row(row)];
    MapOf(KindOf(shard, index.row(row)), s).TryEmplace(job, Hash{}(job), static_cast<std::uint32_t>(i));
  }
}

void JobTemplates::BuildParallel(const JobTable& jobs, const PriorityResult& result, const RowIndex& index) {
  // Each row's first position: a minimum, so the same whichever chunk gets there first.
  std::vector<std::uint32_t> first(index.size(), kNone);
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, result.order.size(), 1 << 16), [&](const auto& r) {
    for (std::size_t i = r.begin(); i != r.end(); ++i) {
      const std::uint32_t row = result.order[i].row;
      if (result.roles[row] != RowRole::kDispatchable) continue;
      std::atomic_ref<std::uint32_t> slot(first[row]);
      std::uint32_t seen = slot.load(std::memory_order_relaxed);
      while (i < seen && !slot.compare_exchange_weak(seen, static_cast<std::uint32_t>(i), std::memory_order_relaxed)) {
      }
    }
  });
  // A job's template: the least first position of its rows of the kind.
  const std::vector<std::uint32_t>& offsets = index.offsets();
  tbb::parallel_for(std::size_t{0}, jobs.shards().size(), [&](std::size_t s) {
    const JobShard& shard = jobs.shards()[s];
    for (std::uint32_t r = 0; r < shard.size(); ++r) {
      const std::uint32_t at = first[offsets[s] + r];
      if (at == kNone) continue;
      const JobNumber job = shard.number[r];
      std::uint32_t& kept =
          MapOf(KindOf(shard, r), static_cast<std::uint32_t>(s)).TryEmplace(job, Hash{}(job), at).first;
      kept = std::min(kept, at);
    }
  });
}

}  // namespace schedk::io
