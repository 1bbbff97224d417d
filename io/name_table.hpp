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
  NameTable() = default;
  // A copy indexes its own strings (the index holds views of the storage).
  NameTable(const NameTable& other) : names_(other.names_) { Reindex(); }
  NameTable& operator=(const NameTable& other) {
    if (this != &other) {
      names_ = other.names_;
      Reindex();
    }
    return *this;
  }
  NameTable(NameTable&&) = default;  // a moved deque keeps its elements in place
  NameTable& operator=(NameTable&&) = default;

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
  void Reindex() {
    index_.clear();
    for (std::uint32_t id = 0; id < names_.size(); ++id) index_.emplace(names_[id], id);
  }

  std::deque<std::string> names_;  // stable storage for the views in index_
  std::unordered_map<std::string_view, std::uint32_t> index_;
};

}  // namespace schedk::io
