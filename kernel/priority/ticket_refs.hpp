// ticket_refs.hpp
// The job tasks a ticket pass works on (Grid Engine's sge_ref_t array), as a
// struct of arrays: first every active running task in job-list order, then up
// to L = min(max_pending_tasks_per_job, free queue slots + 1) pending tasks of
// each dispatchable job, in job-list order (job number, then task number).
// The entity columns are copied from the job table so the policies read them
// contiguously; the result columns are filled by the policies.
// Invariants: while the tickets are computed, every column has size() until
// it is released: the jobs' override tickets after the override pass
// (ReleaseOverrideColumn), the entity columns, job, task and submit once no
// functional or override pass is left (ReleaseEntityColumns), the rest when
// the tickets are final (ReleaseWorkingColumns), after which only ftix, otix
// and stix remain, with the sums that give each ref's share.
// Refs [0, running) are running tasks.
#pragma once

#include <cstdint>
#include <vector>

#include "kernel/util/column.hpp"
#include "kernel/types.hpp"

namespace schedk {

struct TicketRefs {
  // Identity, in job-list order. Identity and entity columns are sized
  // uninitialised and written in full by the builder.
  Column<std::uint32_t> task;    // TaskNumber
  Column<std::uint32_t> job;     // JobNumber
  Column<std::uint32_t> submit;  // Grid Engine's unsigned 32-bit submission time
  // Entities; None where the job has no such object (user objects always exist).
  Column<UserId> user;
  Column<ProjectId> project;
  Column<UsersetId> department;
  Column<std::uint32_t> jobshare;     // -js
  Column<std::uint32_t> job_oticket;  // -ot
  std::size_t running = 0;
  // Results.
  Column<double> ftix;     // functional tickets
  Column<double> otix;     // override tickets
  Column<double> stix;     // share-tree tickets
  Column<double> tickets;  // pending: tickets of the dependent policies computed so far
  // The sums of tix over the running and over the pending refs (Normalize's).
  double running_sum = 0;
  double pending_sum = 0;

  std::size_t size() const { return ftix.size(); }
  bool queued(std::size_t i) const { return i >= running; }

  // Sizes every column to n refs, uninitialised: the builder writes each ref
  // in full (Clear zeroes its results).
  void Resize(std::size_t n) {
    task.resize(n);
    job.resize(n);
    submit.resize(n);
    user.resize(n);
    project.resize(n);
    department.resize(n);
    jobshare.resize(n);
    job_oticket.resize(n);
    ftix.resize(n);
    otix.resize(n);
    stix.resize(n);
    tickets.resize(n);
  }
  void ClearResults(std::size_t i) { ftix[i] = otix[i] = stix[i] = tickets[i] = 0; }
  // Frees the jobs' override tickets, which only the override passes read.
  void ReleaseOverrideColumn() { Column<std::uint32_t>().swap(job_oticket); }
  // Frees what only the functional and override passes read: the entity
  // columns, the job and task numbers and submission times (the tie-breaks of
  // their loops), and the jobs' override tickets.
  void ReleaseEntityColumns() {
    Column<UserId>().swap(user);
    Column<ProjectId>().swap(project);
    Column<UsersetId>().swap(department);
    for (auto* v : {&job, &task, &submit, &job_oticket}) Column<std::uint32_t>().swap(*v);
  }
  // Frees the identity, entity and working columns once the tickets are final;
  // the result columns (ftix, otix, stix) stay.
  void ReleaseWorkingColumns() {
    for (auto* v : {&task, &job, &submit, &jobshare, &job_oticket}) Column<std::uint32_t>().swap(*v);
    Column<UserId>().swap(user);
    Column<ProjectId>().swap(project);
    Column<UsersetId>().swap(department);
    Column<double>().swap(tickets);
  }
  // tix in calc_job_tickets' order of addition.
  double Total(std::size_t i) const { return stix[i] + ftix[i] + otix[i]; }
  // tix / the sum of tix over the running (or pending) refs; 0 where tix is not
  // positive. Worked out when asked: a column of it would add 8 bytes a ref
  // to the pass's result.
  double Share(std::size_t i) const {
    const double tix = Total(i);
    return tix > 0 ? tix / (queued(i) ? pending_sum : running_sum) : 0;
  }
};

// Number of active running tasks per user, project and department (Grid Engine's
// UP_job_cnt / US_job_cnt), which the pending loops raise while they work.
struct EntityCounts {
  std::vector<std::uint32_t> user;
  std::vector<std::uint32_t> project;
  std::vector<std::uint32_t> department;

  void Add(const TicketRefs& refs, std::size_t i, int delta) {
    if (refs.user[i].valid()) user[refs.user[i].index()] += delta;
    if (refs.project[i].valid()) project[refs.project[i].index()] += delta;
    if (refs.department[i].valid()) department[refs.department[i].index()] += delta;
  }
};

}  // namespace schedk
