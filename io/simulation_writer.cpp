#include "io/simulation_writer.hpp"

#include <cmath>
#include <cstdio>
#include <unordered_map>

#include "io/json_text.hpp"

namespace schedk::io {
namespace {

void AppendField(std::string& out, double v) {
  char buffer[64];
  if (v == std::floor(v) && std::fabs(v) < 1e18) {
    std::snprintf(buffer, sizeof buffer, "%lld", static_cast<long long>(v));
  } else {
    std::snprintf(buffer, sizeof buffer, "%.10g", v);
  }
  out += buffer;
}

}  // namespace

std::string SimulatedSwf(const SwfTrace& trace, const SimulationResult& result) {
  std::unordered_map<JobNumber, const SimulatedJob*> by_job;
  for (const SimulatedJob& j : result.jobs) by_job.emplace(j.job, &j);
  std::string out;
  for (const std::string& h : trace.header) out += ";" + h + "\n";
  for (const SwfJob& job : trace.jobs) {
    const auto it = by_job.find(static_cast<JobNumber>(job.get(kSwfJob)));
    for (int f = 0; f < kSwfFields; ++f) {
      if (f > 0) out += ' ';
      double v = job.field[static_cast<std::size_t>(f)];
      if (f == kSwfWait) {
        v = it == by_job.end() || it->second->start < 0 ? -1.0 : static_cast<double>(it->second->start - it->second->submit);
      }
      AppendField(out, v);
    }
    out += '\n';
  }
  return out;
}

std::string SimulatedCsv(const SimulationResult& result) {
  std::string out = "job,submit,start,wait,runtime,estimate,slots\n";
  for (const SimulatedJob& j : result.jobs) {
    out += std::to_string(j.job) + "," + std::to_string(j.submit) + "," + std::to_string(j.start) + "," +
           (j.start < 0 ? std::string("-1") : std::to_string(j.start - j.submit)) + "," + std::to_string(j.runtime) +
           "," + std::to_string(j.estimate) + "," + std::to_string(j.slots) + "\n";
  }
  return out;
}

std::string SummaryText(const SimulationSummary& s, double sched_seconds) {
  char buffer[512];
  std::snprintf(buffer, sizeof buffer,
                "jobs %zu\nmean_wait %.1f s\nmean_bsld %.4f\nutilization %.4f\nmakespan %lld s\npasses %llu\n"
                "sched_seconds %.4f\n",
                s.jobs, s.mean_wait, s.mean_bsld, s.utilization, static_cast<long long>(s.makespan),
                static_cast<unsigned long long>(s.passes), sched_seconds);
  std::string out = buffer;
  if (s.never_started > 0) out += "never_started " + std::to_string(s.never_started) + "\n";
  return out;
}

std::string SummaryJson(const SimulationSummary& s, double sched_seconds) {
  std::string out = "{\"jobs\":" + std::to_string(s.jobs) + ",\"mean_wait\":";
  AppendJsonNumber(out, s.mean_wait);
  out += ",\"mean_bsld\":";
  AppendJsonNumber(out, s.mean_bsld);
  out += ",\"utilization\":";
  AppendJsonNumber(out, s.utilization);
  out += ",\"makespan\":" + std::to_string(s.makespan) + ",\"passes\":" + std::to_string(s.passes) +
         ",\"sched_seconds\":";
  AppendJsonNumber(out, sched_seconds);
  if (s.never_started > 0) out += ",\"never_started\":" + std::to_string(s.never_started);
  return out + "}\n";
}

}  // namespace schedk::io
