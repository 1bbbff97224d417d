#include "kernel/dispatch/flat_diagrams.hpp"

namespace schedk {

void FlatDiagrams::Copy(const ResourceLedger& ledger, std::uint32_t k) {
  if (version_[k] != kAbsent) live_ -= count_[k];
  first_[k] = points_.size();
  ledger.diagram(k).ForEachBreakpoint([&](Time time, double amount) { points_.push_back({time, amount}); });
  count_[k] = static_cast<std::uint32_t>(points_.size() - first_[k]);
  live_ += count_[k];
  version_[k] = ledger.version(k);
}

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
  for (std::uint32_t k : entries) {
    if (version_[k] != ledger.version(k)) Copy(ledger, k);
  }
}

}  // namespace schedk
