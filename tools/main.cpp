// schedk: the command-line front end. Parses flags, bounds oneTBB from
// --threads, calls io/ and kernel/, prints results and errors, and picks the
// exit code: 0 success, 2 bad input (file:line: message), 1 any other failure.
// Nothing is written to standard output after an error.
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>
#include <tbb/global_control.h>

#include "io/priority_writer.hpp"
#include "io/schedule_writer.hpp"
#include "io/snapshot_generator.hpp"
#include "io/snapshot_reader.hpp"
#include "kernel/dispatch/schedule.hpp"
#include "kernel/priority/priority.hpp"
#include "tools/import.hpp"
#include "tools/report.hpp"
#include "tools/serve.hpp"
#include "tools/shadow.hpp"
#include "tools/simulate.hpp"

namespace {

using schedk::tools::Fail;
using schedk::tools::kExitBadInput;
using schedk::tools::kExitFailure;
using schedk::tools::kExitOk;

void PrintWarnings(const schedk::io::Snapshot& snapshot) {
  for (const auto& w : snapshot.warnings) schedk::tools::PrintWarning(w);
}

bool WriteOut(std::string_view text) { return std::fwrite(text.data(), 1, text.size(), stdout) == text.size(); }

struct PrioritiesOptions {
  std::string snapshot = "-";
  std::string format = "table";
  std::string task_values = "qstat";
};

int RunPriorities(const PrioritiesOptions& options) {
  auto snapshot = schedk::io::ReadSnapshotFile(options.snapshot);
  if (!snapshot.ok()) return Fail(snapshot.status());
  PrintWarnings(snapshot.value());
  const schedk::PriorityResult result = schedk::ComputePriorities(snapshot->cluster, snapshot->jobs);
  const auto format = options.format == "jsonl" ? schedk::io::PriorityFormat::kJsonl : schedk::io::PriorityFormat::kTable;
  const auto values =
      options.task_values == "computed" ? schedk::io::TaskValues::kComputed : schedk::io::TaskValues::kQstat;
  if (!schedk::io::WritePriorities(snapshot.value(), result, format, WriteOut, values) || std::fflush(stdout) != 0) {
    std::fprintf(stderr, "schedk: cannot write to standard output\n");
    return kExitFailure;
  }
  return kExitOk;
}

struct ScheduleOptions {
  std::string snapshot = "-";
  std::string format = "text";
  std::string monitor;
};

int RunSchedule(const ScheduleOptions& options) {
  auto snapshot = schedk::io::ReadSnapshotFile(options.snapshot);
  if (!snapshot.ok()) return Fail(snapshot.status());
  PrintWarnings(snapshot.value());
  const auto started = std::chrono::steady_clock::now();
  const schedk::PriorityResult priorities = schedk::ComputePriorities(snapshot->cluster, snapshot->jobs);
  const schedk::QueueInstanceTable instances = schedk::QueueInstanceTable::Build(snapshot->cluster);
  const schedk::ScheduleResult result =
      schedk::ScheduleInterval(snapshot->cluster, snapshot->jobs, priorities, instances);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  if (!options.monitor.empty()) {
    const std::string section = schedk::io::MonitorFileSection(snapshot.value(), instances, result);
    std::FILE* file = std::fopen(options.monitor.c_str(), "a");  // Grid Engine never truncates it
    const bool written = file != nullptr && std::fwrite(section.data(), 1, section.size(), file) == section.size();
    if (file == nullptr || std::fclose(file) != 0 || !written) {
      std::fprintf(stderr, "schedk: cannot append to %s\n", options.monitor.c_str());
      return kExitFailure;
    }
  }
  const auto format = options.format == "jsonl" ? schedk::io::ScheduleFormat::kJsonl : schedk::io::ScheduleFormat::kText;
  if (!schedk::io::WriteSchedule(snapshot.value(), instances, result, format, ms, WriteOut) || std::fflush(stdout) != 0) {
    std::fprintf(stderr, "schedk: cannot write to standard output\n");
    return kExitFailure;
  }
  return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"schedk: a Grid Engine-compatible scheduler kernel.\n"
               "Reads cluster snapshots (see datasets/README.md) and computes what Grid Engine's scheduler would."};
  app.set_version_flag("--version", std::string("schedk ") + SCHEDK_VERSION);
  app.require_subcommand(1);
  int threads = 0;
  app.add_option("--threads", threads, "Worker threads (default: all cores)")->check(CLI::PositiveNumber);

