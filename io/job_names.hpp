// job_names.hpp
// JobNames: the names of one kind (owners, request keys, ...) in a job name
// space, in order of first use, each with the line of its first use. Interning
// a name gives its id; ids count from 0 in order of first use.
// Storage: the names' bytes lie end to end in blocks that never move, and an
// open-addressing table of (hash, id) slots, at most half full, finds them:
// no allocation per name, which parsing and merging millions of request keys
// would pay for otherwise.
// Invariants: an id stays valid and names the same bytes for the life of the
// table (tables only grow); every name's slot lies on its hash's probe run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace schedk::io {

class JobNames {
 public:
  JobNames() = default;
  JobNames(const JobNames&) = delete;  // the views point into the blocks
  JobNames& operator=(const JobNames&) = delete;
  JobNames(JobNames&& other) noexcept { *this = std::move(other); }
  JobNames& operator=(JobNames&& other) noexcept;  // the blocks move, their bytes stay in place

  std::uint32_t Intern(std::string_view name, int line) {
    const std::uint32_t hash = HashOf(name);
    if (slots_.empty()) slots_.assign(kFirstSlots, 0);
    std::uint64_t& slot = slots_[Probe(name, hash)];
    if (slot != 0) return IdOf(slot);
    const auto id = static_cast<std::uint32_t>(names_.size());
    names_.push_back(Keep(name));
    lines_.push_back(line);
    slot = (std::uint64_t{hash} << 32) | (std::uint64_t{id} + 1);
    if (names_.size() * 2 > slots_.size()) Grow();
    return id;
  }
  std::optional<std::uint32_t> Find(std::string_view name) const {
    if (slots_.empty()) return std::nullopt;
    const std::uint64_t slot = slots_[Probe(name, HashOf(name))];
    if (slot == 0) return std::nullopt;
    return IdOf(slot);
  }
  std::string_view Name(std::uint32_t id) const { return names_[id]; }
  int Line(std::uint32_t id) const { return lines_[id]; }
  std::size_t size() const { return names_.size(); }

 private:
  static constexpr std::size_t kFirstSlots = 16;  // a power of two
  static std::uint32_t HashOf(std::string_view name) {
    const std::uint64_t h = std::hash<std::string_view>{}(name);
    return static_cast<std::uint32_t>(h ^ (h >> 32));
  }
  static std::uint32_t IdOf(std::uint64_t slot) { return static_cast<std::uint32_t>(slot) - 1; }
  // The slot holding `name`, or the empty slot where it goes (one is empty: the table is at most half full).
  std::size_t Probe(std::string_view name, std::uint32_t hash) const {
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
      const std::uint64_t slot = slots_[i];
      if (slot == 0 || (static_cast<std::uint32_t>(slot >> 32) == hash && names_[IdOf(slot)] == name)) return i;
    }
  }
  void Grow();                                   // twice the slots, each again on its probe run
  std::string_view Keep(std::string_view name);  // a copy of `name` in the blocks

  std::vector<std::unique_ptr<char[]>> blocks_;
  char* block_free_ = nullptr;  // the unused end of the last block
  std::size_t block_left_ = 0;
  std::size_t last_block_bytes_ = 0;
  std::vector<std::string_view> names_;
  std::vector<int> lines_;
  std::vector<std::uint64_t> slots_;  // (hash << 32) | (id + 1); 0: empty
};

}  // namespace schedk::io
