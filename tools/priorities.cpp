#include "tools/priorities.hpp"

#include <cstdio>

#include <CLI/CLI.hpp>

#include "io/priority_writer.hpp"
#include "io/snapshot_reader.hpp"
#include "kernel/priority/priority.hpp"
#include "tools/report.hpp"
#include "tools/shared_options.hpp"
#include "tools/stage_clock.hpp"

namespace schedk::tools {

void SetupPriorities(CLI::App& command, PrioritiesOptions& options) {
  AddSnapshotArgument(command, options.snapshot);
  AddFormat(command, options.format, {"table", "jsonl"});
  AddChoice(command, "--task-values", options.task_values,
            "Pending array tasks: qstat shows the job's template on each; computed: each task's own values",
            {"qstat", "computed"});
  AddProfile(command, options.profile);
}

int Priorities(const PrioritiesOptions& options) {
  StageClock clock;
  clock.Begin("read snapshot");
  auto snapshot = io::ReadSnapshotFile(options.snapshot);
  if (!snapshot.ok()) return Fail(snapshot.status());
  PrintWarnings(snapshot->warnings);
  const PriorityResult result = ComputePriorities(snapshot->cluster, snapshot->jobs, Twin::kOptimised,
                                                  options.profile ? clock.listener() : nullptr);
  const auto format = options.format == "jsonl" ? io::PriorityFormat::kJsonl : io::PriorityFormat::kTable;
  const auto values = options.task_values == "computed" ? io::TaskValues::kComputed : io::TaskValues::kQstat;
  clock.Begin("write");
  if (!io::WritePriorities(snapshot.value(), result, format, WriteStandardOutput, values) ||
      std::fflush(stdout) != 0) {
    return FailStandardOutput();
  }
  clock.Stop();
  if (options.profile) clock.Print();
  return EndOneShot(kExitOk);
}

}  // namespace schedk::tools
