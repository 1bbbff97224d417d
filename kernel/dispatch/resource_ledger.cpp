#include "kernel/dispatch/resource_ledger.hpp"

#include <algorithm>
#include <cassert>
#include <tuple>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "kernel/tuning.hpp"

namespace schedk {

ResourceLedger::ResourceLedger(const Cluster& cluster, const QueueInstanceTable& instances, bool with_diagrams)
    : with_diagrams_(with_diagrams),
      pes_(static_cast<std::uint32_t>(cluster.pes.size())),
      hosts_(static_cast<std::uint32_t>(cluster.hosts.size())) {
  first_.push_back(0);
  const ComplexTable& complexes = cluster.complexes;
  const ComplexValueList none;
  for (const ParallelEnvironment& pe : cluster.pes) AddContainer(complexes, none, pe.slots);
  AddContainer(complexes, cluster.global.complex_values, std::nullopt);
  for (const ExecHost& host : cluster.hosts) AddContainer(complexes, host.complex_values, std::nullopt);
  for (std::size_t i = 0; i < instances.size(); ++i) {
    AddContainer(complexes, *instances.complex_values[i], instances.slots[i]);
  }
  if (with_diagrams_) {
    diagrams_.resize(entries_.size());
    versions_.assign(entries_.size(), 0);
  }
}

void ResourceLedger::AddContainer(const ComplexTable& complexes, const ComplexValueList& values,
                                  std::optional<double> slots) {
  if (slots && complexes.slots.valid()) entries_.push_back({complexes.slots, *slots, 0, false});
  for (const ComplexValue& v : values) {
    if (complexes[v.complex].consumable == Consumable::kNo) continue;
    if (slots && v.complex == complexes.slots) continue;  // the container's own slot count wins
    entries_.push_back({v.complex, v.number, 0, false});
    if (complexes[v.complex].relop == Relop::kExcl) entries_.push_back({v.complex, kNonExclusiveTotal, 0, true});
  }
  first_.push_back(static_cast<std::uint32_t>(entries_.size()));
}

std::uint32_t ResourceLedger::Flat(ContainerRef c) const {
  switch (c.level) {
    case ContainerLevel::kPe:
      return c.index;
    case ContainerLevel::kGlobal:
      return pes_;
    case ContainerLevel::kHost:
      return pes_ + 1 + c.index;
    case ContainerLevel::kQueue:
      return pes_ + 1 + hosts_ + c.index;
    case ContainerLevel::kQuota:  // contract: never a ledger container
      break;
  }
  return 0;
}

std::optional<std::uint32_t> ResourceLedger::Find(ContainerRef c, ComplexId complex) const {
  for (std::uint32_t k = Begin(c); k < End(c); ++k) {
    if (entries_[k].complex == complex) return k;
  }
  return std::nullopt;
}

double ResourceLedger::Used(std::uint32_t k, Time start, Duration duration) const {
  return with_diagrams_ ? diagrams_[k].Max(start, duration) : entries_[k].used_now;
}

void ResourceLedger::Debit(std::uint32_t k, double amount, Time start, Duration duration, bool now) {
  if (now) entries_[k].used_now += amount;
  if (!with_diagrams_ || duration <= 0) return;
  UtilizationDiagram& diagram = diagrams_[k];
  versions_[k] = ++last_version_;
  if (!index_) {
    diagram.Add(start, duration, amount);
    return;
  }
  const std::size_t before = diagram.size();
  UtilizationDiagram::AddedEnds ends;
  diagram.Add(start, duration, amount, &ends);
  KeepIndex(k, start, DiagramEnd(start, duration), ends, AtEndsOnly(before, diagram.size(), ends));
}

bool ResourceLedger::AtEndsOnly(std::size_t before, std::size_t after, const UtilizationDiagram::AddedEnds& ends) {
  // An addition changes the breakpoints at its window's two ends only (the
  // steps inside move together), unless rounding makes two of them equal.
  const auto [had_start, had_end, has_start, has_end] = ends;
  return static_cast<std::ptrdiff_t>(after) ==
         static_cast<std::ptrdiff_t>(before) + has_start - had_start + has_end - had_end;
}

void ResourceLedger::KeepIndex(std::uint32_t k, Time start, Time end, const UtilizationDiagram::AddedEnds& ends,
                               bool at_ends_only) {
  if (!at_ends_only || !BreakpointIndex::Packable(end, k)) {
    index_.reset();
    return;
  }
  const auto [had_start, had_end, has_start, has_end] = ends;
  for (const auto& [time, had, has] : {std::tuple{start, had_start, has_start}, std::tuple{end, had_end, has_end}}) {
    if (has && !had) index_->Insert(time, k);
    if (had && !has) index_->Erase(time, k);
  }
}

void ResourceLedger::DebitAll(std::span<const BookedDebit> debits, ExecutionMode mode) {
  // Too few to share out, or one thread: one after another.
  if (mode == ExecutionMode::kSerial || !with_diagrams_ || debits.size() < tuning::kDebitAllParallelFrom) {
    for (const BookedDebit& d : debits) Debit(d.entry, d.amount, d.start, d.duration, d.now);
    return;
  }
  // In order: the amounts in use now and the versions, as Debit sets them.
  std::vector<std::uint32_t> added;  // the debits that reach a diagram, in order
  added.reserve(debits.size());
  for (std::uint32_t i = 0; i < debits.size(); ++i) {
    const BookedDebit& d = debits[i];
    if (d.now) entries_[d.entry].used_now += d.amount;
    if (d.duration <= 0) continue;
    versions_[d.entry] = ++last_version_;
    added.push_back(i);
  }
  // The diagrams, by entry: each entry's debits stay in their order (a
  // counting sort where the debits outnumber the entries, a stable sort otherwise).
  std::vector<std::uint32_t> by_entry(added.size());
  if (added.size() >= entries_.size() / 4) {
    std::vector<std::uint32_t> next(entries_.size() + 1, 0);
    for (std::uint32_t i : added) ++next[debits[i].entry + 1];
    for (std::size_t k = 1; k < next.size(); ++k) next[k] += next[k - 1];
    for (std::uint32_t i : added) by_entry[next[debits[i].entry]++] = i;
  } else {
    by_entry = added;
    std::stable_sort(by_entry.begin(), by_entry.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return debits[a].entry < debits[b].entry; });
  }
  std::vector<std::uint32_t> runs;  // where each entry's debits begin in by_entry, plus the end
  for (std::uint32_t r = 0; r < by_entry.size(); ++r) {
    if (r == 0 || debits[by_entry[r]].entry != debits[by_entry[r - 1]].entry) runs.push_back(r);
  }
  runs.push_back(static_cast<std::uint32_t>(by_entry.size()));
  struct Change {
    UtilizationDiagram::AddedEnds ends;
    bool at_ends_only = false;
  };
  std::vector<Change> changes(debits.size());
  const bool indexed = index_.has_value();
  tbb::parallel_for(
      tbb::blocked_range<std::size_t>(0, runs.size() - 1, 8), [&](const tbb::blocked_range<std::size_t>& r) {
        for (std::size_t run = r.begin(); run != r.end(); ++run) {
          for (std::uint32_t k = runs[run]; k < runs[run + 1]; ++k) {
            const std::uint32_t i = by_entry[k];
            const BookedDebit& d = debits[i];
            UtilizationDiagram& diagram = diagrams_[d.entry];
            if (!indexed) {
              diagram.Add(d.start, d.duration, d.amount);
              continue;
            }
            Change& change = changes[i];
            const std::size_t before = diagram.size();
            diagram.Add(d.start, d.duration, d.amount, &change.ends);
            change.at_ends_only = AtEndsOnly(before, diagram.size(), change.ends);
          }
        }
      });
  // The index, in order, as Debit keeps it.
  if (!indexed) return;
  for (std::uint32_t i : added) {
    if (!index_) return;  // dropped: it stays so
    const BookedDebit& d = debits[i];
    KeepIndex(d.entry, d.start, DiagramEnd(d.start, d.duration), changes[i].ends, changes[i].at_ends_only);
  }
}

