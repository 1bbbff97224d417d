// schedk: the command-line front end. Declares the subcommands from one table
// of setup/run pairs (command.hpp), parses, bounds oneTBB from --threads, and
// runs the chosen subcommand, which calls io/ and kernel/, prints results and
// errors, and picks the exit code: 0 success, 2 bad input (file:line:
// message), 1 any other failure. Nothing is written to standard output after
// an error.
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <tbb/global_control.h>

#include "tools/command.hpp"
#include "tools/generate.hpp"
#include "tools/import.hpp"
#include "tools/priorities.hpp"
#include "tools/quota.hpp"
#include "tools/report.hpp"
#include "tools/schedule.hpp"
#include "tools/serve.hpp"
#include "tools/shadow.hpp"
#include "tools/shared_options.hpp"
#include "tools/simulate.hpp"

namespace schedk::tools {
namespace {

// Every subcommand, in the order `schedk --help` lists them.
std::vector<Command> Commands() {
  return {
      MakeCommand("priorities", "Job priorities as qstat -ext -urg -pri shows them, in dispatch order", kTakesThreads,
                  SetupPriorities, Priorities),
      MakeCommand("schedule", "One scheduling interval: starts, reservations and pending reasons", kTakesThreads,
                  SetupSchedule, Schedule),
      MakeCommand("quota", "Resource quota usage as qquota -u '*' shows it: each rule instance in use, with its limit",
                  kNoThreads, SetupQuota, Quota),
      MakeCommand(
          "serve",
          "Session mode for a cluster master: requests on stdin, replies on stdout (docs/protocol.md section 3)",
          kTakesThreads, SetupServe, Serve),
      MakeCommand("simulate",
                  "Replay a workload trace (SWF, plain or gzip, or a snapshot with runtime=) through the real "
                  "scheduling code",
                  kTakesThreads, SetupSimulate, Simulate),
      MakeCommand("import",
                  "ge: read a live Grid Engine cell (or a capture of one) as a snapshot; accounting FILE: its "
                  "accounting file as share-tree usage records",
                  kNoThreads, SetupImport, Import),
      MakeCommand("shadow",
                  "Run beside a live Grid Engine cell and compare schedk's decisions with its scheduler's, run by run "
                  "(needs params MONITOR=1,PROFILE=1)",
                  kNoThreads, SetupShadow, Shadow),
      MakeCommand("generate", "Write a reproducible synthetic snapshot to standard output", kNoThreads, SetupGenerate,
                  Generate),
  };
}

// Declares each command as a subcommand of `app`; returns them in table order.
std::vector<CLI::App*> Declare(CLI::App& app, std::vector<Command>& commands, int& threads) {
  std::vector<CLI::App*> declared;
  for (Command& command : commands) {
    CLI::App* sub = app.add_subcommand(command.name, command.description);
    command.setup(*sub);
    if (command.takes_threads) AddThreads(*sub, threads);
    declared.push_back(sub);
  }
  return declared;
}

// Bounds oneTBB's workers while it lives; 0 threads: no bound.
std::unique_ptr<tbb::global_control> LimitThreads(int threads) {
  if (threads <= 0) return nullptr;
  return std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism,
                                               static_cast<std::size_t>(threads));
}

int Main(int argc, char** argv) {
  CLI::App app{"schedk: a Grid Engine-compatible scheduler kernel.\n"
               "Reads cluster snapshots (see datasets/README.md) and computes what Grid Engine's scheduler would."};
  app.set_version_flag("--version", std::string("schedk ") + SCHEDK_VERSION);
  app.require_subcommand(1);
  int threads = 0;
  AddThreads(app, threads);
  std::vector<Command> commands = Commands();
  const std::vector<CLI::App*> declared = Declare(app, commands, threads);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kExitOk : kExitBadInput;
  }
  const auto limit = LimitThreads(threads);
  for (std::size_t i = 0; i < commands.size(); ++i) {
    if (*declared[i]) return commands[i].run();
  }
  return kExitFailure;
}

}  // namespace
}  // namespace schedk::tools

int main(int argc, char** argv) { return schedk::tools::Main(argc, argv); }
