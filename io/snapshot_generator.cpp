#include "io/snapshot_generator.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "io/ge_value.hpp"
#include "kernel/util/split_mix.hpp"

namespace schedk::io {
namespace {

std::string Host(std::uint32_t h) { return "node" + std::to_string(h + 1); }
std::string Rack(std::uint32_t r) { return "@rack" + std::to_string(r + 1); }

constexpr std::uint32_t kHostsPerRack = 32;
constexpr std::uint32_t kMemoryPerHostGiB = 256;
const char* const kPes[] = {"mpi", "mpi_rr", "smp"};

}  // namespace

std::optional<std::string> CheckGeneratorSpec(const GeneratorSpec& spec) {
  constexpr std::uint64_t kMaxCount = 1000000;     // hosts, slots per host, users, projects, departments
  constexpr std::uint64_t kMaxJobs = 1000000000;  // job numbers are 32-bit
  const std::pair<const char*, std::uint64_t> counts[] = {
      {"hosts", spec.hosts}, {"slots per host", spec.slots_per_host}, {"users", spec.users},
      {"projects", spec.projects}, {"departments", spec.departments}};
  for (const auto& [what, n] : counts) {
    if (n < 1 || n > kMaxCount) return std::string(what) + " must be from 1 to " + std::to_string(kMaxCount);
  }
  if (spec.jobs > kMaxJobs) return "jobs must be from 0 to " + std::to_string(kMaxJobs);
  const double running = static_cast<double>(spec.hosts) * spec.slots_per_host * spec.running_fraction;
  if (running + static_cast<double>(spec.jobs) > static_cast<double>(kMaxJobs)) {
    return "running tasks and pending jobs together must be at most " + std::to_string(kMaxJobs);
  }
  const std::pair<const char*, double> fractions[] = {
      {"parallel", spec.parallel_fraction}, {"array", spec.array_fraction},   {"reserve", spec.reserve_fraction},
      {"license", spec.license_fraction},   {"memory", spec.memory_fraction}, {"running", spec.running_fraction},
      {"exclusive", spec.exclusive_fraction}, {"scratch", spec.scratch_fraction}};
  for (const auto& [what, f] : fractions) {
    if (!(f >= 0 && f <= 1)) return std::string(what) + " fraction must be from 0 to 1";
  }
  if (!InTimeRange(spec.now) || spec.now < 86400) return std::string("now must be a time from 1970-01-02 to 2106");
  return std::nullopt;
}

bool GenerateSnapshot(const GeneratorSpec& spec, const std::function<bool(std::string_view)>& sink) {
  SplitMix64 rng(spec.seed);
  const std::uint32_t hosts = std::max<std::uint32_t>(1, spec.hosts);
  const std::uint32_t slots = std::max<std::uint32_t>(1, spec.slots_per_host);
  const std::uint32_t users = std::max<std::uint32_t>(1, spec.users);
  const std::uint32_t projects = std::max<std::uint32_t>(1, spec.projects);
  const std::uint32_t departments = std::max<std::uint32_t>(1, spec.departments);
  const std::uint32_t racks = (hosts + kHostsPerRack - 1) / kHostsPerRack;
  const std::uint64_t licenses = std::max<std::uint64_t>(8, std::uint64_t{hosts} * slots / 16);
  std::string out;
  auto flush = [&](bool force) {
    if (!force && out.size() < (1u << 20)) return true;
    const bool ok = sink(out);
    out.clear();
    return ok;
  };

  out += "schedk-snapshot 1\n# schedk generate --seed " + std::to_string(spec.seed) + " --jobs " +
         std::to_string(spec.jobs) + " --hosts " + std::to_string(hosts) + "\nnow " + std::to_string(spec.now) +
         "\n\nbegin complex\n"
         "slots      s     INT     <=  YES  YES  1     1000\n"
         "h_rt       h_rt  TIME    <=  YES  NO   0:0:0 0\n"
         "s_rt       s_rt  TIME    <=  YES  NO   0:0:0 0\n"
         "mem        m     MEMORY  <=  YES  YES  0     0\n"
         "license    lic   INT     <=  YES  YES  0     100\n"
         "np_load_avg nla  DOUBLE  >=  NO   NO   0     0\n"
         "num_proc   p     INT     ==  YES  NO   0     0\n"
         "arch       a     RESTRING == YES  NO   NONE  0\n" +
         std::string(spec.exclusive_fraction > 0 ? "exclusive  excl  BOOL    EXCL YES YES 0     1000\n" : "") +
         std::string(spec.scratch_fraction > 0 ? "scratch    sc    INT     <=  YES  JOB  0     0\n" : "") +
         "end complex\n\n"
         "begin sconf\nmax_reservation " + std::to_string(spec.max_reservation) +
         "\ndefault_duration 8:0:0\nweight_tickets_functional 100000\nweight_tickets_share 100000\n"
         "weight_waiting_time 0.01\nparams MONITOR=1" + std::string(spec.reserve_in_gaps ? ",RESERVE_IN_GAPS=1" : "") +
         "\nend sconf\n\n"
         "begin global\ncomplex_values license=" + std::to_string(licenses) +
         (spec.scratch_fraction > 0 ? ",scratch=" + std::to_string(std::max<std::uint32_t>(2, hosts / 2)) : "") +
         "\nend global\n\n";
  for (std::uint32_t r = 0; r < racks; ++r) {
    out += "begin hostgroup " + Rack(r) + "\nhostlist";
    for (std::uint32_t h = r * kHostsPerRack; h < std::min(hosts, (r + 1) * kHostsPerRack); ++h) out += " " + Host(h);
    out += "\nend hostgroup\n";
  }
  out += "begin hostgroup @allhosts\nhostlist";
  for (std::uint32_t r = 0; r < racks; ++r) out += " " + Rack(r);
  out += "\nend hostgroup\n\n";
  for (std::uint32_t h = 0; h < hosts; ++h) {
    out += "begin exechost " + Host(h) + "\ncomplex_values slots=" + std::to_string(slots) +
           ",mem=" + std::to_string(kMemoryPerHostGiB) + "G" +
           (spec.exclusive_fraction > 0 && h % 2 == 0 ? ",exclusive=true" : "") +
           "\nload_values arch=lx-amd64\nend exechost\n";
    if (!flush(false)) return false;
  }
  for (std::uint32_t h = 0; h < hosts; ++h) {
    out += "load " + Host(h) + " np_load_avg=" + std::to_string(rng.Below(100) / 100.0).substr(0, 4) +
           ",num_proc=" + std::to_string(slots) + "\n";
  }
  const std::uint64_t pe_slots = std::uint64_t{hosts} * slots;
  out += "\nbegin pe mpi\nslots " + std::to_string(pe_slots) + "\nallocation_rule $fill_up\nend pe\n"
         "begin pe mpi_rr\nslots " + std::to_string(pe_slots) + "\nallocation_rule $round_robin\nend pe\n"
         "begin pe smp\nslots " + std::to_string(pe_slots) + "\nallocation_rule $pe_slots\nend pe\n\n"
         "begin queue all.q\nhostlist @allhosts\nslots " + std::to_string(slots) +
         "\npe_list mpi mpi_rr smp\nseq_no 0\nend queue\n"
         "begin queue short.q\nhostlist " + Rack(0) +
         "\nslots " + std::to_string(std::max<std::uint32_t>(1, slots / 4)) +
         "\nh_rt 1:0:0\nseq_no 10\nend queue\n\n";
  for (std::uint32_t d = 0; d < departments; ++d) {
    out += "begin department dept" + std::to_string(d + 1) + "\ntype DEPT\nfshare " + std::to_string(100 * (d + 1)) +
           "\nentries";
    for (std::uint32_t u = d; u < users; u += departments) {
      out += (u == d ? " " : ",") + ("user" + std::to_string(u + 1));
    }
    out += "\nend department\n";
    if (!flush(false)) return false;
  }
  for (std::uint32_t p = 0; p < projects; ++p) {
    out += "begin project proj" + std::to_string(p + 1) + "\nfshare " + std::to_string(10 + rng.Below(90)) +
           "\nend project\n";
  }
  for (std::uint32_t u = 0; u < users; ++u) {
    out += "begin user user" + std::to_string(u + 1) + "\nfshare " + std::to_string(1 + rng.Below(100)) +
           "\nend user\n";
    if (!flush(false)) return false;
  }
  out += "\nbegin sharetree\nid=0\nname=Root\ntype=0\nshares=1\nchildnodes=";
  for (std::uint32_t p = 0; p < projects; ++p) out += (p ? "," : "") + std::to_string(p + 1);
  out += "\n";
  for (std::uint32_t p = 0; p < projects; ++p) {
    out += "id=" + std::to_string(p + 1) + "\nname=proj" + std::to_string(p + 1) + "\ntype=1\nshares=" +
           std::to_string(10 + rng.Below(90)) + "\nchildnodes=NONE\n";
  }
  out += "end sharetree\n\n";

  // Running tasks on part of the slots, one job per task, started in the last 8 hours.
  std::uint64_t job = 1;
  auto owner = [&] {
    const std::uint64_t u = rng.Below(users);
    return " owner=user" + std::to_string(u + 1) + " project=proj" + std::to_string(u % projects + 1);
  };
  for (std::uint32_t h = 0; h < hosts; ++h) {
    const auto busy = static_cast<std::uint32_t>(slots * spec.running_fraction);
    std::uint64_t memory = 0;
    for (std::uint32_t k = 0; k < busy; ++k, ++job) {
      const std::int64_t start = spec.now - static_cast<std::int64_t>(rng.Below(8 * 3600));
      const std::uint64_t mem = rng.Chance(spec.memory_fraction) ? 1 + rng.Below(4) : 0;
      const bool can_mem = memory + mem <= kMemoryPerHostGiB / 2;
      out += "job " + std::to_string(job) + owner() + " submit=" + std::to_string(start - 60) +
             " state=r start=" + std::to_string(start) + " granted=all.q@" + Host(h) + ":1 l_hard=h_rt=" +
             std::to_string(1 + rng.Below(12)) + ":0:0" + (can_mem && mem ? ",mem=" + std::to_string(mem) + "G" : "") +
             "\n";
      if (can_mem) memory += mem;
      if (!flush(false)) return false;
    }
  }
  // Pending jobs, submitted over the last day in job-number order.
  for (std::uint64_t j = 0; j < spec.jobs; ++j, ++job) {
    const std::int64_t submit =
        spec.now - 86400 + static_cast<std::int64_t>(86400 * j / std::max<std::uint64_t>(1, spec.jobs));
    out += "job " + std::to_string(job);
    if (rng.Chance(spec.array_fraction)) out += ".1-" + std::to_string(2 + rng.Below(20));
    out += owner() + " submit=" + std::to_string(submit);
    if (rng.Chance(spec.reserve_fraction)) out += " R=y";
    if (rng.Chance(0.02)) out += " p=" + std::to_string(static_cast<std::int64_t>(rng.Below(200)) - 100);
    std::string requests = "h_rt=" + std::to_string(1 + rng.Below(24)) + ":0:0";
    if (rng.Chance(spec.license_fraction)) requests += ",license=" + std::to_string(1 + rng.Below(4));
    if (rng.Chance(spec.memory_fraction)) requests += ",mem=" + std::to_string(1 + rng.Below(8)) + "G";
    if (spec.exclusive_fraction > 0 && rng.Chance(spec.exclusive_fraction)) requests += ",exclusive=true";
    if (spec.scratch_fraction > 0 && rng.Chance(spec.scratch_fraction)) requests += ",scratch=1";
    if (rng.Chance(spec.parallel_fraction)) {
      const char* pe = kPes[rng.Below(3)];
      const std::uint64_t low = 2 + rng.Below(std::max<std::uint32_t>(2, slots) - 1);
      const std::uint64_t high = low + rng.Below(2 * slots);
      out += std::string(" pe_name=") + pe + " pe_min=" + std::to_string(low) + " pe_max=" + std::to_string(high);
    }
    out += " l_hard=" + requests + "\n";
    if (!flush(false)) return false;
  }
  return flush(true);
}

}  // namespace schedk::io
