// snapshot_generator.hpp
// Reproducible synthetic snapshots (docs/protocol.md §4, `schedk generate`): a
// cluster of hosts in racks (hostgroups) with slots and memory, a global
// license pool, three parallel environments ($fill_up, $round_robin,
// $pe_slots), two queues, users, projects and departments with shares, a share
// tree, tasks already running on part of the slots, and pending jobs: some
// parallel with slot ranges, some array jobs, some asking for licenses or
// memory, some with -R y. The same spec always gives the same bytes. Jobs are
// written as they are drawn, so ten million jobs never sit in memory. This is
// the one generator of synthetic clusters: the tests' and the priority
// benchmarks' populations (tests/support/population.hpp) are its snapshots.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "io/status.hpp"

namespace schedk::io {

// Which priority inputs a generated snapshot puts in play (`--policies`).
enum class PolicyMix : std::uint8_t {
  // Functional and share-tree tickets: users', projects' and departments'
  // shares, a share tree of projects (what the dispatch benchmarks use).
  kTickets,
  // Every input of Grid Engine's ticket policies besides: override tickets on
  // departments, projects, users and jobs; usage records of users (also per
  // project) and projects; named users and a default leaf under each project
  // in the share tree; held jobs, job shares and deadlines.
  kEvery,
  // kEvery's cluster under PRIORITY_POLICY=maui with every component weighted:
  // credential priorities, fair-share targets, floors and ceilings, queue time,
  // XFACTOR, bypass, a QOS per job, resources and usage.
  kMaui,
};

struct GeneratorSpec {
  std::uint64_t seed = 1;
  std::uint64_t jobs = 1000;          // pending job lines
  std::uint32_t hosts = 16;
  std::uint32_t slots_per_host = 64;
  std::uint32_t users = 100;
  std::uint32_t projects = 10;
  std::uint32_t departments = 4;
  double parallel_fraction = 0.10;    // of pending jobs
  double array_fraction = 0.05;
  double reserve_fraction = 0.10;     // -R y
  double license_fraction = 0.10;
  double memory_fraction = 0.30;
  double running_fraction = 0.50;     // of all slots, busy with running tasks
  // In place of running_fraction: this many running tasks, spread evenly over the hosts.
  std::optional<std::uint64_t> running_tasks = std::nullopt;
  PolicyMix policies = PolicyMix::kTickets;
  bool random_submit = false;  // submit times drawn over the last week, not rising with job numbers
  // Pending jobs take their requests (PE, slot range, l_hard) from this many
  // combinations, Grid Engine's job categories, drawn first; 0: each job draws its own.
  std::uint32_t categories = 0;
  // Resource quota sets, three rules each (WriteQuotaSets): per project on
  // short.q, per user on one rack, per user everywhere else; 0: none.
  std::uint32_t quota_sets = 0;
  std::uint32_t max_reservation = 100;
  bool reserve_in_gaps = false;       // params RESERVE_IN_GAPS=1
  // Off by default (the benchmarks' clusters have neither): exclusive hosts
  // (an EXCL consumable on every other host, requested by this share of jobs)
  // and a per-job (JOB) consumable `scratch` in the global host.
  double exclusive_fraction = 0;
  double scratch_fraction = 0;
  // Off by default too: soft requests, a soft -q short.q (met on rack 1's
  // hosts by jobs whose h_rt short.q allows) on this share of the request
  // combinations, half of them with a soft -l arch=lx-arm64 (met nowhere).
  double soft_fraction = 0;
  std::int64_t now = 1798761600;      // 2027-01-01T00:00:00Z
};

// What is wrong with `spec`, or nullopt: every count at least 1 (jobs: 0)
// and small enough that the snapshot loads (job numbers, running tasks and
// pending jobs together, fit in 32 bits), every fraction within 0..1, at most
// as many running tasks as slots, at most a million categories.
Reason CheckGeneratorSpec(const GeneratorSpec& spec);

// Writes the snapshot to `sink` piece by piece; stops and returns false when `sink` does.
// `spec` must pass CheckGeneratorSpec.
bool GenerateSnapshot(const GeneratorSpec& spec, const std::function<bool(std::string_view)>& sink);

}  // namespace schedk::io
