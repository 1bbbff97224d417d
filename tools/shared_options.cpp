#include "tools/shared_options.hpp"

#include <CLI/CLI.hpp>

namespace schedk::tools {

void AddThreads(CLI::App& app, int& threads) {
  app.add_option("--threads", threads, "Worker threads (default: all cores)")->check(CLI::PositiveNumber);
}

void AddSnapshotArgument(CLI::App& app, std::string& path) {
  app.add_option("snapshot", path, "Snapshot file, or - for standard input")->capture_default_str();
}

void AddChoice(CLI::App& app, const std::string& name, std::string& value, const std::string& description,
               const std::vector<std::string>& choices) {
  app.add_option(name, value, description)->check(CLI::IsMember(choices))->capture_default_str();
}

void AddFormat(CLI::App& app, std::string& format, const std::vector<std::string>& formats,
               const std::string& description) {
  AddChoice(app, "--format", format, description, formats);
}

void AddProfile(CLI::App& app, bool& profile) {
  app.add_flag("--profile", profile, "Print each stage's wall time to standard error once done");
}

void AddTimeout(CLI::App& app, int& seconds, const std::string& description) {
  app.add_option("--timeout", seconds, description)->capture_default_str()->check(CLI::Range(1, 3600));
}

}  // namespace schedk::tools
