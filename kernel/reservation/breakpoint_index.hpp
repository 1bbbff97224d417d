// breakpoint_index.hpp
// Which diagrams of a set have a breakpoint at which time: one posting
// (time, diagram) per breakpoint, in (time, diagram) order. It answers "the
// breakpoints in [from, to) of the diagrams a walk weighs" by reading the
// postings of that stretch of time, where asking each diagram costs a search
// in every one of them.
//
// Storage: postings packed into 64-bit keys (time << 24 | diagram), in
// buckets of 64 seconds of time, each a sorted array (a booking adds or
// removes postings at two times: it moves a few kilobytes at most).
// Invariants: times lie in [0, kMaxTime] and diagram numbers below
// kMaxDiagrams (Packable); every bucket is sorted, holds no posting twice and
// is not empty.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <vector>

#include "kernel/types.hpp"

namespace schedk {

class BreakpointIndex {
 public:
  static constexpr int kDiagramBits = 24;
  static constexpr std::uint32_t kMaxDiagrams = std::uint32_t{1} << kDiagramBits;
  static constexpr Time kMaxTime = (Time{1} << (64 - kDiagramBits)) - 1;

  static bool Packable(Time time, std::uint32_t diagram) {
    return time >= 0 && time <= kMaxTime && diagram < kMaxDiagrams;
  }

  // From every (time, diagram) posting, in any order. Contract: each Packable
  // and none twice.
  explicit BreakpointIndex(std::vector<std::uint64_t> packed);
  BreakpointIndex() = default;

  static std::uint64_t Pack(Time time, std::uint32_t diagram) {
    return static_cast<std::uint64_t>(time) << kDiagramBits | diagram;
  }
  static Time TimeOf(std::uint64_t posting) { return static_cast<Time>(posting >> kDiagramBits); }
  static std::uint32_t DiagramOf(std::uint64_t posting) {
    return static_cast<std::uint32_t>(posting & (kMaxDiagrams - 1));
  }

  // Contract: Packable; Insert a posting that is not in the index, Erase one that is.
  void Insert(Time time, std::uint32_t diagram);
  void Erase(Time time, std::uint32_t diagram);

  // Calls visit(time, diagram) for every posting with from <= time < to, in
  // (time, diagram) order, until visit returns false.
  template <class Visit>
  void ForEachIn(Time from, Time to, Visit visit) const;

  std::size_t size() const { return size_; }

 private:
  static constexpr int kBucketBits = 6;
  static std::int64_t BucketOf(Time time) { return time >> kBucketBits; }

  std::map<std::int64_t, std::vector<std::uint64_t>> buckets_;
  std::size_t size_ = 0;
};

template <class Visit>
void BreakpointIndex::ForEachIn(Time from, Time to, Visit visit) const {
  from = std::max<Time>(from, 0);
  if (from >= to || from > kMaxTime) return;
  const std::uint64_t low = Pack(from, 0);
  const bool bounded = to <= kMaxTime;  // else every posting from `from` on
  const std::uint64_t high = bounded ? Pack(to, 0) : 0;
  for (auto it = buckets_.lower_bound(BucketOf(from)); it != buckets_.end(); ++it) {
    const std::vector<std::uint64_t>& postings = it->second;
    auto p = postings.begin();
    if (*p < low) p = std::lower_bound(postings.begin(), postings.end(), low);
    for (; p != postings.end(); ++p) {
      if (bounded && *p >= high) return;
      if (!visit(TimeOf(*p), DiagramOf(*p))) return;
    }
  }
}

}  // namespace schedk
