#include "io/snapshot_generator.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "io/ge_value.hpp"
#include "io/tuning.hpp"
#include "kernel/util/split_mix.hpp"

namespace schedk::io {
namespace {

std::string Host(std::uint32_t h) { return "node" + std::to_string(h + 1); }
std::string Rack(std::uint32_t r) { return "@rack" + std::to_string(r + 1); }

constexpr std::uint32_t kHostsPerRack = 32;
constexpr std::uint32_t kMemoryPerHostGiB = 256;
constexpr std::int64_t kWeek = 7 * 86400;
const char* const kPes[] = {"mpi", "mpi_rr", "smp"};

// The running tasks a spec asks for: running_tasks, else running_fraction of every host's slots.
std::uint64_t RunningTasks(const GeneratorSpec& spec) {
  if (spec.running_tasks) return *spec.running_tasks;
  return std::uint64_t{spec.hosts} * static_cast<std::uint32_t>(spec.slots_per_host * spec.running_fraction);
}

const char* const kTargetModes[] = {"", "+", "-"};  // a Maui FSTARGET: target, floor, ceiling

// PolicyMix::kMaui's maui.cfg weights: every component weighted.
const char* const kMauiWeights =
    "USERWEIGHT 1\nACCOUNTWEIGHT 1\nQOSWEIGHT 1\nFSUSERWEIGHT 100\nFSACCOUNTWEIGHT 50\nQUEUETIMEWEIGHT 1\n"
    "XFACTORWEIGHT 100\nBYPASSWEIGHT 10\nTARGETQUEUETIMEWEIGHT 1000\nPROCWEIGHT 10\nPEWEIGHT 5\n"
    "WALLTIMEWEIGHT 1\nUSAGECONSUMEDWEIGHT 1\nUSAGEPERCENTWEIGHT 10\nFSCAP 5000\nXFACTORCAP 20\n"
    "FSPOLICY UTILIZEDPS\nENABLENEGJOBPRIORITY TRUE\nUSERCFG[DEFAULT] FSTARGET=1\n"
    "QOSCFG[qos1] PRIORITY=1000\nQOSCFG[qos2] QTWEIGHT=5\nQOSCFG[qos3] QTTARGET=168:00:00\n";

// GenerateSnapshot's text, section by section in snapshot order; every draw
// from the one random stream happens in the order the sections are written,
// so the same spec always gives the same bytes.
class SnapshotGenerator {
 public:
  SnapshotGenerator(const GeneratorSpec& spec, const std::function<bool(std::string_view)>& sink)
      : spec_(spec),
        sink_(sink),
        rng_(spec.seed),
        soft_rng_(~spec.seed),
        hosts_(std::max<std::uint32_t>(1, spec.hosts)),
        slots_(std::max<std::uint32_t>(1, spec.slots_per_host)),
        users_(std::max<std::uint32_t>(1, spec.users)),
        projects_(std::max<std::uint32_t>(1, spec.projects)),
        departments_(std::max<std::uint32_t>(1, spec.departments)),
        racks_((hosts_ + kHostsPerRack - 1) / kHostsPerRack),
        every_(spec.policies != PolicyMix::kTickets),
        maui_(spec.policies == PolicyMix::kMaui) {}

  bool Generate() {
    WriteHeader();
    WriteHostgroups();
    if (!WriteExecHosts()) return false;
    WriteLoads();
    WritePesAndQueues();
    if (!WriteDepartments()) return false;
    if (!WriteProjectsAndUsers()) return false;
    WriteShareTree();
    WriteQuotaSets();
    if (maui_) WriteMaui();
    if (!WriteRunningJobs()) return false;
    if (!WritePendingJobs()) return false;
    return Flush(true);
  }

 private:
  // Hands the text so far to the sink once it is large enough, or always when `force`.
  bool Flush(bool force) {
    if (!force && out_.size() < tuning::kGeneratorFlushBytes) return true;
    const bool ok = sink_(out_);
    out_.clear();
    return ok;
  }

