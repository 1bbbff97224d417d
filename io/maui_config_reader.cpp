#include "io/maui_config_reader.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>

#include "io/ge_value.hpp"
#include "io/untrusted_text.hpp"
#include "kernel/priority/maui_priority.hpp"

namespace schedk::io {
namespace {

// The names of the weights and caps: `<name>WEIGHT`, `<name>CAP`.
struct FactorName {
  const char* name;
  bool component;
  std::size_t index;
};
constexpr FactorName kFactorNames[] = {
    {"CRED", true, 0},           {"FS", true, 1},           {"SERV", true, 2},
    {"TARGET", true, 3},         {"TARG", true, 3},         {"RES", true, 4},
    {"USAGE", true, 5},          {"USER", false, 0},        {"GROUP", false, 1},
    {"ACCOUNT", false, 2},       {"QOS", false, 3},         {"CLASS", false, 4},
    {"FSUSER", false, 5},        {"FSGROUP", false, 6},     {"FSACCOUNT", false, 7},
    {"FSQOS", false, 8},         {"FSCLASS", false, 9},     {"QUEUETIME", false, 10},
    {"XFACTOR", false, 11},      {"BYPASS", false, 12},     {"TARGETQUEUETIME", false, 13},
    {"TARGETXFACTOR", false, 14}, {"NODE", false, 15},      {"PROC", false, 16},
    {"MEM", false, 17},          {"SWAP", false, 18},       {"DISK", false, 19},
    {"PS", false, 20},           {"PE", false, 21},         {"WALLTIME", false, 22},
    {"USAGECONSUMED", false, 23}, {"USAGEREMAINING", false, 24}, {"USAGEPERCENT", false, 25},
    {"USAGEEXECUTIONTIME", false, 26},
};

// maui.cfg parameters that configure something other than priority.
const std::set<std::string, std::less<>> kOtherMauiParameters = {
    "ADMIN1", "ADMIN2", "ADMIN3", "ADMINHOST", "BACKFILLDEPTH", "BACKFILLMETRIC", "BACKFILLPOLICY",
    "DEFERCOUNT", "DEFERSTARTCOUNT", "DEFERTIME", "JOBNODEMATCHPOLICY", "LOGDIR", "LOGFACILITY",
    "LOGFILE", "LOGFILEMAXSIZE", "LOGFILEROLLDEPTH", "LOGLEVEL", "MAXJOBPERUSERCOUNT", "NODEACCESSPOLICY",
    "NODEALLOCATIONPOLICY", "NODECFG", "NODEPOLLFREQUENCY", "RESERVATIONDEPTH", "RESERVATIONPOLICY",
    "RESERVATIONQOSLIST", "RMCFG", "RMPOLLINTERVAL", "SERVERHOST", "SERVERMODE", "SERVERPORT", "SRCFG",
    "SYSCFG", "USEMACHINESPEED"};

constexpr const char* kCredentialKeys[kMauiCredentials] = {"USERCFG", "GROUPCFG", "ACCOUNTCFG", "QOSCFG", "CLASSCFG"};

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::string Upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

class MauiReader {
 public:
  MauiReader(Snapshot& s, const ClusterBuilder& builder)
      : s_(s), builder_(builder), c_(s.cluster.maui), source_(s.source) {}

  Status Read(const ObjectBlock* block, const std::vector<UsageLine>& usage) {
    c_ = MauiConfig{};
    if (block != nullptr && !block->source.empty()) source_ = block->source;
    c_.mem_resource = builder_.FindComplex("mem_free");
    c_.swap_resource = builder_.FindComplex("h_vmem");
    if (block != nullptr) {
      for (const Attribute& a : block->attributes) {
        if (Status st = Line(a); !st.ok()) return st;
      }
    }
    ResolveCredentials();
    return Usage(usage);
  }

 private:
  Status Error(const Attribute& a, const std::string& what) const {
    return Status::InvalidInput(source_, a.line, "maui: " + a.key + ": " + what);
  }

