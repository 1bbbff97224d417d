// max_tree.hpp
// MaxTree: the largest of n values under point updates, for the interval's
// "most free slots on one host" bounds, which each start changes at one host
// and which are read far less often than changed. A complete binary tree of
// maxima in one array: an update walks one leaf-to-root path, the maximum is
// the root (no node allocation, unlike an ordered multiset of the values).
// Invariants: leaves at [size_, 2 size_) hold the values, padding -infinity;
// every inner node k holds max(node_[2k], node_[2k + 1]).
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <limits>
#include <span>
#include <vector>

namespace schedk {

class MaxTree {
 public:
  MaxTree() = default;
  explicit MaxTree(std::span<const double> values)
      : size_(std::bit_ceil(std::max<std::size_t>(values.size(), 1))),
        count_(values.size()),
        node_(2 * size_, -std::numeric_limits<double>::infinity()) {
    std::copy(values.begin(), values.end(), node_.begin() + static_cast<std::ptrdiff_t>(size_));
    for (std::size_t k = size_ - 1; k >= 1; --k) node_[k] = std::max(node_[2 * k], node_[2 * k + 1]);
  }

  bool empty() const { return count_ == 0; }
  std::size_t size() const { return count_; }
  double operator[](std::size_t i) const { return node_[size_ + i]; }

  // Contract: i < size().
  void Set(std::size_t i, double value) {
    std::size_t k = size_ + i;
    node_[k] = value;
    for (k /= 2; k >= 1; k /= 2) {
      const double m = std::max(node_[2 * k], node_[2 * k + 1]);
      if (node_[k] == m) break;  // the maxima above are unchanged too
      node_[k] = m;
    }
  }

  // The largest value; contract: !empty().
  double Max() const { return node_[1]; }

 private:
  std::size_t size_ = 0;   // leaves, a power of two
  std::size_t count_ = 0;  // values
  std::vector<double> node_;
};

}  // namespace schedk
