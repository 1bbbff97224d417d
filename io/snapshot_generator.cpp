#include "io/snapshot_generator.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "io/ge_value.hpp"
#include "io/tuning.hpp"
#include "kernel/util/split_mix.hpp"

namespace schedk::io {
namespace {

std::string Host(std::uint32_t h) { return "node" + std::to_string(h + 1); }
std::string Rack(std::uint32_t r) { return "@rack" + std::to_string(r + 1); }

constexpr std::uint32_t kHostsPerRack = 32;
constexpr std::uint32_t kMemoryPerHostGiB = 256;
const char* const kPes[] = {"mpi", "mpi_rr", "smp"};

// GenerateSnapshot's text, section by section in snapshot order; every draw
// from the one random stream happens in the order the sections are written,
// so the same spec always gives the same bytes.
class SnapshotGenerator {
 public:
  SnapshotGenerator(const GeneratorSpec& spec, const std::function<bool(std::string_view)>& sink)
      : spec_(spec),
        sink_(sink),
        rng_(spec.seed),
        hosts_(std::max<std::uint32_t>(1, spec.hosts)),
        slots_(std::max<std::uint32_t>(1, spec.slots_per_host)),
        users_(std::max<std::uint32_t>(1, spec.users)),
        projects_(std::max<std::uint32_t>(1, spec.projects)),
        departments_(std::max<std::uint32_t>(1, spec.departments)),
        racks_((hosts_ + kHostsPerRack - 1) / kHostsPerRack) {}

  bool Generate() {
    WriteHeader();
    WriteHostgroups();
    if (!WriteExecHosts()) return false;
    WriteLoads();
    WritePesAndQueues();
    if (!WriteDepartments()) return false;
    if (!WriteProjectsAndUsers()) return false;
    WriteShareTree();
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

  // Users are dealt to the departments in turn.
  bool WriteDepartments() {
    for (std::uint32_t d = 0; d < departments_; ++d) {
      out_ += "begin department dept" + std::to_string(d + 1) + "\ntype DEPT\nfshare " + std::to_string(100 * (d + 1)) +
              "\nentries";
      for (std::uint32_t u = d; u < users_; u += departments_) {
        out_ += (u == d ? " " : ",") + ("user" + std::to_string(u + 1));
      }
      out_ += "\nend department\n";
      if (!Flush(false)) return false;
    }
    return true;
  }

  bool WriteProjectsAndUsers() {
    for (std::uint32_t p = 0; p < projects_; ++p) {
      out_ += "begin project proj" + std::to_string(p + 1) + "\nfshare " + std::to_string(10 + rng_.Below(90)) +
              "\nend project\n";
    }
    for (std::uint32_t u = 0; u < users_; ++u) {
      out_ += "begin user user" + std::to_string(u + 1) + "\nfshare " + std::to_string(1 + rng_.Below(100)) +
              "\nend user\n";
      if (!Flush(false)) return false;
    }
    return true;
  }

  // One level of projects below the root.
  void WriteShareTree() {
    out_ += "\nbegin sharetree\nid=0\nname=Root\ntype=0\nshares=1\nchildnodes=";
    for (std::uint32_t p = 0; p < projects_; ++p) out_ += (p ? "," : "") + std::to_string(p + 1);
    out_ += "\n";
    for (std::uint32_t p = 0; p < projects_; ++p) {
      out_ += "id=" + std::to_string(p + 1) + "\nname=proj" + std::to_string(p + 1) +
              "\ntype=1\nshares=" + std::to_string(10 + rng_.Below(90)) + "\nchildnodes=NONE\n";
    }
    out_ += "end sharetree\n\n";
  }

  // A job's owner, drawn, and the owner's project.
  std::string Owner() {
    const std::uint64_t u = rng_.Below(users_);
    return " owner=user" + std::to_string(u + 1) + " project=proj" + std::to_string(u % projects_ + 1);
  }

  // Running tasks on part of the slots, one job per task, started in the last 8 hours.
  bool WriteRunningJobs() {
    for (std::uint32_t h = 0; h < hosts_; ++h) {
      const auto busy = static_cast<std::uint32_t>(slots_ * spec_.running_fraction);
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

  // Pending jobs, submitted over the last day in job-number order.
  bool WritePendingJobs() {
    for (std::uint64_t j = 0; j < spec_.jobs; ++j, ++job_) {
      const std::int64_t submit =
          spec_.now - 86400 + static_cast<std::int64_t>(86400 * j / std::max<std::uint64_t>(1, spec_.jobs));
      out_ += "job " + std::to_string(job_);
      if (rng_.Chance(spec_.array_fraction)) out_ += ".1-" + std::to_string(2 + rng_.Below(20));
      out_ += Owner() + " submit=" + std::to_string(submit);
      if (rng_.Chance(spec_.reserve_fraction)) out_ += " R=y";
      if (rng_.Chance(0.02)) out_ += " p=" + std::to_string(static_cast<std::int64_t>(rng_.Below(200)) - 100);
      const std::string requests = PendingRequests();
      if (rng_.Chance(spec_.parallel_fraction)) {
        const char* pe = kPes[rng_.Below(3)];
        const std::uint64_t low = 2 + rng_.Below(std::max<std::uint32_t>(2, slots_) - 1);
        const std::uint64_t high = low + rng_.Below(2 * slots_);
        out_ += std::string(" pe_name=") + pe + " pe_min=" + std::to_string(low) + " pe_max=" + std::to_string(high);
      }
      out_ += " l_hard=" + requests + "\n";
      if (!Flush(false)) return false;
    }
    return true;
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
  const std::uint32_t hosts_, slots_, users_, projects_, departments_, racks_;
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
  const double running = static_cast<double>(spec.hosts) * spec.slots_per_host * spec.running_fraction;
  if (running + static_cast<double>(spec.jobs) > static_cast<double>(kMaxGeneratorJobs)) {
    return "running tasks and pending jobs together must be at most " + std::to_string(kMaxGeneratorJobs);
  }
  const std::pair<const char*, double> fractions[] = {
      {"parallel", spec.parallel_fraction},   {"array", spec.array_fraction},    {"reserve", spec.reserve_fraction},
      {"license", spec.license_fraction},     {"memory", spec.memory_fraction},  {"running", spec.running_fraction},
      {"exclusive", spec.exclusive_fraction}, {"scratch", spec.scratch_fraction}};
  for (const auto& [what, f] : fractions) {
    if (!(f >= 0 && f <= 1)) return std::string(what) + " fraction must be from 0 to 1";
  }
  if (!InTimeRange(spec.now) || spec.now < 86400) return std::string("now must be a time from 1970-01-02 to 2106");
  return std::nullopt;
}

bool GenerateSnapshot(const GeneratorSpec& spec, const std::function<bool(std::string_view)>& sink) {
  return SnapshotGenerator(spec, sink).Generate();
}

}  // namespace schedk::io