  // The header, the complexes, the scheduler configuration and the global host.
  void WriteHeader() {
    const std::uint64_t licenses = std::max<std::uint64_t>(8, std::uint64_t{hosts_} * slots_ / 16);
    out_ += "schedk-snapshot 1\n# schedk generate --seed " + std::to_string(spec_.seed) + " --jobs " +
            std::to_string(spec_.jobs) + " --hosts " + std::to_string(hosts_) + "\nnow " + std::to_string(spec_.now) +
            "\n\nbegin complex\n"
            "slots      s     INT     <=  YES  YES  1     1000\n"
            "h_rt       h_rt  TIME    <=  YES  NO   0:0:0 0\n"
            "s_rt       s_rt  TIME    <=  YES  NO   0:0:0 0\n"
            "mem        m     MEMORY  <=  YES  YES  0     0\n"
            "license    lic   INT     <=  YES  YES  0     100\n"
            "np_load_avg nla  DOUBLE  >=  NO   NO   0     0\n"
            "num_proc   p     INT     ==  YES  NO   0     0\n"
            "arch       a     RESTRING == YES  NO   NONE  0\n" +
            std::string(spec_.exclusive_fraction > 0 ? "exclusive  excl  BOOL    EXCL YES YES 0     1000\n" : "") +
            std::string(spec_.scratch_fraction > 0 ? "scratch    sc    INT     <=  YES  JOB  0     0\n" : "") +
            "end complex\n\n"
            "begin sconf\nmax_reservation " +
            std::to_string(spec_.max_reservation) +
            "\ndefault_duration 8:0:0\nweight_tickets_functional 100000\nweight_tickets_share 100000\n"
            "weight_waiting_time 0.01\nparams MONITOR=1" +
            std::string(spec_.reserve_in_gaps ? ",RESERVE_IN_GAPS=1" : "") +
            std::string(maui_ ? ",PRIORITY_POLICY=maui" : "") +
            "\nend sconf\n\n"
            "begin global\ncomplex_values license=" +
            std::to_string(licenses) +
            (spec_.scratch_fraction > 0 ? ",scratch=" + std::to_string(std::max<std::uint32_t>(2, hosts_ / 2)) : "") +
            "\nend global\n\n";
  }

  // One hostgroup per rack of kHostsPerRack hosts, and @allhosts over the racks.
  void WriteHostgroups() {
    for (std::uint32_t r = 0; r < racks_; ++r) {
      out_ += "begin hostgroup " + Rack(r) + "\nhostlist";
      for (std::uint32_t h = r * kHostsPerRack; h < std::min(hosts_, (r + 1) * kHostsPerRack); ++h)
        out_ += " " + Host(h);
      out_ += "\nend hostgroup\n";
    }
    out_ += "begin hostgroup @allhosts\nhostlist";
    for (std::uint32_t r = 0; r < racks_; ++r) out_ += " " + Rack(r);
    out_ += "\nend hostgroup\n\n";
  }

  bool WriteExecHosts() {
    for (std::uint32_t h = 0; h < hosts_; ++h) {
      out_ += "begin exechost " + Host(h) + "\ncomplex_values slots=" + std::to_string(slots_) +
              ",mem=" + std::to_string(kMemoryPerHostGiB) + "G" +
              (spec_.exclusive_fraction > 0 && h % 2 == 0 ? ",exclusive=true" : "") +
              "\nload_values arch=lx-amd64\nend exechost\n";
      if (!Flush(false)) return false;
    }
    return true;
  }

  void WriteLoads() {
    for (std::uint32_t h = 0; h < hosts_; ++h) {
      out_ += "load " + Host(h) + " np_load_avg=" + std::to_string(rng_.Below(100) / 100.0).substr(0, 4) +
              ",num_proc=" + std::to_string(slots_) + "\n";
    }
  }

