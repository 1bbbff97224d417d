#include "tests/support/population.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace schedk {

io::Snapshot GeneratePopulation(const io::GeneratorSpec& spec) {
  if (const io::Reason wrong = io::CheckGeneratorSpec(spec)) {
    std::fprintf(stderr, "GeneratePopulation: %s\n", wrong->c_str());
    std::abort();
  }
  std::string text;
  io::GenerateSnapshot(spec, [&](std::string_view piece) {
    text += piece;
    return true;
  });
  auto snapshot = io::ReadSnapshot(text, "generated.snap");
  if (!snapshot.ok()) {
    std::fprintf(stderr, "GeneratePopulation: %s\n", snapshot.status().ToString().c_str());
    std::abort();
  }
  return std::move(snapshot).value();
}

io::GeneratorSpec PriorityBenchmarkSpec(std::uint64_t pending_jobs, io::PolicyMix policies) {
  return {.seed = 42,
          .jobs = pending_jobs,
          .hosts = static_cast<std::uint32_t>(std::max<std::uint64_t>(100, pending_jobs / 1000)),
          .users = 10000,
          .projects = 100,
          .departments = 20,
          .array_fraction = 0,
          .running_tasks = pending_jobs / 100,
          .policies = policies,
          .categories = 100};
}

}  // namespace schedk
