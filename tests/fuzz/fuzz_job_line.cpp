// fuzz_job_line: the first byte selects a grammar (its value mod 4), the rest
// is fed to it:
//   0  job lines (io/job_line.hpp), one per input line that is text (as the
//      readers pass them on): ParseJobLine; where a line parses, its canonical
//      record (RenderJobLine) parses again and renders to the same text;
//   1  wildcard string expressions (kernel/complex/string_expression.hpp):
//      the first line is the expression, matched under every string type
//      against a few values and the following lines; a result is one of the
//      three, and a plain string (no expression characters) matches itself;
//   2  Grid Engine values (io/ge_value.hpp), one per line, through every
//      parser: numbers are not NaN, INT is integral, BOOL 0 or 1, durations
//      in [0, INFINITY], times in [0, kLastTime];
//   3  job records with request lists (io/job_reader.hpp) appended to a small
//      fixed cluster and read as a snapshot; where it loads, every numeric
//      request is finite, and consumable and TIME requests (h_rt, s_rt) are
//      non-negative, PE ranges are 1 <= min <= max.
// Every grammar: no crash, no sanitizer report.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "io/ge_value.hpp"
#include "io/job_line.hpp"
#include "io/snapshot_reader.hpp"
#include "io/untrusted_text.hpp"
#include "kernel/complex/string_expression.hpp"
#include "tests/fuzz/fuzz_checks.hpp"