  // The three parallel environments over every slot, all.q on every host and short.q on the first rack.
  void WritePesAndQueues() {
    const std::uint64_t pe_slots = std::uint64_t{hosts_} * slots_;
    out_ += "\nbegin pe mpi\nslots " + std::to_string(pe_slots) +
            "\nallocation_rule $fill_up\nend pe\n"
            "begin pe mpi_rr\nslots " +
            std::to_string(pe_slots) +
            "\nallocation_rule $round_robin\nend pe\n"
            "begin pe smp\nslots " +
            std::to_string(pe_slots) +
            "\nallocation_rule $pe_slots\nend pe\n\n"
            "begin queue all.q\nhostlist @allhosts\nslots " +
            std::to_string(slots_) +
            "\npe_list mpi mpi_rr smp\nseq_no 0\nend queue\n"
            "begin queue short.q\nhostlist " +
            Rack(0) + "\nslots " + std::to_string(std::max<std::uint32_t>(1, slots_ / 4)) +
            "\nh_rt 1:0:0\nseq_no 10\nend queue\n\n";
  }

  // Set k (from 1) of spec.quota_sets, three rules, the first that matches
  // applying: each project's slots on short.q, each user's slots on rack
  // k, each user's slots elsewhere, looser with every set. The limits draw
  // nothing from the random stream.
  void WriteQuotaSets() {
    const std::uint64_t on_rack = std::min(hosts_, kHostsPerRack);
    const std::uint64_t total = std::uint64_t{hosts_} * slots_, rack = on_rack * slots_;
    const std::uint64_t short_slots = on_rack * std::max<std::uint32_t>(1, slots_ / 4);
    for (std::uint32_t k = 1; k <= spec_.quota_sets; ++k) {
      const std::uint64_t per_project = std::max<std::uint64_t>(1, short_slots * (k + 1) / (2 * projects_));
      const std::uint64_t per_user_rack = std::max<std::uint64_t>(1, rack * (k + 1) / (2 * users_));
      const std::uint64_t per_user = std::max<std::uint64_t>(2, total * (k + 1) / users_);
      const std::string name = "quota" + std::to_string(k);
      out_ += "begin rqs " + name + "\nname " + name + "\ndescription NONE\nenabled TRUE\n" +
              "limit name short projects {*} queues short.q to slots=" + std::to_string(per_project) + "\n" +
              "limit name rack users {*} hosts " + Rack((k - 1) % racks_) +
              " to slots=" + std::to_string(per_user_rack) + "\n" +
              "limit name user users {*} to slots=" + std::to_string(per_user) + "\nend rqs\n";
    }
    if (spec_.quota_sets > 0) out_ += "\n";
  }

  // Users are dealt to the departments in turn.
  bool WriteDepartments() {
    for (std::uint32_t d = 0; d < departments_; ++d) {
      out_ += "begin department dept" + std::to_string(d + 1) + "\ntype DEPT\nfshare " + std::to_string(100 * (d + 1)) +
              (every_ && d == 0 ? "\noticket 5000" : "") + "\nentries";
      for (std::uint32_t u = d; u < users_; u += departments_) {
        out_ += (u == d ? " " : ",") + ("user" + std::to_string(u + 1));
      }
      out_ += "\nend department\n";
      if (!Flush(false)) return false;
    }
    return true;
  }

  // Projects and users with their shares; under kEvery some with override
  // tickets, and the usage records after them.
  bool WriteProjectsAndUsers() {
    for (std::uint32_t p = 0; p < projects_; ++p) {
      out_ += "begin project proj" + std::to_string(p + 1) + "\nfshare " + std::to_string(10 + rng_.Below(90)) +
              (every_ && rng_.Chance(0.05) ? "\noticket 2000" : "") + "\nend project\n";
    }
    for (std::uint32_t u = 0; u < users_; ++u) {
      out_ += "begin user user" + std::to_string(u + 1) + "\nfshare " + std::to_string(1 + rng_.Below(100)) +
              (every_ && rng_.Chance(0.01) ? "\noticket 1000" : "") + "\nend user\n";
      if (!Flush(false)) return false;
    }
    return !every_ || WriteUsage();
  }