bool ResourceLedger::IndexBreakpoints() {
  assert(with_diagrams_);
  index_.reset();
  if (diagrams_.size() > BreakpointIndex::kMaxDiagrams) return false;
  // Each block of diagrams lists its postings, in parallel; a time that does
  // not pack leaves the ledger without an index.
  constexpr std::size_t kBlock = tuning::kLedgerEntriesPerTask;
  const std::size_t blocks = (diagrams_.size() + kBlock - 1) / kBlock;
  std::vector<std::vector<std::uint64_t>> parts(blocks);
  std::vector<std::uint8_t> packs(blocks, 1);
  tbb::parallel_for(std::size_t{0}, blocks, [&](std::size_t b) {
    std::vector<Time> times;
    const std::size_t last = std::min(diagrams_.size(), (b + 1) * kBlock);
    for (auto k = static_cast<std::uint32_t>(b * kBlock); k < last; ++k) {
      times.clear();
      diagrams_[k].AppendTimesIn(0, kDiagramForever + 1, times);
      for (Time t : times) {
        if (!BreakpointIndex::Packable(t, k)) {
          packs[b] = 0;
          return;
        }
        parts[b].push_back(BreakpointIndex::Pack(t, k));
      }
    }
  });
  if (std::find(packs.begin(), packs.end(), 0) != packs.end()) return false;
  std::vector<std::uint64_t> postings;
  std::size_t count = 0;
  for (const std::vector<std::uint64_t>& part : parts) count += part.size();
  postings.reserve(count);
  for (const std::vector<std::uint64_t>& part : parts) postings.insert(postings.end(), part.begin(), part.end());
  index_.emplace(std::move(postings));
  return true;
}

