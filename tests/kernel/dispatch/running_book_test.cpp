// The running book (kernel/dispatch/running_book.hpp): a run of intervals over
// a changing set of running tasks, with one book kept across them, decides
// exactly as intervals without a book, and the book's ledger is, to the bit,
// the one a fresh book builds from scratch; integral amounts are updated in
// place, a fractional one makes the book start over.
#include "kernel/dispatch/running_book.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "io/snapshot_generator.hpp"
#include "kernel/dispatch/schedule.hpp"
#include "tests/test_support.hpp"

namespace schedk {
namespace {

struct Parts {
  std::vector<std::string> config, pending, running;
  Time now = 0;
};

Parts Generate(std::uint64_t seed) {
  io::GeneratorSpec spec;
  spec.seed = seed;
  spec.hosts = 3 + seed % 6;
  spec.slots_per_host = 8;
  spec.jobs = 60 + seed % 40;
  spec.users = 6;
  spec.projects = 3;
  spec.departments = 2;
  spec.parallel_fraction = 0.25;
  spec.reserve_fraction = 0.5;
  spec.license_fraction = 0.3;
  spec.running_fraction = 0.6;
  spec.max_reservation = 5 + seed % 20;
  spec.reserve_in_gaps = seed % 3 == 0;
  if (seed % 4 == 1) spec.exclusive_fraction = 0.15;
  const std::string text = testing::GeneratedText(spec);
  Parts parts;
  std::size_t begin = 0;
  while (begin < text.size()) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(begin, end - begin);
    begin = end + 1;
    if (line.rfind("now ", 0) == 0) {
      parts.now = std::stoll(line.substr(4));
    } else if (line.rfind("job ", 0) != 0) {
      parts.config.push_back(line);
    } else {
      (line.find(" state=r") != std::string::npos ? parts.running : parts.pending).push_back(line);
    }
  }
  return parts;
}

// Every entry's amount in use now and diagram, bit for bit.
void ExpectSameLedger(const ResourceLedger& a, const ResourceLedger& b, const std::string& where) {
  ASSERT_EQ(a.size(), b.size()) << where;
  for (std::uint32_t k = 0; k < a.size(); ++k) {
    ASSERT_EQ(a.entry(k).used_now, b.entry(k).used_now) << where << " entry " << k;
    ASSERT_EQ(a.diagram(k).Breakpoints(), b.diagram(k).Breakpoints()) << where << " entry " << k;
  }
}

// Eight intervals, each with a random 80% of the running tasks (so tasks end
// and come back) and the clock 10 minutes on (so overrunning tasks' assumed
// durations change); with `fractional`, one running task books 1.5 bytes.
void CheckRun(std::uint64_t seed, bool fractional, RunningBook::Update& total) {
  const Parts parts = Generate(seed);
  ASSERT_FALSE(parts.running.empty()) << "seed " << seed;
  std::mt19937_64 rng(seed);
  RunningBook book;
  for (int step = 0; step < 8; ++step) {
    const Time now = parts.now + 600 * step;
    std::string text;
    for (const std::string& line : parts.config) text += line + "\n";
    text += "now " + std::to_string(now) + "\n";
    for (const std::string& line : parts.pending) text += line + "\n";
    for (const std::string& line : parts.running) {
      if (rng() % 5 != 0) text += line + "\n";
    }
    if (fractional) {
      text += "job 900000 owner=user1 project=proj1 submit=" + std::to_string(parts.now - 100) +
              " state=r start=" + std::to_string(parts.now - 50) + " granted=all.q@node1:1 l_hard=h_rt=2:0:0,mem=1.5\n";
    }
    const io::Snapshot s = testing::Load(text);
    const PriorityResult priorities = ComputePriorities(s.cluster, s.jobs);
    const QueueInstanceTable instances = QueueInstanceTable::Build(s.cluster);
    const ScheduleResult with = ScheduleInterval(s.cluster, s.jobs, priorities, instances, Twin::kOptimised, &book);
    const ScheduleResult without = ScheduleInterval(s.cluster, s.jobs, priorities, instances);
    const std::string where = "seed " + std::to_string(seed) + " step " + std::to_string(step);
    ASSERT_TRUE(testing::SameSchedule(with, without)) << where;
    RunningBook fresh;
    ScheduleInterval(s.cluster, s.jobs, priorities, instances, Twin::kOptimised, &fresh);
    ASSERT_TRUE(fresh.last_update().rebuilt) << where;
    ASSERT_NE(book.ledger(), nullptr) << where;
    ExpectSameLedger(*book.ledger(), *fresh.ledger(), where);
    ASSERT_EQ(book.size(), fresh.size()) << where;
    if (step == 0) {
      ASSERT_TRUE(book.last_update().rebuilt) << where;  // the first interval fills the book
      continue;
    }
    total.kept += book.last_update().kept;
    total.released += book.last_update().released;
    total.booked += book.last_update().booked;
    if (fractional && book.last_update().released + book.last_update().booked > 0) {
      EXPECT_TRUE(book.last_update().rebuilt) << where << ": a fractional amount cannot be released exactly";
    }
    if (!fractional) {
      EXPECT_FALSE(book.last_update().rebuilt) << where;
    }
  }
}

TEST(RunningBookTest, IntervalsWithABookDecideAsIntervalsWithout) {
  RunningBook::Update total;
  for (std::uint64_t seed = 1; seed <= 30; ++seed) CheckRun(seed, false, total);
  // The runs did update in place: bookings were kept, released and made.
  EXPECT_GT(total.kept, 1000u);
  EXPECT_GT(total.released, 100u);
  EXPECT_GT(total.booked, 100u);
}

TEST(RunningBookTest, AFractionalAmountMakesTheBookStartOver) {
  RunningBook::Update total;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) CheckRun(seed, true, total);
}

TEST(RunningBookTest, AnotherLayoutMakesTheBookStartOver) {
  Parts parts = Generate(3);
  auto load = [&](const std::vector<std::string>& config) {
    std::string text;
    for (const std::string& line : config) text += line + "\n";
    text += "now " + std::to_string(parts.now) + "\n";
    for (const std::string& line : parts.running) text += line + "\n";
    return testing::Load(text);
  };
  RunningBook book;
  const io::Snapshot s = load(parts.config);
  const PriorityResult p = ComputePriorities(s.cluster, s.jobs);
  const QueueInstanceTable q = QueueInstanceTable::Build(s.cluster);
  ScheduleInterval(s.cluster, s.jobs, p, q, Twin::kOptimised, &book);
  ScheduleInterval(s.cluster, s.jobs, p, q, Twin::kOptimised, &book);
  EXPECT_FALSE(book.last_update().rebuilt);
  EXPECT_EQ(book.last_update().kept, book.size());
  // More licenses: the same bookings mean something else.
  for (std::string& line : parts.config) {
    if (line.rfind("complex_values license=", 0) == 0) line = "complex_values license=99";
  }
  const io::Snapshot more = load(parts.config);
  const PriorityResult p2 = ComputePriorities(more.cluster, more.jobs);
  const QueueInstanceTable q2 = QueueInstanceTable::Build(more.cluster);
  const ScheduleResult with = ScheduleInterval(more.cluster, more.jobs, p2, q2, Twin::kOptimised, &book);
  EXPECT_TRUE(book.last_update().rebuilt);
  EXPECT_TRUE(testing::SameSchedule(with, ScheduleInterval(more.cluster, more.jobs, p2, q2)));
}

}  // namespace
}  // namespace schedk
