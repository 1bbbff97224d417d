#include "tools/import.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>

#include <CLI/CLI.hpp>

#include "io/ge_accounting.hpp"
#include "io/ge_import/ge_import.hpp"
#include "io/snapshot_reader.hpp"
#include "io/ge_value.hpp"
#include "tools/report.hpp"
#include "tools/shared_options.hpp"
#include "tools/write_file.hpp"

namespace schedk::tools {

int ImportAccounting(const ImportOptions& options) {
  if (options.file.empty()) {
    std::fprintf(stderr, "schedk: import accounting: name the accounting file\n");
    return kExitBadInput;
  }
  auto text = io::ReadWholeFile(options.file);
  if (!text.ok()) return Fail(text.status());
  auto records = io::ReadAccounting(text.value(), options.file);
  if (!records.ok()) return Fail(records.status());
  std::optional<Time> now;
  double halftime = 168;
  if (!options.snapshot.empty()) {
    auto snapshot = io::ReadSnapshotFile(options.snapshot);
    if (!snapshot.ok()) return Fail(snapshot.status());
    now = snapshot->cluster.now;
    halftime = static_cast<double>(snapshot->cluster.config.halftime_hours);
  }
  if (!options.now.empty()) now = io::ParseTime(options.now);
  if (!now) {
    std::fprintf(stderr, "schedk: import accounting: give --now (epoch or ISO-8601) or --snapshot\n");
    return kExitBadInput;
  }
  if (options.halftime >= 0) halftime = options.halftime;
  const std::string usage = io::AccountingUsageRecords(records.value(), *now, halftime);
  std::fprintf(stderr, "schedk: import: %zu accounting records, usage decayed to %lld with a halftime of %g hours\n",
               records->size(), static_cast<long long>(*now), halftime);
  const bool written = options.output.empty()
                           ? std::fwrite(usage.data(), 1, usage.size(), stdout) == usage.size() && std::fflush(stdout) == 0
                           : WriteWhole(options.output, usage);
  if (!written) {
    std::fprintf(stderr, "schedk: import: cannot write the usage records\n");
    return kExitFailure;
  }
  return kExitOk;
}

void SetupImport(CLI::App& command, ImportOptions& options) {
  command.add_option("kind", options.source, "What to import")
      ->check(CLI::IsMember({"ge", "accounting"}))
      ->required();
  command.add_option("file", options.file, "accounting: the accounting file");
  command.add_option("--snapshot", options.snapshot, "accounting: decay to this snapshot's now with its halftime");
  command.add_option("--halftime", options.halftime,
                     "accounting: the halftime in hours (default: the snapshot's, else 168)")
      ->check(CLI::NonNegativeNumber);
  command.add_option("--output,-o", options.output, "Write the snapshot here (default: standard output)");
  command.add_option("--from", options.from, "Read the command outputs captured in this directory, not the live cell");
  command.add_option("--save", options.save, "Also keep every command's output in this directory (for --from)");
  command.add_option("--now", options.now,
                     "The scheduler's clock (default: the cell's last scheduler run with "
                     "params PROFILE=1, else the time of the capture)");
  AddTimeout(command, options.timeout, "Seconds a cell command may take");
}

int Import(const ImportOptions& options) {
  if (options.source == "accounting") return ImportAccounting(options);
  if (!options.file.empty() || !options.snapshot.empty() || options.halftime >= 0) {
    std::fprintf(stderr, "schedk: import ge: takes no file, --snapshot or --halftime (they are for accounting)\n");
    return kExitBadInput;
  }
  io::GeImportOptions import = options.from.empty() ? io::LiveCellOptions() : io::GeImportOptions();
  if (!options.now.empty()) {
    import.now = io::ParseTime(options.now);
    if (!import.now) {
      std::fprintf(stderr, "schedk: import: --now: expected epoch seconds or ISO-8601 with Z or an offset\n");
      return kExitBadInput;
    }
  }
  io::CellCommands cell;
  if (!options.from.empty()) {
    cell = io::CaptureDirectory(options.from);
  } else {
    cell = io::LiveCell(options.timeout);
  }
  if (!options.save.empty()) {
    if (::mkdir(options.save.c_str(), 0777) != 0 && errno != EEXIST) {
      std::fprintf(stderr, "schedk: import: cannot create %s: %s\n", options.save.c_str(), std::strerror(errno));
      return kExitFailure;
    }
    cell = io::SavingTo(std::move(cell), options.save);
  }
  auto imported = io::ImportGeCell(cell, import);
  if (!imported.ok()) return Fail(imported.status());
  for (const std::string& note : imported->notes) {
    std::fprintf(stderr, "schedk: import: %s\n", io::PrintableMessage(note).c_str());
  }
  std::fprintf(stderr, "schedk: import: %zu jobs, %zu exec hosts, %zu queues\n", imported->jobs, imported->hosts,
               imported->queues);
  const std::string& text = imported->snapshot;
  const bool written = options.output.empty()
                           ? std::fwrite(text.data(), 1, text.size(), stdout) == text.size() && std::fflush(stdout) == 0
                           : WriteWhole(options.output, text);
  if (!written) {
    std::fprintf(stderr, "schedk: import: cannot write %s\n",
                 options.output.empty() ? "to standard output" : options.output.c_str());
    return kExitFailure;
  }
  return kExitOk;
}

}  // namespace schedk::tools
