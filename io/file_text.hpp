// file_text.hpp
// A whole file's bytes in memory, for the parsers, which take text. A named
// regular file is read in parallel stretches (pread) into a buffer nobody
// zeroed first, so both the copy and the first touch of the buffer's pages
// share the cores; standard input ("-"), pipes and other streams are read in
// order as they come.
// Invariant: view() holds every byte the file held when it was read, in order.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "io/status.hpp"

namespace schedk::io {

class FileText {
 public:
  explicit FileText(std::string streamed) : streamed_(std::move(streamed)) {}
  FileText(std::unique_ptr<char[]> bytes, std::size_t size) : bytes_(std::move(bytes)), size_(size) {}

  std::string_view view() const { return bytes_ ? std::string_view(bytes_.get(), size_) : std::string_view(streamed_); }
  // The bytes as a string of their own (a copy, unless they were streamed).
  std::string TakeString() && { return bytes_ ? std::string(view()) : std::move(streamed_); }

 private:
  std::unique_ptr<char[]> bytes_;  // a regular file's, size_ of them
  std::size_t size_ = 0;
  std::string streamed_;  // otherwise
};

// Reads a whole file, or standard input for "-"; errors name the file ("<stdin>").
Result<FileText> ReadFileText(const std::string& path);

// The same bytes as one string, for readers that keep or edit the text.
Result<std::string> ReadWholeFile(const std::string& path);

}  // namespace schedk::io
