#include "io/session/input_lines.hpp"

#include <algorithm>
#include <utility>

namespace schedk::io {

void LineCutter::Append(std::string_view bytes) {
  while (!bytes.empty()) {
    const std::size_t newline = bytes.find('\n');
    const std::string_view piece = bytes.substr(0, newline);
    const std::size_t length = bytes_.size() - line_start_;
    const std::size_t room = max_line_bytes_ - std::min(max_line_bytes_, length);
    if (piece.size() > room) too_long_ = true;
    bytes_.insert(bytes_.end(), piece.begin(),
                  piece.begin() + static_cast<std::ptrdiff_t>(std::min(room, piece.size())));
    if (newline == std::string_view::npos) return;
    cuts_.push_back({line_start_, bytes_.size() - line_start_, too_long_});
    line_start_ = bytes_.size();
    too_long_ = false;
    bytes.remove_prefix(newline + 1);
  }
}

void LineCutter::Finish() {
  if (bytes_.size() > line_start_ || too_long_) {
    cuts_.push_back({line_start_, bytes_.size() - line_start_, too_long_});
    line_start_ = bytes_.size();
    too_long_ = false;
  }
  ended_ = true;
}

InputBatch LineCutter::Take() {
  InputBatch batch;
  batch.end = ended_;
  // The line being assembled moves to a buffer of its own, as large as this
  // one: the next batch grows without copies (and, its pages freed and taken
  // again, without faults).
  std::vector<char> rest;
  rest.reserve(bytes_.capacity());
  rest.assign(bytes_.begin() + static_cast<std::ptrdiff_t>(line_start_), bytes_.end());
  bytes_.resize(line_start_);
  batch.bytes = std::exchange(bytes_, std::move(rest));
  line_start_ = 0;
  batch.lines.reserve(cuts_.size());
  for (const Cut& cut : cuts_) batch.lines.push_back({{batch.bytes.data() + cut.begin, cut.size}, cut.too_long});
  cuts_.clear();
  return batch;
}

}  // namespace schedk::io
