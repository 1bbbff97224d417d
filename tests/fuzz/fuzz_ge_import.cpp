// fuzz_ge_import: the Grid Engine importer (io/ge_import/) on a capture of a
// cell in which one command's output is the fuzz input. The base captures are
// the fixtures tests/io/ge_capture/{urgency,dispatch-pe,share-tree,array-limits}, read
// once from the source tree (SCHEDK_SOURCE_DIR); a CellCommands answers from
// memory as CaptureDirectory would from the files.
// Input: a selector byte, then the bytes that replace one capture file.
//   selector % kSlots            the file (kSlots below, by capture name);
//   (selector / kSlots) % 4      the base: 0 urgency, 1 dispatch-pe,
//                                2 share-tree, 3 array-limits;
//   (selector / (4 * kSlots)) % 2
//                                1: GeImportOptions::now is given (the
//                                messages file is then not read).
// For the three qstat XML outputs and sge_share_mon's, the parser
// (qstat_xml.hpp, share_usage.hpp) also runs on the bytes alone: a parse is
// much cheaper than an import, and its result can be checked before the
// importer turns it into an error or a snapshot.
// Properties:
//   (a) ImportGeCell and the parsers return (no crash, exception or hang);
//   (b) an import that succeeds gives snapshot text that io::ReadSnapshot
//       loads, and importing the same capture again gives the same bytes
//       (snapshot and notes), and every object block of it is the answer of
//       the qconf command that shows that object (no block comes from another
//       command's text), with as many queue and exechost blocks as the import
//       counted;
//   (c) a failed import's or parse's message is one line (no '\n') of at most
//       4096 bytes and, as untrusted_text.hpp promises for every message that
//       quotes input, holds no control byte;
//   (d) what a parser returns keeps its header's word: jobs and task rows
//       have a number, task rows a state, queue instances a '@' in the name,
//       every `line` is a line of the input, and share usage is usage records.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "io/ge_import/cell_commands.hpp"
#include "io/ge_import/ge_import.hpp"
#include "io/ge_import/qstat_xml.hpp"
#include "io/ge_import/share_usage.hpp"
#include "io/snapshot_reader.hpp"
#include "tests/fuzz/fuzz_checks.hpp"

#ifndef SCHEDK_SOURCE_DIR
#error "SCHEDK_SOURCE_DIR: the source tree, for the base captures (tests/fuzz/CMakeLists.txt defines it)"
#endif

namespace schedk::fuzz {
namespace {

// The capture files an input can replace, by capture name (CaptureFileName).
// Every base has each of them but the last, which only a cell with a share
// tree has; seed_corpus.sh seeds them in this order.
constexpr const char* kSlots[] = {
    "qstat_-j_%2A_-xml",       // 0: qstat -j '*' -xml        (ParseQstatJobs)
    "qstat_-u_%2A_-g_t_-xml",  // 1: qstat -u '*' -g t -xml   (ParseQstatTasks)
    "qstat_-f_-xml",           // 2: qstat -f -xml            (ParseQstatQueues)
    "qselect",                 // 3: the queue instances, in the qmaster's order
    "qconf_-sql",              // 4: a listing: the cluster queues
    "qconf_-sq_all.q",         // 5: an object, pasted into a `queue` block
    "qmaster-messages",        // 6: the clock: the last PROF line
    "qconf_-sstree",           // 7: the share tree, present when not empty
    "qconf_-sel",              // 8: a listing: the execution hosts
    "qrstat_-u_%2A",           // 9: advance reservations: any refuses the import
    // 10: share-tree usage (ParseShareUsage), ShareUsageCommand's capture
    "sge%5Fshare%5Fmon_-c_1_-n_-f_usage%5Ftime,node%5Fname,user%5Fname,project%5Fname,cpu,mem,io",
};
constexpr std::size_t kShareUsageSlot = 10;
constexpr std::size_t kSlotCount = std::size(kSlots);
constexpr const char* kBases[] = {"urgency", "dispatch-pe", "share-tree", "array-limits"};
constexpr std::size_t kBaseCount = std::size(kBases);

constexpr std::size_t kMaxMessageBytes = 4096;
constexpr Time kGivenNow = 1795651200;  // 2026-11-26T00:00:00Z, near the captures' clocks

using Capture = std::map<std::string, std::string, std::less<>>;

std::string Slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  Check(static_cast<bool>(in), "base capture readable", path.string());
  return text.str();
}

// The fixture `name` as capture name -> output. A "date" answer is added as a
// live capture without PROF lines in the messages file would hold it, so that
// the clock's fallback is reached where the fuzz input is the messages file.
Capture LoadBase(const char* name) {
  const std::filesystem::path dir = std::filesystem::path(SCHEDK_SOURCE_DIR) / "tests/io/ge_capture" / name;
  std::error_code ec;
  Check(std::filesystem::is_directory(dir, ec), "base capture present", dir.string());
  Capture files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.is_regular_file()) files[entry.path().filename().string()] = Slurp(entry.path());
  }
  for (const char* slot : kSlots) {
    if (slot == kSlots[kShareUsageSlot] && files.count("qconf_-sstree") == 1 && files["qconf_-sstree"].empty()) continue;
    Check(files.count(slot) == 1, "base capture has every slot", dir.string() + ": " + slot);
  }
  files.emplace("date", std::to_string(kGivenNow) + "\n");
  return files;
}

