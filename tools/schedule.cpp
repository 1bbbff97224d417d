#include "tools/schedule.hpp"

#include <chrono>
#include <cstdio>

#include <CLI/CLI.hpp>

#include "io/schedule_writer.hpp"
#include "io/snapshot_reader.hpp"
#include "kernel/dispatch/schedule.hpp"
#include "kernel/priority/priority.hpp"
#include "tools/report.hpp"
#include "tools/shared_options.hpp"
#include "tools/stage_clock.hpp"

namespace schedk::tools {
namespace {

// Appends the interval's MONITOR section to `path`; Grid Engine never truncates it.
bool AppendMonitor(const std::string& path, const std::string& section) {
  std::FILE* file = std::fopen(path.c_str(), "a");
  const bool written = file != nullptr && std::fwrite(section.data(), 1, section.size(), file) == section.size();
  return file != nullptr && std::fclose(file) == 0 && written;
}

}  // namespace

void SetupSchedule(CLI::App& command, ScheduleOptions& options) {
  AddSnapshotArgument(command, options.snapshot);
  AddFormat(command, options.format, {"text", "jsonl"});
  command.add_option("--monitor", options.monitor, "Also append the MONITOR schedule lines to this file");
  AddProfile(command, options.profile);
}

int Schedule(const ScheduleOptions& options) {
  StageClock clock;
  const StageListener* stages = options.profile ? clock.listener() : nullptr;
  clock.Begin("read snapshot");
  auto snapshot = io::ReadSnapshotFile(options.snapshot);
  if (!snapshot.ok()) return Fail(snapshot.status());
  PrintWarnings(snapshot->warnings);
  const auto started = std::chrono::steady_clock::now();
  const PriorityResult priorities = ComputePriorities(snapshot->cluster, snapshot->jobs, Twin::kOptimised, stages);
  clock.Begin("queue instances");
  const QueueInstanceTable instances = QueueInstanceTable::Build(snapshot->cluster);
  const ScheduleResult result = ScheduleInterval(snapshot->cluster, snapshot->jobs, priorities, instances,
                                                 Twin::kOptimised, nullptr, nullptr, stages);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  clock.Begin("write");
  if (!options.monitor.empty() &&
      !AppendMonitor(options.monitor, io::MonitorFileSection(snapshot.value(), instances, result))) {
    std::fprintf(stderr, "schedk: cannot append to %s\n", options.monitor.c_str());
    return kExitFailure;
  }
  const auto format = options.format == "jsonl" ? io::ScheduleFormat::kJsonl : io::ScheduleFormat::kText;
  if (!io::WriteSchedule(snapshot.value(), instances, result, format, ms, WriteStandardOutput) ||
      std::fflush(stdout) != 0) {
    return FailStandardOutput();
  }
  clock.Stop();
  if (options.profile) clock.Print();
  return EndOneShot(kExitOk);
}

}  // namespace schedk::tools
