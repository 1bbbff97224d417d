// priority_writer.hpp
// Writes the priorities of a snapshot (protocol.md §2.2): one row per job task
// in dispatch order with qstat -ext -urg -pri's columns
//   job task prio nurg npprior ntckts urg rrcontr wtcontr dlcontr ppri tckts
//   ovrts otckt ftckt stckt share user project department state
// as a fixed-width table (normalised values %7.5f, tickets as whole numbers,
// as qstat prints them) or as JSON Lines with full-precision numbers.
// Rows are formatted in parallel blocks and written in order.
#pragma once

#include <cstdio>
#include <string>

#include "io/snapshot.hpp"
#include "kernel/priority/priority.hpp"

namespace schedk::io {

enum class PriorityFormat { kTable, kJsonl };

// Returns the formatted output (header included for the table).
std::string FormatPriorities(const Snapshot& snapshot, const PriorityResult& result, PriorityFormat format);

// Appends `value` in the shortest form that reads back to the same double.
void AppendJsonNumber(std::string& out, double value);
// Appends a JSON string literal.
void AppendJsonString(std::string& out, std::string_view value);

}  // namespace schedk::io
