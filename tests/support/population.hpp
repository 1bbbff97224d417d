// population.hpp
// Reproducible synthetic clusters and job populations for tests and
// benchmarks: users spread over departments and projects, a two-level share
// tree (projects, then a few named users and a "default" leaf), functional
// shares, override tickets, waiting time and deadlines, PE jobs with slot
// ranges, array jobs, running jobs with granted slots. The same spec and seed
// always give the same population.
#pragma once

#include <cstdint>

#include "kernel/model/cluster.hpp"
#include "kernel/model/job_table.hpp"

namespace schedk {

struct PopulationSpec {
  std::uint64_t seed = 1;
  std::size_t pending_jobs = 100000;
  std::size_t running_jobs = 1000;
  std::size_t users = 10000;
  std::size_t projects = 100;
  std::size_t departments = 20;
  std::size_t hosts = 1000;
  std::uint32_t slots_per_host = 64;
  double array_fraction = 0.0;        // share of pending jobs that are array jobs
  std::uint32_t max_array_tasks = 20;
  double held_fraction = 0.01;
  // Grid Engine numbers jobs in submission order, so submit times rise with job
  // numbers; false draws them at random (exercises every ordering path).
  bool submit_in_job_order = true;
  // Policies.
  double functional_tickets = 1000000;
  double share_tree_tickets = 1000000;
  bool override_tickets = true;
  double weight_waiting_time = 0.278;
  std::uint32_t max_functional_jobs_to_schedule = 200;
};

struct Population {
  Cluster cluster;
  JobTable jobs;
};

Population GeneratePopulation(const PopulationSpec& spec);

// Switches a population to PRIORITY_POLICY=maui with every component weighted:
// credential priorities (users, accounts, four QOS), fair share against the
// users' and projects' cpu usage with targets, floors and ceilings, queue time,
// XFACTOR and bypass, a QOS queue-time target, processors, processor
// equivalents and wallclock, and the running jobs' usage. Jobs get a QOS by
// job number; nothing else of the population changes.
void ApplyMauiPolicy(Population& population);

}  // namespace schedk
