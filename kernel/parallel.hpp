// parallel.hpp
// Small helpers for running a body over every row of a JobTable with oneTBB.
// Rows are visited shard by shard; a shard is the unit of parallel work, which
// keeps each task on contiguous columns. The body receives the shard index,
// the row inside the shard and the row's flat index (offsets[shard] + row).
// The serial variant visits rows in the same shard-major order.
#pragma once

#include <cstdint>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "kernel/model/job_table.hpp"

namespace schedk {

template <class Body>
void ForEachRowParallel(const JobTable& jobs, const std::vector<std::uint32_t>& offsets, Body&& body) {
  const auto& shards = jobs.shards();
  // One shard per task: shards are few (64 by default) and evenly filled by the hash.
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, shards.size(), 1),
                    [&](const tbb::blocked_range<std::size_t>& r) {
                      for (std::size_t s = r.begin(); s != r.end(); ++s) {
                        const std::uint32_t base = offsets[s];
                        const std::size_t n = shards[s].size();
                        for (std::size_t i = 0; i < n; ++i) body(s, i, base + static_cast<std::uint32_t>(i));
                      }
                    });
}

template <class Body>
void ForEachRowSerial(const JobTable& jobs, const std::vector<std::uint32_t>& offsets, Body&& body) {
  const auto& shards = jobs.shards();
  for (std::size_t s = 0; s < shards.size(); ++s) {
    const std::uint32_t base = offsets[s];
    for (std::size_t i = 0; i < shards[s].size(); ++i) body(s, i, base + static_cast<std::uint32_t>(i));
  }
}

}  // namespace schedk