bool ResourceLedger::SameLayout(const ResourceLedger& other) const {
  if (with_diagrams_ != other.with_diagrams_ || pes_ != other.pes_ || hosts_ != other.hosts_ ||
      first_ != other.first_ || entries_.size() != other.entries_.size()) {
    return false;
  }
  for (std::size_t k = 0; k < entries_.size(); ++k) {
    const ConsumableEntry &a = entries_[k], &b = other.entries_[k];
    if (a.complex != b.complex || a.total != b.total || a.non_exclusive != b.non_exclusive) return false;
  }
  return true;
}

void ResourceLedger::CopyFrom(const ResourceLedger& other, ExecutionMode mode) {
  if (mode == ExecutionMode::kSerial) {
    *this = other;
    return;
  }
  // Every member but the diagrams, as the implicit copy assignment copies them
  // (a member added to the class is copied here too).
  with_diagrams_ = other.with_diagrams_;
  pes_ = other.pes_;
  hosts_ = other.hosts_;
  first_ = other.first_;
  entries_ = other.entries_;
  versions_ = other.versions_;
  index_ = other.index_;
  last_version_ = other.last_version_;
  frontiers_ = other.frontiers_;
  diagrams_.resize(other.diagrams_.size());
  ForEachRange(mode, 0, diagrams_.size(), tuning::kLedgerEntriesPerTask, [&](std::size_t begin, std::size_t end) {
    std::copy(other.diagrams_.begin() + begin, other.diagrams_.begin() + end, diagrams_.begin() + begin);
  });
}

std::optional<Time> ResourceLedger::EarliestFit(std::uint32_t k, Time from, Duration duration, double limit) {
  assert(with_diagrams_);
  if (frontiers_.empty()) frontiers_.resize(diagrams_.size());
  return diagrams_[k].EarliestFit(from, duration, limit, frontiers_[k]);
}

}  // namespace schedk
