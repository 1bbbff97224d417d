#include "tools/simulate.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>

#include <CLI/CLI.hpp>

#include "io/ge_accounting.hpp"
#include "io/maui_config_reader.hpp"
#include "io/simulation_plot.hpp"
#include "io/simulation_writer.hpp"
#include "io/snapshot_reader.hpp"
#include "io/swf_reader.hpp"
#include "io/swf_workload.hpp"
#include "kernel/dispatch/queue_instances.hpp"
#include "kernel/simulation/simulation_metrics.hpp"
#include "kernel/simulation/simulator.hpp"
#include "tools/report.hpp"
#include "tools/shared_options.hpp"
#include "tools/write_file.hpp"

namespace schedk::tools {

void SetupSimulate(CLI::App& command, SimulateOptions& options) {
  command.add_option("trace", options.trace, "Trace file, or - for standard input")->required();
  AddFormat(command, options.format, {"auto", "swf", "snapshot", "accounting"},
            "Trace format (auto: SWF or snapshot, from the content; accounting: Grid Engine's accounting file)");
  AddChoice(command, "--policy", options.policy, "Backfilling policy", {"fcfs", "easy", "conservative"});
  AddChoice(command, "--estimate", options.estimate, "Job duration estimate: requested time or actual runtime (SWF)",
            {"requested", "runtime"});
  AddChoice(command, "--semantics", options.semantics, "reference: docs/replay.md, Semantics; native: schedk's own",
            {"reference", "native"});
  command.add_option("--interval", options.interval, "native: seconds between scheduling passes (0: one per event)")
      ->check(CLI::Range(0LL, 86400LL))
      ->capture_default_str();
  AddChoice(command, "--filter", options.filter, "pwa: the archive filter of docs/replay.md",
            {"none", "pwa"});
  command.add_option("--jobs-out", options.jobs_out,
                     "Per-job results: SWF with the simulated wait in field 3, or CSV (.csv)");
  command.add_option("--plot", options.plot, "Draw queue length, utilisation and the running mean of the wait (SVG)");
  AddChoice(command, "--summary-format", options.summary_format, "Summary format", {"text", "json"});
  AddChoice(command, "--passes", options.passes,
            "auto: an SWF trace's fcfs and easy passes run on the one-pool engine; "
            "kernel: every pass is the kernel's priority and dispatch pass",
            {"auto", "kernel"});
  command.add_flag("--lenient", options.lenient, "Skip and count malformed SWF lines instead of failing");
  command.add_option("--maui", options.maui,
                     "Replay an SWF trace under the Maui policy configured by this file of maui.cfg lines");
}

int Simulate(const SimulateOptions& options) {
  auto bytes = io::ReadWholeFile(options.trace);
  if (!bytes.ok()) return Fail(bytes.status());
  std::string text = std::move(bytes.value());
  if (text.size() >= 2 && static_cast<unsigned char>(text[0]) == 0x1f && static_cast<unsigned char>(text[1]) == 0x8b) {
    auto plain = io::Gunzip(text, options.trace);
    if (!plain.ok()) return Fail(plain.status());
    text = std::move(plain.value());
  }
  std::string format = options.format;
  if (format == "auto") {
    const std::size_t start = text.find_first_not_of(" \t\r\n");
    format = start != std::string::npos && text.compare(start, 15, "schedk-snapshot") == 0 ? "snapshot" : "swf";
  }
  // Snapshot text for the replay, and the SWF trace when there is one.
  io::SwfTrace trace;
  std::string snapshot_text;
  if (format == "accounting") {  // Grid Engine's accounting file, replayed as an SWF trace
    auto records = io::ReadAccounting(text, options.trace);
    if (!records.ok()) return Fail(records.status());
    trace = io::AccountingAsSwf(records.value(), options.trace);
    format = "swf";
  } else if (format == "swf") {
    io::SwfReadOptions read;
    read.lenient = options.lenient;
    auto t = io::ReadSwf(text, options.trace, read);
    if (!t.ok()) return Fail(t.status());
    trace = std::move(t.value());
  }
  if (format == "swf") {
    if (trace.skipped > 0) std::fprintf(stderr, "schedk: %zu malformed lines skipped\n", trace.skipped);
    if (options.filter == "pwa") {
      const std::size_t dropped = io::PwaFilter(trace);
      std::fprintf(stderr, "schedk: the archive filter dropped %zu of %zu jobs\n", dropped, dropped + trace.jobs.size());
    }
    io::SwfWorkloadOptions workload;
    workload.runtime_estimate = options.estimate == "runtime";
    auto s = io::SwfSnapshotText(trace, workload);
    if (!s.ok()) return Fail(s.status());
    snapshot_text = std::move(s.value());
  } else {
    if (options.estimate == "runtime") {
      std::fprintf(stderr, "schedk: --estimate runtime needs an SWF trace; a snapshot's jobs keep their h_rt\n");
      return 2;
    }
    snapshot_text = std::move(text);
  }
  auto snapshot = io::ReadSnapshot(snapshot_text, options.trace);
  if (!snapshot.ok()) return Fail(snapshot.status());
  if (!options.maui.empty()) {
    if (format != "swf") {
      std::fprintf(stderr, "schedk: --maui is for SWF traces; a snapshot trace carries its own sconf and maui block\n");
      return 2;
    }
    auto body = io::ReadWholeFile(options.maui);
    if (!body.ok()) return Fail(body.status());
    auto block = io::ReadObjectBlock("maui", "", body.value(), options.maui);
    if (!block.ok()) return Fail(block.status());
    block->source = options.maui;
    snapshot->blocks.push_back(std::move(block.value()));
    snapshot->cluster.config.priority_policy = PriorityPolicy::kMaui;
    const std::size_t earlier = snapshot->warnings.size();
    if (io::Status st = io::BuildMauiConfig(snapshot.value(), io::ClusterBuilder(snapshot.value()), {}); !st.ok()) {
      return Fail(st);
    }
    for (std::size_t w = earlier; w < snapshot->warnings.size(); ++w) {
      PrintWarning(snapshot->warnings[w]);
    }
  }
  // A replayed job is one pending task that knows how long it runs.
  for (std::size_t s = 0; s < snapshot->jobs.shards().size(); ++s) {
    const JobShard& shard = snapshot->jobs.shards()[s];
    for (std::size_t r = 0; r < shard.size(); ++r) {
      const JobExtras* e = shard.extras_of(r);
      const char* wrong = shard.state[r] != JobState::kPending     ? "is not pending (state qw)"
                          : shard.task_first[r] != shard.task_last[r] ? "names more than one task"
                          : e == nullptr || e->runtime < 0           ? "has no runtime="
                                                                     : nullptr;
      if (wrong != nullptr) {
        return Fail(io::Status::InvalidInput(snapshot->source, snapshot->job_lines[s][r],
                                             "job " + std::to_string(shard.number[r]) + " " + wrong +
                                                 ": a replayed job is one pending task with its runtime"));
      }
    }
  }

  SimulationOptions sim;
  sim.policy = options.policy == "fcfs" ? SimPolicy::kFcfs
               : options.policy == "conservative" ? SimPolicy::kConservative
                                                  : SimPolicy::kEasy;
  sim.semantics = options.semantics == "native" ? SimSemantics::kNative : SimSemantics::kReference;
  sim.interval = options.interval;
  // The machine built from an SWF trace is one pool; under --maui its order is not submission.
  if (format == "swf" && options.maui.empty() && options.passes == "auto") {
    sim.pool_processors = static_cast<std::uint32_t>(*trace.max_procs);
  }
  const bool bar = ::isatty(STDERR_FILENO) != 0;
  auto progress = [&](double share) {
    const int width = 40, filled = static_cast<int>(share * width);
    std::fprintf(stderr, "\r[%.*s%*s] %3.0f%%", filled, "########################################", width - filled, "",
                 share * 100);
  };
  const auto started = std::chrono::steady_clock::now();
  const SimulationResult result =
      schedk::Simulate(snapshot->cluster, snapshot->jobs, sim, bar ? std::function<void(double)>(progress) : nullptr);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (bar) std::fprintf(stderr, "\n");

  double capacity = 0;
  const QueueInstanceTable instances = QueueInstanceTable::Build(snapshot->cluster);
  for (std::uint32_t i = 0; i < instances.size(); ++i) capacity += instances.slots[i];
  if (format == "swf" && trace.max_procs) capacity = static_cast<double>(*trace.max_procs);
  const SimulationSummary summary = Summarize(result, capacity);

  if (!options.jobs_out.empty()) {
    const bool csv = options.jobs_out.size() > 4 && options.jobs_out.compare(options.jobs_out.size() - 4, 4, ".csv") == 0;
    const std::string jobs = csv || format != "swf" ? io::SimulatedCsv(result) : io::SimulatedSwf(trace, result);
    if (!WriteWhole(options.jobs_out, jobs)) {
      std::fprintf(stderr, "schedk: cannot write %s\n", options.jobs_out.c_str());
      return 1;
    }
  }
  if (!options.plot.empty()) {
    const std::string title = options.trace + ": " + options.policy + ", " + options.estimate + " estimates, " +
                              options.semantics + " semantics";
    if (!WriteWhole(options.plot, io::PlotSvg(result, capacity, title))) {
      std::fprintf(stderr, "schedk: cannot write %s\n", options.plot.c_str());
      return 1;
    }
  }
  const std::string out =
      options.summary_format == "json" ? io::SummaryJson(summary, seconds) : io::SummaryText(summary, seconds);
  if (std::fwrite(out.data(), 1, out.size(), stdout) != out.size() || std::fflush(stdout) != 0) return 1;
  return 0;
}

}  // namespace schedk::tools
