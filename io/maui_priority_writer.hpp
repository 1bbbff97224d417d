// maui_priority_writer.hpp
// Writes the Maui policy's priorities (`schedk priorities` with params
// PRIORITY_POLICY=maui), explained as Maui's `diagnose -p` does: one row per
// job task in dispatch order with its priority and, for every component
// whose weight is not 0, the component's share of the job's priority in
// percent followed by each weighted subcomponent's contribution
// (CWEIGHT * SWEIGHT * factor); a weights line under the header and a
// "Percent Contribution" line (each component's share over all rows shown)
// at the end. JSON Lines rows carry every component and subcomponent: weight,
// factor, contribution and percent; the session's key=value rows each
// component's contribution and each shown subcomponent's as <component>.<sub>.
#pragma once

#include <functional>
#include <string_view>

#include "io/priority_writer.hpp"
#include "io/snapshot.hpp"
#include "kernel/priority/priority.hpp"

namespace schedk::io {

bool WriteMauiPriorities(const Snapshot& snapshot, const PriorityResult& result, PriorityFormat format,
                         const std::function<bool(std::string_view)>& sink);

}  // namespace schedk::io
