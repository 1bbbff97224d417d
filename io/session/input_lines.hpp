// input_lines.hpp
// The request stream of `schedk serve` cut into lines, in batches, for
// Session::HandleLines: bytes go in as read, whole lines come out. A line
// longer than the limit keeps its first max_line_bytes bytes and is marked
// too long (the session answers it 413); the rest of it is dropped.
// Invariants: lines come out in input order, each once, without their
// newline; a batch owns its bytes, so it can travel to another thread; the
// cutter holds at most the line being assembled between batches.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

namespace schedk::io {

// One line of input as it was cut.
struct InputLine {
  std::string_view text;  // without its newline
  bool too_long = false;  // longer than the limit: the bytes past it were dropped
};

// Whole lines and the bytes they view.
struct InputBatch {
  std::vector<char> bytes;
  std::vector<InputLine> lines;
  bool end = false;  // the input ended after these lines
};

class LineCutter {
 public:
  explicit LineCutter(std::size_t max_line_bytes) : max_line_bytes_(max_line_bytes) {}

  // Adds bytes read; each newline completes a line.
  void Append(std::string_view bytes);
  // The input ended: a last line without a newline completes too.
  void Finish();

  std::size_t line_count() const { return cuts_.size(); }
  std::size_t byte_count() const { return line_start_; }
  // The lines completed so far, handed over (the line being assembled stays).
  InputBatch Take();

 private:
  struct Cut {
    std::size_t begin = 0, size = 0;
    bool too_long = false;
  };
  std::size_t max_line_bytes_;
  std::vector<char> bytes_;
  std::vector<Cut> cuts_;
  std::size_t line_start_ = 0;  // where the line being assembled begins in bytes_
  bool too_long_ = false;       // that line has lost bytes past the limit
  bool ended_ = false;
};

}  // namespace schedk::io