  // cpu usage of every project and user, decayed from up to a day ago, and of each user in its project.
  bool WriteUsage() {
    for (std::uint32_t p = 0; p < projects_; ++p) {
      out_ += "usage project proj" + std::to_string(p + 1) + " cpu=" + std::to_string(rng_.Below(10000000)) +
              " at=" + std::to_string(spec_.now - static_cast<std::int64_t>(rng_.Below(86400))) + "\n";
    }
    for (std::uint32_t u = 0; u < users_; ++u) {
      const std::string user = "usage user user" + std::to_string(u + 1) + " cpu=";
      out_ += user + std::to_string(rng_.Below(1000000)) +
              " at=" + std::to_string(spec_.now - static_cast<std::int64_t>(rng_.Below(86400))) + "\n";
      out_ += user + std::to_string(rng_.Below(100000)) + " project=proj" + std::to_string(u % projects_ + 1) +
              " at=" + std::to_string(spec_.now - 3600) + "\n";
      if (!Flush(false)) return false;
    }
    return true;
  }

  // Projects below the root; under kEvery, below each project up to three
  // named users (consecutive, from a drawn one) and a default leaf.
  void WriteShareTree() {
    const std::uint32_t named = every_ ? std::min<std::uint32_t>(3, users_) : 0;
    const std::uint32_t children = every_ ? named + 1 : 0;
    out_ += "\nbegin sharetree\nid=0\nname=Root\ntype=0\nshares=1\nchildnodes=";
    for (std::uint32_t p = 0; p < projects_; ++p) out_ += (p ? "," : "") + std::to_string(p + 1);
    out_ += "\n";
    const auto child_id = [&](std::uint32_t p, std::uint32_t k) { return projects_ + 1 + p * children + k; };
    for (std::uint32_t p = 0; p < projects_; ++p) {
      out_ += "id=" + std::to_string(p + 1) + "\nname=proj" + std::to_string(p + 1) +
              "\ntype=1\nshares=" + std::to_string(10 + rng_.Below(90)) + "\nchildnodes=";
      for (std::uint32_t k = 0; k < children; ++k) out_ += (k ? "," : "") + std::to_string(child_id(p, k));
      out_ += children ? "\n" : "NONE\n";
    }
    for (std::uint32_t p = 0; p < projects_ && every_; ++p) {
      const std::uint64_t first = rng_.Below(users_);
      for (std::uint32_t k = 0; k < named; ++k) {
        out_ += "id=" + std::to_string(child_id(p, k)) + "\nname=user" + std::to_string((first + k) % users_ + 1) +
                "\ntype=0\nshares=" + std::to_string(1 + rng_.Below(20)) + "\nchildnodes=NONE\n";
      }
      out_ += "id=" + std::to_string(child_id(p, named)) + "\nname=default\ntype=0\nshares=5\nchildnodes=NONE\n";
    }
    out_ += "end sharetree\n\n";
  }

  // kMaui's maui.cfg: the weights, then every 7th user with a priority, every
  // 11th with a fair-share target (a target, a floor or a ceiling in turn),
  // every 3rd project with a priority and every project with a target.
  void WriteMaui() {
    out_ += std::string("begin maui\n") + kMauiWeights;
    for (std::uint32_t u = 0; u < users_; ++u) {
      if (u % 7 != 0 && u % 11 != 0) continue;
      out_ += "USERCFG[user" + std::to_string(u + 1) + "]";
      if (u % 7 == 0) out_ += " PRIORITY=" + std::to_string(static_cast<int>(u % 40) * 50 - 500);
      if (u % 11 == 0) out_ += std::string(" FSTARGET=5") + kTargetModes[u / 11 % 3];
      out_ += "\n";
    }
    for (std::uint32_t p = 0; p < projects_; ++p) {
      out_ += "ACCOUNTCFG[proj" + std::to_string(p + 1) + "]" +
              (p % 3 == 0 ? " PRIORITY=" + std::to_string(p % 10 * 100) : "") + " FSTARGET=10\n";
    }
    out_ += "end maui\n\n";
  }

  // A job's owner, drawn, and the owner's project; under kMaui the QOS of job number job_.
  std::string Owner() {
    const std::uint64_t u = rng_.Below(users_);
    return " owner=user" + std::to_string(u + 1) + " project=proj" + std::to_string(u % projects_ + 1) +
           (maui_ && job_ % 4 != 0 ? " qos=qos" + std::to_string(job_ % 4) : "");
  }

