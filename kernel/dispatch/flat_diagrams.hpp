// flat_diagrams.hpp
// A contiguous copy of the breakpoints of some of a ResourceLedger's
// diagrams, for passes that read every breakpoint of thousands of diagrams
// (the coverage of a parallel queue-end-time walk). Read from the ledger, each
// diagram is a few separately allocated arrays, and the pass waits for memory
// at every one; read from here, in the order the entries were last refreshed,
// it is one stream. Between passes only the entries whose ledger version
// changed are copied again (appended at the end; the space they held is
// reclaimed when the copy is rebuilt, once more than half of it is stale).
// Invariant: after Refresh(entries), Steps(k) of each of those entries holds
// exactly ledger.diagram(k)'s breakpoints, in time order (other entries'
// copies may be gone).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "kernel/dispatch/resource_ledger.hpp"
#include "kernel/reservation/utilization_diagram.hpp"
#include "kernel/util/column.hpp"

namespace schedk {

class FlatDiagrams {
 public:
  // Brings the copies of `entries` up to date with `ledger` (whose layout must
  // not change between calls). Contract: `entries` distinct.
  void Refresh(const ResourceLedger& ledger, const std::vector<std::uint32_t>& entries);

  // The breakpoints of entry k; k was named by the last Refresh.
  std::span<const Breakpoint> Steps(std::uint32_t k) const { return {points_.data() + first_[k], count_[k]}; }

 private:
  static constexpr std::uint64_t kAbsent = UINT64_MAX;
  std::vector<std::uint64_t> version_;  // per ledger entry: the version copied, or kAbsent
  std::vector<std::size_t> first_;      // per ledger entry: where its copy begins in points_
  std::vector<std::uint32_t> count_;    // per ledger entry: its breakpoints
  Column<Breakpoint> points_;
  std::size_t live_ = 0;  // breakpoints of current copies in points_
};

}  // namespace schedk
