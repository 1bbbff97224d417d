#include "tests/support/population.hpp"

#include <algorithm>

#include "kernel/util/split_mix.hpp"

namespace schedk {
namespace {

ComplexAttribute Numeric(ValueType type, Consumable consumable, double def, double urgency) {
  ComplexAttribute a;
  a.type = type;
  a.consumable = consumable;
  a.default_value = def;
  a.urgency = urgency;
  a.urgency_valid = true;
  return a;
}

}  // namespace

Population GeneratePopulation(const PopulationSpec& spec) {
  Population p;
  Cluster& c = p.cluster;
  SplitMix64 rng(spec.seed);
  c.now = 1700000000;

  // Complex: slots (urgency 1000), h_rt, a license consumable, arch (string).
  c.complexes.attributes = {Numeric(ValueType::kInt, Consumable::kYes, 1, 1000),
                            Numeric(ValueType::kTime, Consumable::kNo, 0, 0),
                            Numeric(ValueType::kInt, Consumable::kYes, 0, 100)};
  ComplexAttribute arch;
  arch.type = ValueType::kReString;
  arch.relop = Relop::kEq;
  arch.urgency = 50;
  arch.urgency_valid = true;
  c.complexes.attributes.push_back(arch);
  c.complexes.slots = ComplexId(0);
  const ComplexId h_rt(1), license(2), arch_id(3);

  SchedulerConfig& cfg = c.config;
  cfg.weight_tickets_functional = spec.functional_tickets;
  cfg.weight_tickets_share = spec.share_tree_tickets;
  cfg.weight_waiting_time = spec.weight_waiting_time;
  cfg.max_functional_jobs_to_schedule = spec.max_functional_jobs_to_schedule;

  // Entities.
  EntityTables& e = c.entities;
  e.usersets.resize(spec.departments + 1);
  for (std::size_t d = 0; d <= spec.departments; ++d) {
    e.usersets[d].is_department = true;
    e.usersets[d].fshare = d == 0 ? 0 : static_cast<double>(10 + rng.Below(90));
    if (spec.override_tickets && d == 1) e.usersets[d].oticket = 5000;
  }
  e.default_department = UsersetId(0);
  e.projects.resize(spec.projects);
  for (auto& project : e.projects) {
    project.fshare = static_cast<double>(10 + rng.Below(90));
    if (spec.override_tickets && rng.Chance(0.05)) project.oticket = 2000;
    project.usage.values = {{"cpu", static_cast<double>(rng.Below(10000000))}, {"mem", 0}, {"io", 0}};
    project.usage.time_stamp = c.now - static_cast<Time>(rng.Below(86400));
  }
  e.users.resize(spec.users);
  std::vector<UsersetId> department_of(spec.users);
  std::vector<std::vector<ProjectId>> projects_of(spec.users);
  for (std::size_t u = 0; u < spec.users; ++u) {
    User& user = e.users[u];
    user.declared = true;
    user.fshare = static_cast<double>(rng.Below(101));
    if (spec.override_tickets && rng.Chance(0.01)) user.oticket = 1000;
    user.usage.values = {{"cpu", static_cast<double>(rng.Below(1000000))}, {"mem", 0}, {"io", 0}};
    user.usage.time_stamp = c.now - static_cast<Time>(rng.Below(86400));
    department_of[u] = UsersetId(1 + static_cast<std::uint32_t>(rng.Below(spec.departments)));
    e.usersets[department_of[u].index()].users.emplace_back(static_cast<std::uint32_t>(u));
    const std::size_t n = 1 + rng.Below(3);
    for (std::size_t k = 0; k < n; ++k) {
      const ProjectId project(static_cast<std::uint32_t>(rng.Below(spec.projects)));
      projects_of[u].push_back(project);
      user.project_usage.push_back({project, {{{"cpu", static_cast<double>(rng.Below(100000))}}, c.now - 3600}});
    }
  }

  // Share tree: root -> project nodes -> a few named users and "default".
  ShareTree& tree = c.share_tree;
  tree.nodes.emplace_back();
  tree.root = ShareNodeId(0);
  for (std::size_t pr = 0; pr < spec.projects; ++pr) {
    const ShareNodeId node(static_cast<std::uint32_t>(tree.nodes.size()));
    tree.nodes[0].children.push_back(node);
    ShareTreeNode project_node;
    project_node.shares = static_cast<std::uint32_t>(1 + rng.Below(100));
    project_node.project = ProjectId(static_cast<std::uint32_t>(pr));
    tree.nodes.push_back(project_node);
    for (int k = 0; k < 3; ++k) {
      ShareTreeNode user_node;
      user_node.shares = static_cast<std::uint32_t>(1 + rng.Below(20));
      user_node.user = UserId(static_cast<std::uint32_t>(rng.Below(spec.users)));
      tree.nodes[node.index()].children.emplace_back(static_cast<std::uint32_t>(tree.nodes.size()));
      tree.nodes.push_back(user_node);
    }
    ShareTreeNode fallback;
    fallback.shares = 5;
    fallback.is_default = true;
    tree.nodes[node.index()].children.emplace_back(static_cast<std::uint32_t>(tree.nodes.size()));
    tree.nodes.push_back(fallback);
  }

  // PEs: mpi ($fill_up, avg urgency slots) and smp ($pe_slots).
  ParallelEnvironment mpi;
  mpi.slots = 100000;
  mpi.allocation_rule = AllocationRule::kFillUp;
  mpi.urgency_slots = UrgencySlots::kAvg;
  ParallelEnvironment smp;
  smp.slots = 100000;
  c.pes = {mpi, smp};

  // One queue over every host.
  c.hosts.resize(spec.hosts);
  ClusterQueue queue;
  queue.slots = PerHost<std::uint32_t>(spec.slots_per_host);
  for (std::size_t h = 0; h < spec.hosts; ++h) queue.hosts.emplace_back(static_cast<std::uint32_t>(h));
  c.queues.push_back(queue);

  // Request combinations.
  std::vector<RequestSet>& sets = p.jobs.request_sets();
  sets.emplace_back();  // 0: sequential, nothing requested
  for (int rt : {3600, 14400, 86400}) {
    RequestSet r;
    r.hard.push_back({h_rt, static_cast<double>(rt), {}});
    sets.push_back(r);
  }
  for (int lic = 1; lic <= 4; ++lic) {
    RequestSet r;
    r.hard.push_back({license, static_cast<double>(lic), {}});
    r.hard.push_back({arch_id, 0, "lx-amd64"});
    sets.push_back(r);
  }
  for (std::uint32_t lo : {2u, 4u, 8u, 16u}) {
    RequestSet r;
    r.has_pe = true;
    r.pe.matching = {PeId(lo % 4 == 0 ? 0 : 1)};
    r.pe.min = lo;
    r.pe.max = lo * 4;
    r.hard.push_back({h_rt, 7200, {}});
    sets.push_back(r);
  }

  // Jobs, into exactly sized shard columns.
  JobTable& jobs = p.jobs;
  const std::size_t total = spec.pending_jobs + spec.running_jobs;
  {
    std::vector<std::size_t> rows(jobs.shards().size(), 0);
    for (std::size_t j = 0; j < total; ++j) ++rows[jobs.ShardOf(static_cast<JobNumber>(j + 1))];
    for (std::size_t s = 0; s < rows.size(); ++s) {
      JobShard& shard = jobs.shards()[s];
      const std::size_t n = rows[s];
      shard.number.reserve(n);
      shard.task_first.reserve(n);
      shard.task_last.reserve(n);
      shard.task_step.reserve(n);
      shard.state.reserve(n);
      shard.posix_priority.reserve(n);
      shard.flags.reserve(n);
      shard.owner.reserve(n);
      shard.group.reserve(n);
      shard.project.reserve(n);
      shard.department.reserve(n);
      shard.name.reserve(n);
      shard.submit.reserve(n);
      shard.jobshare.reserve(n);
      shard.override_tickets.reserve(n);
      shard.requests.reserve(n);
      shard.qos.reserve(n);
      shard.extras_index.reserve(n);
    }
  }
  std::size_t host = 0;
  std::uint32_t used_on_host = 0;
  for (std::size_t j = 0; j < total; ++j) {
    const bool running = j < spec.running_jobs;
    const JobNumber number = static_cast<JobNumber>(j + 1);
    JobShard& shard = jobs.shards()[jobs.ShardOf(number)];
    const std::uint32_t u = static_cast<std::uint32_t>(rng.Below(spec.users));
    const auto& mine = projects_of[u];
    const bool array = !running && rng.Chance(spec.array_fraction);
    const std::uint32_t tasks = array ? 2 + static_cast<std::uint32_t>(rng.Below(spec.max_array_tasks - 1)) : 1;
    std::uint8_t request = static_cast<std::uint8_t>(rng.Below(sets.size()));
    if (running) request = static_cast<std::uint8_t>(rng.Below(8));  // running jobs are sequential here
    JobState state = JobState::kPending;
    if (running) state = JobState::kRunning;
    else if (rng.Chance(spec.held_fraction)) state = JobState::kHeld;
    shard.number.push_back(number);
    shard.task_first.push_back(1);
    shard.task_last.push_back(tasks);
    shard.task_step.push_back(1);
    shard.state.push_back(state);
    shard.posix_priority.push_back(rng.Chance(0.05) ? static_cast<std::int16_t>(static_cast<int>(rng.Below(2048)) - 1023) : 0);
    shard.flags.push_back(rng.Chance(0.1) ? kJobReserve : 0);
    shard.owner.emplace_back(u);
    shard.group.emplace_back(0);
    shard.project.push_back(rng.Chance(0.9) ? mine[rng.Below(mine.size())] : ProjectId::None());
    shard.department.push_back(department_of[u]);
    shard.name.push_back(JobNameId::None());
    const Time week = 7 * 86400;
    shard.submit.push_back(spec.submit_in_job_order
                               ? c.now - week + static_cast<Time>(j * static_cast<std::size_t>(week) / total)
                               : c.now - static_cast<Time>(rng.Below(week)));
    shard.jobshare.push_back(rng.Chance(0.02) ? static_cast<std::uint32_t>(rng.Below(100)) : 0);
    shard.override_tickets.push_back(spec.override_tickets && rng.Chance(0.005) ? 500 : 0);
    shard.requests.emplace_back(request);
    shard.qos.push_back(kNoQos);
    JobExtras extras;
    bool has_extras = false;
    if (rng.Chance(0.01)) {
      extras.deadline = c.now + static_cast<Time>(rng.Below(20000)) - 5000;
      has_extras = true;
    }
    if (running) {
      extras.start = c.now - static_cast<Time>(rng.Below(86400));
      if (used_on_host == spec.slots_per_host) {
        host = (host + 1) % spec.hosts;
        used_on_host = 0;
      }
      ++used_on_host;
      extras.granted.push_back({QueueId(0), HostId(static_cast<std::uint32_t>(host)), 1});
      has_extras = true;
    }
    if (has_extras) {
      shard.extras_index.push_back(static_cast<std::uint32_t>(shard.extras.size()));
      shard.extras.push_back(std::move(extras));
    } else {
      shard.extras_index.push_back(kNoExtras);
    }
  }
  return p;
}

void ApplyMauiPolicy(Population& population) {
  Cluster& c = population.cluster;
  c.config.priority_policy = PriorityPolicy::kMaui;
  MauiConfig& m = c.maui;
  m = MauiConfig{};
  auto weight = [&](MauiSub s, std::int64_t w) { m.sub_weight[static_cast<std::size_t>(s)] = w; };
  weight(MauiSub::kUser, 1);
  weight(MauiSub::kAccount, 1);
  weight(MauiSub::kQos, 1);
  weight(MauiSub::kFsUser, 100);
  weight(MauiSub::kFsAccount, 50);
  weight(MauiSub::kQueueTime, 1);
  weight(MauiSub::kXFactor, 100);
  weight(MauiSub::kBypass, 10);
  weight(MauiSub::kTargetQueueTime, 1000);
  weight(MauiSub::kProc, 10);
  weight(MauiSub::kProcEquivalent, 5);
  weight(MauiSub::kWalltime, 1);
  weight(MauiSub::kConsumed, 1);
  weight(MauiSub::kPercent, 10);
  m.component_cap[static_cast<std::size_t>(MauiComponent::kFairShare)] = 5000;
  m.sub_cap[static_cast<std::size_t>(MauiSub::kXFactor)] = 20;
  m.fs_policy = FairSharePolicy::kUtilizedPs;
  m.enable_negative_priority = true;
  // Credentials: every 7th user and every 3rd project with a priority, every
  // 11th user with a fair-share target (alternating target, floor, ceiling).
  auto cpu = [](const UsageRecord& u) {
    for (const UsageValue& v : u.values) {
      if (v.name == "cpu") return v.value;
    }
    return 0.0;
  };
  MauiCredentialTable& users = m.table(MauiCredential::kUser);
  users.by_id.resize(c.entities.users.size());
  users.fs_usage.resize(c.entities.users.size());
  for (std::size_t u = 0; u < users.by_id.size(); ++u) {
    if (u % 7 == 0) users.by_id[u].priority = static_cast<std::int64_t>(u % 40) * 50 - 500;
    if (u % 11 == 0) {
      users.by_id[u].fs_target = 0.05;
      users.by_id[u].fs_mode = static_cast<FairShareTargetMode>(u / 11 % 3);
    }
    users.fs_usage[u] = cpu(c.entities.users[u].usage);
    users.fs_total += users.fs_usage[u];
  }
  users.fallback.fs_target = 0.01;
  MauiCredentialTable& accounts = m.table(MauiCredential::kAccount);
  accounts.by_id.resize(c.entities.projects.size());
  accounts.fs_usage.resize(c.entities.projects.size());
  for (std::size_t p = 0; p < accounts.by_id.size(); ++p) {
    if (p % 3 == 0) accounts.by_id[p].priority = static_cast<std::int64_t>(p % 10) * 100;
    accounts.by_id[p].fs_target = 1.0;
    accounts.fs_usage[p] = cpu(c.entities.projects[p].usage);
    accounts.fs_total += accounts.fs_usage[p];
  }
  MauiCredentialTable& qos = m.table(MauiCredential::kQos);
  qos.by_id.resize(4);
  qos.by_id[1].priority = 1000;
  qos.by_id[2].qt_weight = 5;
  qos.by_id[3].qt_target = 7 * 86400;
  for (JobShard& shard : population.jobs.shards()) {
    for (std::size_t r = 0; r < shard.size(); ++r) shard.qos[r] = static_cast<std::uint16_t>(shard.number[r] % 4);
  }
}

}  // namespace schedk