  // Running tasks on part of the slots, one job per task, started in the last 8 hours.
  bool WriteRunningJobs() {
    const std::uint64_t total = RunningTasks(spec_);
    for (std::uint32_t h = 0; h < hosts_; ++h) {
      const auto busy = static_cast<std::uint32_t>((h + 1) * total / hosts_ - h * total / hosts_);
      std::uint64_t memory = 0;
      for (std::uint32_t k = 0; k < busy; ++k, ++job_) {
        const std::int64_t start = spec_.now - static_cast<std::int64_t>(rng_.Below(8 * 3600));
        const std::uint64_t mem = rng_.Chance(spec_.memory_fraction) ? 1 + rng_.Below(4) : 0;
        const bool can_mem = memory + mem <= kMemoryPerHostGiB / 2;
        out_ += "job " + std::to_string(job_) + Owner() + " submit=" + std::to_string(start - 60) +
                " state=r start=" + std::to_string(start) + " granted=all.q@" + Host(h) +
                ":1 l_hard=h_rt=" + std::to_string(1 + rng_.Below(12)) + ":0:0" +
                (can_mem && mem ? ",mem=" + std::to_string(mem) + "G" : "") + "\n";
        if (can_mem) memory += mem;
        if (!Flush(false)) return false;
      }
    }
    return true;
  }

  // Pending jobs, submitted over the last day in job-number order (or over the
  // last week at random); with spec_.categories, their requests drawn from that
  // many request combinations, drawn first.
  bool WritePendingJobs() {
    std::vector<std::string> categories(spec_.categories);
    for (std::string& category : categories) category = Requests();
    for (std::uint64_t j = 0; j < spec_.jobs; ++j, ++job_) {
      const std::int64_t submit =
          spec_.random_submit
              ? spec_.now - static_cast<std::int64_t>(rng_.Below(kWeek))
              : spec_.now - 86400 + static_cast<std::int64_t>(86400 * j / std::max<std::uint64_t>(1, spec_.jobs));
      out_ += "job " + std::to_string(job_);
      if (rng_.Chance(spec_.array_fraction)) out_ += ".1-" + std::to_string(2 + rng_.Below(20));
      out_ += Owner() + " submit=" + std::to_string(submit);
      if (rng_.Chance(spec_.reserve_fraction)) out_ += " R=y";
      if (rng_.Chance(0.02)) out_ += " p=" + std::to_string(static_cast<std::int64_t>(rng_.Below(200)) - 100);
      if (every_) out_ += TicketKeys();
      out_ += categories.empty() ? Requests() : categories[rng_.Below(categories.size())];
      out_ += "\n";
      if (!Flush(false)) return false;
    }
    return true;
  }

  // A pending job's requests: a PE and its slot range by the parallel share, and l_hard.
  std::string Requests() {
    const std::string requests = PendingRequests();
    std::string pe;
    if (rng_.Chance(spec_.parallel_fraction)) {
      const char* name = kPes[rng_.Below(3)];
      const std::uint64_t low = 2 + rng_.Below(std::max<std::uint32_t>(2, slots_) - 1);
      const std::uint64_t high = low + rng_.Below(2 * slots_);
      pe = std::string(" pe_name=") + name + " pe_min=" + std::to_string(low) + " pe_max=" + std::to_string(high);
    }
    return pe + " l_hard=" + requests + SoftRequests();
  }

  // A pending job's soft requests by their share, from a stream of their own:
  // the jobs are those of the same seed without them.
  std::string SoftRequests() {
    if (spec_.soft_fraction <= 0 || !soft_rng_.Chance(spec_.soft_fraction)) return "";
    return soft_rng_.Chance(0.5) ? " q_soft=short.q l_soft=arch=lx-arm64" : " q_soft=short.q";
  }

  // kEvery's keys of a pending job: held, a job share, override tickets, a deadline, each by its share.
  std::string TicketKeys() {
    std::string keys = rng_.Chance(0.01) ? " state=hqw" : "";
    if (rng_.Chance(0.02)) keys += " js=" + std::to_string(rng_.Below(100));
    if (rng_.Chance(0.005)) keys += " oticket=500";
    if (rng_.Chance(0.01))
      keys += " dl=" + std::to_string(spec_.now - 5000 + static_cast<std::int64_t>(rng_.Below(20000)));
    return keys;
  }

