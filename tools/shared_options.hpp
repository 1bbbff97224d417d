// shared_options.hpp
// The options that more than one subcommand takes, each declared once here
// with its name, check, default display and help text, so that `--threads`
// or a snapshot argument reads the same under every subcommand. main attaches
// --threads (command.hpp); a command's setup attaches the others among its
// own options, in the order its --help lists them.
// Invariant: these only declare options on `app`, bound to the caller's
// variables, which must outlive the parse.
#pragma once

#include <string>
#include <vector>

namespace CLI {
class App;
}  // namespace CLI

namespace schedk::tools {

// --threads N: a positive bound on oneTBB's workers; 0 (not given) means all cores.
void AddThreads(CLI::App& app, int& threads);

// The positional snapshot file, "-" (the default) for standard input.
void AddSnapshotArgument(CLI::App& app, std::string& path);

// `name` (with its dashes) taking one of `choices`; --help shows them and the default.
void AddChoice(CLI::App& app, const std::string& name, std::string& value, const std::string& description,
               const std::vector<std::string>& choices);

// --format: one of `formats`, the default shown.
void AddFormat(CLI::App& app, std::string& format, const std::vector<std::string>& formats,
               const std::string& description = "Output format");

// --profile: each stage's wall time on standard error once done (stage_clock.hpp).
void AddProfile(CLI::App& app, bool& profile);

// --timeout SECONDS in 1..3600, the default shown; `description` says what it bounds.
void AddTimeout(CLI::App& app, int& seconds, const std::string& description);

}  // namespace schedk::tools
