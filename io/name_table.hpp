// name_table.hpp
// Interning of object names into dense ids: the strings stay in io/, the
// kernel sees only ids. Ids are assigned in order of first Intern().
// Invariant: Name(Intern(s)) == s; ids are 0..size()-1.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace schedk::io {

class NameTable {
 public:
  std::uint32_t Intern(std::string_view name) {
    if (auto it = index_.find(name); it != index_.end()) return it->second;
    const auto id = static_cast<std::uint32_t>(names_.size());
    names_.emplace_back(name);
    index_.emplace(names_.back(), id);
    return id;
  }
  std::optional<std::uint32_t> Find(std::string_view name) const {
    if (auto it = index_.find(name); it != index_.end()) return it->second;
    return std::nullopt;
  }
  const std::string& Name(std::uint32_t id) const { return names_[id]; }
  std::size_t size() const { return names_.size(); }

 private:
  std::deque<std::string> names_;  // stable storage for the views in index_
  std::unordered_map<std::string_view, std::uint32_t> index_;
};

}  // namespace schedk::io
