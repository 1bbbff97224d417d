// line_cursor.hpp
// Walks the lines of a snapshot text: physical lines (without "\n" or
// "\r\n") with their line numbers, and logical lines, where a line ending in
// "\" is joined with the next (the backslash and newline become one space, as
// in Grid Engine's files). Joined lines are kept in the caller's storage.
#pragma once

#include <deque>
#include <string>
#include <string_view>

namespace schedk::io {

class LineCursor {
 public:
  LineCursor(std::string_view text, int line_before_first) : text_(text), line_(line_before_first) {}

  // The next physical line; false at the end of the text.
  bool NextPhysical(std::string_view& line) {
    if (pos_ >= text_.size()) return false;
    std::size_t end = text_.find('\n', pos_);
    if (end == std::string_view::npos) end = text_.size();
    line = text_.substr(pos_, end - pos_);
    line_start_ = pos_;
    pos_ = end + 1;
    ++line_;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    return true;
  }

  // Returns `line` joined with the physical lines its continuations pull in.
  std::string_view Logical(std::string_view line, std::deque<std::string>& storage) {
    if (line.empty() || line.back() != '\\') return line;
    std::string joined(line.substr(0, line.size() - 1));
    joined.push_back(' ');
    std::string_view next;
    while (NextPhysical(next)) {
      if (!next.empty() && next.back() == '\\') {
        joined.append(next.substr(0, next.size() - 1));
        joined.push_back(' ');
      } else {
        joined.append(next);
        break;
      }
    }
    storage.push_back(std::move(joined));
    return storage.back();
  }

  // Goes on from byte `pos`, a line's start, numbering that line line_before + 1.
  void Seek(std::size_t pos, int line_before) {
    pos_ = pos;
    line_ = line_before;
  }

  int line() const { return line_; }                   // number of the last physical line read
  std::size_t line_start() const { return line_start_; }  // its byte offset
  std::size_t pos() const { return pos_; }                // where the next physical line starts
  std::size_t size() const { return text_.size(); }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
  std::size_t line_start_ = 0;
  int line_;
};

}  // namespace schedk::io
