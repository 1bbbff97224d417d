// write_file.hpp
// How the CLI writes a file it was asked for (a snapshot, a plot, per-job
// results): whole or not at all. The text goes to `<path>.partial`, which is
// renamed into place once written and closed, so a reader never sees half a
// file and a failure leaves the old one.
#pragma once

#include <cstdio>
#include <string>

namespace schedk::tools {

inline bool WriteWhole(const std::string& path, const std::string& text) {
  const std::string partial = path + ".partial";
  std::FILE* f = std::fopen(partial.c_str(), "w");
  if (f == nullptr) return false;
  const bool written = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  if (std::fclose(f) != 0 || !written || std::rename(partial.c_str(), path.c_str()) != 0) {
    std::remove(partial.c_str());
    return false;
  }
  return true;
}

}  // namespace schedk::tools
