// generate.hpp
// `schedk generate`: writes a reproducible synthetic snapshot
// (io/snapshot_generator.hpp) to standard output; the same options always
// give the same bytes.
#pragma once

#include "io/snapshot_generator.hpp"

namespace CLI {
class App;
}  // namespace CLI

namespace schedk::tools {

// Declares the subcommand's own options, bound to its options struct (command.hpp).
void SetupGenerate(CLI::App& command, io::GeneratorSpec& spec);
// Returns the exit status: 0 success, 2 a spec CheckGeneratorSpec refuses, 1 a failed write.
int Generate(const io::GeneratorSpec& spec);

}  // namespace schedk::tools
