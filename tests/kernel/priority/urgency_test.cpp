// Test vectors T2.1-T2.6 of sge-algorithms.md §2 (u_slots = 1000).
#include "kernel/priority/urgency.hpp"

#include <gtest/gtest.h>

#include "tests/test_support.hpp"

namespace schedk {
namespace {

ComplexAttribute Attribute(ValueType type, double urgency) {
  ComplexAttribute a;
  a.type = type;
  a.urgency = urgency;
  a.urgency_valid = true;
  return a;
}

class UrgencyTest : public ::testing::Test {
 protected:
  UrgencyTest() {
    complexes.attributes = {Attribute(ValueType::kInt, 1000), Attribute(ValueType::kInt, 100),
                            Attribute(ValueType::kReString, 50), Attribute(ValueType::kMemory, 1e-9)};
    complexes.slots = ComplexId(0);
    ParallelEnvironment mpi;
    mpi.slots = 16;
    pes = {mpi};
  }
  RequestSet Pe(std::uint32_t min, std::uint32_t max) const {
    RequestSet r;
    r.has_pe = true;
    r.pe.matching = {PeId(0)};
    r.pe.min = min;
    r.pe.max = max;
    return r;
  }
  ComplexTable complexes;
  std::vector<ParallelEnvironment> pes;
  const ComplexId license{1}, arch{2}, mem{3};
};

TEST_F(UrgencyTest, SequentialJobWithLicense) {  // T2.1
  RequestSet r;
  r.hard.push_back({license, 4, {}});
  EXPECT_DOUBLE_EQ(*ResourceRequestContribution(r, complexes, pes), 1400);
}

TEST_F(UrgencyTest, StringRequestAddsItsUrgencyFlat) {  // T2.2
  RequestSet r = Pe(4, 4);
  r.hard.push_back({arch, 0, "lx-amd64"});
  EXPECT_DOUBLE_EQ(*ResourceRequestContribution(r, complexes, pes), 4050);
}

TEST_F(UrgencyTest, MemoryRequestIsMultipliedBySlots) {  // T2.3
  RequestSet r = Pe(4, 4);
  r.hard.push_back({mem, 2147483648.0, {}});
  EXPECT_DOUBLE_EQ(*ResourceRequestContribution(r, complexes, pes), 4008.589934592);
}

TEST_F(UrgencyTest, UrgencySlotsForRanges) {  // T2.4
  const RequestSet range = Pe(2, 6);
  pes[0].urgency_slots = UrgencySlots::kMin;
  EXPECT_EQ(UrgencySlotCount(range, pes), 2u);
  pes[0].urgency_slots = UrgencySlots::kMax;
  EXPECT_EQ(UrgencySlotCount(range, pes), 6u);
  pes[0].urgency_slots = UrgencySlots::kAvg;
  EXPECT_EQ(UrgencySlotCount(range, pes), 4u);
  pes[0].urgency_slots = UrgencySlots::kFixed;
  pes[0].urgency_slots_fixed = 3;
  EXPECT_EQ(UrgencySlotCount(range, pes), 3u);
  const RequestSet open = Pe(3, kOpenSlotRange);
  pes[0].urgency_slots = UrgencySlots::kMax;
  EXPECT_EQ(UrgencySlotCount(open, pes), 16u);
  pes[0].urgency_slots = UrgencySlots::kAvg;
  EXPECT_EQ(UrgencySlotCount(open, pes), 9u);  // avg(3..16) = 9.5, truncated
  EXPECT_EQ(UrgencySlotCount(Pe(5, 5), pes), 5u);  // a single value wins over the PE setting
}

TEST_F(UrgencyTest, NoSlotsComplexLeavesUrgencyUnset) {
  complexes.slots = ComplexId::None();
  EXPECT_FALSE(ResourceRequestContribution(RequestSet{}, complexes, pes).has_value());
}

TEST(UrgencyContributionTest, WaitingTime) {  // T2.5
  EXPECT_DOUBLE_EQ(WaitingTimeContribution(0.278, 10000 + 3600, 10000), 1000.8);
}

TEST(UrgencyContributionTest, Deadline) {  // T2.6
  EXPECT_DOUBLE_EQ(DeadlineContribution(3600000, 1000, 1000 + 7200), 500);
  EXPECT_DOUBLE_EQ(DeadlineContribution(3600000, 1000, 1001), 3600000);
  EXPECT_DOUBLE_EQ(DeadlineContribution(3600000, 1000, 950), 3600000);
  EXPECT_DOUBLE_EQ(DeadlineContribution(3600000, 1000, 0), 0);  // no deadline
}

}  // namespace
}  // namespace schedk
