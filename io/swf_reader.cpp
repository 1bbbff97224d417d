#include "io/swf_reader.hpp"

#include <zlib.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <optional>

#include "io/ge_value.hpp"
#include "io/line_cursor.hpp"
#include "io/snapshot_reader.hpp"
#include "io/tuning.hpp"
#include "io/untrusted_text.hpp"

namespace schedk::io {
namespace {

// "Key: value" header lines with a number.
std::optional<long long> HeaderNumber(std::string_view line, std::string_view key) {
  line = Trim(line);
  if (line.substr(0, key.size()) != key) return std::nullopt;
  std::string_view rest = Trim(line.substr(key.size()));
  if (rest.empty() || rest.front() != ':') return std::nullopt;
  rest = Trim(rest.substr(1));
  long long v = 0;
  const auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), v);
  if (ec != std::errc() || end == rest.data()) return std::nullopt;
  return v;
}

constexpr double kLargestField = 9007199254740992.0;  // 2^53

// Most fields are short integers ("-1", "3600"): read them without strtod.
// Up to 15 digits the integer is exact as a double, so the value is strtod's;
// anything else is left to strtod.
bool IntegerField(std::string_view token, double& value) {
  const bool negative = !token.empty() && token.front() == '-';
  const std::string_view digits = token.substr(negative ? 1 : 0);
  if (digits.empty() || digits.size() > 15) return false;
  long long v = 0;
  for (const char c : digits) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  value = negative ? -static_cast<double>(v) : static_cast<double>(v);
  return true;
}

// The 18 fields of a job line; what is wrong otherwise.
Reason ParseJobLine(std::string_view line, SwfJob& job) {
  int n = 0;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    if (i == line.size()) break;
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    if (n == kSwfFields) return "more than " + std::to_string(kSwfFields) + " fields";
    const std::string_view token = line.substr(start, i - start);
    double v = 0;
    if (!IntegerField(token, v)) {
      const std::string text(token);
      char* end = nullptr;
      v = std::strtod(text.c_str(), &end);
      if (end != text.c_str() + text.size()) return "field " + std::to_string(n + 1) + " is not a number: " + Quote(text);
      // Integral fields are read as long long: keep every value where that is exact.
      if (!(std::fabs(v) <= kLargestField)) {
        return "field " + std::to_string(n + 1) + " is out of range: " + Quote(text);
      }
    }
    job.field[static_cast<std::size_t>(n++)] = v;
  }
  if (n != kSwfFields) return "expected " + std::to_string(kSwfFields) + " fields, not " + std::to_string(n);
  if (job.field[kSwfJob] < 1) return "field 1 (job number) must be positive";
  return std::nullopt;
}

}  // namespace

Result<SwfTrace> ReadSwf(std::string_view text, const std::string& source, const SwfReadOptions& options) {
  SwfTrace trace;
  trace.source = source == "-" ? "<stdin>" : source;
  LineCursor cursor(text, 0);
  std::string_view line;
  while (cursor.NextPhysical(line)) {
    const std::string_view trimmed = Trim(line);
    if (trimmed.empty()) continue;
    if (trimmed.front() == ';') {
      const std::string_view h = trimmed.substr(1);
      trace.header.emplace_back(h);
      if (auto v = HeaderNumber(h, "MaxProcs")) trace.max_procs = *v;
      if (auto v = HeaderNumber(h, "MaxNodes")) trace.max_nodes = *v;
      if (auto v = HeaderNumber(h, "UnixStartTime")) trace.unix_start_time = *v;
      continue;
    }
    SwfJob job;
    job.line = cursor.line();
    if (auto e = ParseJobLine(trimmed, job)) {
      if (!options.lenient) return Status::InvalidInput(trace.source, cursor.line(), *e);
      ++trace.skipped;
      continue;
    }
    trace.jobs.push_back(job);
  }
  return trace;
}

