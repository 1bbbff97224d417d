// Host load: sge-algorithms.md T4.2 (load correction) and T4.4 (the load
// formula), through snapshots so that io's formula reading is covered too.
#include "kernel/dispatch/host_load.hpp"

#include <gtest/gtest.h>

#include <string>

#include "tests/test_support.hpp"

namespace schedk {
namespace {

// T4.2: np_load_avg adjustment 0.50, decay 450 s, a host with 4 processors
// reporting 0.25; a task started 150 s ago: factor (1 - 150/450) * 100 = 66.
TEST(HostLoadTest, T4_2_LoadCorrection) {
  const io::Snapshot s = testing::Load(
      "schedk-snapshot 1\nnow 1000\n"
      "begin sconf\njob_load_adjustments np_load_avg=0.50\nload_adjustment_decay_time 0:7:30\nend sconf\n"
      "begin exechost h1\nend exechost\nbegin queue all.q\nhostlist h1\nslots 4\nend queue\n"
      "load h1 np_load_avg=0.25,num_proc=4\n"
      "job 1 owner=u submit=800 state=r start=850 granted=all.q@h1:1\n");
  HostLoad load(s.cluster, s.jobs);
  const HostId h1(0);
  const ComplexId np_load_avg(*s.names.complexes.Find("np_load_avg"));
  EXPECT_EQ(load.correction(h1), 66u);
  EXPECT_DOUBLE_EQ(*load.LoadValue(h1, np_load_avg), 0.25 + 0.5 * 0.66 / 4);  // 0.3325
  EXPECT_TRUE(load.AddSlots(h1, 1));  // one more slot dispatched: 166
  EXPECT_DOUBLE_EQ(*load.LoadValue(h1, np_load_avg), 0.25 + 0.5 * 1.66 / 4);  // 0.4575
  // An attribute the host does not report has no value, corrected or not.
  EXPECT_FALSE(load.LoadValue(h1, ComplexId(*s.names.complexes.Find("mem_free"))).has_value());
}

double Formula(const std::string& formula) {
  const io::Snapshot s = testing::Load("schedk-snapshot 1\nnow 1000\nbegin sconf\nload_formula " + formula +
                                       "\njob_load_adjustments NONE\nend sconf\n"
                                       "begin exechost h1\nend exechost\nload h1 load_avg=2.0,num_proc=4\n");
  return HostLoad(s.cluster, s.jobs).FormulaValue(HostId(0));
}

// T4.4: `load_avg/num_proc+3` = 3.5; `-num_proc` = -4; `a*b*c` is a*b.
TEST(HostLoadTest, T4_4_LoadFormula) {
  EXPECT_DOUBLE_EQ(Formula("load_avg/num_proc+3"), 3.5);
  EXPECT_DOUBLE_EQ(Formula("-num_proc"), -4);
  EXPECT_DOUBLE_EQ(Formula("load_avg*num_proc*load_avg"), 8);  // not 16
  EXPECT_DOUBLE_EQ(Formula("$load_avg+num_proc"), 6);          // `$` is ignored
  EXPECT_DOUBLE_EQ(Formula("num_proc&6"), 4);                  // bit operators on u32
  EXPECT_DOUBLE_EQ(Formula("np_load_avg"), kErrorLoadValue);   // not reported: 9999
  EXPECT_DOUBLE_EQ(Formula("load_avg+1e-3"), kErrorLoadValue);  // `-` splits 1e-3: "1e" is no value
}

}  // namespace
}  // namespace schedk
