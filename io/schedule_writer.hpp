// schedule_writer.hpp
// Writes one interval's decisions (docs/protocol.md §2.1) as text records
//   start <job>.<task> at=<t> dur=<s> slots=<n> [pe=<pe>] granted=<qi>:<n>[,...]
//   reserve <job>.<task> at=<t> dur=<s> slots=<n> [pe=<pe>] granted=<qi>:<n>[,...]
//   pending <job>.<task> reason=<code> "<text>"
//   sched <job>:<task>:<STATE>:<start>:<duration>:<P|G|H|Q>:<object>:<resource>:<amount>
//   sched <job>:<task>:<STATE>:<start>:<duration>:L:<quota set>:<usage key>:<amount>
//   done starts=<n> reserves=<n> pending=<n> ms=<elapsed>
// or as JSON Lines with the same fields. The `sched` lines of the running and
// suspended tasks come first, then each decision followed by its own; their
// text is byte for byte a line of Grid Engine's MONITOR `schedule` file.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "io/snapshot.hpp"
#include "kernel/dispatch/queue_instances.hpp"
#include "kernel/dispatch/schedule_result.hpp"

namespace schedk::io {

enum class ScheduleFormat { kText, kJsonl };

// Hands the records to `sink` in order, formatted in parallel blocks; stops
// and returns false when `sink` does. `tag` (a session's request id) follows
// each record's type word (JSON Lines: an "id" key after "type").
bool WriteSchedule(const Snapshot& snapshot, const QueueInstanceTable& instances, const ScheduleResult& result,
                   ScheduleFormat format, double elapsed_ms, const std::function<bool(std::string_view)>& sink,
                   std::string_view tag = {});
// Its two parts: every record but `done` (the running tasks' `sched` lines,
// then each decision with its own), which may be written piece by piece from
// consecutive slices of one result (ScheduleSlice); and the `done` line.
bool WriteScheduleRecords(const Snapshot& snapshot, const QueueInstanceTable& instances, const ScheduleResult& result,
                          ScheduleFormat format, const std::function<bool(std::string_view)>& sink,
                          std::string_view tag = {});
bool WriteScheduleDone(const ScheduleResult& result, ScheduleFormat format, double elapsed_ms,
                       const std::function<bool(std::string_view)>& sink, std::string_view tag = {});

// A monitor line's amount as Grid Engine prints it (printf's %f), appended to `out`.
void AppendFixedAmount(std::string& out, double amount);

// The interval as Grid Engine appends it to the MONITOR file: "::::::::" and
// then every line, running and suspended tasks first.
std::string MonitorFileSection(const Snapshot& snapshot, const QueueInstanceTable& instances,
                               const ScheduleResult& result);

// What each grant of the job's starts and reservations met of its soft
// requests, one line per grant (the session's `explain`):
//   soft <job>.<task> granted=<qi> violations=<n> met=<items> missed=<items> [unlisted=<n>]
// An item is a soft -l request as `name=value` (a number as %.15g) or a soft
// -q entry as `q:<queue>`; `-` stands for none. Past the 64th, items are only
// counted (unlisted=). Empty for a job without soft requests.
std::string SoftRequestLines(const Snapshot& snapshot, const QueueInstanceTable& instances,
                             const ScheduleResult& result, JobNumber job, std::string_view tag = {});

// The reason code of a pending decision ("resource:license", "never:no-queue", ...)
// and its explanation.
std::string ReasonCode(const Snapshot& snapshot, const QueueInstanceTable& instances, const ScheduleResult& result,
                       const Decision& d);
std::string ReasonText(const Snapshot& snapshot, const QueueInstanceTable& instances, const ScheduleResult& result,
                       const Decision& d);

}  // namespace schedk::io
