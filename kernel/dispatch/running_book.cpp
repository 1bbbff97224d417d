#include "kernel/dispatch/running_book.hpp"

#include <algorithm>
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

bool SameDebits(const RunningListing& a, const RunningBooking& x, const RunningListing& b, const RunningBooking& y) {
  return std::equal(a.debits.begin() + x.first, a.debits.begin() + x.last, b.debits.begin() + y.first,
                    b.debits.begin() + y.last);
}

}  // namespace

void RunningBook::Note(const BookedDebit& d) {
  magnitude_[d.entry] += std::fabs(d.amount);
  exact_ = exact_ && Integral(d.amount) && magnitude_[d.entry] < kExactBound;
}

void RunningBook::Apply(ResourceLedger& ledger, ExecutionMode mode) {
  last_update_ = {};
  const std::vector<RunningBooking>& held = held_.bookings;
  const std::vector<RunningBooking>& wanted = wanted_.bookings;
  // Which bookings stay, which go and which come: a merge of two (job, task) orders.
  std::vector<const RunningBooking*> gone, added;
  {
    std::size_t i = 0, j = 0;
    while (i < held.size() || j < wanted.size()) {
      if (j == wanted.size() || (i < held.size() && Before(held[i], wanted[j]))) {
        gone.push_back(&held[i++]);
      } else if (i == held.size() || Before(wanted[j], held[i])) {
        added.push_back(&wanted[j++]);
      } else {
        if (SameDebits(held_, held[i], wanted_, wanted[j])) {
          ++last_update_.kept;
        } else {
          gone.push_back(&held[i]);
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
  std::vector<double> magnitude;  // magnitude_ after the update in place
  if (in_place && changed) {
    magnitude = magnitude_;
    auto check = [&](const RunningListing& listing, const RunningBooking* b) {
      for (std::uint32_t k = b->first; k < b->last; ++k) {
        const BookedDebit& d = listing.debits[k];
        magnitude[d.entry] += std::fabs(d.amount);
        in_place = in_place && Integral(d.amount) && magnitude[d.entry] < kExactBound;
      }
    };
    for (const RunningBooking* b : gone) check(held_, b);
    for (const RunningBooking* b : added) check(wanted_, b);
  }
  if (!ledger_ || !ledger_->SameLayout(ledger) || (changed && !in_place)) {
    // From scratch, in job order: what an interval without a book does.
    ledger_ = ledger;
    magnitude_.assign(ledger.size(), 0);
    exact_ = true;
    for (const BookedDebit& d : wanted_.debits) Note(d);
    ledger_->DebitAll(wanted_.debits, mode);
    last_update_ = {0, held.size(), wanted.size(), true};
  } else if (changed) {
    // The releases (negative amounts), then the new bookings, in one DebitAll:
    // each entry's amounts are added in that order, as one by one.
    std::vector<BookedDebit> debits;
    for (const RunningBooking* b : gone) {
      for (std::uint32_t k = b->first; k < b->last; ++k) {
        debits.push_back(held_.debits[k]);
        debits.back().amount = -debits.back().amount;
      }
    }
    for (const RunningBooking* b : added) {
      debits.insert(debits.end(), wanted_.debits.begin() + b->first, wanted_.debits.begin() + b->last);
    }
    magnitude_ = std::move(magnitude);
    ledger_->DebitAll(debits, mode);
    last_update_.released = gone.size();
    last_update_.booked = added.size();
  }
  std::swap(held_, wanted_);
  ledger.CopyFrom(*ledger_, mode);
}

}  // namespace schedk
