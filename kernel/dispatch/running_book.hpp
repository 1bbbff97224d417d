// running_book.hpp
// The running and suspended tasks booked into the utilisation diagrams
// (add_job_list_to_schedule with reservation on), kept from one scheduling
// interval to the next by a caller that runs many intervals over a slowly
// changing cluster (`schedk serve`, `schedk simulate`). Given the book,
// ScheduleInterval works out what each running task books (cheap: its demands
// on the ledger entries) and compares that with what the book holds: bookings
// of tasks that ended or changed (start, assumed duration, grants, requests)
// are released, new ones are made, the others are kept; the interval then
// starts from a copy of the book's ledger instead of adding every running task
// to the diagrams again. That costs what changed, not what runs: copying a
// ledger is a fraction of booking every running task again.
// Exactness: a release adds the negative amounts, which gives back the
// diagrams and amounts in use to the bit only while every amount is an integer
// and every sum stays below 2^52 (slots, memory in bytes and license counts
// are). Otherwise, and when the ledger's layout (containers, capacities) is not
// the book's, the book is rebuilt from scratch in job order, exactly as an
// interval without a book books.
// Invariant: an interval's result is the same, to the bit, with a book and
// without; a book is used by one interval at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "kernel/dispatch/resource_ledger.hpp"
#include "kernel/execution_mode.hpp"
#include "kernel/types.hpp"

namespace schedk {

namespace dispatch_detail {
class Interval;
}

// What one running or suspended task books: debits [first, last) of its
// listing, in booking order.
struct RunningBooking {
  JobNumber job = 0;
  TaskNumber task = 0;
  std::uint32_t first = 0, last = 0;
};

// The bookings of every running task, in (job, task) order, and their debits.
struct RunningListing {
  std::vector<RunningBooking> bookings;
  std::vector<BookedDebit> debits;
  void clear() {
    bookings.clear();
    debits.clear();
  }
};

class RunningBook {
 public:
  // What the last update did: bookings kept, released and made; whether it
  // started over from an empty ledger.
  struct Update {
    std::size_t kept = 0, released = 0, booked = 0;
    bool rebuilt = false;
  };
  const Update& last_update() const { return last_update_; }
  // Bookings held (one per running or suspended task of the last interval).
  std::size_t size() const { return held_.bookings.size(); }
  // The running tasks' bookings alone (null before the first interval).
  const ResourceLedger* ledger() const { return ledger_ ? &*ledger_ : nullptr; }

 private:
  friend class dispatch_detail::Interval;

  // The interval lists what its running tasks book here (cleared), then
  // calls Apply, which brings the book to that listing and copies its ledger
  // into `ledger`, the interval's, which holds no booking yet. The ledger's
  // changes and the copy are shared out under kParallel, with the same result.
  RunningListing& wanted() {
    wanted_.clear();
    return wanted_;
  }
  void Apply(ResourceLedger& ledger, ExecutionMode mode);
  // Counts an amount about to be added to the book's ledger in magnitude_ and exact_.
  void Note(const BookedDebit& debit);

  std::optional<ResourceLedger> ledger_;
  RunningListing held_;    // what the ledger holds
  RunningListing wanted_;  // the interval's listing (kept to reuse its memory)
  std::vector<double> magnitude_;  // per entry: the absolute amounts added since the last rebuild
  bool exact_ = true;              // every amount added since the last rebuild is an integer
  Update last_update_;
};

}  // namespace schedk
