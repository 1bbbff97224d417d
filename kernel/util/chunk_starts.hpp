// chunk_starts.hpp
// The placing step of a stable counting sort done by chunks of the input:
// each chunk counts its records per bucket, and the records then go bucket
// after bucket and, inside a bucket, chunk after chunk, so that every bucket
// keeps input order. Used by the ticket categories, the share tree's node
// buckets and the parallel ranking (bucket_sort.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace schedk {

// counts_of(k) is chunk k's count per bucket (a std::vector<std::uint32_t>&
// of `buckets` entries); each count is replaced by the place where chunk k's
// first record of that bucket goes. Returns each bucket's start, then the
// total. REQUIRES: the total fits 32 bits.
template <class CountsOf>
std::vector<std::uint32_t> StableChunkStarts(std::size_t chunks, std::size_t buckets, CountsOf counts_of) {
  std::vector<std::uint32_t> start(buckets + 1);
  std::uint32_t at = 0;
  for (std::size_t b = 0; b < buckets; ++b) {
    start[b] = at;
    for (std::size_t k = 0; k < chunks; ++k) at += std::exchange(counts_of(k)[b], at);
  }
  start[buckets] = at;
  return start;
}

}  // namespace schedk
