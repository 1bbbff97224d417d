// breakpoint_index.hpp
// Which diagrams of a set have a breakpoint at which time: one posting
// (time, diagram) per breakpoint, in (time, diagram) order. It answers "the
// breakpoints in [from, to) of the diagrams a walk weighs" by reading the
// postings of that stretch of time, where asking each diagram costs a search
// in every one of them.
//
// Storage: postings packed into 64-bit keys (time << 24 | diagram), in
// buckets of 64 seconds of time, each a run of sorted chunks of at most
// kChunk postings (a booking adds or removes postings at two times; many
// bookings share a time, and a bucket of one sorted array moved 5,000
// postings per insertion in the 10,000-host interval).
// Invariants: times lie in [0, kMaxTime] and diagram numbers below
// kMaxDiagrams (Packable); a bucket's chunks, read in order, are sorted, hold
// no posting twice, and none is empty; no bucket is empty.
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

  // The same, latest first.
  template <class Visit>
  void ForEachInReverse(Time from, Time to, Visit visit) const;

  std::size_t size() const { return size_; }

 private:
  static constexpr int kBucketBits = 6;
  static constexpr std::size_t kChunk = 512;
  static std::int64_t BucketOf(Time time) { return time >> kBucketBits; }
  using Chunks = std::vector<std::vector<std::uint64_t>>;
  // The chunk of a bucket where `posting` is or belongs: the first whose last
  // posting is not below it, else the last.
  static std::size_t ChunkOf(const Chunks& chunks, std::uint64_t posting) {
    const auto it = std::lower_bound(chunks.begin(), chunks.end(), posting,
                                     [](const std::vector<std::uint64_t>& c, std::uint64_t p) { return c.back() < p; });
    return it == chunks.end() ? chunks.size() - 1 : static_cast<std::size_t>(it - chunks.begin());
  }

  std::map<std::int64_t, Chunks> buckets_;
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
    const Chunks& chunks = it->second;
    std::size_t c = chunks.front().front() < low ? ChunkOf(chunks, low) : 0;
    for (; c < chunks.size(); ++c) {
      const std::vector<std::uint64_t>& postings = chunks[c];
      auto p = postings.begin();
      if (*p < low) p = std::lower_bound(postings.begin(), postings.end(), low);
      for (; p != postings.end(); ++p) {
        if (bounded && *p >= high) return;
        if (!visit(TimeOf(*p), DiagramOf(*p))) return;
      }
    }
  }
}

template <class Visit>
void BreakpointIndex::ForEachInReverse(Time from, Time to, Visit visit) const {
  from = std::max<Time>(from, 0);
  if (from >= to || from > kMaxTime) return;
  const std::uint64_t low = Pack(from, 0);
  const bool bounded = to <= kMaxTime;  // else every posting from `from` on
  const std::uint64_t high = bounded ? Pack(to, 0) : 0;
  auto it = bounded ? buckets_.upper_bound(BucketOf(to - 1)) : buckets_.end();
  while (it != buckets_.begin()) {
    --it;
    const Chunks& chunks = it->second;
    for (std::size_t c = chunks.size(); c-- > 0;) {
      const std::vector<std::uint64_t>& postings = chunks[c];
      auto p = postings.end();
      if (bounded && postings.back() >= high) p = std::lower_bound(postings.begin(), postings.end(), high);
      while (p != postings.begin()) {
        --p;
        if (*p < low) return;
        if (!visit(TimeOf(*p), DiagramOf(*p))) return;
      }
    }
  }
}

}  // namespace schedk
