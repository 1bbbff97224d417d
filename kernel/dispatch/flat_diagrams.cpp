#include "kernel/dispatch/flat_diagrams.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

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
  // Places for the stale copies at the end, in the order asked for; then the
  // copies themselves, in parallel.
  std::vector<std::uint32_t> stale;
  std::size_t end = points_.size();
  for (std::uint32_t k : entries) {
    if (version_[k] == ledger.version(k)) continue;
    if (version_[k] != kAbsent) live_ -= count_[k];
    first_[k] = end;
    count_[k] = static_cast<std::uint32_t>(ledger.diagram(k).size());
    end += count_[k];
    live_ += count_[k];
    version_[k] = ledger.version(k);
    stale.push_back(k);
  }
  points_.resize(end);
  tbb::parallel_for(
      tbb::blocked_range<std::size_t>(0, stale.size(), 64), [&](const tbb::blocked_range<std::size_t>& r) {
        for (std::size_t s = r.begin(); s != r.end(); ++s) {
          Breakpoint* out = points_.data() + first_[stale[s]];
          ledger.diagram(stale[s]).ForEachBreakpoint([&](Time time, double amount) { *out++ = {time, amount}; });
        }
      });
}

}  // namespace schedk
