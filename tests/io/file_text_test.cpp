// ReadFileText and ReadWholeFile (io/file_text.hpp): a regular file read in
// parallel stretches holds every byte in order at any thread count, whether
// its size falls on a stretch boundary or not; a missing file or a directory
// is an error naming it.
#include <gtest/gtest.h>

#include <tbb/task_arena.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "io/file_text.hpp"
#include "io/tuning.hpp"

namespace schedk::io {
namespace {

// Bytes that differ from stretch to stretch and within one: a stretch read
// into the wrong place shows.
std::string Pattern(std::size_t size) {
  std::string bytes(size, '\0');
  std::uint32_t x = 12345;
  for (char& c : bytes) {
    x = x * 1103515245 + 12345;
    c = static_cast<char>(x >> 24);
  }
  return bytes;
}

std::filesystem::path Written(const std::string& name, const std::string& bytes) {
  const std::filesystem::path path = std::filesystem::temp_directory_path() / name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

TEST(FileTextTest, HoldsEveryByteInOrderAtAnyThreadCount) {
  constexpr std::size_t kStretch = tuning::kFileReadStretchBytes;
  for (const std::size_t size : {std::size_t{0}, std::size_t{1}, kStretch, 2 * kStretch + 1, 5 * kStretch - 7}) {
    const std::string bytes = Pattern(size);
    const std::filesystem::path path = Written("schedk_file_text_test_" + std::to_string(size), bytes);
    for (const int threads : {1, 2, 3, 7, 16}) {
      tbb::task_arena arena(threads);
      arena.execute([&] {
        auto text = ReadFileText(path.string());
        ASSERT_TRUE(text.ok()) << text.status().ToString();
        EXPECT_TRUE(text.value().view() == bytes) << size << " bytes, " << threads << " threads";
        auto whole = ReadWholeFile(path.string());
        ASSERT_TRUE(whole.ok());
        EXPECT_TRUE(whole.value() == bytes) << size << " bytes, " << threads << " threads";
      });
    }
    std::filesystem::remove(path);
  }
}

TEST(FileTextTest, AMissingFileOrADirectoryIsAnErrorNamingIt) {
  const std::string missing = (std::filesystem::temp_directory_path() / "schedk_file_text_test_missing").string();
  auto text = ReadFileText(missing);
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.status().ToString(), missing + ": No such file or directory");
  const std::string directory = std::filesystem::temp_directory_path().string();
  auto dir = ReadWholeFile(directory);
  ASSERT_FALSE(dir.ok());
  EXPECT_EQ(dir.status().ToString(), directory + ": read error");
}

}  // namespace
}  // namespace schedk::io
