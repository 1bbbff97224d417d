// snapshot_diff.hpp
// What a master sends `schedk serve` to move a session from one snapshot of
// its cell to the next: the changes only, as session requests (docs/protocol.md §3)
// without their ids. `schedk shadow` feeds a session this way, and other
// masters can copy it.
//   - `clock <t>` when the clock moved;
//   - an object block added or changed: `begin <kind> [<name>]`, its lines,
//     `end` (one request); removed: `del <kind> [<name>]`;
//   - a job: new, `add job ...`; gone, `del job <n>`; changed, `del job <n>`
//     and the job added again (a started, finished or re-ranged array task
//     changes the job's records). An array job whose tasks differ in state
//     comes as a master submits it: its task range added pending, the tasks
//     not in the cell deleted, each other task run, suspended or held, and
//     marked enrolled where it is a task object.
// Invariants: applying the requests to a session holding `before` gives the
// state `after` loads to (the same digest); objects go before jobs, removals
// of objects after the jobs that might name them. Snapshots are taken as
// `schedk import ge` writes them: one record per line, blocks whole.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace schedk::io {

std::vector<std::string> SessionUpdates(std::string_view before, std::string_view after);

}  // namespace schedk::io