const Capture& Base(std::size_t which) {
  static const Capture bases[] = {LoadBase(kBases[0]), LoadBase(kBases[1]), LoadBase(kBases[2]),
                                  LoadBase(kBases[3])};
  return bases[which];
}

// `base` with the file `replaced` answered by `text`; a name neither holds is
// refused with CaptureDirectory's words, so messages are the ones a user sees.
// The captures answered go to `asked` where given.
io::CellCommands Cell(const Capture& base, std::string_view replaced, std::string_view text, const char* dir,
                      std::set<std::string>* asked = nullptr) {
  return [&base, replaced, text, dir, asked](const io::CellCommand& c) -> io::Result<std::string> {
    if (c.capture == replaced) {
      if (asked != nullptr) asked->insert(c.capture);
      return std::string(text);
    }
    auto it = base.find(c.capture);
    if (it == base.end()) {
      return io::Status::IoError(io::CommandText(c.argv),
                                 std::string("the capture ") + dir + " holds no output of it (file " + c.capture + ")");
    }
    if (asked != nullptr) asked->insert(c.capture);
    return it->second;
  };
}

// The qconf command whose answer a snapshot block of `kind` and `name` is
// (ge_import.cpp's kObjectKinds); empty for a kind the importer never writes.
io::CommandLine ShowCommand(const std::string& kind, const std::string& name) {
  static const std::map<std::string, const char*, std::less<>> kUnnamed = {
      {"complex", "-sc"}, {"sconf", "-ssconf"}, {"conf", "-sconf"}, {"sharetree", "-sstree"}};
  static const std::map<std::string, const char*, std::less<>> kNamed = {
      {"department", "-su"}, {"project", "-sprj"}, {"user", "-suser"}, {"hostgroup", "-shgrp"},
      {"exechost", "-se"},   {"pe", "-sp"},        {"queue", "-sq"}};
  if (kind == "global") return {"qconf", "-se", "global"};
  if (auto it = kUnnamed.find(kind); it != kUnnamed.end()) return {"qconf", it->second};
  if (auto it = kNamed.find(kind); it != kNamed.end()) return {"qconf", it->second, name};
  return {};
}

// (b): the blocks of the imported snapshot `s` against the commands answered.
void CheckBlocks(const io::Snapshot& s, const io::GeImport& out, const std::set<std::string>& asked) {
  std::size_t queues = 0, hosts = 0;
  for (const io::ObjectBlock& b : s.blocks) {
    const io::CommandLine show = ShowCommand(b.kind, b.name);
    Check(!show.empty() && asked.count(io::CaptureFileName(show)) == 1, "(b) imported block is a qconf answer",
          "begin " + Shown(b.kind) + " " + Shown(b.name) + " (line " + std::to_string(b.line) + ")");
    queues += b.kind == "queue";
    hosts += b.kind == "exechost";
  }
  Check(queues == out.queues && hosts == out.hosts, "(b) imported blocks as counted",
        std::to_string(queues) + " queue and " + std::to_string(hosts) + " exechost blocks, counted " +
            std::to_string(out.queues) + " and " + std::to_string(out.hosts));
}

void CheckMessage(const io::Status& status, const char* what) {
  const std::string message = status.ToString();
  const std::string property = std::string("(c) ") + what;
  Check(message.find('\n') == std::string::npos, property + " error message is one line", Shown(message));
  Check(message.size() <= kMaxMessageBytes, property + " error message is bounded",
        std::to_string(message.size()) + " bytes: " + Shown(message));
  if (const std::size_t at = ControlByteAt(message); at != std::string::npos) {
    Check(false, property + " error message has no control byte",
          "at byte " + std::to_string(at) + ": " + Shown(message));
  }
}

