// population.hpp
// Synthetic clusters for the tests and the benchmarks. They come from the one
// generator, io/snapshot_generator.hpp (`schedk generate`): a spec's snapshot
// text, read as `schedk` reads it, so what a test or benchmark runs on can be
// written out and replayed with the CLI. The same spec always gives the same
// cluster and jobs.
#pragma once

#include "io/snapshot_generator.hpp"
#include "io/snapshot_reader.hpp"

namespace schedk {

// The snapshot `schedk generate` writes for `spec`, loaded. `spec` must pass
// io::CheckGeneratorSpec; the generated text always loads, so a failure is the
// generator's defect and aborts with the reader's message.
io::Snapshot GeneratePopulation(const io::GeneratorSpec& spec);

// The priority benchmarks' population (schedk_bench's BM_PriorityPass and
// BM_MauiPass, priority_stress): `pending_jobs` jobs and 1% as many running
// tasks, 10,000 users, 100 projects, 20 departments, one host per 1,000 jobs
// (at least 100), no array jobs, 100 request combinations (job categories),
// seed 42, the priority inputs of `policies`.
io::GeneratorSpec PriorityBenchmarkSpec(std::uint64_t pending_jobs, io::PolicyMix policies);

}  // namespace schedk