  Status Line(const Attribute& a) {
    const std::string key = Upper(a.key);
    const std::string_view value = Trim(a.value);
    if (const std::size_t open = key.find('['); open != std::string::npos) return Credential(a, key, open);
    if (!seen_.insert(key).second) return Error(a, "given twice");
    for (bool weight : {true, false}) {
      const std::string_view suffix = weight ? "WEIGHT" : "CAP";
      if (!EndsWith(key, suffix)) continue;
      const std::string_view name = std::string_view(key).substr(0, key.size() - suffix.size());
      for (const FactorName& f : kFactorNames) {
        if (name != f.name) continue;
        auto v = ParseInteger(value);
        if (!v) return Error(a, "expected a whole number, not " + Quote(value));
        if (!weight && *v < 0) return Error(a, "a cap must not be negative, not " + Quote(value));
        auto& slot = f.component ? (weight ? c_.component_weight[f.index] : c_.component_cap[f.index])
                                 : (weight ? c_.sub_weight[f.index] : c_.sub_cap[f.index]);
        slot = *v;
        return Status::Ok();
      }
    }
    auto fail = [&](const std::string& what) { return Error(a, what + ", not " + Quote(value)); };
    if (key == "XFMINWCLIMIT" || key == "FSINTERVAL") {
      auto d = ParseDuration(value);
      if (!d || *d >= kInfiniteDuration) return fail("expected a time ([[HH:]MM:]SS or seconds)");
      if (key == "FSINTERVAL" && *d == 0) return fail("expected a positive time");
      (key == "XFMINWCLIMIT" ? c_.xf_min_wclimit : c_.fs_interval) = *d;
    } else if (key == "FSPOLICY") {
      const std::string v = Upper(value);
      if (v == "NONE") c_.fs_policy = FairSharePolicy::kNone;
      else if (v == "DEDICATEDPS") c_.fs_policy = FairSharePolicy::kDedicatedPs;
      else if (v == "DEDICATEDPES") c_.fs_policy = FairSharePolicy::kDedicatedPes;
      else if (v == "UTILIZEDPS") c_.fs_policy = FairSharePolicy::kUtilizedPs;
      else return fail("expected NONE, DEDICATEDPS, DEDICATEDPES or UTILIZEDPS");
    } else if (key == "FSDEPTH") {
      auto v = ParseInteger(value);
      if (!v || *v < 1 || *v > 32) return fail("expected a number of windows from 1 to 32");
      c_.fs_depth = static_cast<std::uint32_t>(*v);
    } else if (key == "FSDECAY") {
      auto v = ParseGeNumber(value);
      if (!v || !(*v > 0) || *v > 1) return fail("expected a decay factor in (0, 1]");
      c_.fs_decay = *v;
    } else if (key == "JOBPRIOACCRUALPOLICY") {
      const std::string v = Upper(value);
      if (v == "ALWAYS") c_.accrual = QueueTimeAccrual::kAlways;
      else if (v == "QUEUEPOLICY") c_.accrual = QueueTimeAccrual::kQueuePolicy;
      else if (v == "FULLPOLICY") c_.accrual = QueueTimeAccrual::kFullPolicy;
      else return fail("expected ALWAYS, QUEUEPOLICY or FULLPOLICY");
    } else if (key == "ENABLENEGJOBPRIORITY" || key == "REJECTNEGPRIOJOBS") {
      auto b = ParseBool(value);
      if (!b) return fail("expected TRUE or FALSE");
      (key == "ENABLENEGJOBPRIORITY" ? c_.enable_negative_priority : c_.reject_negative_priority) = *b;
    } else if (key == "MEMRESOURCE" || key == "SWAPRESOURCE" || key == "DISKRESOURCE") {
      std::optional<ComplexId>& target =
          key == "MEMRESOURCE" ? c_.mem_resource : (key == "SWAPRESOURCE" ? c_.swap_resource : c_.disk_resource);
      if (IsNone(value)) {
        target.reset();
      } else {
        target = builder_.FindComplex(value);
        if (!target) return fail("expected a complex attribute or NONE");
      }
    } else if (kOtherMauiParameters.count(key)) {
      s_.warnings.push_back({source_, a.line, "maui: " + a.key + " does not bear on priority; kept but not interpreted"});
    } else {
      return Error(a, "unknown Maui parameter");
    }
    return Status::Ok();
  }

