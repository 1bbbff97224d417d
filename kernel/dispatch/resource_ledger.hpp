// resource_ledger.hpp
// Every consumable of every resource container of one interval: the PE
// `slots` amounts, the global host's, each exec host's and each queue
// instance's consumables (a queue instance always has `slots`, its capacity
// mirrored as a consumable). Each holds its capacity, its amount in use now
// (Grid Engine's utilized_now) and, when reservation is on, its utilisation
// diagram. Entries of one container are contiguous (CSR over containers).
// Invariants: containers are numbered PEs, then the global host, then hosts,
// then queue instances; a container lists each complex at most once, except
// that an EXCL consumable is followed by its non-exclusive entry.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "kernel/dispatch/queue_instances.hpp"
#include "kernel/execution_mode.hpp"
#include "kernel/model/cluster.hpp"
#include "kernel/reservation/breakpoint_index.hpp"
#include "kernel/reservation/utilization_diagram.hpp"

namespace schedk {

// The MONITOR file's level letters: P, G, H, Q.
// kQuota is the MONITOR file's `L` object, a resource quota rule instance
// (ScheduleResult::quota_keys); the ledger holds no such container.
enum class ContainerLevel : std::uint8_t { kPe, kGlobal, kHost, kQueue, kQuota };

struct ContainerRef {
  ContainerLevel level = ContainerLevel::kGlobal;
  std::uint32_t index = 0;  // PeId, 0, HostId or queue instance
};

struct ConsumableEntry {
  ComplexId complex;
  double total = 0;
  double used_now = 0;
  // For a consumable with relop EXCL the container has a second entry that
  // counts the jobs *not* requesting it (Grid Engine's "non-exclusive" usage).
  // Its total is kNonExclusiveTotal; it never appears in the MONITOR file.
  bool non_exclusive = false;
};

inline constexpr double kNonExclusiveTotal = 1e15;

// One amount booked on one ledger entry (ResourceLedger::Debit's arguments).
struct BookedDebit {
  std::uint32_t entry = 0;
  double amount = 0;
  Time start = 0;
  Duration duration = 0;
  bool now = true;  // into the amount in use now (running and starting tasks)
  friend bool operator==(const BookedDebit&, const BookedDebit&) = default;
};

class ResourceLedger {
 public:
  ResourceLedger(const Cluster& cluster, const QueueInstanceTable& instances, bool with_diagrams);

  bool with_diagrams() const { return with_diagrams_; }
  std::uint32_t size() const { return static_cast<std::uint32_t>(entries_.size()); }
  // The entries of container c: [Begin(c), End(c)).
  std::uint32_t Begin(ContainerRef c) const { return first_[Flat(c)]; }
  std::uint32_t End(ContainerRef c) const { return first_[Flat(c) + 1]; }
  const ConsumableEntry& entry(std::uint32_t k) const { return entries_[k]; }
  // The entry of `complex` in container c, if the container has it as a consumable
  // (for EXCL, the exclusive one; the non-exclusive one follows it).
  std::optional<std::uint32_t> Find(ContainerRef c, ComplexId complex) const;

  // The peak amount in use over [start, start + duration): from the diagram when
  // reservation is on, else the amount in use now.
  double Used(std::uint32_t k, Time start, Duration duration) const;
  const UtilizationDiagram& diagram(std::uint32_t k) const { return diagrams_[k]; }
  // Changes whenever entry k's diagram may have changed (never twice the same
  // value in one ledger), so that a fact learnt about the diagram can be kept
  // until then. Contract: with_diagrams().
  std::uint64_t version(std::uint32_t k) const { return versions_[k]; }
  // The diagram's EarliestFit (gaps included: RESERVE_IN_GAPS), through a
  // FitFrontier per entry, so that the questions of one pass start where the
  // earlier answers on that entry allow. Contract: with_diagrams().
  std::optional<Time> EarliestFit(std::uint32_t k, Time from, Duration duration, double limit);

  // Books `amount` over [start, start + duration): into the amount in use now
  // when `now` (a running or starting job), and into the diagram when reservation is on.
  void Debit(std::uint32_t k, double amount, Time start, Duration duration, bool now);
  // Debit for each of `debits` in turn, with the same result to the bit
  // (amounts in use, diagrams, versions, the breakpoint index): the debits of
  // one entry are added in their order, those of different entries, whose
  // diagrams are independent, in parallel; kSerial, the plain loop.
  void DebitAll(std::span<const BookedDebit> debits, ExecutionMode mode);

  // Indexes the breakpoints of every diagram (postings numbered by entry),
  // kept up to date by Debit from then on. Returns false, with no index, when
  // they do not fit BreakpointIndex. Debit drops the index when an addition
  // merges steps inside its window (rounding can make two amounts equal); ask
  // again to rebuild it. Contract: with_diagrams().
  bool IndexBreakpoints();
  const BreakpointIndex* breakpoint_index() const { return index_ ? &*index_ : nullptr; }

  // Whether `other` has the same containers, entries (complex, capacity,
  // exclusivity) and diagrams on or off: whether bookings made in one mean the
  // same in the other.
  bool SameLayout(const ResourceLedger& other) const;
  // Makes this ledger a copy of `other`, as copy assignment does; under
  // kParallel the diagrams (a dozen arrays each) are copied in parallel blocks.
  void CopyFrom(const ResourceLedger& other, ExecutionMode mode);

 private:
  std::uint32_t Flat(ContainerRef c) const;
  // Whether an addition to a diagram (`before` and `after` breakpoints)
  // changed its breakpoints at the window's ends only, as the index expects.
  static bool AtEndsOnly(std::size_t before, std::size_t after, const UtilizationDiagram::AddedEnds& ends);
  // The index after an addition over [start, end) to entry k's diagram: the
  // postings at the window's ends follow it; it is dropped where the addition
  // changed more (`at_ends_only` false) or a posting does not fit.
  void KeepIndex(std::uint32_t k, Time start, Time end, const UtilizationDiagram::AddedEnds& ends, bool at_ends_only);
  void AddContainer(const ComplexTable& complexes, const ComplexValueList& values, std::optional<double> slots);

  bool with_diagrams_ = false;
  std::uint32_t pes_ = 0, hosts_ = 0;
  std::vector<std::uint32_t> first_;  // per flat container, plus the end
  std::vector<ConsumableEntry> entries_;
  std::vector<UtilizationDiagram> diagrams_;  // parallel to entries_ when reservation is on
  std::vector<std::uint64_t> versions_;       // parallel to diagrams_
  std::optional<BreakpointIndex> index_;      // of diagrams_, if asked for
  std::uint64_t last_version_ = 0;
  std::vector<FitFrontier> frontiers_;        // parallel to diagrams_ once EarliestFit is used
};

}  // namespace schedk
