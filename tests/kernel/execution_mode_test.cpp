// KeepInOrder (kernel/execution_mode.hpp) against std::copy_if: random items
// and predicates of every density, sizes around the block and its multiples,
// in both modes and at several thread counts.
#include "kernel/execution_mode.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include <tbb/task_arena.h>

namespace schedk {
namespace {

TEST(ExecutionModeTest, KeepInOrderKeepsWhatCopyIfKeeps) {
  constexpr std::size_t kBlock = 64;
  std::mt19937_64 rng(11);
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, kBlock - 1, kBlock, kBlock + 1, 3 * kBlock, 7 * kBlock + 5}) {
    std::vector<std::uint32_t> items(n);
    for (std::uint32_t& item : items) item = static_cast<std::uint32_t>(rng());
    for (std::uint32_t one_in : {1u, 2u, 13u, 1000u}) {  // every item kept, half, few, almost none
      auto keep = [&](std::uint32_t item) { return item % one_in == 0; };
      std::vector<std::uint32_t> expected;
      std::copy_if(items.begin(), items.end(), std::back_inserter(expected), keep);
      for (int threads : {1, 2, 3, 7}) {
        tbb::task_arena arena(threads);
        for (ExecutionMode mode : {ExecutionMode::kParallel, ExecutionMode::kSerial}) {
          const std::vector<std::uint32_t> kept =
              arena.execute([&] { return KeepInOrder(mode, std::span<const std::uint32_t>(items), kBlock, keep); });
          ASSERT_EQ(kept, expected) << "n " << n << " one in " << one_in << " threads " << threads;
        }
      }
    }
  }
}

}  // namespace
}  // namespace schedk
