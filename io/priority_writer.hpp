// priority_writer.hpp
// Writes the priorities of a snapshot (docs/protocol.md §2.2): one row per job task
// in dispatch order with qstat -ext -urg -pri's columns
//   job task prio nurg npprior ntckts urg rrcontr wtcontr dlcontr ppri tckts
//   ovrts otckt ftckt stckt share user project department state
// as a fixed-width table (normalised values %7.5f, tickets as whole numbers,
// as qstat prints them) or as JSON Lines with full-precision numbers.
// Rows are formatted in parallel blocks and handed to the caller in order.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "io/snapshot.hpp"
#include "kernel/priority/priority.hpp"

namespace schedk::io {

// kKeyValue: one line per row, `job=<n> task=<n> prio=<v> ...` with the JSON
// Lines keys and numbers (a project of none is NONE): the session's `prio` rows.
enum class PriorityFormat { kTable, kJsonl, kKeyValue };

// Which values a pending task of an array job shows. kQstat: what qstat
// prints, the job's template (its first dispatchable task in dispatch order)
// on every pending or held task of a job that has one (measured on a real
// 8.1.9 cell). kComputed: each task's own values from the greedy ticket pass,
// what Grid Engine computes internally.
enum class TaskValues { kQstat, kComputed };

// Hands the formatted output (header included for the table) to `sink` piece
// by piece, in order; stops and returns false as soon as `sink` returns false.
bool WritePriorities(const Snapshot& snapshot, const PriorityResult& result, PriorityFormat format,
                     const std::function<bool(std::string_view)>& sink, TaskValues values = TaskValues::kQstat);

}  // namespace schedk::io
