// fuzz_snapshot: the input is snapshot text (docs/protocol.md §1) for
// io::ReadSnapshot. Where it loads and stays small (bounds below), one
// interval runs: ComputePriorities, QueueInstanceTable::Build, ScheduleInterval.
// Properties:
//   (a) the priorities (JSON Lines) and the schedule (text, ms=0) are byte-
//       identical with oneTBB limited to 1 and to 2 threads, and the serial
//       twins (Twin::kReference) write the same bytes;
//   (b) the plan never books a container above its capacity, except where the
//       running tasks alone already hold it above (tests/plan_check.hpp);
//   (c) no backfilled start delays a reservation: the reservations are in the
//       replay of (b), so a start overlapping one without room fails (b);
//   (d) the structure's parallel scan, in segments of a few bytes, gives what
//       its reference twin gives, or the same error (ReadSnapshotParts);
//   and a refused snapshot's message is one line of bounded length.
#include <cstddef>
#include <cstdint>
#include <string>

#include "io/priority_writer.hpp"
#include "io/schedule_writer.hpp"
#include "io/snapshot_reader.hpp"
#include "kernel/dispatch/schedule.hpp"
#include "kernel/priority/priority.hpp"
#include "tests/fuzz/fuzz_checks.hpp"
#include "tests/plan_check.hpp"
#include "tests/snapshot_parts_text.hpp"

namespace schedk::fuzz {
namespace {

// Larger snapshots are read but not scheduled, so one execution stays fast.
constexpr std::size_t kMaxRows = 300, kMaxTasks = 2000, kMaxHosts = 200, kMaxInstances = 600;

bool SmallEnough(const io::Snapshot& s) {
  std::size_t tasks = 0;
  for (const JobShard& shard : s.jobs.shards()) {
    for (std::size_t r = 0; r < shard.size(); ++r) tasks += shard.task_count(r);
  }
  return s.jobs.rows() <= kMaxRows && tasks <= kMaxTasks && s.names.hosts.size() <= kMaxHosts;
}

struct Output {
  std::string priorities, schedule;
};

Output RunInterval(const io::Snapshot& s, Twin twin, ScheduleResult* keep = nullptr) {
  Output out;
  const PriorityResult priorities = ComputePriorities(s.cluster, s.jobs, twin);
  io::WritePriorities(s, priorities, io::PriorityFormat::kJsonl, [&](std::string_view piece) {
    out.priorities.append(piece);
    return true;
  });
  const QueueInstanceTable instances = QueueInstanceTable::Build(s.cluster);
  if (instances.size() > kMaxInstances) return out;
  ScheduleResult result = ScheduleInterval(s.cluster, s.jobs, priorities, instances, twin);
  io::WriteSchedule(s, instances, result, io::ScheduleFormat::kText, 0, [&](std::string_view piece) {
    out.schedule.append(piece);
    return true;
  });
  if (keep != nullptr) {
    const std::string over = testing::CheckPlanCapacity(s.cluster, instances, result);
    Check(over.empty(), "(b) plan within capacity", over);
    *keep = std::move(result);
  }
  return out;
}

void Same(const Output& a, const Output& b, const char* what) {
  if (a.priorities != b.priorities) {
    Check(false, std::string("(a) priorities identical: ") + what, FirstDifference(a.priorities, b.priorities));
  }
  if (a.schedule != b.schedule) {
    Check(false, std::string("(a) schedule identical: ") + what, FirstDifference(a.schedule, b.schedule));
  }
}

}  // namespace
}  // namespace schedk::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace schedk;
  using namespace schedk::fuzz;
  const std::string_view text = AsText(data, size);
  const std::string reference = testing::PartsText(io::ReadSnapshotParts(text, "fuzz.snap", Twin::kReference));
  const std::string scanned = testing::PartsText(io::ReadSnapshotParts(text, "fuzz.snap", Twin::kOptimised, 16));
  if (scanned != reference) Check(false, "(d) structure scan as its twin", FirstDifference(scanned, reference));
  auto loaded = io::ReadSnapshot(text, "fuzz.snap");
  if (!loaded.ok()) {
    const std::string message = loaded.status().ToString();
    Check(message.find('\n') == std::string::npos && message.size() <= 4096, "error message is one bounded line",
          Shown(message));
    return 0;
  }
  const io::Snapshot& s = loaded.value();
  if (!SmallEnough(s)) return 0;
  Output one, two, serial;
  ScheduleResult result;
  WithThreads(1, [&] { one = RunInterval(s, Twin::kOptimised, &result); });
  WithThreads(2, [&] { two = RunInterval(s, Twin::kOptimised); });
  Same(one, two, "1 vs 2 threads");
  WithThreads(2, [&] { serial = RunInterval(s, Twin::kReference); });
  Same(one, serial, "parallel vs serial");
  return 0;
}