  // USERCFG[x] PRIORITY=n FSTARGET=t[+|-] ...: settings kept by name until the
  // names are resolved.
  Status Credential(const Attribute& a, const std::string& key, std::size_t open) {
    if (key.back() != ']' || open + 2 > key.size() - 1) return Error(a, "expected <KIND>CFG[<name>]");
    const std::string kind = key.substr(0, open);
    const std::string name = a.key.substr(open + 1, key.size() - open - 2);
    std::size_t k = 0;
    while (k < kMauiCredentials && kind != kCredentialKeys[k]) ++k;
    if (k == kMauiCredentials) {
      if (kOtherMauiParameters.count(kind)) {
        s_.warnings.push_back({source_, a.line, "maui: " + kind + " does not bear on priority; kept but not interpreted"});
        return Status::Ok();
      }
      return Error(a, "unknown credential kind (expected USERCFG, GROUPCFG, ACCOUNTCFG, QOSCFG or CLASSCFG)");
    }
    Named& entry = named_[k][name];
    if (entry.line == 0) entry.line = a.line;
    for (std::string_view item : SplitWords(a.value)) {
      const std::size_t eq = item.find('=');
      if (eq == std::string_view::npos) return Error(a, "expected ATTRIBUTE=value, not " + Quote(item));
      const std::string attr = Upper(item.substr(0, eq));
      const std::string_view v = item.substr(eq + 1);
      if (!entry.attributes.insert(attr).second) return Error(a, attr + " given twice for " + name);
      auto fail = [&](const std::string& what) { return Error(a, attr + ": " + what + ", not " + Quote(v)); };
      MauiCredentialSettings& set = entry.settings;
      const bool qos_only = attr == "QTWEIGHT" || attr == "XFWEIGHT" || attr == "QTTARGET" || attr == "XFTARGET";
      if (qos_only && k != static_cast<std::size_t>(MauiCredential::kQos)) {
        return Error(a, attr + " is a QOSCFG attribute (Maui keeps service weights and targets per QOS)");
      }
      if (attr == "PRIORITY" || attr == "QTWEIGHT" || attr == "XFWEIGHT") {
        auto n = ParseInteger(v);
        if (!n) return fail("expected a whole number");
        (attr == "PRIORITY" ? set.priority : (attr == "QTWEIGHT" ? set.qt_weight : set.xf_weight)) = *n;
      } else if (attr == "FSTARGET") {
        std::string_view number = v;
        set.fs_mode = FairShareTargetMode::kTarget;
        if (!number.empty() && (number.back() == '+' || number.back() == '-')) {
          set.fs_mode = number.back() == '+' ? FairShareTargetMode::kFloor : FairShareTargetMode::kCeiling;
          number.remove_suffix(1);
        }
        auto t = ParseGeNumber(number);
        if (!t || !(*t >= 0) || *t > 100) return fail("expected a percentage from 0 to 100, with + (floor) or - (ceiling)");
        set.fs_target = *t;
      } else if (attr == "QTTARGET") {
        auto d = ParseDuration(v);
        if (!d || *d >= kInfiniteDuration) return fail("expected a time");
        set.qt_target = *d;
      } else if (attr == "XFTARGET") {
        auto x = ParseGeNumber(v);
        if (!x || !(*x >= 0) || !std::isfinite(*x)) return fail("expected a non-negative number");
        set.xf_target = *x;
      } else {
        return Error(a, "unknown credential attribute " + Quote(attr) +
                            " (expected PRIORITY, FSTARGET, QTWEIGHT, XFWEIGHT, QTTARGET or XFTARGET)");
      }
    }
    return Status::Ok();
  }

  // The id of a credential name, or nullopt when nothing in the snapshot has it.
  std::optional<std::uint32_t> Find(MauiCredential kind, std::string_view name) {
    switch (kind) {
      case MauiCredential::kUser: return s_.names.users.Find(name);
      case MauiCredential::kGroup: return s_.names.groups.Find(name);
      case MauiCredential::kAccount: return s_.names.projects.Find(name);
      case MauiCredential::kQos: {
        if (auto id = s_.names.qos.Find(name)) return id;
        if (s_.names.qos.size() > kMaxQos) return std::nullopt;  // no job can name it: it orders nothing
        return s_.names.qos.Intern(name);
      }
      case MauiCredential::kClass: return s_.names.queues.Find(name);
    }
    return std::nullopt;
  }

  std::size_t TableSize(MauiCredential kind) const {
    switch (kind) {
      case MauiCredential::kUser: return s_.names.users.size();
      case MauiCredential::kGroup: return s_.names.groups.size();
      case MauiCredential::kAccount: return s_.names.projects.size();
      case MauiCredential::kQos: return s_.names.qos.size();
      case MauiCredential::kClass: return s_.names.queues.size();
    }
    return 0;
  }

  // Credentials by id. A user or group no job or record names yet orders no job;
  // its settings stay with the block (a session resolves them again each pass).
  void ResolveCredentials() {
    for (std::size_t k = 0; k < kMauiCredentials; ++k) {
      const auto kind = static_cast<MauiCredential>(k);
      MauiCredentialTable& table = c_.credentials[k];
      for (const auto& [name, entry] : named_[k]) {
        if (name == "DEFAULT") {
          table.fallback = entry.settings;
          continue;
        }
        if (auto id = Find(kind, name)) pending_.push_back({kind, *id, &entry});
      }
    }
    for (std::size_t k = 0; k < kMauiCredentials; ++k) {
      c_.credentials[k].by_id.assign(TableSize(static_cast<MauiCredential>(k)), MauiCredentialSettings{});
    }
    for (const Resolved& r : pending_) c_.table(r.kind).by_id[r.id] = r.entry->settings;
  }

