// quota.hpp
// `schedk quota`: reads a snapshot and prints its resource quota usage as
// `qquota -u '*'` does (io/quota_writer.hpp): every rule instance that
// running and suspended jobs use, with its limit.
#pragma once

#include <string>

namespace CLI {
class App;
}  // namespace CLI

namespace schedk::tools {

struct QuotaOptions {
  std::string snapshot = "-";
};

// Declares the subcommand's own options, bound to its options struct (command.hpp).
void SetupQuota(CLI::App& command, QuotaOptions& options);
// Returns the exit status: 0 success, 2 bad input, 1 any other failure.
int Quota(const QuotaOptions& options);

}  // namespace schedk::tools
