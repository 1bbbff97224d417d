#include "io/job_names.hpp"

#include <algorithm>
#include <cstring>

namespace schedk::io {

namespace {

// The blocks grow from the first size to the largest by doubling, so that the
// many small tables of a parse (a name space per chunk) stay small.
constexpr std::size_t kFirstBlockBytes = 256, kLargestBlockBytes = std::size_t{64} << 10;

}  // namespace

JobNames& JobNames::operator=(JobNames&& other) noexcept {
  blocks_ = std::move(other.blocks_);
  block_free_ = std::exchange(other.block_free_, nullptr);
  block_left_ = std::exchange(other.block_left_, 0);
  last_block_bytes_ = std::exchange(other.last_block_bytes_, 0);
  names_ = std::move(other.names_);
  lines_ = std::move(other.lines_);
  slots_ = std::move(other.slots_);
  other.blocks_.clear();
  other.names_.clear();
  other.lines_.clear();
  other.slots_.clear();
  return *this;
}

void JobNames::Grow() {
  std::vector<std::uint64_t> old = std::move(slots_);
  slots_.assign(old.size() * 2, 0);
  const std::size_t mask = slots_.size() - 1;
  for (const std::uint64_t slot : old) {
    if (slot == 0) continue;
    std::size_t i = static_cast<std::uint32_t>(slot >> 32) & mask;
    while (slots_[i] != 0) i = (i + 1) & mask;
    slots_[i] = slot;
  }
}

std::string_view JobNames::Keep(std::string_view name) {
  if (name.empty()) return std::string_view("", 0);
  if (block_left_ < name.size()) {
    const std::size_t last = blocks_.empty() ? kFirstBlockBytes / 2 : last_block_bytes_;
    const std::size_t bytes = std::max(std::min(last * 2, kLargestBlockBytes), name.size());
    blocks_.emplace_back(new char[bytes]);  // unzeroed: every byte handed out is written first
    block_free_ = blocks_.back().get();
    block_left_ = bytes;
    last_block_bytes_ = bytes;
  }
  char* at = block_free_;
  std::memcpy(at, name.data(), name.size());
  block_free_ += name.size();
  block_left_ -= name.size();
  return {at, name.size()};
}

}  // namespace schedk::io
