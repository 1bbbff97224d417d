#include "kernel/dispatch/flat_diagrams.hpp"

#include <algorithm>

#include <tbb/parallel_for.h>

#include "kernel/tuning.hpp"

namespace schedk {

void FlatDiagrams::Refresh(const ResourceLedger& ledger, const std::vector<std::uint32_t>& entries) {
  if (version_.size() != ledger.size()) {
    version_.assign(ledger.size(), kAbsent);
    first_.assign(ledger.size(), 0);
    count_.assign(ledger.size(), 0);
    points_.clear();
    live_ = 0;
  }
  if (points_.size() > 2 * live_ + 4096) {  // mostly stale: rebuild in the order asked for now
    version_.assign(version_.size(), kAbsent);
    points_.clear();
    live_ = 0;
  }
  // The stale entries' copies go at the end, in the order asked for: each
  // block of entries counts its stale breakpoints, then, from where the
  // blocks before it end, places and copies them; both passes in parallel.
  constexpr std::size_t kBlock = tuning::kLedgerEntriesPerTask;
  const std::size_t blocks = (entries.size() + kBlock - 1) / kBlock;
  auto for_stale_in = [&](std::size_t b, auto visit) {
    const std::size_t last = std::min(entries.size(), (b + 1) * kBlock);
    for (std::size_t e = b * kBlock; e < last; ++e) {
      if (version_[entries[e]] != ledger.version(entries[e])) visit(entries[e]);
    }
  };
  std::vector<std::size_t> fresh(blocks), replaced(blocks);  // per block: breakpoints copied, and of copies replaced
  tbb::parallel_for(std::size_t{0}, blocks, [&](std::size_t b) {
    for_stale_in(b, [&](std::uint32_t k) {
      fresh[b] += ledger.diagram(k).size();
      if (version_[k] != kAbsent) replaced[b] += count_[k];
    });
  });
  std::vector<std::size_t> block_first(blocks);  // per block: where its copies begin
  std::size_t end = points_.size();
  for (std::size_t b = 0; b < blocks; ++b) {
    block_first[b] = end;
    end += fresh[b];
    live_ += fresh[b];
    live_ -= replaced[b];
  }
  points_.resize(end);  // unwritten (Column): the copies touch their pages first
  tbb::parallel_for(std::size_t{0}, blocks, [&](std::size_t b) {
    std::size_t at = block_first[b];
    for_stale_in(b, [&](std::uint32_t k) {
      const UtilizationDiagram& diagram = ledger.diagram(k);
      first_[k] = at;
      count_[k] = static_cast<std::uint32_t>(diagram.size());
      version_[k] = ledger.version(k);
      Breakpoint* out = points_.data() + at;
      diagram.ForEachBreakpoint([&](Time time, double amount) { *out++ = {time, amount}; });
      at += count_[k];
    });
  });
}

}  // namespace schedk
