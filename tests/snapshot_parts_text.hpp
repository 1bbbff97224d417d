// snapshot_parts_text.hpp
// What ReadSnapshotParts gives, as text to compare: the error, or the clock,
// blocks, usage, load and hoststate records with their lines, and the runs of
// job lines (chunks that touch joined, since the structure's twins cut them in
// different places). For the structure scan's twin test and fuzzer.
#pragma once

#include <string>

#include "io/snapshot_reader.hpp"

namespace schedk::testing {

// Everything the structure gives, or the error.
inline std::string PartsText(const io::Result<io::SnapshotParts>& parts) {
  if (!parts.ok()) return "error " + parts.status().ToString();
  const io::Snapshot& s = parts->snapshot;
  std::string d = "now " + std::to_string(s.cluster.now) + "\n";
  for (const io::ObjectBlock& b : s.blocks) {
    d += "begin " + b.kind + " " + b.name + " @" + std::to_string(b.line) + "\n";
    for (const io::Attribute& a : b.attributes)
      d += "  " + a.key + " " + a.value + " @" + std::to_string(a.line) + "\n";
  }
  for (const io::UsageLine& u : parts->usage) {
    d += "usage " + u.name + " " + u.values + " " + u.project + " " + std::to_string(u.at) + " @" +
         std::to_string(u.line) + "\n";
  }
  for (const io::LoadLine& l : parts->loads)
    d += "load " + l.host + " " + l.values + " @" + std::to_string(l.line) + "\n";
  for (const io::HostStateLine& h : parts->host_states) {
    d += "hoststate " + h.host + (h.down ? " down" : " up") + " @" + std::to_string(h.line) + "\n";
  }
  // The runs of job lines: chunks that touch are one run.
  const char* run_end = nullptr;
  for (const io::JobChunk& c : parts->job_chunks) {
    if (c.text.empty()) d += "(an empty chunk)\n";
    if (c.text.data() != run_end) d += "\nrun @" + std::to_string(c.first_line) + "\n";
    d.append(c.text);
    run_end = c.text.data() + c.text.size();
  }
  return d;
}

}  // namespace schedk::testing
