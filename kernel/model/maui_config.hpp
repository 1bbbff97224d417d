// maui_config.hpp
// The Maui/Moab multi-factor priority configuration (a snapshot's `maui`
// block, maui.cfg syntax): component and subcomponent weights and caps,
// credential settings (USERCFG, GROUPCFG, ACCOUNTCFG, QOSCFG, CLASSCFG) and the
// fair-share windows. Grid Engine entities map onto Maui credentials as
//   user = job owner, group = owner's UNIX group, account = project,
//   QOS = the job key qos=, class = the cluster queue the job requests
//   (its first hard -q entry naming one; for a running job its master queue).
// Every default is Maui 3.3's (MParSetDefaults): each component weight 1, each
// subcomponent weight 0 except QUEUETIMEWEIGHT 1, no caps, FSPOLICY NONE.
// Invariants: credential tables are indexed by the id of their kind (UserId,
// GroupId, ProjectId, QosId, QueueId); an id past the end of its table, or a
// credential that sets nothing, takes the kind's DEFAULT entry; caps are 0
// (none) or positive; fs_usage is the decayed usage over the first fs_depth windows.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "kernel/types.hpp"

namespace schedk {

enum class MauiComponent : std::uint8_t { kCred, kFairShare, kService, kTarget, kResource, kUsage };
inline constexpr std::size_t kMauiComponents = 6;

// Subcomponents, grouped by component in the order above.
enum class MauiSub : std::uint8_t {
  kUser, kGroup, kAccount, kQos, kClass,                   // CRED: credential PRIORITY
  kFsUser, kFsGroup, kFsAccount, kFsQos, kFsClass,         // FS: target - usage percent
  kQueueTime, kXFactor, kBypass,                           // SERV
  kTargetQueueTime, kTargetXFactor,                        // TARGET
  kNode, kProc, kMem, kSwap, kDisk, kProcSeconds, kProcEquivalent, kWalltime,  // RES
  kConsumed, kRemaining, kPercent, kExecutionTime,         // USAGE (running jobs only)
};
inline constexpr std::size_t kMauiSubs = 27;

// The component a subcomponent belongs to.
constexpr MauiComponent ComponentOf(MauiSub s) {
  const auto i = static_cast<std::size_t>(s);
  if (i < 5) return MauiComponent::kCred;
  if (i < 10) return MauiComponent::kFairShare;
  if (i < 13) return MauiComponent::kService;
  if (i < 15) return MauiComponent::kTarget;
  if (i < 23) return MauiComponent::kResource;
  return MauiComponent::kUsage;
}

enum class MauiCredential : std::uint8_t { kUser, kGroup, kAccount, kQos, kClass };
inline constexpr std::size_t kMauiCredentials = 5;

// FSTARGET=x (target), x+ (floor: counts only below it), x- (ceiling: only above it).
enum class FairShareTargetMode : std::uint8_t { kTarget, kFloor, kCeiling };

// Which usage counter the fair-share windows sum (FSPOLICY).
enum class FairSharePolicy : std::uint8_t { kNone, kDedicatedPs, kDedicatedPes, kUtilizedPs };

// JOBPRIOACCRUALPOLICY: ALWAYS counts queue time from submission; QUEUEPOLICY and
// FULLPOLICY from the time the job became eligible (job key eligible=), and
// not at all while it is held or waits on a predecessor.
enum class QueueTimeAccrual : std::uint8_t { kAlways, kQueuePolicy, kFullPolicy };

struct MauiCredentialSettings {
  std::int64_t priority = 0;  // PRIORITY= (0: take DEFAULT's)
  double fs_target = 0;       // FSTARGET= (0: none, take DEFAULT's)
  FairShareTargetMode fs_mode = FairShareTargetMode::kTarget;
  // QOSCFG only: added to QUEUETIMEWEIGHT / XFACTORWEIGHT; service targets.
  std::int64_t qt_weight = 0;
  std::int64_t xf_weight = 0;
  Duration qt_target = 0;  // QTTARGET (0: none)
  double xf_target = 0;    // XFTARGET (0: none)
};

struct MauiCredentialTable {
  std::vector<MauiCredentialSettings> by_id;  // indexed by the kind's id
  MauiCredentialSettings fallback;            // [DEFAULT]
  // Decayed fair-share usage per credential (FSPOLICY's counter summed over the
  // windows with FSDECAY), and its sum over the kind's credentials.
  std::vector<double> fs_usage;
  double fs_total = 0;

  const MauiCredentialSettings* Find(std::uint32_t id) const {
    return id < by_id.size() ? &by_id[id] : nullptr;
  }
  double Usage(std::uint32_t id) const { return id < fs_usage.size() ? fs_usage[id] : 0.0; }
};

struct MauiConfig {
  std::array<std::int64_t, kMauiComponents> component_weight = {1, 1, 1, 1, 1, 1};
  std::array<std::int64_t, kMauiSubs> sub_weight = [] {
    std::array<std::int64_t, kMauiSubs> w{};
    w[static_cast<std::size_t>(MauiSub::kQueueTime)] = 1;
    return w;
  }();
  std::array<std::int64_t, kMauiComponents> component_cap{};  // FSCAP, RESCAP, ... (0: none)
  std::array<std::int64_t, kMauiSubs> sub_cap{};              // XFACTORCAP, QUEUETIMECAP, ... (0: none)
  Duration xf_min_wclimit = 0;                                // XFMINWCLIMIT
  FairSharePolicy fs_policy = FairSharePolicy::kNone;
  Duration fs_interval = 43200;  // FSINTERVAL, 12:00:00
  std::uint32_t fs_depth = 8;    // FSDEPTH
  double fs_decay = 1.0;         // FSDECAY
  QueueTimeAccrual accrual = QueueTimeAccrual::kQueuePolicy;
  bool enable_negative_priority = false;  // ENABLENEGJOBPRIORITY: else priorities below 1 become 1
  bool reject_negative_priority = false;  // REJECTNEGPRIOJOBS: jobs below 0 are not dispatched
  // Complex attributes behind RES's MEM, SWAP and DISK (schedk keys MEMRESOURCE,
  // SWAPRESOURCE, DISKRESOURCE; defaults mem_free, h_vmem and none).
  std::optional<ComplexId> mem_resource;
  std::optional<ComplexId> swap_resource;
  std::optional<ComplexId> disk_resource;
  std::array<MauiCredentialTable, kMauiCredentials> credentials;

  std::int64_t weight(MauiSub s) const { return sub_weight[static_cast<std::size_t>(s)]; }
  std::int64_t weight(MauiComponent c) const { return component_weight[static_cast<std::size_t>(c)]; }
  const MauiCredentialTable& table(MauiCredential c) const { return credentials[static_cast<std::size_t>(c)]; }
  MauiCredentialTable& table(MauiCredential c) { return credentials[static_cast<std::size_t>(c)]; }
};

// Maui's cap on a start priority (MAX_PRIO_VAL).
inline constexpr double kMauiMaxPriority = 1000000000.0;

}  // namespace schedk
