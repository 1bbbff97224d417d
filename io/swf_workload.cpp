#include "io/swf_workload.hpp"

#include <algorithm>
#include <limits>
#include <unordered_set>

#include "io/ge_value.hpp"
#include "kernel/types.hpp"

namespace schedk::io {
namespace {

constexpr long long kLargestMachine = 9999999;  // Grid Engine's largest slot count

}  // namespace

Result<std::string> SwfSnapshotText(const SwfTrace& trace, const SwfWorkloadOptions& options) {
  if (!trace.max_procs || *trace.max_procs <= 0) {
    return Status::InvalidInput(trace.source, 0, "the trace's header has no MaxProcs: the machine's size is unknown");
  }
  const long long procs = *trace.max_procs;
  if (procs > kLargestMachine) {
    return Status::InvalidInput(trace.source, 0,
                                "the trace's header gives MaxProcs " + std::to_string(procs) +
                                    ": the machine's parallel environment and queue hold at most " +
                                    std::to_string(kLargestMachine) + " slots");
  }
  long long first_submit = trace.jobs.empty() ? 0 : trace.jobs.front().get(kSwfSubmit);
  for (const SwfJob& j : trace.jobs) first_submit = std::min(first_submit, j.get(kSwfSubmit));
  std::string text = "schedk-snapshot 1\n# replay of " + trace.source + "\nnow " + std::to_string(first_submit) +
                     "\n"
                     "begin complex\n"
                     "slots s INT <= YES YES 1 0\n"
                     "h_rt h_rt TIME <= YES NO 0:0:0 0\n"
                     "s_rt s_rt TIME <= YES NO 0:0:0 0\n"
                     "end complex\n"
                     "begin sconf\n"
                     "weight_priority 0\nweight_urgency 0\nweight_ticket 0\n"
                     "job_load_adjustments NONE\nload_adjustment_decay_time 0\n"
                     "params DURATION_OFFSET=0\n"
                     "end sconf\n"
                     "begin exechost machine\ncomplex_values slots=" + std::to_string(procs) + "\nend exechost\n"
                     "begin pe swf\nslots " + std::to_string(procs) + "\nallocation_rule $pe_slots\nend pe\n"
                     "begin queue batch\nhostlist machine\nslots " + std::to_string(procs) + "\npe_list swf\nend queue\n";
  std::unordered_set<long long> numbers;
  numbers.reserve(trace.jobs.size());
  const std::string last = std::to_string(kLastTime);  // for the messages
  for (const SwfJob& j : trace.jobs) {
    const long long size = j.get(kSwfRequestedProcs) > 0 ? j.get(kSwfRequestedProcs) : j.get(kSwfAllocatedProcs);
    const long long run = j.get(kSwfRunTime);
    const long long estimate = options.runtime_estimate ? run : j.get(kSwfRequestedTime);
    auto wrong = [&](const std::string& what) {
      return Status::InvalidInput(trace.source, j.line, "job " + std::to_string(j.get(kSwfJob)) + ": " + what);
    };
    auto fail = [&](const std::string& what) {  // what the archive filter drops
      return wrong(what + " (the archive filter, --filter pwa, drops such jobs)");
    };
    const long long number = j.get(kSwfJob);
    if (number > static_cast<long long>(std::numeric_limits<JobNumber>::max())) return wrong("job number out of range");
    if (!numbers.insert(number).second) return wrong("a job of this number came earlier");
    if (size <= 0) return fail("no processor count");
    if (size > static_cast<long long>(std::numeric_limits<std::uint32_t>::max())) {
      return wrong("processor count out of range");
    }
    if (run < 0) return fail("no run time");
    if (estimate <= 0) return fail("no estimate");
    if (j.get(kSwfSubmit) < 0) return fail("no submit time");
    // Grid Engine's times and durations are unsigned 32-bit seconds, the largest meaning "forever".
    if (!InTimeRange(j.get(kSwfSubmit))) return wrong("submit time out of range (at most " + last + ")");
    if (run > kLastTime || estimate > kLastTime) return wrong("run time or estimate out of range (at most " + last + " s)");
    const long long user = j.get(kSwfUser);
    text += "job " + std::to_string(j.get(kSwfJob)) + " owner=" + (user >= 0 ? "user" + std::to_string(user) : "unknown") +
            " submit=" + std::to_string(j.get(kSwfSubmit)) + " l_hard=h_rt=" + std::to_string(estimate);
    if (size > 1) text += " pe_name=swf pe_min=" + std::to_string(size);
    text += " runtime=" + std::to_string(run) + "\n";
  }
  return text;
}

}  // namespace schedk::io
