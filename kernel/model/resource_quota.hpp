// resource_quota.hpp
// Resource quota sets (`qconf -srqs`, sge_resource_quota(5); the rules are in
// docs/resource-quotas.md), their filters resolved against the cluster's
// tables. In each enabled set, the first rule whose five filters all admit a
// (user, group, project, PE, cluster queue, host) is the set's rule for it,
// even where none of its limits concern the request; every enabled set applies.
// An expanded filter (`{...}`) keeps one usage counter per value of its kind.
// A limit is static, or dynamic (`$num_proc*2`): a load formula evaluated on
// each host, only in a rule whose hosts filter is expanded.
// Invariants: a rule has at least one limit; every limit names a complex
// attribute; a filter's id tables may be shorter than the tables they index
// (an id beyond them matches no entry).
#pragma once

#include <compare>
#include <cstdint>
#include <string>
#include <vector>

#include "kernel/model/load_formula.hpp"
#include "kernel/types.hpp"

namespace schedk {

// One filter of a rule: which values of its kind it admits. `in` marks the
// ids a positive entry names (a name, a pattern, a userset or hostgroup it
// holds), `out` those a negated entry names; exclusions win.
struct QuotaFilter {
  bool present = false;  // absent: admits every value, a missing one too
  bool expand = false;   // `{...}`: one usage counter per value
  // Has positive entries; then a missing value (no project; a sequential job's PE) is not admitted.
  bool positive = false;
  std::vector<std::uint8_t> in, out;              // by id
  std::vector<std::uint8_t> group_in, group_out;  // users only: by GroupId, through usersets listing `@group`
  std::string text;                               // the entries as qconf prints them, negated ones last, without braces
};

struct QuotaLimit {
  ComplexId attribute;
  double value = 0;      // a static limit
  bool dynamic = false;  // the limit is `formula` on the host
  LoadFormula formula;
};

struct QuotaRule {
  std::string name;  // as written; empty: the rule is named by its index from 1
  QuotaFilter users, projects, pes, queues, hosts;
  std::vector<QuotaLimit> limits;
};

struct ResourceQuotaSet {
  std::string name;
  bool enabled = false;
  std::vector<QuotaRule> rules;
};

// A rule instance: Grid Engine's usage key `<set>/<rule>` with
// `user/project/pe/queue/host/`, the subject's values in the rule's expanded
// filters and None in the others.
struct QuotaInstance {
  std::uint32_t set = 0;  // index into Cluster::quota_sets
  std::uint32_t rule = 0;
  UserId user;
  ProjectId project;
  PeId pe;
  QueueId queue;
  HostId host;
  friend auto operator<=>(const QuotaInstance&, const QuotaInstance&) = default;
};

// A limit that a request would exceed: its instance and the limit's index in its rule.
struct QuotaExcess {
  QuotaInstance instance;
  std::uint32_t limit = 0;
};

}  // namespace schedk
