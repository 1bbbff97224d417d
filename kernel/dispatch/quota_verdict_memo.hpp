// quota_verdict_memo.hpp
// What the resource quotas said of a job at a start, kept for the later jobs
// of the interval with the same owner, group, project and PE whose requests
// ask the same of every quota limit (the same request signature), at the same
// start and for the same duration, until the quota usage changes. Jobs split
// into categories by owner under quotas, and most categories of one owner ask
// the quotas the same question: this answers it once.
// Invariants: an answer is kept under the epoch it was found in and read only
// in that epoch. The caller's epoch either changes with every booking (its
// host stamp clock), or never, where each answer carries what it read of the
// usage and the caller checks that before using it (QuotaReads). Only answers
// that read nothing else are kept (the caller's classes are uniform for the
// subject: no rule that applies expands queues or hosts).
#pragma once

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <utility>
#include <vector>

#include "kernel/types.hpp"

namespace schedk::dispatch_detail {

// A question's duration where its answer holds for every duration.
inline constexpr Duration kAnyDuration = -1;

struct QuotaQuestion {
  std::uint32_t owner, group, project, pe;
  std::uint32_t place;      // the quota class asked about, or UINT32_MAX: all of them
  std::uint32_t signature;  // what the requests ask of the limits (Interval::QuotaSignature)
  Time start;
  Duration duration;
  friend bool operator==(const QuotaQuestion&, const QuotaQuestion&) = default;
};

struct QuotaQuestionHash {
  std::size_t operator()(const QuotaQuestion& q) const {
    std::uint64_t h = 0;
    for (std::uint64_t v : {std::uint64_t{q.owner}, std::uint64_t{q.group}, std::uint64_t{q.project},
                            std::uint64_t{q.pe}, std::uint64_t{q.place}, std::uint64_t{q.signature},
                            static_cast<std::uint64_t>(q.start), static_cast<std::uint64_t>(q.duration)}) {
      h = (h ^ v) * 0x9E3779B97F4A7C15ull;
    }
    return static_cast<std::size_t>(h ^ (h >> 29));
  }
};

// Open addressing with linear probing; each slot carries the generation (one
// per epoch asked in turn) it was filled in, and a slot of an earlier one
// counts as free, so a new epoch drops every answer at once. (Within a
// generation nothing is removed, so a probe never meets a free slot before
// the question it looks for.)
template <class Answer>
class QuotaVerdictMemo {
 public:
  // The answer kept for `q` in `epoch`, or null (the caller may replace it).
  Answer* Find(const QuotaQuestion& q, std::uint64_t epoch) {
    if (epoch != epoch_) {
      epoch_ = epoch;
      ++generation_;
      used_ = 0;
    }
    if (slots_.empty()) return nullptr;
    for (std::size_t i = QuotaQuestionHash{}(q)&mask_;; i = (i + 1) & mask_) {
      Slot& slot = slots_[i];
      if (slot.generation != generation_) return nullptr;
      if (slot.question == q) return &slot.answer;
    }
  }
  // Keeps `answer` for `q` in the epoch of the last Find (which did not find
  // it); the answer as kept, until the next Keep.
  Answer& Keep(const QuotaQuestion& q, Answer answer) {
    assert(generation_ > 0);
    if ((used_ + 1) * 2 > slots_.size()) Grow();
    ++used_;
    return Place(Slot{q, generation_, std::move(answer)});
  }

 private:
  struct Slot {
    QuotaQuestion question{};
    std::uint64_t generation = 0;  // 0: never filled
    Answer answer{};
  };
  Answer& Place(Slot slot) {
    std::size_t i = QuotaQuestionHash{}(slot.question) & mask_;
    while (slots_[i].generation == generation_) i = (i + 1) & mask_;
    slots_[i] = std::move(slot);
    return slots_[i].answer;
  }
  void Grow() {
    std::vector<Slot> old(std::max<std::size_t>(64, slots_.size() * 2));
    old.swap(slots_);
    mask_ = slots_.size() - 1;
    for (Slot& slot : old) {
      if (slot.generation == generation_) Place(std::move(slot));
    }
  }

  std::uint64_t epoch_ = UINT64_MAX;  // none yet: the first Find starts generation 1
  std::uint64_t generation_ = 0;
  std::vector<Slot> slots_;  // a power of two of them, or none
  std::size_t mask_ = 0;
  std::size_t used_ = 0;  // slots of this epoch
};

}  // namespace schedk::dispatch_detail
