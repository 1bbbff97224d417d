// quota_usage.hpp
// The usage of resource quota rule instances (docs/resource-quotas.md): what
// the granted queue instances of jobs debit against the rule each enabled set
// applies there, and whether more would exceed a limit. A rule instance is
// Grid Engine's usage key: the set, the rule, and the subject's values in the
// rule's expanded filters (none in the others), so `users {*}` keeps one
// counter per user and `users *` one for all.
// Invariants: a debit of a queue instance adds, per consumable limit of each
// applying rule, the slots times the per-slot request (`slots` counts 1 per
// slot), and a per-job (JOB) consumable's request once, at the job's master
// queue instance; an attribute neither requested nor defaulted (non-zero
// default) is not debited, `slots` always is.
#pragma once

#include <compare>
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "kernel/model/cluster.hpp"
#include "kernel/model/resource_quota.hpp"
#include "kernel/model/job_table.hpp"
#include "kernel/model/request_set.hpp"

namespace schedk {

// Who asks, and where: a job's credentials at one queue instance. `pe` is
// None for a sequential job, `project` for a job without one.
struct QuotaSubject {
  UserId user;
  GroupId group;
  ProjectId project;
  PeId pe;
  QueueId queue;
  HostId host;
};

// A rule instance: the usage key of Grid Engine's `<set>/<rule>` and `user/project/pe/queue/host/`.
struct QuotaInstance {
  std::uint32_t set = 0;
  std::uint32_t rule = 0;
  UserId user;
  ProjectId project;
  PeId pe;
  QueueId queue;
  HostId host;
  friend auto operator<=>(const QuotaInstance&, const QuotaInstance&) = default;
};

// Whether `filter` admits `value` (None: missing), with `group` for a users filter.
bool QuotaFilterAdmits(const QuotaFilter& filter, std::uint32_t value, GroupId group = GroupId::None());

// The index of the first rule of `set` whose filters all admit `subject`, or
// nullopt. Whether the set is enabled is the caller's to check.
std::optional<std::uint32_t> MatchingQuotaRule(const ResourceQuotaSet& set, const QuotaSubject& subject);

// The instance of rule `rule` of set `set` (an index into `sets`) that `subject` debits.
QuotaInstance QuotaInstanceOf(const std::vector<ResourceQuotaSet>& sets, std::uint32_t set, std::uint32_t rule,
                              const QuotaSubject& subject);

// A limit that a request would exceed: its instance and the limit's index in its rule.
struct QuotaExcess {
  QuotaInstance instance;
  std::uint32_t limit = 0;
};

class QuotaUsage {
 public:
  // `sets` and `complexes` outlive the usage.
  QuotaUsage(const std::vector<ResourceQuotaSet>& sets, const ComplexTable& complexes);

  // Debits `slots` slots of a job asking `requests` at subject's queue
  // instance; `master`: the job's master queue instance.
  void Debit(const QuotaSubject& subject, const RequestSet& requests, std::uint32_t slots, bool master);

  // The first limit, in set and limit order, that debiting the same would
  // take above its value; nullopt when every set has room.
  std::optional<QuotaExcess> Excess(const QuotaSubject& subject, const RequestSet& requests, std::uint32_t slots,
                                    bool master) const;

  // What instance `instance` has used of its rule's limit `limit` (0 when unused).
  double Used(const QuotaInstance& instance, std::uint32_t limit) const;

  // Every instance with usage, in (set, rule, key) order, with its usage per limit.
  const std::map<QuotaInstance, std::vector<double>>& instances() const { return used_; }

 private:
  // What one slot (or, for a JOB consumable, the job at its master) adds to
  // `limit`; nullopt where the limit does not concern the request.
  std::optional<double> Amount(const QuotaLimit& limit, const RequestSet& requests, std::uint32_t slots,
                               bool master) const;

  const std::vector<ResourceQuotaSet>& sets_;
  const ComplexTable& complexes_;
  std::map<QuotaInstance, std::vector<double>> used_;
};

// The usage of every running and suspended task's grants in `jobs`.
QuotaUsage RunningQuotaUsage(const Cluster& cluster, const std::vector<ResourceQuotaSet>& sets, const JobTable& jobs);

}  // namespace schedk
