// WriteBlocks (io/row_text.hpp), which both priority writers and the schedule
// writer use: every block's text reaches the sink once, in block order,
// whatever the batch size and thread count; empty blocks are skipped; a sink
// that refuses ends the writing at once.
#include <gtest/gtest.h>

#include <tbb/task_arena.h>

#include <string>
#include <vector>

#include "io/row_text.hpp"

namespace schedk::io {
namespace {

// Block b's text: its number, except every fifth block, which is empty.
void FormatBlock(std::size_t b, std::string& out) {
  EXPECT_TRUE(out.empty()) << "block " << b << " arrives with text";
  if (b % 5 != 4) out = "<" + std::to_string(b) + ">";
}

TEST(WriteBlocksTest, HandsEveryBlockToTheSinkInOrder) {
  for (const std::size_t blocks : {0, 1, 7, 64, 100}) {
    std::string want;
    for (std::size_t b = 0; b < blocks; ++b) {
      std::string text;
      FormatBlock(b, text);
      want += text;
    }
    for (const std::size_t per_batch : {1, 3, 32, 200}) {
      for (const int threads : {1, 2, 3, 7}) {
        tbb::task_arena arena(threads);
        std::string got;
        std::size_t calls = 0;
        const bool ok = arena.execute([&] {
          return WriteBlocks(blocks, per_batch, FormatBlock, [&](std::string_view text) {
            ++calls;
            got += text;
            return !text.empty();  // an empty block never reaches the sink
          });
        });
        EXPECT_TRUE(ok);
        EXPECT_EQ(got, want) << blocks << " blocks, " << per_batch << " per batch, " << threads << " threads";
        EXPECT_EQ(calls, blocks - blocks / 5);
      }
    }
  }
}

TEST(WriteBlocksTest, StopsAtTheFirstRefusal) {
  for (const int threads : {1, 2, 7}) {
    tbb::task_arena arena(threads);
    std::vector<std::string> taken;
    const bool ok = arena.execute([&] {
      return WriteBlocks(50, 4, FormatBlock, [&](std::string_view text) {
        taken.emplace_back(text);
        return taken.size() < 10;  // refuses the tenth text, block 11
      });
    });
    EXPECT_FALSE(ok);
    ASSERT_EQ(taken.size(), 10u) << threads << " threads";
    EXPECT_EQ(taken.back(), "<11>");
  }
}

}  // namespace
}  // namespace schedk::io