// Inflates gzip data (any number of members). Damaged data is bad input, and
// so is data that cannot be a text trace, refused as soon as it shows: a NUL
// byte, a line longer than kMaxTraceLineBytes, or (past kBombFloorBytes) text
// more than kMaxInflateRatio times the compressed size, which no real trace
// reaches and a decompression bomb always does.
Result<std::string> Gunzip(std::string_view data, const std::string& source) {
  using tuning::kBombFloorBytes, tuning::kMaxInflateRatio, tuning::kMaxTraceLineBytes;
  std::string out;
  z_stream z{};
  if (inflateInit2(&z, 15 + 32) != Z_OK) return Status::IoError(source, "cannot start gzip decompression");
  std::string_view unread = data;  // fed in pieces: avail_in is 32 bits wide
  char buffer[1 << 16];
  int rc = Z_OK;
  std::size_t line_bytes = 0;  // of the line being inflated
  Reason refusal;
  while (!refusal) {
    if (z.avail_in == 0 && !unread.empty()) {
      const std::size_t n = std::min<std::size_t>(unread.size(), std::size_t{1} << 30);
      z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(unread.data()));
      z.avail_in = static_cast<uInt>(n);
      unread.remove_prefix(n);
    }
    z.next_out = reinterpret_cast<Bytef*>(buffer);
    z.avail_out = sizeof buffer;
    rc = inflate(&z, Z_NO_FLUSH);
    const std::string_view piece(buffer, sizeof buffer - z.avail_out);
    const std::size_t newline = piece.rfind('\n');
    line_bytes = newline == std::string_view::npos ? line_bytes + piece.size() : piece.size() - newline - 1;
    if (piece.find('\0') != std::string_view::npos) {
      refusal = "the inflated data holds NUL bytes: not a text trace";
    } else if (line_bytes > kMaxTraceLineBytes) {
      refusal = "the inflated data has a line longer than " + std::to_string(kMaxTraceLineBytes) + " bytes";
    } else if (out.size() + piece.size() > std::max(kBombFloorBytes, data.size() * kMaxInflateRatio)) {
      refusal = "the data inflates to more than " + std::to_string(kMaxInflateRatio) +
                " times its size (a decompression bomb, not a trace)";
    }
    out.append(piece);
    if (rc == Z_STREAM_END) {
      if (z.avail_in == 0 && unread.empty()) break;
      inflateReset(&z);  // another gzip member follows
      continue;
    }
    if (rc != Z_OK) break;
    if (z.avail_in == 0 && unread.empty() && z.avail_out != 0) break;
  }
  inflateEnd(&z);
  if (refusal) return Status::InvalidInput(source, 0, "gzip: " + *refusal);
  if (rc != Z_STREAM_END) return Status::InvalidInput(source, 0, "gzip: corrupt or truncated data");
  return out;
}

Result<SwfTrace> ReadSwfFile(const std::string& path, const SwfReadOptions& options) {
  auto data = ReadWholeFile(path);
  if (!data.ok()) return data.status();
  const std::string& bytes = data.value();
  if (bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f && static_cast<unsigned char>(bytes[1]) == 0x8b) {
    auto text = Gunzip(bytes, path);
    if (!text.ok()) return text.status();
    return ReadSwf(text.value(), path, options);
  }
  return ReadSwf(bytes, path, options);
}

std::size_t PwaFilter(SwfTrace& trace) {
  const std::size_t before = trace.jobs.size();
  std::erase_if(trace.jobs, [&](SwfJob& j) {
    double& allocated = j.field[kSwfAllocatedProcs];
    double& requested = j.field[kSwfRequestedProcs];
    if (trace.max_procs && (allocated > static_cast<double>(*trace.max_procs) ||
                            requested > static_cast<double>(*trace.max_procs))) {
      return true;
    }
    if (allocated <= 0 && requested <= 0) return true;
    if (allocated <= 0) allocated = requested;
    if (requested <= 0) requested = allocated;
    if (j.field[kSwfRunTime] <= 0 || j.field[kSwfRequestedTime] <= 0) return true;
    j.field[kSwfRunTime] = std::min(j.field[kSwfRunTime], j.field[kSwfRequestedTime]);
    return j.field[kSwfSubmit] < 0;
  });
  return before - trace.jobs.size();
}

}  // namespace schedk::io