  // A pending job's l_hard: h_rt, and licenses, memory, an exclusive host or scratch by their shares.
  std::string PendingRequests() {
    std::string requests = "h_rt=" + std::to_string(1 + rng_.Below(24)) + ":0:0";
    if (rng_.Chance(spec_.license_fraction)) requests += ",license=" + std::to_string(1 + rng_.Below(4));
    if (rng_.Chance(spec_.memory_fraction)) requests += ",mem=" + std::to_string(1 + rng_.Below(8)) + "G";
    if (spec_.exclusive_fraction > 0 && rng_.Chance(spec_.exclusive_fraction)) requests += ",exclusive=true";
    if (spec_.scratch_fraction > 0 && rng_.Chance(spec_.scratch_fraction)) requests += ",scratch=1";
    return requests;
  }

  const GeneratorSpec& spec_;
  const std::function<bool(std::string_view)>& sink_;
  SplitMix64 rng_;
  SplitMix64 soft_rng_;  // the soft requests' draws
  const std::uint32_t hosts_, slots_, users_, projects_, departments_, racks_;
  const bool every_;  // PolicyMix kEvery or kMaui
  const bool maui_;   // PolicyMix kMaui
  std::string out_;
  std::uint64_t job_ = 1;  // the next job number
};

}  // namespace

Reason CheckGeneratorSpec(const GeneratorSpec& spec) {
  using tuning::kMaxGeneratorCount, tuning::kMaxGeneratorJobs;
  const std::pair<const char*, std::uint64_t> counts[] = {{"hosts", spec.hosts},
                                                          {"slots per host", spec.slots_per_host},
                                                          {"users", spec.users},
                                                          {"projects", spec.projects},
                                                          {"departments", spec.departments}};
  for (const auto& [what, n] : counts) {
    if (n < 1 || n > kMaxGeneratorCount)
      return std::string(what) + " must be from 1 to " + std::to_string(kMaxGeneratorCount);
  }
  if (spec.jobs > kMaxGeneratorJobs) return "jobs must be from 0 to " + std::to_string(kMaxGeneratorJobs);
  if (spec.categories > kMaxGeneratorCount) return "categories must be from 0 to " + std::to_string(kMaxGeneratorCount);
  if (spec.quota_sets > tuning::kMaxGeneratorQuotaSets) {
    return "quota sets must be from 0 to " + std::to_string(tuning::kMaxGeneratorQuotaSets);
  }
  const std::pair<const char*, double> fractions[] = {
      {"parallel", spec.parallel_fraction},   {"array", spec.array_fraction},     {"reserve", spec.reserve_fraction},
      {"license", spec.license_fraction},     {"memory", spec.memory_fraction},   {"running", spec.running_fraction},
      {"exclusive", spec.exclusive_fraction}, {"scratch", spec.scratch_fraction}, {"soft", spec.soft_fraction}};
  for (const auto& [what, f] : fractions) {
    if (!(f >= 0 && f <= 1)) return std::string(what) + " fraction must be from 0 to 1";
  }
  if (spec.running_tasks && *spec.running_tasks > std::uint64_t{spec.hosts} * spec.slots_per_host)
    return std::string("running tasks must be at most the slots, hosts times slots per host");
  const double running = static_cast<double>(RunningTasks(spec));
  if (running + static_cast<double>(spec.jobs) > static_cast<double>(kMaxGeneratorJobs)) {
    return "running tasks and pending jobs together must be at most " + std::to_string(kMaxGeneratorJobs);
  }
  if (!InTimeRange(spec.now) || spec.now < kWeek) return std::string("now must be a time from 1970-01-08 to 2106");
  return std::nullopt;
}

bool GenerateSnapshot(const GeneratorSpec& spec, const std::function<bool(std::string_view)>& sink) {
  return SnapshotGenerator(spec, sink).Generate();
}

}  // namespace schedk::io
