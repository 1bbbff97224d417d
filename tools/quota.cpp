#include "tools/quota.hpp"

#include <cstdio>

#include <CLI/CLI.hpp>

#include "io/quota_writer.hpp"
#include "io/snapshot_reader.hpp"
#include "tools/report.hpp"
#include "tools/shared_options.hpp"

namespace schedk::tools {

void SetupQuota(CLI::App& command, QuotaOptions& options) { AddSnapshotArgument(command, options.snapshot); }

int Quota(const QuotaOptions& options) {
  auto snapshot = io::ReadSnapshotFile(options.snapshot);
  if (!snapshot.ok()) return Fail(snapshot.status());
  PrintWarnings(snapshot->warnings);
  for (const std::string& row : io::QuotaTable(snapshot.value())) {
    if (!WriteStandardOutput(row + "\n")) return FailStandardOutput();
  }
  if (std::fflush(stdout) != 0) return FailStandardOutput();
  return kExitOk;
}

}  // namespace schedk::tools
