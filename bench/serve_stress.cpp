// serve_stress: a session (io/session) driven through its protocol path, as
// `schedk serve` drives it, on a generated cluster:
//   serve_stress JOBS [HOSTS [MAX_RESERVATION [CHANGES [THREADS [one-by-one]]]]]
// 1. ingest: the configuration as an inline snapshot, then JOBS `add job`
//    lines as `schedk serve` takes them: the text in reads of 1 MiB cut into
//    batches of whole lines (LineCutter) for Session::HandleLines (replies
//    discarded): lines per second, and of the time the cutting's, which
//    `schedk serve` does on a reader thread of its own, beside the session;
//    with `one-by-one`, HandleLine for each line instead, the plain twin of
//    HandleLines; and the ingest's stages (SessionOptions::ingest_stages);
// 2. memory: resident set after the ingest minus before, per job;
// 3. schedule latency (jemalloc keeping freed pages, as in `schedk serve`):
//    CHANGES rounds (default 5) of a 1% change (half the
//    changed jobs deleted, as many new ones added) followed by `schedule`,
//    each timed from the request to its terminal line; the view build alone
//    too, and the pass's kernel stages (SessionOptions::stages).
// THREADS bounds oneTBB's workers (default: all cores). One size per process,
// so no other size's memory is counted.
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <tbb/global_control.h>

#include "bench/proc_status.hpp"
#include "io/session/input_lines.hpp"
#include "io/session/session.hpp"
#include "io/snapshot_generator.hpp"
#include "tools/allocator.hpp"

