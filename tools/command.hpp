// command.hpp
// A schedk subcommand as a setup/run pair over one options struct that the
// command owns. `setup` declares the subcommand's own options on its CLI11
// app, bound to that struct; `run` executes the subcommand once the whole
// command line has parsed and returns the exit code (report.hpp). The options
// that several subcommands take are declared once (shared_options.hpp) and
// attached by main, after the command's own, to every command that asks for
// them. The table in main.cpp is the one list of subcommands: a new one is a
// row there plus its pair.
// Invariants: setup only declares options (it prints, reads and runs
// nothing); run is called at most once, after setup and a successful parse.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>

namespace CLI {
class App;
}  // namespace CLI

namespace schedk::tools {

struct Command {
  std::string name;
  std::string description;  // the line under Subcommands in `schedk --help`
  bool takes_threads = false;  // the shared --threads, after the command's own options
  std::function<void(CLI::App&)> setup;
  std::function<int()> run;
};

inline constexpr bool kTakesThreads = true;
inline constexpr bool kNoThreads = false;

// A Command whose setup and run share one Options that lives as long as it.
template <class Options>
Command MakeCommand(std::string name, std::string description, bool takes_threads,
                    void (*setup)(CLI::App&, Options&), int (*run)(const Options&)) {
  auto options = std::make_shared<Options>();
  return Command{std::move(name), std::move(description), takes_threads,
                 [options, setup](CLI::App& app) { setup(app, *options); },
                 [options, run] { return run(*options); }};
}

}  // namespace schedk::tools
