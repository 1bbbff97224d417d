#include "kernel/reservation/breakpoint_index.hpp"

#include <cassert>

#include "kernel/util/radix_sort.hpp"

namespace schedk {

BreakpointIndex::BreakpointIndex(std::vector<std::uint64_t> packed) : size_(packed.size()) {
  RadixSort64(packed);
  assert(std::adjacent_find(packed.begin(), packed.end()) == packed.end());
  auto hint = buckets_.end();
  for (std::size_t k = 0; k < packed.size();) {
    const std::int64_t bucket = BucketOf(TimeOf(packed[k]));
    std::size_t end = k + 1;
    while (end < packed.size() && BucketOf(TimeOf(packed[end])) == bucket) ++end;
    Chunks chunks;
    for (std::size_t c = k; c < end; c += kChunk / 2) {  // half full: room to grow
      const std::size_t c_end = std::min(end, c + kChunk / 2);
      chunks.emplace_back(packed.begin() + static_cast<std::ptrdiff_t>(c),
                          packed.begin() + static_cast<std::ptrdiff_t>(c_end));
    }
    hint = buckets_.emplace_hint(hint, bucket, std::move(chunks));
    k = end;
  }
}

void BreakpointIndex::Insert(Time time, std::uint32_t diagram) {
  assert(Packable(time, diagram));
  const std::uint64_t posting = Pack(time, diagram);
  Chunks& chunks = buckets_[BucketOf(time)];
  if (chunks.empty()) chunks.emplace_back();
  const std::size_t c = chunks.front().empty() ? 0 : ChunkOf(chunks, posting);
  std::vector<std::uint64_t>& postings = chunks[c];
  const auto at = std::lower_bound(postings.begin(), postings.end(), posting);
  assert(at == postings.end() || *at != posting);
  postings.insert(at, posting);
  if (postings.size() > kChunk) {  // split in halves
    std::vector<std::uint64_t> upper(postings.begin() + static_cast<std::ptrdiff_t>(kChunk / 2), postings.end());
    postings.resize(kChunk / 2);
    chunks.insert(chunks.begin() + static_cast<std::ptrdiff_t>(c) + 1, std::move(upper));
  }
  ++size_;
}

void BreakpointIndex::Erase(Time time, std::uint32_t diagram) {
  assert(Packable(time, diagram));
  const std::uint64_t posting = Pack(time, diagram);
  const auto bucket = buckets_.find(BucketOf(time));
  assert(bucket != buckets_.end());
  Chunks& chunks = bucket->second;
  const std::size_t c = ChunkOf(chunks, posting);
  std::vector<std::uint64_t>& postings = chunks[c];
  const auto at = std::lower_bound(postings.begin(), postings.end(), posting);
  assert(at != postings.end() && *at == posting);
  postings.erase(at);
  if (postings.empty()) chunks.erase(chunks.begin() + static_cast<std::ptrdiff_t>(c));
  if (chunks.empty()) buckets_.erase(bucket);
  --size_;
}

}  // namespace schedk