namespace schedk::fuzz {
namespace {

constexpr const char* kCluster = R"(schedk-snapshot 1
now 1000000
begin complex
slots     s     INT      <=    YES     YES  1      1000
h_rt      h_rt  TIME     <=    YES     NO   0:0:0  0
s_rt      s_rt  TIME     <=    YES     NO   0:0:0  0
h_vmem    h_vmem MEMORY  <=    YES     YES  0      0
license   lic   INT      <=    YES     JOB  0      100
scratch   scr   DOUBLE   <=    YES     HOST 0      0
gpu_excl  gx    BOOL     EXCL  YES     YES  0      0
arch      a     RESTRING ==    YES     NO   NONE   0
colour    col   CSTRING  ==    FORCED  NO   NONE   0
hostname  h     HOST     ==    YES     NO   NONE   0
cpu       cpu   DOUBLE   >=    YES     NO   0      0
end complex
begin global
complex_values license=10
end global
begin hostgroup @nodes
hostlist n1 n2
end hostgroup
begin exechost n1
complex_values slots=8,h_vmem=16G,scratch=100,gpu_excl=true
load_values arch=lx-amd64,cpu=10
end exechost
begin exechost n2
complex_values slots=4,h_vmem=8G,scratch=50,colour=Red
load_values arch=sol-sparc64
end exechost
begin pe mpi
slots 12
allocation_rule $fill_up
end pe
begin queue all.q
hostlist @nodes
slots 8
pe_list mpi
end queue
begin project astro
end project
)";

void JobLines(std::string_view text) {
  io::JobNameSpace names, again_names;
  std::vector<io::JobToken> tokens;
  std::deque<std::string> storage;
  int line_no = 0;
  ForEachLine(text, [&](std::string_view line) {
    ++line_no;
    // The readers refuse a line that is not text (invalid UTF-8, control
    // characters) before ParseJobLine sees it.
    if (io::FindNonText(line) != std::string_view::npos) return;
    io::ParsedJob job;
    if (io::ParseJobLine(line, line_no, names, tokens, storage, job)) return;
    std::string canonical;
    io::RenderJobLine(job, names, canonical);
    io::ParsedJob again;
    if (auto e = io::ParseJobLine(canonical, line_no, again_names, tokens, storage, again)) {
      Check(false, "canonical job record parses", *e + " in: " + Shown(canonical) + " from: " + Shown(line));
      return;
    }
    std::string twice;
    io::RenderJobLine(again, again_names, twice);
    Check(twice == canonical, "canonical job record renders to itself", Shown(canonical) + " vs " + Shown(twice));
  });
}

void Expressions(std::string_view text) {
  const std::size_t end = text.find('\n');
  const std::string_view expression = text.substr(0, end);
  std::vector<std::string_view> values = {"lx-amd64", "sol-sparc64", "LX-AMD64", "", "a|b", "n1.example.org"};
  if (end != std::string_view::npos) ForEachLine(text.substr(end + 1), [&](std::string_view v) { values.push_back(v); });
  if (values.size() > 16) values.resize(16);
  const bool is_expression = IsStringExpression(expression);
  for (ValueType type : {ValueType::kString, ValueType::kCString, ValueType::kReString, ValueType::kHost}) {
    for (std::string_view value : values) {
      const ExpressionResult r = EvaluateStringExpression(type, expression, value);
      Check(r == ExpressionResult::kMatch || r == ExpressionResult::kNoMatch || r == ExpressionResult::kError,
            "expression result is match, no match or error", Shown(expression));
    }
    if (!is_expression) {
      Check(EvaluateStringExpression(type, expression, expression) == ExpressionResult::kMatch,
            "a plain string matches itself", Shown(expression));
    }
  }
}

void Values(std::string_view text) {
  ForEachLine(text, [&](std::string_view v) {
    if (auto n = io::ParseGeNumber(v)) Check(!std::isnan(*n), "ParseGeNumber is not NaN", Shown(v));
    for (ValueType type : {ValueType::kInt, ValueType::kDouble, ValueType::kTime, ValueType::kMemory,
                           ValueType::kBool}) {
      auto n = io::ParseTypedNumber(v, type);
      if (!n) continue;
      Check(!std::isnan(*n), "ParseTypedNumber is not NaN", Shown(v));
      if (type == ValueType::kInt) Check(std::floor(*n) == *n, "INT is integral", Shown(v));
      if (type == ValueType::kBool) Check(*n == 0 || *n == 1, "BOOL is 0 or 1", Shown(v));
    }
    if (auto d = io::ParseDuration(v)) Check(*d >= 0 && *d <= kInfiniteDuration, "duration in range", Shown(v));
    if (auto t = io::ParseTime(v)) Check(*t >= 0 && *t <= io::kLastTime, "time in range", Shown(v));
    if (auto u = io::ParseUnsigned(v); u && *u <= static_cast<std::uint64_t>(INT64_MAX)) {
      auto i = io::ParseInteger(v);
      Check(i && static_cast<std::uint64_t>(*i) == *u, "ParseInteger agrees with ParseUnsigned", Shown(v));
    }
    (void)io::ParseBool(v);
    (void)io::SplitList(v);
    (void)io::SplitWords(v);
    (void)io::IsNone(v);
  });
}

void Requests(std::string_view text) {
  std::string snapshot = kCluster;
  snapshot.append(text);
  auto loaded = io::ReadSnapshot(snapshot, "fuzz.snap");
  if (!loaded.ok()) return;
  const io::Snapshot& s = loaded.value();
  const ComplexTable& complex = s.cluster.complexes;
  for (const RequestSet& set : s.jobs.request_sets()) {
    for (const ComplexValueList* list : {&set.hard, &set.soft}) {
      for (const ComplexValue& v : *list) {
        const ComplexAttribute& a = complex[v.complex];
        if (!IsNumeric(a.type)) continue;
        const std::string what = std::string(s.names.complexes.Name(v.complex.value)) + "=" + std::to_string(v.number);
        Check(std::isfinite(v.number), "numeric request is finite", what);
        if (a.consumable != Consumable::kNo) Check(v.number >= 0, "consumable request is not negative", what);
        if (a.type == ValueType::kTime) Check(v.number >= 0, "TIME request (h_rt, s_rt) is not negative", what);
      }
    }
    if (set.has_pe) {
      Check(set.pe.min >= 1 && set.pe.min <= set.pe.max, "PE range 1 <= min <= max",
            std::to_string(set.pe.min) + "-" + std::to_string(set.pe.max));
    }
  }
}

}  // namespace
}  // namespace schedk::fuzz

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // The fixed cluster must load on its own.
  auto s = schedk::io::ReadSnapshot(schedk::fuzz::kCluster, "cluster.snap");
  if (!s.ok()) schedk::fuzz::Fail("fixed cluster loads", s.status().ToString());
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace schedk::fuzz;
  if (size == 0) return 0;
  const std::string_view rest = AsText(data + 1, size - 1);
  switch (data[0] % 4) {
    case 0: JobLines(rest); break;
    case 1: Expressions(rest); break;
    case 2: Values(rest); break;
    default: Requests(rest); break;
  }
  return 0;
}
