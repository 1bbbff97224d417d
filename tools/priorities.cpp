#include "tools/priorities.hpp"

#include <cstdio>

#include <CLI/CLI.hpp>

#include "io/priority_writer.hpp"
#include "io/snapshot_reader.hpp"
#include "kernel/priority/priority.hpp"
#include "tools/report.hpp"
#include "tools/shared_options.hpp"

namespace schedk::tools {

void SetupPriorities(CLI::App& command, PrioritiesOptions& options) {
  AddSnapshotArgument(command, options.snapshot);
  AddFormat(command, options.format, {"table", "jsonl"});
  AddChoice(command, "--task-values", options.task_values,
            "Pending array tasks: qstat shows the job's template on each; computed: each task's own values",
            {"qstat", "computed"});
}

int Priorities(const PrioritiesOptions& options) {
  auto snapshot = io::ReadSnapshotFile(options.snapshot);
  if (!snapshot.ok()) return Fail(snapshot.status());
  PrintWarnings(snapshot->warnings);
  const PriorityResult result = ComputePriorities(snapshot->cluster, snapshot->jobs);
  const auto format = options.format == "jsonl" ? io::PriorityFormat::kJsonl : io::PriorityFormat::kTable;
  const auto values = options.task_values == "computed" ? io::TaskValues::kComputed : io::TaskValues::kQstat;
  if (!io::WritePriorities(snapshot.value(), result, format, WriteStandardOutput, values) ||
      std::fflush(stdout) != 0) {
    return FailStandardOutput();
  }
  return kExitOk;
}

}  // namespace schedk::tools
