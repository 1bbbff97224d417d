// ingest_stage.hpp
// The stages of a session's `add job` ingest (Session::HandleLines and the
// runs it hands SessionState::AddJobs), for a caller that times them
// (serve_stress). The session tells a listener where each stage begins, and
// kDone where the step returns; a stage lasts until the next call. Every stage
// is declared once, in kIngestStages, with the name a profile prints and
// whether it runs on one core (the serial fraction Amdahl's law predicts with).
// Invariants: a listener changes no reply and no state; within one batch the
// stages come in kIngestStages' order, the line kinds once, the others once
// per run of `add job` lines.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>

namespace schedk::io {

enum class IngestStage : std::uint8_t {
  kLineKinds,        // Session::HandleLines: what each line of the batch is
  kParse,            // the records parsed in chunks, each with names of its own
  kMergeNames,       // the chunks' names interned into the session's, in record order
  kRepoint,          // the rows re-pointed to the session's names
  kSortByShard,      // the rows sorted by their jobs' shards
  kCheckRows,        // the rows' request sets resolved and references checked
  kKeepRequestSets,  // the new request sets kept for the passes, the checks noted
  kInsert,           // the rows inserted shard by shard
  kReplies,          // the replies and log lines formatted and handed over
  kDone,             // the step returns
};

struct IngestStageInfo {
  std::string_view name;
  bool serial;  // runs on one core
};

inline constexpr std::array<IngestStageInfo, static_cast<std::size_t>(IngestStage::kDone) + 1> kIngestStages = {{
    {"ingest: line kinds", false},
    {"ingest: parse", false},
    {"ingest: merge names", true},
    {"ingest: re-point rows", false},
    {"ingest: sort by shard", true},
    {"ingest: check rows", false},
    {"ingest: keep request sets", true},
    {"ingest: insert", false},
    {"ingest: replies", false},
    {"done", true},
}};

inline const IngestStageInfo& InfoOf(IngestStage stage) { return kIngestStages[static_cast<std::size_t>(stage)]; }

// Called on the session's thread as each stage begins (and with kDone).
using IngestListener = std::function<void(IngestStage)>;

inline void EnterStage(const IngestListener* listener, IngestStage stage) {
  if (listener != nullptr) (*listener)(stage);
}

}  // namespace schedk::io
