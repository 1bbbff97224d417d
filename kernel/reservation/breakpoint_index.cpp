#include "kernel/reservation/breakpoint_index.hpp"

#include <cassert>

#include "kernel/radix_sort.hpp"

namespace schedk {

BreakpointIndex::BreakpointIndex(std::vector<std::uint64_t> packed) : size_(packed.size()) {
  RadixSort64(packed);
  assert(std::adjacent_find(packed.begin(), packed.end()) == packed.end());
  auto hint = buckets_.end();
  for (std::size_t k = 0; k < packed.size();) {
    const std::int64_t bucket = BucketOf(TimeOf(packed[k]));
    std::size_t end = k + 1;
    while (end < packed.size() && BucketOf(TimeOf(packed[end])) == bucket) ++end;
    hint = buckets_.emplace_hint(hint, bucket, std::vector<std::uint64_t>(packed.begin() + static_cast<std::ptrdiff_t>(k),
                                                                          packed.begin() + static_cast<std::ptrdiff_t>(end)));
    k = end;
  }
}

void BreakpointIndex::Insert(Time time, std::uint32_t diagram) {
  assert(Packable(time, diagram));
  const std::uint64_t posting = Pack(time, diagram);
  std::vector<std::uint64_t>& postings = buckets_[BucketOf(time)];
  const auto at = std::lower_bound(postings.begin(), postings.end(), posting);
  assert(at == postings.end() || *at != posting);
  postings.insert(at, posting);
  ++size_;
}

void BreakpointIndex::Erase(Time time, std::uint32_t diagram) {
  assert(Packable(time, diagram));
  const std::uint64_t posting = Pack(time, diagram);
  const auto bucket = buckets_.find(BucketOf(time));
  assert(bucket != buckets_.end());
  std::vector<std::uint64_t>& postings = bucket->second;
  const auto at = std::lower_bound(postings.begin(), postings.end(), posting);
  assert(at != postings.end() && *at == posting);
  postings.erase(at);
  if (postings.empty()) buckets_.erase(bucket);
  --size_;
}

}  // namespace schedk