  Status Usage(const std::vector<UsageLine>& usage) {
    // ACCOUNTCFG and CLASSCFG must name objects of the cluster.
    for (std::size_t k : {static_cast<std::size_t>(MauiCredential::kAccount), static_cast<std::size_t>(MauiCredential::kClass)}) {
      for (const auto& [name, entry] : named_[k]) {
        if (name == "DEFAULT" || Find(static_cast<MauiCredential>(k), name)) continue;
        const bool account = k == static_cast<std::size_t>(MauiCredential::kAccount);
        return Status::InvalidInput(source_, entry.line,
                                    std::string("maui: ") + kCredentialKeys[k] + "[" + name + "]: unknown " +
                                        (account ? "project (accounts are projects)" : "queue (classes are cluster queues)"));
      }
    }
    if (c_.fs_policy == FairSharePolicy::kNone) return Status::Ok();
    const std::string counter = c_.fs_policy == FairSharePolicy::kDedicatedPs    ? "dps"
                                : c_.fs_policy == FairSharePolicy::kDedicatedPes ? "dpes"
                                                                                 : "cpu";
    for (std::size_t k = 0; k < kMauiCredentials; ++k) c_.credentials[k].fs_usage.assign(c_.credentials[k].by_id.size(), 0.0);
    const Time now = s_.cluster.now;
    for (const UsageLine& u : usage) {
      if (!u.project.empty()) continue;  // a user's usage inside one project: the share tree's alone
      MauiCredential kind = MauiCredential::kUser;
      switch (u.kind) {
        case UsageKind::kUser: kind = MauiCredential::kUser; break;
        case UsageKind::kProject: kind = MauiCredential::kAccount; break;
        case UsageKind::kGroup: kind = MauiCredential::kGroup; break;
        case UsageKind::kQos: kind = MauiCredential::kQos; break;
        case UsageKind::kClass: kind = MauiCredential::kClass; break;
      }
      // Windows older by whole intervals since the record's stamp.
      const std::int64_t shift = u.at != 0 && u.at < now ? (now - u.at) / c_.fs_interval : 0;
      std::vector<double> windows;
      for (std::string_view item : SplitList(u.values)) {
        const std::size_t eq = item.find('=');
        if (eq == std::string_view::npos) continue;  // FinishUsers has checked the syntax
        std::string_view name = item.substr(0, eq);
        if (name.substr(0, counter.size()) != counter) continue;
        name.remove_prefix(counter.size());
        std::int64_t window = 0;
        if (!name.empty()) {
          auto w = name.front() == '.' ? ParseInteger(name.substr(1)) : std::nullopt;
          if (!w || *w < 0) continue;  // another counter (cpu_time, ...)
          window = *w;
        }
        auto v = ParseGeNumber(item.substr(eq + 1));
        if (!v || *v < 0) return Status::InvalidInput(s_.source, u.line, "usage: " + Quote(item) + " is not a usage amount");
        const std::int64_t at = window + shift;
        if (at >= static_cast<std::int64_t>(c_.fs_depth)) continue;
        if (windows.size() <= static_cast<std::size_t>(at)) windows.resize(static_cast<std::size_t>(at) + 1, 0.0);
        windows[static_cast<std::size_t>(at)] += *v;
      }
      const double decayed = FairShareUsage(windows, c_.fs_decay, c_.fs_depth);
      MauiCredentialTable& table = c_.table(kind);
      table.fs_total += decayed;
      if (kind == MauiCredential::kClass && !s_.names.queues.Find(u.name)) {
        return Status::InvalidInput(s_.source, u.line, "usage: class " + u.name + ": unknown queue (classes are cluster queues)");
      }
      if (auto id = Find(kind, u.name)) {
        if (*id >= table.fs_usage.size()) table.fs_usage.resize(*id + 1, 0.0);
        table.fs_usage[*id] += decayed;
      }
    }
    return Status::Ok();
  }

  struct Named {
    int line = 0;
    MauiCredentialSettings settings;
    std::set<std::string> attributes;
  };
  struct Resolved {
    MauiCredential kind;
    std::uint32_t id;
    const Named* entry;
  };

  Snapshot& s_;
  const ClusterBuilder& builder_;
  MauiConfig& c_;
  std::string source_;  // the maui block's file
  std::set<std::string> seen_;
  std::map<std::string, Named> named_[kMauiCredentials];
  std::vector<Resolved> pending_;
};

}  // namespace

Status BuildMauiConfig(Snapshot& snapshot, const ClusterBuilder& builder, const std::vector<UsageLine>& usage) {
  const ObjectBlock* block = nullptr;
  for (const ObjectBlock& b : snapshot.blocks) {
    if (b.kind == "maui") block = &b;
  }
  return MauiReader(snapshot, builder).Read(block, usage);
}

}  // namespace schedk::io
