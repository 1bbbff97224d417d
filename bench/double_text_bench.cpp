// double_text_bench: the shortest text of a double (io/double_text.hpp), the
// optimised writer against its twin std::to_chars, on 1M values shaped like a
// priority pass's output: normalised values in [0, 1), urgencies with two
// decimals, integers, and tiny shares.
//   BM_WriteShortest/twin:T (0: optimised, 1: std::to_chars)
#include <benchmark/benchmark.h>

#include <cmath>
#include <random>
#include <vector>

#include "io/double_text.hpp"

namespace {

const std::vector<double>& PassValues() {
  static const std::vector<double> values = [] {
    std::mt19937_64 random(42);
    std::uniform_real_distribution<double> unit(0, 1);
    std::vector<double> v;
    for (int i = 0; i < 250000; ++i) {
      v.push_back(unit(random));                                       // prio, nurg, ntckts
      v.push_back(std::round(unit(random) * 1e7) / 100);               // urg, wtcontr
      v.push_back(static_cast<double>(random() % 100000));             // rrcontr, ppri
      v.push_back(unit(random) * std::pow(10.0, -int(random() % 9)));  // share
    }
    return v;
  }();
  return values;
}

void BM_WriteShortest(benchmark::State& state) {
  const std::vector<double>& values = PassValues();
  const bool twin = state.range(0) == 1;
  char buffer[schedk::io::kShortestRoom];
  for (auto _ : state) {
    std::size_t chars = 0;
    for (double v : values) {
      const char* end = twin ? schedk::io::WriteShortestReference(buffer, v) : schedk::io::WriteShortest(buffer, v);
      chars += static_cast<std::size_t>(end - buffer);
    }
    benchmark::DoNotOptimize(chars);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * values.size()));
}
BENCHMARK(BM_WriteShortest)->ArgName("twin")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace
