// quota_writer.hpp
// Resource quota usage as `qquota -u '*'` prints it: a header, 80 dashes, and
// one row per rule instance in use of each enabled set,
//   resource quota rule limit                filter
//   --------------------------------------------------------------------------------
//   max_u_slots/1      slots=2/20           users u1
// (`%-18s %-20.20s %s`). The limit column is `<attribute>=<used>/<limit>` for
// each consumable limit the instance uses (a dynamic limit as its value on
// the instance's host); the filter column names each present filter, an
// expanded one by the instance's value, the others as written, `-` for none.
// Rows come in set and rule order, then by usage key.
#pragma once

#include <string>
#include <vector>

#include "io/snapshot.hpp"

namespace schedk::io {

// The rows for the usage of the snapshot's running and suspended jobs.
std::vector<std::string> QuotaTable(const Snapshot& snapshot);

}  // namespace schedk::io
