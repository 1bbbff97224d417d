// fuzz_swf: the first byte holds the replay's options, the rest is a Standard
// Workload Format trace (plain, or gzip when short) for io::ReadSwf. Where it
// reads, the trace is cut to a small machine (MaxProcs 1..64, 16 when absent)
// and at most 64 jobs, turned into a snapshot (io/swf_workload.hpp) and
// replayed (kernel/simulation/simulator.hpp) as `schedk simulate` does
// (tools/simulate.cpp).
// Option bits: 0-1 policy (fcfs, easy, conservative, easy), 2 native
// semantics, 3 passes at an interval (native only, sized to the trace),
// 4 lenient reading, 5 the archive filter (PwaFilter), 6 runtime estimates.
// Properties:
//   * the snapshot text of a placeable trace loads, and its jobs are one
//     pending task each with a runtime;
//   * every job is in the result once, starts at most once and never before
//     its submission;
//   * the running jobs never hold more than MaxProcs processors at once
//     (each counted over [start, start + min(runtime, estimate)));
//   * the reference twin gives the same result, and under fcfs and easy so
//     does the one-pool engine (pool_processors) as the kernel's passes.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

#include "io/snapshot_reader.hpp"
#include "io/swf_reader.hpp"
#include "io/swf_workload.hpp"
#include "kernel/simulation/simulator.hpp"
#include "tests/fuzz/fuzz_checks.hpp"

namespace schedk::fuzz {
namespace {

constexpr long long kMaxProcs = 64, kDefaultProcs = 16;
constexpr std::size_t kMaxJobs = 64, kMaxGzipInput = 4096;
constexpr long long kIntervalPasses = 200;  // about this many interval passes over the whole trace

bool SameResult(const SimulationResult& a, const SimulationResult& b, bool passes) {
  if (a.jobs.size() != b.jobs.size() || (passes && a.passes != b.passes)) return false;
  for (std::size_t i = 0; i < a.jobs.size(); ++i) {
    const SimulatedJob &x = a.jobs[i], &y = b.jobs[i];
    if (x.job != y.job || x.submit != y.submit || x.start != y.start || x.runtime != y.runtime ||
        x.estimate != y.estimate || x.slots != y.slots) {
      return false;
    }
  }
  return true;
}

std::string Describe(const SimulationResult& r) {
  std::string out = "passes=" + std::to_string(r.passes);
  for (const SimulatedJob& j : r.jobs) {
    out += " " + std::to_string(j.job) + "@" + std::to_string(j.start);
    if (out.size() > 300) break;
  }
  return out;
}

void Replay(std::uint8_t options, std::string_view text) {
  std::string plain;
  if (text.size() >= 2 && static_cast<unsigned char>(text[0]) == 0x1f &&
      static_cast<unsigned char>(text[1]) == 0x8b) {
    if (text.size() > kMaxGzipInput) return;
    auto p = io::Gunzip(text, "fuzz.swf.gz");
    if (!p.ok()) return;
    plain = std::move(p.value());
    text = plain;
  }
  io::SwfReadOptions read;
  read.lenient = (options & 16) != 0;
  auto t = io::ReadSwf(text, "fuzz.swf", read);
  if (!t.ok()) return;
  io::SwfTrace trace = std::move(t.value());
  if (options & 32) io::PwaFilter(trace);
  trace.max_procs = std::clamp<long long>(trace.max_procs.value_or(kDefaultProcs), 1, kMaxProcs);
  if (trace.jobs.size() > kMaxJobs) trace.jobs.resize(kMaxJobs);
  io::SwfWorkloadOptions workload;
  workload.runtime_estimate = (options & 64) != 0;
  auto snapshot_text = io::SwfSnapshotText(trace, workload);
  if (!snapshot_text.ok()) return;
  auto loaded = io::ReadSnapshot(snapshot_text.value(), "fuzz.swf");
  if (!loaded.ok()) {
    Check(false, "the trace's snapshot text loads", loaded.status().ToString());
    return;
  }
  const io::Snapshot& s = loaded.value();
  long long first = 0, last = 0, work = 0;
  bool any = false;
  for (const JobShard& shard : s.jobs.shards()) {
    for (std::size_t r = 0; r < shard.size(); ++r) {
      const JobExtras* e = shard.extras_of(r);
      Check(shard.state[r] == JobState::kPending && shard.task_first[r] == shard.task_last[r] && e != nullptr &&
                e->runtime >= 0,
            "a replayed job is one pending task with its runtime", "job " + std::to_string(shard.number[r]));
      first = any ? std::min<long long>(first, shard.submit[r]) : shard.submit[r];
      last = any ? std::max<long long>(last, shard.submit[r]) : shard.submit[r];
      any = true;
      work += e->runtime;
    }
  }
  for (const io::SwfJob& j : trace.jobs) {
    work += static_cast<long long>(std::clamp(j.field[io::kSwfRequestedTime], 0.0, 4294967295.0));
  }

  SimulationOptions sim;
  const int policy = options & 3;
  sim.policy = policy == 0 ? SimPolicy::kFcfs : policy == 2 ? SimPolicy::kConservative : SimPolicy::kEasy;
  sim.semantics = (options & 4) ? SimSemantics::kNative : SimSemantics::kReference;
  if ((options & 8) && sim.semantics == SimSemantics::kNative) {
    sim.interval = std::max<long long>(1, (last - first + work) / kIntervalPasses);
  }
  const SimulationResult result = Simulate(s.cluster, s.jobs, sim);

  Check(result.jobs.size() == s.jobs.rows(), "every job is in the result once", Describe(result));
  std::map<Time, long long> change;  // processors taken (+) and given back (-)
  for (const SimulatedJob& j : result.jobs) {
    if (j.start == -1) continue;
    Check(j.start >= j.submit, "no job starts before its submission", Describe(result));
    const Duration held = std::min(j.runtime, j.estimate);
    if (held <= 0) continue;
    change[j.start] += j.slots;
    change[j.start + held] -= j.slots;
  }
  long long busy = 0;
  for (const auto& [time, delta] : change) {
    busy += delta;
    if (busy > *trace.max_procs) {
      Check(false, "running jobs fit the machine", std::to_string(busy) + " processors busy at " + std::to_string(time) +
                                                       " of " + std::to_string(*trace.max_procs) + ": " +
                                                       Describe(result));
      break;
    }
  }

  SimulationOptions serial = sim;
  serial.twin = Twin::kReference;
  const SimulationResult twin = Simulate(s.cluster, s.jobs, serial);
  Check(SameResult(result, twin, true), "the reference twin gives the same result",
        Describe(result) + " vs " + Describe(twin));
  if (sim.policy != SimPolicy::kConservative) {
    SimulationOptions pool = sim;
    pool.pool_processors = static_cast<std::uint32_t>(*trace.max_procs);
    const SimulationResult one_pool = Simulate(s.cluster, s.jobs, pool);
    Check(SameResult(result, one_pool, false), "the one-pool engine gives the kernel's schedule",
          Describe(result) + " vs " + Describe(one_pool));
  }
}

}  // namespace
}  // namespace schedk::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  schedk::fuzz::Replay(data[0], schedk::fuzz::AsText(data + 1, size - 1));
  return 0;
}