namespace {

using schedk::bench::StatusKb;

double Since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: serve_stress JOBS [HOSTS [MAX_RESERVATION [CHANGES [THREADS [one-by-one]]]]]\n");
    return 1;
  }
  schedk::io::GeneratorSpec spec;
  spec.jobs = std::strtoull(argv[1], nullptr, 10);
  spec.hosts = argc > 2 ? static_cast<std::uint32_t>(std::strtoul(argv[2], nullptr, 10)) : 1000;
  spec.max_reservation = argc > 3 ? static_cast<std::uint32_t>(std::strtoul(argv[3], nullptr, 10)) : 0;
  const int rounds = argc > 4 ? std::atoi(argv[4]) : 5;
  std::optional<tbb::global_control> threads;
  if (argc > 5) threads.emplace(tbb::global_control::max_allowed_parallelism, std::strtoul(argv[5], nullptr, 10));
  const bool one_by_one = argc > 6 && std::string_view(argv[6]) == "one-by-one";
  spec.seed = 7;
  // Generated text: the configuration and the job lines apart.
  std::string config, jobs_text;
  {
    std::string text;
    if (!schedk::io::GenerateSnapshot(spec, [&](std::string_view s) {
          text.append(s);
          return true;
        })) {
      return 1;
    }
    std::size_t start = 0;
    while (start < text.size()) {
      const std::size_t end = text.find('\n', start);
      const std::string_view line(text.data() + start, end - start);
      (line.rfind("job ", 0) == 0 ? jobs_text : config).append(line).push_back('\n');
      start = end + 1;
    }
  }
  std::string requests;  // the `add job` requests, one per line
  std::vector<std::uint32_t> numbers;
  {
    std::size_t start = 0, k = 0;
    while (start < jobs_text.size()) {
      const std::size_t end = jobs_text.find('\n', start);
      const std::string_view line(jobs_text.data() + start, end - start);
      requests.append("a" + std::to_string(k++) + " add ").append(line).push_back('\n');
      numbers.push_back(static_cast<std::uint32_t>(std::strtoul(line.data() + 4, nullptr, 10)));
      start = end + 1;
    }
    jobs_text.clear();
    jobs_text.shrink_to_fit();
  }
  std::size_t errors = 0;
  std::string last;
  auto sink = [&](std::string_view s) {  // whole lines, one or many
    for (std::size_t at = 0; at < s.size(); at = s.find('\n', at) + 1) errors += s.compare(at, 4, "err ") == 0;
    last.assign(s.substr(s.size() > 200 ? s.size() - 200 : 0));
    return true;
  };
  // The kernel stages of each round's pass, in ms.
  std::array<double, schedk::kStages.size()> stage_ms{};
  std::optional<schedk::Stage> in_stage;
  auto stage_began = std::chrono::steady_clock::now();
  const schedk::StageListener stages = [&](schedk::Stage stage) {
    const auto now = std::chrono::steady_clock::now();
    if (in_stage) {
      stage_ms[static_cast<std::size_t>(*in_stage)] +=
          std::chrono::duration<double, std::milli>(now - stage_began).count();
    }
    in_stage = stage == schedk::Stage::kDone ? std::nullopt : std::optional(stage);
    stage_began = now;
  };
  // The ingest's stages, summed over its batches and runs, in ms.
  std::array<double, schedk::io::kIngestStages.size()> ingest_ms{};
  std::optional<schedk::io::IngestStage> in_ingest;
  auto ingest_began = std::chrono::steady_clock::now();
  const schedk::io::IngestListener ingest_stages = [&](schedk::io::IngestStage stage) {
    const auto now = std::chrono::steady_clock::now();
    if (in_ingest) {
      ingest_ms[static_cast<std::size_t>(*in_ingest)] +=
          std::chrono::duration<double, std::milli>(now - ingest_began).count();
    }
    in_ingest = stage == schedk::io::IngestStage::kDone ? std::nullopt : std::optional(stage);
    ingest_began = now;
  };
  schedk::io::SessionOptions options;
  options.stages = &stages;
  options.ingest_stages = &ingest_stages;
  const long before = StatusKb("VmRSS:");
  schedk::io::Session session(options, sink, {});
  session.HandleLine("h hello proto=1");
  session.HandleLine("s snapshot");
  {
    std::size_t start = 0;
    while (start < config.size()) {
      const std::size_t end = config.find('\n', start);
      session.HandleLine(std::string_view(config.data() + start, end - start));
      start = end + 1;
    }
  }
  session.HandleLine("end snapshot");
  auto t0 = std::chrono::steady_clock::now();
  double cutting = 0;  // of the ingest, the reader's part (its own thread in `schedk serve`)
  if (one_by_one) {
    for (std::size_t start = 0; start < requests.size();) {
      const std::size_t end = requests.find('\n', start);
      session.HandleLine(std::string_view(requests).substr(start, end - start));
      start = end + 1;
    }
  } else {
    // As the serve command's reader hands them over: a batch at 65536 lines.
    constexpr std::size_t kRead = std::size_t{1} << 20, kBatchLines = 65536;
    schedk::io::LineCutter cutter(std::size_t{1} << 20);
    auto cut = [&](auto&& step) {
      const auto began = std::chrono::steady_clock::now();
      step();
      cutting += Since(began);
    };
    schedk::io::InputBatch batch;
    for (std::size_t at = 0; at < requests.size(); at += kRead) {
      bool full = false;
      cut([&] {
        cutter.Append(std::string_view(requests).substr(at, kRead));
        if ((full = cutter.line_count() >= kBatchLines)) batch = cutter.Take();
      });
      if (full) session.HandleLines(batch.lines);
    }
    cut([&] {
      cutter.Finish();
      batch = cutter.Take();
    });
    session.HandleLines(batch.lines);
  }
  const double ingest = Since(t0);
  const long after = StatusKb("VmRSS:");
  std::printf("ingest: %zu add job lines in %.3f s = %.2f M lines/s (%zu errors); of it the reader's cutting %.3f s\n",
              numbers.size(), ingest, static_cast<double>(numbers.size()) / ingest / 1e6, errors, cutting);
  std::printf("  stages:");
  for (std::size_t k = 0; k + 1 < ingest_ms.size(); ++k) {
    const schedk::io::IngestStageInfo& stage = schedk::io::kIngestStages[k];
    std::printf(" %.*s %.1f ms%s;", static_cast<int>(stage.name.size()), stage.name.data(), ingest_ms[k],
                stage.serial ? " (serial)" : "");
  }
  std::printf("\n");
  std::printf("memory: %.1f bytes per job resident (the request texts held by this program excluded)\n",
              (static_cast<double>(after - before) * 1024.0 - static_cast<double>(config.size())) /
                  static_cast<double>(numbers.size()));
  requests.clear();
  requests.shrink_to_fit();

  // As `schedk serve` does from its start; here after the memory figure, which
  // would otherwise count pages freed before the ingest as reused.
  schedk::tools::RetainFreedPages();
  std::mt19937_64 random(11);
  std::uint32_t next_number = 0;
  for (std::uint32_t n : numbers) next_number = std::max(next_number, n + 1);
  const std::size_t change = std::max<std::size_t>(2, numbers.size() / 100);
  for (int round = 0; round < rounds; ++round) {
    for (std::size_t i = 0; i < change / 2; ++i) {
      const std::size_t pick = random() % numbers.size();
      session.HandleLine("d del job " + std::to_string(numbers[pick]));
      numbers[pick] = next_number;
      session.HandleLine("n add job " + std::to_string(next_number++) + " owner=user" + std::to_string(random() % 100) +
                         " project=proj" + std::to_string(random() % 10) + " l_hard=h_rt=1:0:0");
    }
    t0 = std::chrono::steady_clock::now();
    auto view = session.state().View();
    const double view_s = Since(t0);
    t0 = std::chrono::steady_clock::now();
    session.HandleLine("s schedule");
    const double schedule_s = Since(t0);
    std::string done = last.substr(last.rfind("done"));
    if (!done.empty() && done.back() == '\n') done.pop_back();
    std::printf("round %d: %zu changes, view %.1f ms, schedule request %.1f ms (%s)\n", round, change, view_s * 1e3,
                schedule_s * 1e3, done.c_str());
    std::printf("  stages:");
    for (std::size_t k = 0; k < stage_ms.size(); ++k) {
      if (stage_ms[k] > 0) std::printf(" %s %.1f ms;", std::string(schedk::kStages[k]).c_str(), stage_ms[k]);
    }
    std::printf("\n");
    stage_ms.fill(0);
  }
  return errors == 0 ? 0 : 1;
}
