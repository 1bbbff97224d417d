#include "kernel/dispatch/running_book.hpp"

#include <cmath>
#include <tuple>
#include <utility>

namespace schedk {
namespace {

// Below this, every sum of integers is exact in a double, in any order.
constexpr double kExactBound = 4503599627370496.0;  // 2^52

bool Integral(double amount) { return std::trunc(amount) == amount && std::fabs(amount) < kExactBound; }

bool Before(const RunningBooking& a, const RunningBooking& b) {
  return std::tie(a.job, a.task) < std::tie(b.job, b.task);
}

}  // namespace

void RunningBook::Post(const RunningBooking& booking, double sign) {
  for (const BookedDebit& d : booking.debits) {
    ledger_->Debit(d.entry, sign * d.amount, d.start, d.duration, d.now);
    magnitude_[d.entry] += std::fabs(d.amount);
    exact_ = exact_ && Integral(d.amount) && magnitude_[d.entry] < kExactBound;
  }
}

void RunningBook::Apply(std::vector<RunningBooking> wanted, ResourceLedger& ledger) {
  last_update_ = {};
  // Which bookings stay, which go and which come: a merge of two (job, task) orders.
  std::vector<const RunningBooking*> gone, added;
  {
    std::size_t i = 0, j = 0;
    while (i < bookings_.size() || j < wanted.size()) {
      if (j == wanted.size() || (i < bookings_.size() && Before(bookings_[i], wanted[j]))) {
        gone.push_back(&bookings_[i++]);
      } else if (i == bookings_.size() || Before(wanted[j], bookings_[i])) {
        added.push_back(&wanted[j++]);
      } else {
        if (bookings_[i].debits == wanted[j].debits) {
          ++last_update_.kept;
        } else {
          gone.push_back(&bookings_[i]);
          added.push_back(&wanted[j]);
        }
        ++i;
        ++j;
      }
    }
  }
  const bool changed = !gone.empty() || !added.empty();
  // An update in place is exact while every amount so far, and every one to
  // come, is an integer whose sums stay below 2^52.
  bool in_place = ledger_ && ledger_->SameLayout(ledger) && exact_;
  if (in_place && changed) {
    std::vector<double> magnitude = magnitude_;
    for (const auto* list : {&gone, &added}) {
      for (const RunningBooking* b : *list) {
        for (const BookedDebit& d : b->debits) {
          magnitude[d.entry] += std::fabs(d.amount);
          in_place = in_place && Integral(d.amount) && magnitude[d.entry] < kExactBound;
        }
      }
    }
  }
  if (!ledger_ || !ledger_->SameLayout(ledger) || (changed && !in_place)) {
    // From scratch, in job order: what an interval without a book does.
    ledger_ = ledger;
    magnitude_.assign(ledger.size(), 0);
    exact_ = true;
    for (const RunningBooking& b : wanted) Post(b, +1);
    last_update_ = {0, bookings_.size(), wanted.size(), true};
  } else {
    for (const RunningBooking* b : gone) Post(*b, -1);
    for (const RunningBooking* b : added) Post(*b, +1);
    last_update_.released = gone.size();
    last_update_.booked = added.size();
  }
  bookings_ = std::move(wanted);
  ledger = *ledger_;
}

}  // namespace schedk
