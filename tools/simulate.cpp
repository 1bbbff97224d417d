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

namespace {

// A trace read for the replay: the snapshot text it becomes, and the SWF
// trace when it is one (an accounting file is replayed as an SWF trace).
struct ReplayTrace {
  std::string format;  // swf or snapshot, once read
  std::string text;    // the file's text, inflated
  io::SwfTrace swf;
  std::string snapshot_text;
};

// Reads the trace file into trace.text, inflating gzip data. Returns the exit
// status, kExitOk when read; so do the other steps.
int ReadTraceText(const std::string& path, ReplayTrace& trace) {
  auto bytes = io::ReadWholeFile(path);
  if (!bytes.ok()) return Fail(bytes.status());
  std::string& text = trace.text;
  text = std::move(bytes.value());
  if (text.size() >= 2 && static_cast<unsigned char>(text[0]) == 0x1f && static_cast<unsigned char>(text[1]) == 0x8b) {
    auto plain = io::Gunzip(text, path);
    if (!plain.ok()) return Fail(plain.status());
    text = std::move(plain.value());
  }
  return kExitOk;
}

// The format as given; auto is a snapshot when the text begins with its header, else SWF.
std::string TraceFormat(const std::string& given, const std::string& text) {
  if (given != "auto") return given;
  const std::size_t start = text.find_first_not_of(" \t\r\n");
  return start != std::string::npos && text.compare(start, 15, "schedk-snapshot") == 0 ? "snapshot" : "swf";
}

// An SWF trace, or Grid Engine's accounting file replayed as one, into trace.swf.
int ReadSwfTrace(const SimulateOptions& options, ReplayTrace& trace) {
  if (trace.format == "accounting") {
    auto records = io::ReadAccounting(trace.text, options.trace);
    if (!records.ok()) return Fail(records.status());
    trace.swf = io::AccountingAsSwf(records.value(), options.trace);
    trace.format = "swf";
    return kExitOk;
  }
  io::SwfReadOptions read;
  read.lenient = options.lenient;
  auto t = io::ReadSwf(trace.text, options.trace, read);
  if (!t.ok()) return Fail(t.status());
  trace.swf = std::move(t.value());
  return kExitOk;
}

// An SWF trace's snapshot text: the skipped lines and the archive filter's
// drops reported on stderr, then the machine and jobs the trace describes.
int SwfAsSnapshotText(const SimulateOptions& options, ReplayTrace& trace) {
  io::SwfTrace& swf = trace.swf;
  if (swf.skipped > 0) std::fprintf(stderr, "schedk: %zu malformed lines skipped\n", swf.skipped);
  if (options.filter == "pwa") {
    const std::size_t dropped = io::PwaFilter(swf);
    std::fprintf(stderr, "schedk: the archive filter dropped %zu of %zu jobs\n", dropped, dropped + swf.jobs.size());
  }
  io::SwfWorkloadOptions workload;
  workload.runtime_estimate = options.estimate == "runtime";
  auto s = io::SwfSnapshotText(swf, workload);
  if (!s.ok()) return Fail(s.status());
  trace.snapshot_text = std::move(s.value());
  return kExitOk;
}

// The trace as snapshot text, whatever its format.
int ReadReplayTrace(const SimulateOptions& options, ReplayTrace& trace) {
  if (int rc = ReadTraceText(options.trace, trace); rc != kExitOk) return rc;
  trace.format = TraceFormat(options.format, trace.text);
  if (trace.format == "accounting" || trace.format == "swf") {
    if (int rc = ReadSwfTrace(options, trace); rc != kExitOk) return rc;
  }
  if (trace.format == "swf") return SwfAsSnapshotText(options, trace);
  if (options.estimate == "runtime") {
    std::fprintf(stderr, "schedk: --estimate runtime needs an SWF trace; a snapshot's jobs keep their h_rt\n");
    return kExitBadInput;
  }
  trace.snapshot_text = std::move(trace.text);
  return kExitOk;
}

// --maui FILE: the snapshot built from an SWF trace gets FILE's maui.cfg lines
// as its maui block and replays under PRIORITY_POLICY=maui; the block's
// warnings go to stderr.
int AddMauiConfig(const SimulateOptions& options, const std::string& format, io::Snapshot& snapshot) {
  if (format != "swf") {
    std::fprintf(stderr, "schedk: --maui is for SWF traces; a snapshot trace carries its own sconf and maui block\n");
    return kExitBadInput;
  }
  auto body = io::ReadWholeFile(options.maui);
  if (!body.ok()) return Fail(body.status());
  auto block = io::ReadObjectBlock("maui", "", body.value(), options.maui);
  if (!block.ok()) return Fail(block.status());
  block->source = options.maui;
  snapshot.blocks.push_back(std::move(block.value()));
  snapshot.cluster.config.priority_policy = PriorityPolicy::kMaui;
  const std::size_t earlier = snapshot.warnings.size();
  if (io::Status st = io::BuildMauiConfig(snapshot, io::ClusterBuilder(snapshot), {}); !st.ok()) {
    return Fail(st);
  }
  for (std::size_t w = earlier; w < snapshot.warnings.size(); ++w) {
    PrintWarning(snapshot.warnings[w]);
  }
  return kExitOk;
}

// A replayed job is one pending task that knows how long it runs.
int CheckReplayedJobs(const io::Snapshot& snapshot) {
  for (std::size_t s = 0; s < snapshot.jobs.shards().size(); ++s) {
    const JobShard& shard = snapshot.jobs.shards()[s];
    for (std::size_t r = 0; r < shard.size(); ++r) {
      const JobExtras* e = shard.extras_of(r);
      const char* wrong = shard.state[r] != JobState::kPending        ? "is not pending (state qw)"
                          : shard.task_first[r] != shard.task_last[r] ? "names more than one task"
                          : e == nullptr || e->runtime < 0            ? "has no runtime="
                                                                      : nullptr;
      if (wrong != nullptr) {
        return Fail(io::Status::InvalidInput(snapshot.source, snapshot.job_lines[s][r],
                                             "job " + std::to_string(shard.number[r]) + " " + wrong +
                                                 ": a replayed job is one pending task with its runtime"));
      }
    }
  }
  return kExitOk;
}

SimulationOptions ReplayOptions(const SimulateOptions& options, const ReplayTrace& trace) {
  SimulationOptions sim;
  sim.policy = options.policy == "fcfs"           ? SimPolicy::kFcfs
               : options.policy == "conservative" ? SimPolicy::kConservative
                                                  : SimPolicy::kEasy;
  sim.semantics = options.semantics == "native" ? SimSemantics::kNative : SimSemantics::kReference;
  sim.interval = options.interval;
  // The machine built from an SWF trace is one pool; under --maui its order is not submission.
  if (trace.format == "swf" && options.maui.empty() && options.passes == "auto") {
    sim.pool_processors = static_cast<std::uint32_t>(*trace.swf.max_procs);
  }
  return sim;
}

// Runs the replay, drawing a progress bar on stderr when stderr is a
// terminal; `seconds` becomes its wall-clock time.
SimulationResult Replay(const io::Snapshot& snapshot, const SimulationOptions& sim, double& seconds) {
  const bool bar = ::isatty(STDERR_FILENO) != 0;
  auto progress = [&](double share) {
    const int width = 40, filled = static_cast<int>(share * width);
    std::fprintf(stderr, "\r[%.*s%*s] %3.0f%%", filled, "########################################", width - filled, "",
                 share * 100);
  };
  const auto started = std::chrono::steady_clock::now();
  SimulationResult result =
      schedk::Simulate(snapshot.cluster, snapshot.jobs, sim, bar ? std::function<void(double)>(progress) : nullptr);
  seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (bar) std::fprintf(stderr, "\n");
  return result;
}

// The slots the utilisation is measured against: an SWF trace's MaxProcs when
// it gives one, else the queue instances' slots.
double ReplayCapacity(const io::Snapshot& snapshot, const ReplayTrace& trace) {
  double capacity = 0;
  const QueueInstanceTable instances = QueueInstanceTable::Build(snapshot.cluster);
  for (std::uint32_t i = 0; i < instances.size(); ++i) capacity += instances.slots[i];
  if (trace.format == "swf" && trace.swf.max_procs) capacity = static_cast<double>(*trace.swf.max_procs);
  return capacity;
}

// --jobs-out (SWF, or CSV for a .csv file or a snapshot trace) and --plot.
int WriteReplayFiles(const SimulateOptions& options, const ReplayTrace& trace, const SimulationResult& result,
                     double capacity) {
  if (!options.jobs_out.empty()) {
    const bool csv =
        options.jobs_out.size() > 4 && options.jobs_out.compare(options.jobs_out.size() - 4, 4, ".csv") == 0;
    const std::string jobs =
        csv || trace.format != "swf" ? io::SimulatedCsv(result) : io::SimulatedSwf(trace.swf, result);
    if (!WriteWhole(options.jobs_out, jobs)) {
      std::fprintf(stderr, "schedk: cannot write %s\n", options.jobs_out.c_str());
      return kExitFailure;
    }
  }
  if (!options.plot.empty()) {
    const std::string title = options.trace + ": " + options.policy + ", " + options.estimate + " estimates, " +
                              options.semantics + " semantics";
    if (!WriteWhole(options.plot, io::PlotSvg(result, capacity, title))) {
      std::fprintf(stderr, "schedk: cannot write %s\n", options.plot.c_str());
      return kExitFailure;
    }
  }
  return kExitOk;
}

}  // namespace

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
  AddChoice(command, "--filter", options.filter, "pwa: the archive filter of docs/replay.md", {"none", "pwa"});
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
  ReplayTrace trace;
  if (int rc = ReadReplayTrace(options, trace); rc != kExitOk) return rc;
  auto snapshot = io::ReadSnapshot(trace.snapshot_text, options.trace);
  if (!snapshot.ok()) return Fail(snapshot.status());
  if (!options.maui.empty()) {
    if (int rc = AddMauiConfig(options, trace.format, snapshot.value()); rc != kExitOk) return rc;
  }
  if (int rc = CheckReplayedJobs(snapshot.value()); rc != kExitOk) return rc;
  double seconds = 0;
  const SimulationResult result = Replay(snapshot.value(), ReplayOptions(options, trace), seconds);
  const double capacity = ReplayCapacity(snapshot.value(), trace);
  const SimulationSummary summary = Summarize(result, capacity);
  if (int rc = WriteReplayFiles(options, trace, result, capacity); rc != kExitOk) return rc;
  const std::string out =
      options.summary_format == "json" ? io::SummaryJson(summary, seconds) : io::SummaryText(summary, seconds);
  if (std::fwrite(out.data(), 1, out.size(), stdout) != out.size() || std::fflush(stdout) != 0) return kExitFailure;
  return kExitOk;
}

}  // namespace schedk::tools
