// maui_config_reader.hpp
// Reads a snapshot's `begin maui` ... `end` block (maui.cfg lines) into
// cluster.maui, and Maui's fair-share usage from the `usage` records.
// Lines: `<NAME>WEIGHT n` and `<NAME>CAP n` for every component and
// subcomponent (TARGWEIGHT is read as TARGETWEIGHT), XFMINWCLIMIT, FSPOLICY,
// FSINTERVAL, FSDEPTH, FSDECAY, JOBPRIOACCRUALPOLICY, ENABLENEGJOBPRIORITY,
// REJECTNEGPRIOJOBS, schedk's MEMRESOURCE/SWAPRESOURCE/DISKRESOURCE, and
// `USERCFG[x]`, `GROUPCFG[x]`, `ACCOUNTCFG[x]`, `QOSCFG[x]`, `CLASSCFG[x]`
// (x may be DEFAULT) with PRIORITY=, FSTARGET=, and for QOS QTWEIGHT=,
// XFWEIGHT=, QTTARGET=, XFTARGET=. Maui parameters that do not bear on
// priority (RMCFG, BACKFILLPOLICY, ...) are kept with a warning; anything
// else is an error naming file, line and parameter.
// Fair-share usage: FSPOLICY picks the usage counter (DEDICATEDPS: dps,
// DEDICATEDPES: dpes, UTILIZEDPS: cpu); `<counter>` or `<counter>.0` is the
// current window, `<counter>.<i>` the i-th older one; a record stamped at=
// k whole FSINTERVALs before now counts k windows older still.
// Must run after the jobs and users are known (CompleteSnapshot calls it).
// Errors in the block name the block's own file when it has one
// (ObjectBlock::source: `schedk simulate --maui FILE`).
#pragma once

#include <vector>

#include "io/cluster_builder.hpp"
#include "io/snapshot.hpp"
#include "io/status.hpp"

namespace schedk::io {

Status BuildMauiConfig(Snapshot& snapshot, const ClusterBuilder& builder, const std::vector<UsageLine>& usage);

}  // namespace schedk::io
