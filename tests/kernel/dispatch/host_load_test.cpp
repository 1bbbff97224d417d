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

// FormulaValue (each host's operands located once, the host's load values
// corrected as its factor grows) against Evaluate, which looks every operand
// up: a host reporting load_avg (scaled by 2), one leaving it to its
// complex_values, and one leaving it to the global host's report, corrected
// with the global factor: 1.0 + 0.5 x 66 / 100 = 1.33 (T4.2's task, 150 s ago).
TEST(HostLoadTest, EachHostsLocatedOperandsGiveTheLookedUpValues) {
  const io::Snapshot s = testing::Load(
      "schedk-snapshot 1\nnow 1000\n"
      "begin sconf\nload_formula load_avg*2+np_load_avg-mem_free/1024\n"
      "job_load_adjustments np_load_avg=0.50,load_avg=0.5\nload_adjustment_decay_time 0:7:30\nend sconf\n"
      "begin exechost h1\nload_scaling load_avg=2\nend exechost\n"
      "begin exechost h2\ncomplex_values load_avg=3\nend exechost\nbegin exechost h3\nend exechost\n"
      "begin queue all.q\nhostlist h1 h2 h3\nslots 4\nend queue\n"
      "load global load_avg=1.0,np_load_avg=0.1,mem_free=2048\n"
      "load h1 load_avg=0.25,np_load_avg=0.2,num_proc=4,mem_free=1024\n"
      "load h2 np_load_avg=0.3,num_proc=2\nload h3 num_proc=8\n"
      "job 1 owner=u submit=800 state=r start=850 granted=all.q@h1:1\n");
  HostLoad load(s.cluster, s.jobs);
  const LoadFormula& formula = s.cluster.config.load_formula_terms;
  for (int step = 0; step < 3; ++step) {
    for (std::uint32_t h = 0; h < 3; ++h) {
      EXPECT_EQ(load.FormulaValue(HostId(h)), load.Evaluate(formula, HostId(h))) << "host " << h << " step " << step;
    }
    load.AddSlots(HostId(step), 2);  // each host's factor grows in turn
  }
  const io::Snapshot only = testing::Load(
      "schedk-snapshot 1\nnow 1000\n"
      "begin sconf\nload_formula load_avg\njob_load_adjustments load_avg=0.5\nload_adjustment_decay_time 0:7:30\n"
      "end sconf\nbegin exechost h1\nend exechost\nbegin exechost h2\nend exechost\n"
      "begin queue all.q\nhostlist h1 h2\nslots 4\nend queue\nload global load_avg=1.0\nload h1 num_proc=4\n"
      "job 1 owner=u submit=800 state=r start=850 granted=all.q@h1:1\n");
  EXPECT_DOUBLE_EQ(HostLoad(only.cluster, only.jobs).FormulaValue(HostId(1)), 1.33);
}

}  // namespace
}  // namespace schedk