  PrioritiesOptions priorities;
  CLI::App* p = app.add_subcommand("priorities", "Job priorities as qstat -ext -urg -pri shows them, in dispatch order");
  p->add_option("snapshot", priorities.snapshot, "Snapshot file, or - for standard input")->capture_default_str();
  p->add_option("--format", priorities.format, "Output format")->check(CLI::IsMember({"table", "jsonl"}))->capture_default_str();
  p->add_option("--task-values", priorities.task_values,
                "Pending array tasks: qstat shows the job's template on each; computed: each task's own values")
      ->check(CLI::IsMember({"qstat", "computed"}))
      ->capture_default_str();
  p->add_option("--threads", threads, "Worker threads (default: all cores)")->check(CLI::PositiveNumber);

  ScheduleOptions schedule;
  CLI::App* sc = app.add_subcommand("schedule", "One scheduling interval: starts, reservations and pending reasons");
  sc->add_option("snapshot", schedule.snapshot, "Snapshot file, or - for standard input")->capture_default_str();
  sc->add_option("--format", schedule.format, "Output format")->check(CLI::IsMember({"text", "jsonl"}))->capture_default_str();
  sc->add_option("--monitor", schedule.monitor, "Also append the MONITOR schedule lines to this file");
  sc->add_option("--threads", threads, "Worker threads (default: all cores)")->check(CLI::PositiveNumber);

  schedk::tools::ServeOptions serve;
  CLI::App* sv = app.add_subcommand("serve", "Session mode for a cluster master: requests on stdin, replies on stdout "
                                              "(protocol.md section 3)");
  sv->add_option("--log-file", serve.log_file, "Append one line per request to this file");
  sv->add_option("--max-line-bytes", serve.max_line_bytes, "Longer request lines get 413 line-too-long")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  sv->add_option("--threads", threads, "Worker threads (default: all cores)")->check(CLI::PositiveNumber);

  schedk::tools::SimulateOptions simulate;
  CLI::App* si = app.add_subcommand("simulate", "Replay a workload trace (SWF, plain or gzip, or a snapshot with "
                                                "runtime=) through the real scheduling code");
  si->add_option("trace", simulate.trace, "Trace file, or - for standard input")->required();
  si->add_option("--format", simulate.format, "Trace format (auto: SWF or snapshot, from the content; "
                                              "accounting: Grid Engine's accounting file)")
      ->check(CLI::IsMember({"auto", "swf", "snapshot", "accounting"}))
      ->capture_default_str();
  si->add_option("--policy", simulate.policy, "Backfilling policy")
      ->check(CLI::IsMember({"fcfs", "easy", "conservative"}))
      ->capture_default_str();
  si->add_option("--estimate", simulate.estimate, "Job duration estimate: requested time or actual runtime (SWF)")
      ->check(CLI::IsMember({"requested", "runtime"}))
      ->capture_default_str();
  si->add_option("--semantics", simulate.semantics, "reference: workloads.md section 5; native: schedk's own")
      ->check(CLI::IsMember({"reference", "native"}))
      ->capture_default_str();
  si->add_option("--interval", simulate.interval, "native: seconds between scheduling passes (0: one per event)")
      ->check(CLI::Range(0LL, 86400LL))
      ->capture_default_str();
  si->add_option("--filter", simulate.filter, "pwa: the archive filter of workloads.md section 4.1")
      ->check(CLI::IsMember({"none", "pwa"}))
      ->capture_default_str();
  si->add_option("--jobs-out", simulate.jobs_out, "Per-job results: SWF with the simulated wait in field 3, or CSV (.csv)");
  si->add_option("--plot", simulate.plot, "Draw queue length, utilisation and the running mean of the wait (SVG)");
  si->add_option("--summary-format", simulate.summary_format, "Summary format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  si->add_option("--passes", simulate.passes,
                 "auto: an SWF trace's fcfs and easy passes run on the one-pool engine; "
                 "kernel: every pass is the kernel's priority and dispatch pass")
      ->check(CLI::IsMember({"auto", "kernel"}))
      ->capture_default_str();
  si->add_flag("--lenient", simulate.lenient, "Skip and count malformed SWF lines instead of failing");
  si->add_option("--maui", simulate.maui, "Replay an SWF trace under the Maui policy configured by this file of maui.cfg lines");
  si->add_option("--threads", threads, "Worker threads (default: all cores)")->check(CLI::PositiveNumber);