// (d): `line` is a line of an input of `lines` lines.
void CheckLine(int line, std::size_t lines, const char* what) {
  Check(line >= 1 && static_cast<std::size_t>(line) <= lines, std::string("(d) ") + what + " line within the input",
        std::to_string(line) + " of " + std::to_string(lines));
}

void ParseAlone(std::size_t slot, std::string_view xml) {
  const std::string source = "fuzz.xml";
  const std::size_t lines = static_cast<std::size_t>(std::count(xml.begin(), xml.end(), '\n')) + 1;
  if (slot == 0) {
    auto jobs = io::ParseQstatJobs(xml, source);
    if (!jobs.ok()) return CheckMessage(jobs.status(), "ParseQstatJobs");
    for (const io::CellJob& job : jobs.value()) {
      Check(job.number != 0, "(d) ParseQstatJobs job has a number", std::to_string(job.line));
      CheckLine(job.line, lines, "ParseQstatJobs");
    }
  } else if (slot == 1) {
    auto rows = io::ParseQstatTasks(xml, source);
    if (!rows.ok()) return CheckMessage(rows.status(), "ParseQstatTasks");
    for (const io::CellTaskRow& row : rows.value()) {
      Check(row.number != 0 && !row.state.empty(), "(d) ParseQstatTasks row has a number and a state",
            std::to_string(row.line));
      CheckLine(row.line, lines, "ParseQstatTasks");
    }
  } else if (slot == 2) {
    auto queues = io::ParseQstatQueues(xml, source);
    if (!queues.ok()) return CheckMessage(queues.status(), "ParseQstatQueues");
    for (const io::CellQueueInstance& q : queues.value()) {
      Check(q.name.find('@') != std::string::npos, "(d) ParseQstatQueues instance name has '@'", Shown(q.name));
    }
  } else if (slot == kShareUsageSlot) {
    auto usage = io::ParseShareUsage(xml, source);
    if (!usage.ok()) return CheckMessage(usage.status(), "ParseShareUsage");
    std::istringstream records(usage->records);
    for (std::string line; std::getline(records, line);) {
      Check(line.rfind("usage user ", 0) == 0 || line.rfind("usage project ", 0) == 0,
            "(d) ParseShareUsage writes usage records", Shown(line));
    }
  }
}

}  // namespace
}  // namespace schedk::fuzz

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  using namespace schedk;
  using namespace schedk::fuzz;
  // Both bases import as they are: otherwise every input ends in the same error.
  Check(io::ShareUsageCommand("sge_share_mon").capture == kSlots[kShareUsageSlot], "share usage slot named as captured");
  for (std::size_t b = 0; b < std::size(kBases); ++b) {
    auto imported = io::ImportGeCell(Cell(Base(b), "", "", kBases[b]), io::GeImportOptions{});
    Check(imported.ok(), "base capture imports", std::string(kBases[b]) + ": " + imported.status().ToString());
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace schedk;
  using namespace schedk::fuzz;
  if (size == 0) return 0;
  const std::size_t slot = data[0] % kSlotCount;
  const std::size_t base = (data[0] / kSlotCount) % kBaseCount;
  const bool given_now = (data[0] / (kBaseCount * kSlotCount)) % 2 == 1;
  const std::string_view text = AsText(data + 1, size - 1);
  ParseAlone(slot, text);

  io::GeImportOptions options;
  if (given_now) options.now = kGivenNow;
  std::set<std::string> asked;
  const io::CellCommands cell = Cell(Base(base), kSlots[slot], text, kBases[base], &asked);
  auto first = io::ImportGeCell(cell, options);
  if (!first.ok()) {
    CheckMessage(first.status(), "ImportGeCell");
    return 0;
  }
  // (The early returns are for FUZZ_IGNORE, which lets a failed Check pass.)
  auto loaded = io::ReadSnapshot(first->snapshot, "the imported snapshot");
  Check(loaded.ok(), "(b) imported snapshot loads", loaded.status().ToString());
  if (loaded.ok()) CheckBlocks(loaded.value(), first.value(), asked);
  auto second = io::ImportGeCell(cell, options);
  Check(second.ok(), "(b) import repeats", second.status().ToString());
  if (!second.ok()) return 0;
  if (second->snapshot != first->snapshot) {
    Check(false, "(b) import repeats byte-identical", FirstDifference(first->snapshot, second->snapshot));
  }
  Check(second->notes == first->notes, "(b) import repeats its notes");
  return 0;
}
