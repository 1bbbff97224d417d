// QuotaVerdictMemo: answers are read back for the same question in the same
// epoch only; any field of the question tells questions apart; a new epoch
// drops every answer.
#include "kernel/dispatch/quota_verdict_memo.hpp"

#include <gtest/gtest.h>

namespace schedk::dispatch_detail {
namespace {

QuotaQuestion Question() { return {7, 2, 3, 1, 4, 5, 1000, 3600}; }

TEST(QuotaVerdictMemoTest, AnAnswerHoldsForItsQuestionWithinItsEpoch) {
  QuotaVerdictMemo<int> memo;
  EXPECT_EQ(memo.Find(Question(), 10), nullptr);
  memo.Keep(Question(), 42);
  const int* kept = memo.Find(Question(), 10);
  ASSERT_NE(kept, nullptr);
  EXPECT_EQ(*kept, 42);
  // Each field tells questions apart.
  for (int field = 0; field < 8; ++field) {
    QuotaQuestion other = Question();
    switch (field) {
      case 0:
        ++other.owner;
        break;
      case 1:
        ++other.group;
        break;
      case 2:
        ++other.project;
        break;
      case 3:
        ++other.pe;
        break;
      case 4:
        ++other.place;
        break;
      case 5:
        ++other.signature;
        break;
      case 6:
        ++other.start;
        break;
      default:
        ++other.duration;
        break;
    }
    EXPECT_EQ(memo.Find(other, 10), nullptr) << field;
  }
}

// Epoch 0 is an epoch like any other (the interval's count of bookings starts there).
TEST(QuotaVerdictMemoTest, TheFirstEpochMayBeZero) {
  QuotaVerdictMemo<int> memo;
  EXPECT_EQ(memo.Find(Question(), 0), nullptr);
  memo.Keep(Question(), 5);
  ASSERT_NE(memo.Find(Question(), 0), nullptr);
  EXPECT_EQ(*memo.Find(Question(), 0), 5);
}

// Many answers in one epoch (the table grows), each read back; none in the next.
TEST(QuotaVerdictMemoTest, ManyAnswersGrowTheTable) {
  QuotaVerdictMemo<int> memo;
  for (int k = 0; k < 1000; ++k) {
    QuotaQuestion q = Question();
    q.owner = static_cast<std::uint32_t>(k);
    ASSERT_EQ(memo.Find(q, 3), nullptr);
    memo.Keep(q, k);
  }
  for (int k = 0; k < 1000; ++k) {
    QuotaQuestion q = Question();
    q.owner = static_cast<std::uint32_t>(k);
    const int* kept = memo.Find(q, 3);
    ASSERT_NE(kept, nullptr) << k;
    EXPECT_EQ(*kept, k);
  }
  for (int k = 0; k < 1000; ++k) {
    QuotaQuestion q = Question();
    q.owner = static_cast<std::uint32_t>(k);
    EXPECT_EQ(memo.Find(q, 4), nullptr) << k;
  }
}

TEST(QuotaVerdictMemoTest, ANewEpochDropsEveryAnswer) {
  QuotaVerdictMemo<int> memo;
  memo.Find(Question(), 1);
  memo.Keep(Question(), 1);
  EXPECT_EQ(memo.Find(Question(), 2), nullptr);
  // And the answers of the old epoch do not come back with it.
  EXPECT_EQ(memo.Find(Question(), 1), nullptr);
}

}  // namespace
}  // namespace schedk::dispatch_detail
