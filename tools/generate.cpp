#include "tools/generate.hpp"

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>

#include <CLI/CLI.hpp>

#include "tools/report.hpp"

namespace schedk::tools {
namespace {

// A share of jobs or slots: 0..1, the default shown.
void AddFraction(CLI::App& command, const std::string& name, double& value, const std::string& description) {
  command.add_option(name, value, description)->capture_default_str()->check(CLI::Range(0.0, 1.0));
}

// A positive count, the default shown.
void AddCount(CLI::App& command, const std::string& name, std::uint32_t& value, const std::string& description) {
  command.add_option(name, value, description)->capture_default_str()->check(CLI::PositiveNumber);
}

}  // namespace

void SetupGenerate(CLI::App& command, io::GeneratorSpec& spec) {
  command.add_option("--jobs", spec.jobs, "Pending jobs")->required();
  command.add_option("--hosts", spec.hosts, "Execution hosts")->required()->check(CLI::PositiveNumber);
  command.add_option("--seed", spec.seed, "Random seed")->capture_default_str();
  AddCount(command, "--slots-per-host", spec.slots_per_host, "Slots per host");
  AddCount(command, "--users", spec.users, "Users");
  AddCount(command, "--projects", spec.projects, "Projects");
  AddCount(command, "--departments", spec.departments, "Departments");
  AddFraction(command, "--parallel-fraction", spec.parallel_fraction, "Share of parallel jobs");
  AddFraction(command, "--array-fraction", spec.array_fraction, "Share of array jobs");
  AddFraction(command, "--reserve-fraction", spec.reserve_fraction, "Share of -R y jobs");
  AddFraction(command, "--running-fraction", spec.running_fraction, "Share of slots busy with running tasks");
  command.add_option("--running-tasks", spec.running_tasks, "Running tasks, spread evenly (in place of the fraction)");
  const std::map<std::string, io::PolicyMix> mixes = {
      {"tickets", io::PolicyMix::kTickets}, {"every", io::PolicyMix::kEvery}, {"maui", io::PolicyMix::kMaui}};
  command.add_option("--policies", spec.policies, "Priority inputs: tickets, every (all ticket inputs), maui")
      ->transform(CLI::CheckedTransformer(mixes, CLI::ignore_case))
      ->default_str("tickets");
  command.add_flag("--random-submit", spec.random_submit, "Submit times at random over the last week");
  command.add_option("--categories", spec.categories, "Request combinations the jobs share (0: each its own)")
      ->capture_default_str();
  command.add_option("--quota-sets", spec.quota_sets,
                     "Resource quota sets of three rules each: per project on short.q, per user on a rack, per user");
  command.add_option("--max-reservation", spec.max_reservation, "sconf max_reservation")->capture_default_str();
  AddFraction(command, "--exclusive-fraction", spec.exclusive_fraction,
              "Share of jobs asking for an exclusive host (every other host offers one)");
  AddFraction(command, "--scratch-fraction", spec.scratch_fraction,
              "Share of jobs asking for the per-job consumable scratch");
  AddFraction(command, "--soft-fraction", spec.soft_fraction,
              "Share of jobs with a soft -q short.q, half of them also a soft -l arch=lx-arm64");
}

int Generate(const io::GeneratorSpec& spec) {
  if (auto e = io::CheckGeneratorSpec(spec)) {
    std::fprintf(stderr, "schedk: generate: %s\n", e->c_str());
    return kExitBadInput;
  }
  if (!io::GenerateSnapshot(spec, WriteStandardOutput) || std::fflush(stdout) != 0) return FailStandardOutput();
  return kExitOk;
}

}  // namespace schedk::tools
