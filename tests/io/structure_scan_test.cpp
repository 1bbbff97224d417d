// The snapshot structure's parallel scan (ReadSnapshotParts) against its
// reference twin, which reads every line in order: on the bundled snapshots,
// on each damaged in many seeded ways, and on texts made to put a segment's
// start where a line could be misread (inside a continued record, a block, a
// comment after job lines, before the header), with segments of a few bytes
// so that every line starts one. Both must give the same parts (the runs of
// job lines joined where the chunks touch, since the twins cut them in
// different places) or the same error.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "io/file_text.hpp"
#include "io/snapshot_reader.hpp"
#include "kernel/util/split_mix.hpp"
#include "tests/damage.hpp"
#include "tests/snapshot_parts_text.hpp"

namespace schedk::io {
namespace {

using schedk::testing::PartsText;

void ExpectTwinsAgree(const std::string& text, const std::string& what) {
  const std::string reference = PartsText(ReadSnapshotParts(text, "scan.snap", Twin::kReference));
  for (const std::size_t segment :
       {std::size_t{1}, std::size_t{7}, std::size_t{64}, std::size_t{4096}, tuning::kScanSegmentBytes}) {
    ASSERT_EQ(PartsText(ReadSnapshotParts(text, "scan.snap", Twin::kOptimised, segment)), reference)
        << what << ", segments of " << segment << " bytes\n--- input:\n"
        << text;
  }
}

std::vector<std::string> BundledSnapshots() {
  const std::filesystem::path dir = std::filesystem::path(SCHEDK_SOURCE_DIR) / "datasets";
  std::vector<std::string> texts;
  std::vector<std::filesystem::path> paths;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".snap") paths.push_back(entry.path());
  }
  std::sort(paths.begin(), paths.end());
  for (const auto& path : paths) {
    auto text = ReadWholeFile(path.string());
    EXPECT_TRUE(text.ok()) << text.status().ToString();
    if (text.ok()) texts.push_back(std::move(text.value()));
  }
  return texts;
}

TEST(StructureScanTest, BundledSnapshotsReadAsTheReferenceReadsThem) {
  const std::vector<std::string> texts = BundledSnapshots();
  ASSERT_GE(texts.size(), 10u);
  for (const std::string& text : texts) ExpectTwinsAgree(text, "bundled");
}

TEST(StructureScanTest, DamagedSnapshotsGiveTheReferencesPartsOrError) {
  SplitMix64 rng(34);
  int errors = 0;
  for (const std::string& original : BundledSnapshots()) {
    for (int round = 0; round < 40; ++round) {
      std::string damaged = testing::DamagedText(original, rng);
      if (rng.Below(2) == 0) damaged = testing::DamagedText(damaged, rng);
      errors += !ReadSnapshotParts(damaged, "scan.snap", Twin::kReference).ok();
      ExpectTwinsAgree(damaged, "damaged");
      if (HasFatalFailure()) return;
    }
  }
  EXPECT_GE(errors, 20);  // the damage reaches the structure, so the comparison covers errors too
}

TEST(StructureScanTest, LinesThatASegmentsStartCouldMisread) {
  const std::string header = "schedk-snapshot 1\nnow 1000\n";
  const std::string config = "begin exechost h1\ncomplex_values slots=4\nend\n";
  const std::vector<std::string> texts = {
      "",
      "\n\n# only comments\n",
      "job 1 owner=u\nschedk-snapshot 1\n",  // a job line before the header
      header + config + "job 1 owner=u \\\n  slots=1\njob 2 owner=u\n",
      header + "job 1 owner=u\\\r\njob 2 is the continuation\r\n# c\r\n\r\njob 3 owner=u\r\n",
      header + "job 1 owner=u\n# a comment in the run\n\njob 2 owner=u\nload h1 x=1\n# not in a run\njob 3 owner=u",
      header + "job 1 owner=u\n# bad \xff byte in the run\njob 2 owner=u\n",
      header + "load h1 x=1\n# bad \xff byte outside a run\njob 2 owner=u\n",
      header + "begin exechost h2\njob 1 owner=u\n# c\njob 2 owner=u\nend\njob 3 owner=u\n",
      header + "begin exechost h2\njob 1 owner=u\n",         // a block left open
      header + "# c \\\njob 1 owner=u\njob 2 owner=u \\\n",  // continued into the end of the text
      header + "job 1 owner=u\nend\n",
      header + "usage user u cpu=1 \\\n at=5\nhoststate h1 down\njob 1 owner=u\n  \t\njob 2 owner=u\n",
  };
  for (const std::string& text : texts) ExpectTwinsAgree(text, "made");
}

}  // namespace
}  // namespace schedk::io
