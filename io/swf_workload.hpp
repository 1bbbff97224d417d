// swf_workload.hpp
// A Standard Workload Format trace as a schedk snapshot to replay
// (kernel/simulation/simulator.hpp): one execution host with MaxProcs slots,
// one queue, a parallel environment for jobs of more than one processor, and
// a scheduler configuration that ranks jobs by submission order (every
// priority weight 0: Grid Engine then orders by submit time and job number)
// with no DURATION_OFFSET. Each job becomes `job <n> owner=user<u>
// submit=<t> l_hard=h_rt=<estimate> [pe_name=swf pe_min=<procs>]
// runtime=<run>`, its size the requested processors (field 8) and its
// estimate the requested time (field 9) or, with `runtime_estimate`, the run
// time (field 4).
#pragma once

#include <string>

#include "io/status.hpp"
#include "io/swf_reader.hpp"

namespace schedk::io {

struct SwfWorkloadOptions {
  bool runtime_estimate = false;
};

// The snapshot text, or an error when the trace has no MaxProcs or a job
// cannot be placed (no processors, no estimate, a runtime below 0).
Result<std::string> SwfSnapshotText(const SwfTrace& trace, const SwfWorkloadOptions& options);

}  // namespace schedk::io