  schedk::tools::ImportOptions import;
  CLI::App* im = app.add_subcommand("import", "ge: read a live Grid Engine cell (or a capture of one) as a snapshot; "
                                              "accounting FILE: its accounting file as share-tree usage records");
  im->add_option("kind", import.source, "What to import")->check(CLI::IsMember({"ge", "accounting"}))->required();
  im->add_option("file", import.file, "accounting: the accounting file");
  im->add_option("--snapshot", import.snapshot, "accounting: decay to this snapshot's now with its halftime");
  im->add_option("--halftime", import.halftime, "accounting: the halftime in hours (default: the snapshot's, else 168)")
      ->check(CLI::NonNegativeNumber);
  im->add_option("--output,-o", import.output, "Write the snapshot here (default: standard output)");
  im->add_option("--from", import.from, "Read the command outputs captured in this directory, not the live cell");
  im->add_option("--save", import.save, "Also keep every command's output in this directory (for --from)");
  im->add_option("--now", import.now, "The scheduler's clock (default: the cell's last scheduler run with "
                                      "params PROFILE=1, else the time of the capture)");
  im->add_option("--timeout", import.timeout, "Seconds a cell command may take")
      ->capture_default_str()
      ->check(CLI::Range(1, 3600));

  schedk::tools::ShadowOptions shadow;
  CLI::App* sh = app.add_subcommand("shadow", "Run beside a live Grid Engine cell and compare schedk's decisions "
                                              "with its scheduler's, run by run (needs params MONITOR=1,PROFILE=1)");
  sh->add_option("--rounds", shadow.rounds, "Scheduler runs to compare")->capture_default_str()->check(CLI::PositiveNumber);
  sh->add_option("--digest-every", shadow.digest_every, "Rounds between digest checks of the fed session (0: never)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  sh->add_option("--timeout", shadow.timeout, "Seconds a cell command, or the wait for a run, may take")
      ->capture_default_str()
      ->check(CLI::Range(1, 3600));
  sh->add_option("--keep", shadow.log, "Keep each round's imported snapshot in this directory");

  schedk::io::GeneratorSpec generate;
  CLI::App* g = app.add_subcommand("generate", "Write a reproducible synthetic snapshot to standard output");
  g->add_option("--jobs", generate.jobs, "Pending jobs")->required();
  g->add_option("--hosts", generate.hosts, "Execution hosts")->required()->check(CLI::PositiveNumber);
  g->add_option("--seed", generate.seed, "Random seed")->capture_default_str();
  g->add_option("--slots-per-host", generate.slots_per_host, "Slots per host")->capture_default_str()->check(CLI::PositiveNumber);
  g->add_option("--users", generate.users, "Users")->capture_default_str()->check(CLI::PositiveNumber);
  g->add_option("--projects", generate.projects, "Projects")->capture_default_str()->check(CLI::PositiveNumber);
  g->add_option("--parallel-fraction", generate.parallel_fraction, "Share of parallel jobs")->capture_default_str()->check(CLI::Range(0.0, 1.0));
  g->add_option("--array-fraction", generate.array_fraction, "Share of array jobs")->capture_default_str()->check(CLI::Range(0.0, 1.0));
  g->add_option("--reserve-fraction", generate.reserve_fraction, "Share of -R y jobs")->capture_default_str()->check(CLI::Range(0.0, 1.0));
  g->add_option("--running-fraction", generate.running_fraction, "Share of slots busy with running tasks")->capture_default_str()->check(CLI::Range(0.0, 1.0));
  g->add_option("--max-reservation", generate.max_reservation, "sconf max_reservation")->capture_default_str();
  g->add_option("--exclusive-fraction", generate.exclusive_fraction,
                "Share of jobs asking for an exclusive host (every other host offers one)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  g->add_option("--scratch-fraction", generate.scratch_fraction, "Share of jobs asking for the per-job consumable scratch")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? kExitOk : kExitBadInput;
  }
  std::unique_ptr<tbb::global_control> limit;
  if (threads > 0) {
    limit = std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism,
                                                  static_cast<std::size_t>(threads));
  }
  if (*p) return RunPriorities(priorities);
  if (*sc) return RunSchedule(schedule);
  if (*sv) return schedk::tools::Serve(serve);
  if (*si) return schedk::tools::Simulate(simulate);
  if (*im) return schedk::tools::Import(import);
  if (*sh) return schedk::tools::Shadow(shadow);
  if (*g) {
    if (auto e = schedk::io::CheckGeneratorSpec(generate)) {
      std::fprintf(stderr, "schedk: generate: %s\n", e->c_str());
      return kExitBadInput;
    }
    if (!schedk::io::GenerateSnapshot(generate, WriteOut) || std::fflush(stdout) != 0) {
      std::fprintf(stderr, "schedk: cannot write to standard output\n");
      return kExitFailure;
    }
    return kExitOk;
  }
  return kExitFailure;
}
