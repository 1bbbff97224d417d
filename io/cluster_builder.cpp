#include "io/cluster_builder.hpp"

#include <algorithm>
#include <cstdlib>
#include <set>
#include <unordered_map>

#include "io/block_kinds.hpp"
#include "io/default_complex.hpp"
#include "io/ge_value.hpp"
#include "io/untrusted_text.hpp"

namespace schedk::io {
namespace {

std::optional<ValueType> ParseValueType(std::string_view t) {
  static const std::pair<const char*, ValueType> kTypes[] = {
      {"INT", ValueType::kInt},         {"DOUBLE", ValueType::kDouble},   {"TIME", ValueType::kTime},
      {"MEMORY", ValueType::kMemory},   {"BOOL", ValueType::kBool},       {"STRING", ValueType::kString},
      {"CSTRING", ValueType::kCString}, {"RESTRING", ValueType::kReString}, {"HOST", ValueType::kHost},
      {"RSMAP", ValueType::kRsmap}};
  for (const auto& [name, type] : kTypes) {
    if (EqualsIgnoreCase(t, name)) return type;
  }
  return std::nullopt;
}

std::optional<Relop> ParseRelop(std::string_view t) {
  if (t == "==") return Relop::kEq;
  if (t == "!=") return Relop::kNe;
  if (t == "<") return Relop::kLt;
  if (t == "<=") return Relop::kLe;
  if (t == ">") return Relop::kGt;
  if (t == ">=") return Relop::kGe;
  if (EqualsIgnoreCase(t, "EXCL")) return Relop::kExcl;
  return std::nullopt;
}

std::optional<Requestable> ParseRequestable(std::string_view t) {
  if (EqualsIgnoreCase(t, "YES") || EqualsIgnoreCase(t, "Y")) return Requestable::kYes;
  if (EqualsIgnoreCase(t, "NO") || EqualsIgnoreCase(t, "N")) return Requestable::kNo;
  if (EqualsIgnoreCase(t, "FORCED") || EqualsIgnoreCase(t, "F")) return Requestable::kForced;
  return std::nullopt;
}

std::optional<Consumable> ParseConsumable(std::string_view t) {
  if (EqualsIgnoreCase(t, "YES") || EqualsIgnoreCase(t, "Y")) return Consumable::kYes;
  if (EqualsIgnoreCase(t, "NO") || EqualsIgnoreCase(t, "N")) return Consumable::kNo;
  if (EqualsIgnoreCase(t, "JOB") || EqualsIgnoreCase(t, "J")) return Consumable::kJob;
  if (EqualsIgnoreCase(t, "HOST") || EqualsIgnoreCase(t, "H")) return Consumable::kHost;
  return std::nullopt;
}

// Splits "default,[target=value],[target=value]" into the default and the overrides.
struct OverrideText {
  std::string_view default_value;
  std::vector<std::pair<std::string_view, std::string_view>> overrides;  // (target, value)
};

std::optional<OverrideText> SplitOverrides(std::string_view text, std::string& why) {
  OverrideText out;
  text = Trim(text);
  const std::size_t bracket = text.find('[');
  if (bracket == std::string_view::npos) {
    out.default_value = text;
    return out;
  }
  std::string_view head = Trim(text.substr(0, bracket));
  if (head.empty() || head.back() != ',') {
    why = "expected 'default,[host=value],...'";
    return std::nullopt;
  }
  head.remove_suffix(1);
  out.default_value = Trim(head);
  std::size_t i = bracket;
  while (i < text.size()) {
    if (text[i] != '[') {
      why = "expected '[' to start a per-host override";
      return std::nullopt;
    }
    const std::size_t close = text.find(']', i);
    if (close == std::string_view::npos) {
      why = "unterminated '[' in per-host override";
      return std::nullopt;
    }
    const std::string_view inner = text.substr(i + 1, close - i - 1);
    const std::size_t eq = inner.find('=');
    if (eq == std::string_view::npos || eq == 0) {
      why = "per-host override '[" + std::string(inner) + "]' is not of the form [host=value]";
      return std::nullopt;
    }
    out.overrides.emplace_back(Trim(inner.substr(0, eq)), Trim(inner.substr(eq + 1)));
    i = close + 1;
    while (i < text.size() && (text[i] == ',' || text[i] == ' ' || text[i] == '\t')) ++i;
  }
  return out;
}

}  // namespace

LoadFormula ClusterBuilder::ReadLoadFormula(std::string_view text) const {
  // scaled_mixed_load's reading: terms between `+` and `-`, each signed by the
  // character before it; in a term only the first operator counts.
  auto operand = [&](std::string_view token) {
    LoadFormulaOperand o;
    if (!token.empty() && token.front() == '$') token.remove_prefix(1);
    const std::string s(token);
    char* end = nullptr;
    const double number = std::strtod(s.c_str(), &end);
    if (!s.empty() && end == s.c_str() + s.size()) {
      o.is_number = true;
      o.number = number;
    } else if (auto id = FindComplex(token)) {
      o.attribute = *id;
    }
    return o;
  };
  constexpr std::string_view kOperators = "*/&|^";
  LoadFormula formula;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t end = std::min(text.find_first_of("+-", pos), text.size());
    if (end > pos) {
      const std::string_view term = text.substr(pos, end - pos);
      LoadFormulaTerm t;
      t.negative = pos > 0 && text[pos - 1] == '-';
      const std::size_t op = term.find_first_of(kOperators);
      t.left = operand(term.substr(0, op));
      if (op != std::string_view::npos) {
        t.op = term[op];
        const std::string_view rest = term.substr(op + 1);
        t.right = operand(rest.substr(0, rest.find_first_of(kOperators)));
      }
      formula.terms.push_back(t);
    }
    pos = end + 1;
  }
  if (formula.terms.empty()) formula.terms.emplace_back();  // an empty formula never yields a value
  return formula;
}

std::optional<ComplexId> ClusterBuilder::FindComplex(std::string_view name) const {
  if (auto id = s_.names.complexes.Find(name)) return ComplexId(*id);
  if (auto id = s_.names.complex_shortcuts.Find(name)) return s_.names.shortcut_target[*id];
  return std::nullopt;
}

// --- complex ------------------------------------------------------------------------------------

namespace {

// The columns of one complex row after name and shortcut: type, relop, requestable, consumable, default, urgency.
Reason ComplexColumnsFrom(const std::vector<std::string_view>& c, ComplexAttribute& a) {
  auto type = ParseValueType(c[2]);
  if (!type) return "unknown type " + Quote(c[2]);
  a.type = *type;
  auto relop = ParseRelop(c[3]);
  if (!relop) return "unknown relational operator " + Quote(c[3]);
  a.relop = *relop;
  auto requestable = ParseRequestable(c[4]);
  if (!requestable) return "requestable must be YES, NO or FORCED, not " + Quote(c[4]);
  a.requestable = *requestable;
  auto consumable = ParseConsumable(c[5]);
  if (!consumable) return "consumable must be YES, NO, JOB or HOST, not " + Quote(c[5]);
  a.consumable = *consumable;
  if (a.consumable != Consumable::kNo && !IsNumeric(a.type)) return "only numeric types can be consumable";
  if (a.relop == Relop::kExcl && !(a.type == ValueType::kBool && a.consumable != Consumable::kNo)) {
    return "EXCL is only valid for consumable BOOL attributes";
  }
  if (!IsNumeric(a.type) && a.relop != Relop::kEq && a.relop != Relop::kNe) return "string types allow only == and !=";
  if (IsNumeric(a.type)) {
    auto d = IsNone(c[6]) ? std::optional<double>(0) : ParseTypedNumber(c[6], a.type);
    if (!d) return "malformed default " + Quote(c[6]);
    a.default_value = *d;
  } else if (!IsNone(c[6])) {
    a.default_text = std::string(c[6]);
  }
  auto urgency = ParseGeNumber(c[7]);
  if (!urgency) return "malformed urgency " + Quote(c[7]);
  a.urgency = *urgency;
  a.urgency_valid = true;
  return std::nullopt;
}

}  // namespace

Status ClusterBuilder::BuildComplex(const ObjectBlock* block) {
  std::vector<Attribute> rows;
  if (block != nullptr) {
    rows = block->attributes;
  } else {
    for (const char* row : kDefaultComplex) {
      const std::string_view r(row);
      const std::size_t sp = r.find(' ');
      rows.push_back({std::string(r.substr(0, sp)), std::string(Trim(r.substr(sp))), 0});
    }
  }
  ComplexTable& table = s_.cluster.complexes;
  for (const Attribute& row : rows) {
    const std::string text = row.key + " " + row.value;
    const auto c = SplitWords(text);
    auto fail = [&](const std::string& what) {
      return Error(row.line, "complex: attribute " + Quote(row.key) + ": " + what);
    };
    if (c.size() != 8) {
      return fail("expected 8 columns (name shortcut type relop requestable consumable default urgency), found " +
                  std::to_string(c.size()));
    }
    ComplexAttribute a;
    if (Reason why = ComplexColumnsFrom(c, a)) return fail(*why);
    if (FindComplex(c[0]) || FindComplex(c[1])) {
      return fail("name or shortcut " + Quote(c[0]) + "/" + Quote(c[1]) + " is defined twice");
    }
    const ComplexId id(s_.names.complexes.Intern(c[0]));
    a.per_processor = c[0].rfind("np_", 0) == 0;
    table.attributes.push_back(a);
    if (c[1] != c[0]) {
      s_.names.complex_shortcuts.Intern(c[1]);
      s_.names.shortcut_target.push_back(id);
    }
    if (c[0] == "slots") table.slots = id;
    if (c[0] == "num_proc") table.num_proc = id;
    if (c[0] == "h_rt") table.h_rt = id;
    if (c[0] == "s_rt") table.s_rt = id;
    if (c[0] == "qname") table.qname = id;
    if (c[0] == "hostname") table.hostname = id;
  }
  return Status::Ok();
}

// --- scheduler configuration --------------------------------------------------------------------

namespace {

// halftime: whole hours.
Reason WholeHoursValue(std::string_view text, std::int64_t& out) {
  auto d = ParseInteger(text);
  if (!d) return "expected whole hours, not " + Quote(text);
  out = *d;
  return std::nullopt;
}

// policy_hierarchy: the letters O, F and S at most once each (D, the obsolete deadline policy, is skipped), or NONE.
Reason PolicyHierarchyValue(std::string_view text, std::vector<TicketPolicy>& out) {
  out.clear();
  if (IsNone(text)) return std::nullopt;
  for (char letter : text) {
    TicketPolicy p;
    switch (letter) {
      case 'O': case 'o': p = TicketPolicy::kOverride; break;
      case 'F': case 'f': p = TicketPolicy::kFunctional; break;
      case 'S': case 's': p = TicketPolicy::kShareTree; break;
      case 'D': case 'd': continue;  // the deadline policy letter is obsolete
      default: return "letters must be O, F, S (or NONE), not " + Quote(text);
    }
    if (std::find(out.begin(), out.end(), p) != out.end()) return "a policy letter appears twice, not " + Quote(text);
    out.push_back(p);
  }
  return std::nullopt;
}

// PE_RANGE_ALG: one of its words, spelled exactly.
Reason RangeAlgorithmValue(std::string_view text, std::string& out) {
  if (text != "auto" && text != "least" && text != "bin" && text != "highest") return "not a PE range algorithm";
  out = std::string(text);
  return std::nullopt;
}

// The KEY=value words of sconf's params. A refusal reads "<KEY> must be <what>"; SchedulerParamsFrom adds
// the whole value.
AttributeTable SchedulerParamsTable(SchedulerConfig& c) {
  auto row = [](std::string_view key, std::string_view what, AttributeHandler read) {
    return AttributeRow{key, WithReason(std::move(read), std::string(key) + " must be " + std::string(what))};
  };
  return {
      RepeatedKey::kApplied,
      {
          row("MONITOR", "0 or 1", FlagField(c.monitor)),
          row("PROFILE", "0 or 1", FlagField(c.profile)),
          row("DURATION_OFFSET", "a time", DurationField(c.duration_offset)),
          row("RESERVE_IN_GAPS", "0 or 1", FlagField(c.reserve_in_gaps)),
          row("PE_RANGE_ALG", "auto, least, bin or highest", FieldFrom(c.pe_range_alg, RangeAlgorithmValue)),
          row("PRIORITY_POLICY", "ge or maui",
              EnumField(c.priority_policy, {{"ge", PriorityPolicy::kGridEngine}, {"maui", PriorityPolicy::kMaui}})),
          row("PRIORITY_NORMALIZATION", "ge, pending or linear",
              EnumField(c.normalization, {{"ge", PriorityNormalization::kGridEngine},
                                          {"pending", PriorityNormalization::kPendingOnly},
                                          {"linear", PriorityNormalization::kLinear}})),
          row("FUNCTIONAL_SPLIT", "ge or linear",
              EnumField(c.functional_split,
                        {{"ge", FunctionalSplit::kGridEngine}, {"linear", FunctionalSplit::kLinear}})),
          row("SHARE_TREE_PENDING", "6.2 or 8.1",
              EnumField(c.share_tree_pending, {{"6.2", ShareTreePending::kJobs}, {"8.1", ShareTreePending::kSlots}})),
          row("LINEAR_URGENCY_SCALE", "a positive number", PositiveRealField(c.linear_urgency_scale)),
          row("LINEAR_TICKET_SCALE", "a positive number", PositiveRealField(c.linear_ticket_scale)),
      }};
}

}  // namespace

Status ClusterBuilder::BuildSchedulerConfig(const ObjectBlock& block) {
  SchedulerConfig& c = s_.cluster.config;
  bool job_load_adjustments_given = false;
  const AttributeTable table = SchedulerConfigTable(c, job_load_adjustments_given);
  if (Status st = ApplyAttributeTable(s_, block, table, "sconf"); !st.ok()) return st;
  // The auto_user_* keys given here may not come again in conf.
  for (const Attribute& a : block.attributes) {
    if (a.key.rfind("auto_user_", 0) == 0 && FindAttributeRow(table, a.key) != nullptr) seen_auto_user_.insert(a.key);
  }
  if (!job_load_adjustments_given) {
    if (auto np = FindComplex("np_load_avg")) c.job_load_adjustments = {{*np, 0.50}};
  }
  c.load_formula_terms = ReadLoadFormula(c.load_formula);
  return Status::Ok();
}

// sched_conf(5)'s keys. Every reason quotes the whole value (", not '...'"), as sconf always has.
AttributeTable ClusterBuilder::SchedulerConfigTable(SchedulerConfig& c, bool& job_load_adjustments_given) {
  auto job_load_adjustments = [this, &c, &job_load_adjustments_given](const Attribute& a) {
    job_load_adjustments_given = true;
    return JobLoadAdjustmentsFrom(a.value, c.job_load_adjustments);
  };
  return {RepeatedKey::kRefused,
          {
              {"algorithm", KeptAsWritten()},
              {"schedule_interval", DurationField(c.schedule_interval)},
              {"maxujobs", CountField(c.maxujobs)},
              {"queue_sort_method",
               EnumField(c.queue_sort_method, {{"load", QueueSortMethod::kLoad}, {"seqno", QueueSortMethod::kSeqNo}})},
              {"job_load_adjustments", job_load_adjustments},
              {"load_adjustment_decay_time", DurationField(c.load_adjustment_decay_time)},
              {"load_formula", TextField(c.load_formula)},
              {"schedd_job_info", KeptAsWritten()},
              {"flush_submit_sec", KeptAsWritten()},
              {"flush_finish_sec", KeptAsWritten()},
              {"params", [this, &c](const Attribute& a) { return SchedulerParamsFrom(a, c); }},
              {"reprioritize_interval", DurationField(c.reprioritize_interval)},
              {"halftime", FieldFrom(c.halftime_hours, WholeHoursValue)},
              {"usage_weight_list", UsageListField(c.usage_weight_list, ',')},
              {"compensation_factor", RealField(c.compensation_factor)},
              {"weight_user", RealField(c.weight_user)},
              {"weight_project", RealField(c.weight_project)},
              {"weight_department", RealField(c.weight_department)},
              {"weight_job", RealField(c.weight_job)},
              {"weight_tickets_functional", TicketsField(c.weight_tickets_functional)},
              {"weight_tickets_share", TicketsField(c.weight_tickets_share)},
              {"weight_tickets_override", KeptAsWritten()},  // written back by Grid Engine, not an input
              {"share_override_tickets", FlagField(c.share_override_tickets)},
              {"share_functional_shares", FlagField(c.share_functional_shares)},
              {"max_functional_jobs_to_schedule", CountField(c.max_functional_jobs_to_schedule)},
              {"report_pjob_tickets", FlagField(c.report_pjob_tickets)},
              {"max_pending_tasks_per_job", CountField(c.max_pending_tasks_per_job)},
              {"halflife_decay_list", UsageListField(c.halflife_decay_list, ':')},
              {"policy_hierarchy", FieldFrom(c.policy_hierarchy, PolicyHierarchyValue)},
              {"weight_ticket", RealField(c.weight_ticket)},
              {"weight_waiting_time", RealField(c.weight_waiting_time)},
              {"weight_deadline", RealField(c.weight_deadline)},
              {"weight_urgency", RealField(c.weight_urgency)},
              {"weight_priority", RealField(c.weight_priority)},
              {"max_reservation", CountField(c.max_reservation)},
              {"default_duration", DurationField(c.default_duration)},
              {"auto_user_fshare", TicketsField(c.auto_user_fshare)},
              {"auto_user_oticket", TicketsField(c.auto_user_oticket)},
              {"auto_user_default_project", ProjectField(c.auto_user_default_project)},
          }};
}

// job_load_adjustments: attribute=value items over the complex.
Reason ClusterBuilder::JobLoadAdjustmentsFrom(std::string_view text,
                                              std::vector<std::pair<ComplexId, double>>& out) const {
  out.clear();
  for (std::string_view item : SplitList(text)) {
    const std::size_t eq = item.find('=');
    if (eq == std::string_view::npos) return "expected name=value items, not " + Quote(text);
    auto id = FindComplex(item.substr(0, eq));
    if (!id) return "unknown complex attribute " + Quote(item.substr(0, eq)) + ", not " + Quote(text);
    auto d = ParseGeNumber(item.substr(eq + 1));
    if (!d) return "malformed value in " + Quote(item) + ", not " + Quote(text);
    out.emplace_back(*id, *d);
  }
  return std::nullopt;
}

// params: KEY=value words (a KEY alone means KEY=1), each read by its row in SchedulerParamsTable; a
// refusal quotes the whole value. Unknown KEYs are warned about once the whole value is taken.
Reason ClusterBuilder::SchedulerParamsFrom(const Attribute& a, SchedulerConfig& c) {
  const AttributeTable table = SchedulerParamsTable(c);
  std::vector<std::string> unknown;
  for (std::string_view item : SplitList(a.value)) {
    const std::size_t eq = item.find('=');
    const std::string_view key = item.substr(0, eq);
    const AttributeRow* row = FindAttributeRow(table, key);
    if (row == nullptr) {
      unknown.emplace_back(key);
      continue;
    }
    const std::string_view value = eq == std::string_view::npos ? "1" : item.substr(eq + 1);
    if (Reason why = row->handler(Attribute{std::string(key), std::string(value), a.line})) {
      return *why + ", not " + Quote(a.value);
    }
  }
  for (const std::string& p : unknown) Warn(a.line, "sconf: params: unknown parameter " + Quote(p) + " ignored");
  return std::nullopt;
}

// The cluster configuration (qconf -sconf, sge_conf(5)). The scheduler reads
// its auto_user_* keys (older snapshots give them in sconf, which still
// works) and max_aj_instances; the other keys serve qmaster and execd and are
// kept, unread.
Status ClusterBuilder::BuildClusterConfig(const ObjectBlock& block) {
  static constexpr std::string_view kUnread[] = {
      "execd_spool_dir", "mailer", "xterm", "load_sensor", "prolog", "epilog", "shell_start_mode", "login_shells",
      "min_uid", "min_gid", "user_lists", "xuser_lists", "administrator_mail", "projects", "xprojects",
      "load_report_time", "reschedule_unknown", "max_unheard", "loglevel", "max_aj_tasks",
      "max_u_jobs", "max_jobs", "max_advance_reservations", "enforce_project", "enforce_user",
      "auto_user_delete_time", "set_token_cmd", "pag_cmd", "token_extend_time", "shepherd_cmd", "gid_range",
      "qmaster_params", "execd_params", "reporting_params", "finished_jobs", "qlogin_daemon", "qlogin_command",
      "rlogin_daemon", "rlogin_command", "rsh_daemon", "rsh_command", "delegated_file_staging", "reprioritize",
      "jsv_url", "jsv_allowed_mod", "libjvm_path", "additional_jvm_args"};
  SchedulerConfig& c = s_.cluster.config;
  // An auto_user_* key is read here or in sconf, not both.
  auto not_in_sconf = [this](AttributeHandler read) -> AttributeHandler {
    return [this, read = std::move(read)](const Attribute& a) -> Reason {
      if (seen_auto_user_.count(a.key)) return "is also given in the sconf block";
      return read(a);
    };
  };
  AttributeTable table{
      RepeatedKey::kRefused,
      {
          {"max_aj_instances", CountField(c.max_aj_instances, "a non-negative integer number of tasks")},
          {"auto_user_fshare", not_in_sconf(TicketsField(c.auto_user_fshare))},
          {"auto_user_oticket", not_in_sconf(TicketsField(c.auto_user_oticket))},
          {"auto_user_default_project", not_in_sconf(ProjectField(c.auto_user_default_project))},
      }};
  AddRows(table, kUnread, KeptAsWritten());
  return ApplyAttributeTable(s_, block, table, "conf");
}

// --- usersets, projects, users --------------------------------------------------------------------

Reason ClusterBuilder::UsersetsFrom(std::string_view text, std::vector<UsersetId>& out) const {
  out.clear();
  for (std::string_view name : SplitList(text)) {
    auto id = s_.names.usersets.Find(name);
    if (!id) return "unknown access list " + Quote(name);
    out.emplace_back(*id);
  }
  return std::nullopt;
}

Reason ClusterBuilder::ProjectsFrom(std::string_view text, std::vector<ProjectId>& out) const {
  out.clear();
  for (std::string_view name : SplitList(text)) {
    auto id = s_.names.projects.Find(name);
    if (!id) return "unknown project " + Quote(name);
    out.emplace_back(*id);
  }
  return std::nullopt;
}

Reason ClusterBuilder::ComplexValuesFrom(std::string_view text, ComplexValueList& out) const {
  out.clear();
  if (IsNone(Trim(text))) return std::nullopt;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i < text.size() && text[i] != ',') continue;
    const std::string_view item = Trim(text.substr(start, i - start));
    start = i + 1;
    if (item.empty()) continue;
    const std::size_t eq = item.find('=');
    if (eq == std::string_view::npos) return "expected name=value, not " + Quote(item);
    const std::string_view name = Trim(item.substr(0, eq));
    const std::string_view value = Trim(item.substr(eq + 1));
    auto id = FindComplex(name);
    if (!id) return "unknown complex attribute " + Quote(name);
    const ComplexAttribute& attribute = s_.cluster.complexes[*id];
    ComplexValue v;
    v.complex = *id;
    if (IsNumeric(attribute.type)) {
      auto d = ParseTypedNumber(value, attribute.type);
      if (!d) return "malformed value " + Quote(value) + " for " + std::string(name);
      // A consumable's capacity, a time or a memory size is never negative:
      // a negative capacity would let the plan book beyond what exists.
      if (*d < 0 && (attribute.consumable != Consumable::kNo || attribute.type == ValueType::kTime ||
                     attribute.type == ValueType::kMemory)) {
        return std::string(name) + " cannot be negative, not " + Quote(value);
      }
      v.number = *d;
    } else {
      v.text = std::string(value);
    }
    for (const ComplexValue& prior : out) {
      if (prior.complex == v.complex) return std::string(name) + " is given twice";
    }
    out.push_back(std::move(v));
  }
  return std::nullopt;
}

AttributeHandler ClusterBuilder::UsersetsField(std::vector<UsersetId>& field) const {
  return [this, &field](const Attribute& a) { return UsersetsFrom(a.value, field); };
}

AttributeHandler ClusterBuilder::ProjectsField(std::vector<ProjectId>& field) const {
  return [this, &field](const Attribute& a) { return ProjectsFrom(a.value, field); };
}

AttributeHandler ClusterBuilder::ComplexValuesField(ComplexValueList& field) const {
  return [this, &field](const Attribute& a) { return ComplexValuesFrom(a.value, field); };
}

AttributeHandler ClusterBuilder::ProjectField(ProjectId& field) const {
  return [this, &field](const Attribute& a) -> Reason {
    if (IsNone(a.value)) return std::nullopt;
    auto p = s_.names.projects.Find(a.value);
    if (!p) return "unknown project " + Quote(a.value);
    field = ProjectId(*p);
    return std::nullopt;
  };
}

Status ClusterBuilder::BuildUserset(const ObjectBlock& block) {
  const UsersetId id(s_.names.usersets.Intern(block.name));
  Userset& u = s_.cluster.entities.usersets[id.index()];
  u.is_department = true;  // a `department` block is type DEPT unless its type says otherwise
  auto type = [&u](const Attribute& a) -> Reason {
    u.is_department = u.is_access_list = false;
    for (std::string_view t : SplitList(a.value)) {
      if (EqualsIgnoreCase(t, "DEPT")) u.is_department = true;
      else if (EqualsIgnoreCase(t, "ACL")) u.is_access_list = true;
      else return "type must be ACL and/or DEPT, not " + Quote(t);
    }
    return std::nullopt;
  };
  auto entries = [this, &u](const Attribute& a) -> Reason {  // adds to the entries of earlier lines
    for (std::string_view e : SplitList(a.value)) {
      if (e.front() == '@') u.groups.emplace_back(s_.names.groups.Intern(e.substr(1)));
      else u.users.emplace_back(s_.names.users.Intern(e));
    }
    return std::nullopt;
  };
  const AttributeTable table{RepeatedKey::kApplied,
                             {
                                 {"name", SameAs(block.name)},
                                 {"type", type},
                                 {"fshare", CountField(u.fshare)},
                                 {"oticket", CountField(u.oticket)},
                                 {"entries", entries},
                             }};
  return ApplyAttributeTable(s_, block, table, "department " + block.name);
}

Status ClusterBuilder::BuildProject(const ObjectBlock& block) {
  Project& p = s_.cluster.entities.projects[*s_.names.projects.Find(block.name)];
  const AttributeTable table{RepeatedKey::kApplied,
                             {
                                 {"name", SameAs(block.name)},
                                 {"fshare", CountField(p.fshare)},
                                 {"oticket", CountField(p.oticket)},
                                 {"acl", UsersetsField(p.acl)},
                                 {"xacl", UsersetsField(p.xacl)},
                             }};
  return ApplyAttributeTable(s_, block, table, "project " + block.name);
}

Status ClusterBuilder::BuildUser(const ObjectBlock& block) {
  const UserId id(s_.names.users.Intern(block.name));
  if (s_.cluster.entities.users.size() <= id.index()) s_.cluster.entities.users.resize(id.index() + 1);
  User& u = s_.cluster.entities.users[id.index()];
  u.declared = true;
  std::uint32_t delete_time = 0;  // checked, then left: schedk deletes no users
  const AttributeTable table{RepeatedKey::kApplied,
                             {
                                 {"name", SameAs(block.name)},
                                 {"fshare", CountField(u.fshare)},
                                 {"oticket", CountField(u.oticket)},
                                 {"delete_time", CountField(delete_time)},
                                 {"default_project", ProjectField(u.default_project)},
                             }};
  return ApplyAttributeTable(s_, block, table, "user " + block.name);
}

// --- hosts and hostgroups ------------------------------------------------------------------------

Status ClusterBuilder::ReadHostgroup(const ObjectBlock& block) {
  direct_subgroups_.resize(s_.names.hostgroups.size());
  direct_hosts_.resize(s_.names.hostgroups.size());
  const std::uint32_t g = *s_.names.hostgroups.Find(block.name);
  auto hostlist = [this, g](const Attribute& a) -> Reason {  // adds to the members of earlier lines
    for (std::string_view member : SplitList(a.value)) {
      if (member.front() == '@') {
        auto sub = s_.names.hostgroups.Find(member);
        if (!sub) return "unknown hostgroup " + Quote(member);
        direct_subgroups_[g].push_back(*sub);
      } else {
        direct_hosts_[g].emplace_back(s_.names.hosts.Intern(member));
      }
    }
    return std::nullopt;
  };
  const AttributeTable table{RepeatedKey::kApplied, {{"group_name", SameAs(block.name)}, {"hostlist", hostlist}}};
  return ApplyAttributeTable(s_, block, table, "hostgroup " + block.name);
}

Status ClusterBuilder::ResolveHostgroups() {
  direct_subgroups_.resize(s_.names.hostgroups.size());
  direct_hosts_.resize(s_.names.hostgroups.size());
  const auto& direct_groups = direct_subgroups_;
  const auto& direct_hosts = direct_hosts_;
  // Depth-first over the nesting with an explicit stack (its depth is the
  // input's to choose): a group's hosts are resolved after its subgroups'.
  std::vector<int> state(direct_groups.size(), 0);  // 0 new, 1 in progress, 2 done
  std::vector<std::pair<std::uint32_t, std::size_t>> stack;  // group, next subgroup to visit
  for (std::uint32_t top = 0; top < direct_groups.size(); ++top) {
    if (state[top] == 2) continue;
    stack.assign(1, {top, 0});
    state[top] = 1;
    while (!stack.empty()) {
      auto& [g, next] = stack.back();
      if (next < direct_groups[g].size()) {
        const std::uint32_t sub = direct_groups[g][next++];
        if (state[sub] == 1) return HostgroupCycle(top);
        if (state[sub] == 0) {
          state[sub] = 1;
          stack.emplace_back(sub, 0);
        }
        continue;
      }
      std::vector<HostId> hosts = direct_hosts[g];
      for (std::uint32_t sub : direct_groups[g]) {
        const auto& more = s_.cluster.hostgroups[sub].hosts;
        hosts.insert(hosts.end(), more.begin(), more.end());
      }
      std::sort(hosts.begin(), hosts.end());
      hosts.erase(std::unique(hosts.begin(), hosts.end()), hosts.end());
      s_.cluster.hostgroups[g].hosts = std::move(hosts);
      state[g] = 2;
      stack.pop_back();
    }
  }
  return Status::Ok();
}

Status ClusterBuilder::HostgroupCycle(std::uint32_t g) const {
  for (const ObjectBlock& block : s_.blocks) {
    if (block.kind == "hostgroup" && block.name == s_.names.hostgroups.Name(g)) {
      return Error(block.line, "hostgroup " + block.name + ": hostlist contains itself through nested groups");
    }
  }
  return Error(0, "hostgroups: a hostlist contains itself through nested groups");
}

Status ClusterBuilder::BuildHost(const ObjectBlock& block) {
  const bool global = block.kind == "global";
  ExecHost scratch;
  ExecHost& h = global ? scratch : s_.cluster.hosts[*s_.names.hosts.Find(block.name)];
  h.declared = true;
  const std::string who = global ? block.kind : block.kind + " " + block.name;
  const AttributeTable table{
      RepeatedKey::kApplied,
      {
          {"hostname", SameAs(global ? std::string("global") : block.name)},
          {"complex_values", ComplexValuesField(h.complex_values)},
          {"load_values", [this, &h, &who](const Attribute& a) { return LoadValuesFrom(a, who, h.load_values); }},
          {"load_scaling", [this, &h](const Attribute& a) { return LoadScalingFrom(a.value, h.load_scaling); }},
          {"processors", CountField(h.processors)},
          {"user_lists", UsersetsField(h.user_lists)},
          {"xuser_lists", UsersetsField(h.xuser_lists)},
          {"projects", ProjectsField(h.projects)},
          {"xprojects", ProjectsField(h.xprojects)},
          {"usage_scaling", KeptAsWritten()},  // accounting-side settings
          {"report_variables", KeptAsWritten()},
      }};
  if (Status st = ApplyAttributeTable(s_, block, table, who); !st.ok()) return st;
  if (global) {
    GlobalHost& g = s_.cluster.global;
    g.complex_values = std::move(h.complex_values);
    g.load_values = std::move(h.load_values);
    g.user_lists = std::move(h.user_lists);
    g.xuser_lists = std::move(h.xuser_lists);
    g.projects = std::move(h.projects);
    g.xprojects = std::move(h.xprojects);
  }
  return Status::Ok();
}

// load_values: attribute=value items; one the complex lacks is warned about (naming `who`) and skipped.
Reason ClusterBuilder::LoadValuesFrom(const Attribute& a, const std::string& who, ComplexValueList& out) {
  out.clear();
  for (std::string_view item : SplitList(a.value)) {
    const std::size_t eq = item.find('=');
    if (eq == std::string_view::npos) return "expected name=value, not " + Quote(item);
    if (!FindComplex(item.substr(0, eq))) {
      Warn(a.line, who + ": load value " + Quote(item.substr(0, eq)) + " has no complex attribute and is ignored");
      continue;
    }
    ComplexValueList one;
    if (Reason why = ComplexValuesFrom(item, one)) return why;
    out.push_back(one.front());
  }
  return std::nullopt;
}

// load_scaling: attribute=factor items.
Reason ClusterBuilder::LoadScalingFrom(std::string_view text, std::vector<std::pair<ComplexId, double>>& out) const {
  out.clear();
  for (std::string_view item : SplitList(text)) {
    const std::size_t eq = item.find('=');
    auto id = eq == std::string_view::npos ? std::nullopt : FindComplex(item.substr(0, eq));
    auto d = eq == std::string_view::npos ? std::nullopt : ParseGeNumber(item.substr(eq + 1));
    if (!id || !d) return "expected attribute=factor, not " + Quote(item);
    out.emplace_back(*id, *d);
  }
  return std::nullopt;
}

// --- parallel environments -------------------------------------------------------------------------

namespace {

// allocation_rule: $pe_slots, $fill_up, $round_robin, or a fixed number of slots per host.
Reason AllocationRuleValue(std::string_view v, ParallelEnvironment& pe) {
  if (v == "$pe_slots") pe.allocation_rule = AllocationRule::kPeSlots;
  else if (v == "$fill_up") pe.allocation_rule = AllocationRule::kFillUp;
  else if (v == "$round_robin") pe.allocation_rule = AllocationRule::kRoundRobin;
  else if (auto n = ParseUnsigned(v); n && *n > 0 && *n <= UINT32_MAX) {
    pe.allocation_rule = AllocationRule::kFixed;
    pe.slots_per_host = static_cast<std::uint32_t>(*n);
  } else {
    return "expected $pe_slots, $fill_up, $round_robin or a positive number, not " + Quote(v);
  }
  return std::nullopt;
}

// urgency_slots: min, max, avg, or a fixed slot count.
Reason UrgencySlotsValue(std::string_view v, ParallelEnvironment& pe) {
  if (EqualsIgnoreCase(v, "min")) pe.urgency_slots = UrgencySlots::kMin;
  else if (EqualsIgnoreCase(v, "max")) pe.urgency_slots = UrgencySlots::kMax;
  else if (EqualsIgnoreCase(v, "avg")) pe.urgency_slots = UrgencySlots::kAvg;
  else if (auto n = ParseUnsigned(v); n && *n <= UINT32_MAX) {
    pe.urgency_slots = UrgencySlots::kFixed;
    pe.urgency_slots_fixed = static_cast<std::uint32_t>(*n);
  } else {
    return "expected min, max, avg or a number, not " + Quote(v);
  }
  return std::nullopt;
}

}  // namespace

Status ClusterBuilder::BuildPe(const ObjectBlock& block) {
  ParallelEnvironment& pe = s_.cluster.pes[*s_.names.pes.Find(block.name)];
  bool forks_slaves = false;  // daemon_forks_slaves, master_forks_slaves: checked, then left to execd
  AttributeTable table{RepeatedKey::kApplied,
                       {
                           {"pe_name", SameAs(block.name)},
                           {"slots", CountField(pe.slots, "a slot count", 9999999)},
                           {"user_lists", UsersetsField(pe.user_lists)},
                           {"xuser_lists", UsersetsField(pe.xuser_lists)},
                           {"allocation_rule", FieldFrom(pe, AllocationRuleValue)},
                           {"urgency_slots", FieldFrom(pe, UrgencySlotsValue)},
                           {"control_slaves", FlagField(pe.control_slaves)},
                           {"job_is_first_task", FlagField(pe.job_is_first_task)},
                           {"accounting_summary", FlagField(pe.accounting_summary)},
                           {"daemon_forks_slaves", FlagField(forks_slaves)},
                           {"master_forks_slaves", FlagField(forks_slaves)},
                       }};
  // Commands execd runs: kept as written.
  static constexpr std::string_view kCommands[] = {"start_proc_args", "stop_proc_args", "qsort_args"};
  AddRows(table, kCommands, KeptAsWritten());
  return ApplyAttributeTable(s_, block, table, "pe " + block.name);
}

// --- queues --------------------------------------------------------------------------------------------

namespace {

// A per-host attribute, "default,[host=value],[@group=value],...", each value read by `parse`. A reason
// about an override names its target.
template <class T>
AttributeHandler PerHostField(Names& names, PerHost<T>& field, std::type_identity_t<ValueParser<T>> parse) {
  return [&names, &field, parse = std::move(parse)](const Attribute& a) -> Reason {
    std::string why;
    auto split = SplitOverrides(a.value, why);
    if (!split) return why;
    if (split->default_value.empty()) return "missing the default value";
    field.group_values.clear();
    field.host_values.clear();
    if (Reason e = parse(split->default_value, field.default_value)) return e;
    for (const auto& [target, text] : split->overrides) {
      T value{};
      if (Reason e = parse(text, value)) return "[" + std::string(target) + "=...]: " + *e;
      if (target.front() == '@') {
        auto g = names.hostgroups.Find(target);
        if (!g) return "unknown hostgroup " + Quote(target);
        field.group_values.emplace_back(HostgroupId(*g), std::move(value));
      } else {
        field.host_values.emplace_back(HostId(names.hosts.Intern(target)), std::move(value));
      }
    }
    return std::nullopt;
  };
}

Reason IntegerValue(std::string_view t, std::int64_t& out) {
  auto v = ParseInteger(t);
  if (!v) return "expected an integer, not " + Quote(t);
  out = *v;
  return std::nullopt;
}

Reason QueueCountValue(std::string_view t, std::uint32_t& out) {
  auto v = ParseUnsigned(t);
  if (!v || *v > 9999999) return "expected a non-negative count, not " + Quote(t);
  out = static_cast<std::uint32_t>(*v);
  return std::nullopt;
}

Reason MemoryValue(std::string_view t, double& out) {
  auto v = ParseGeNumber(t);
  if (!v) return "expected a memory size or INFINITY, not " + Quote(t);
  out = *v;
  return std::nullopt;
}

Reason QueueTypeValue(std::string_view t, std::uint8_t& out) {
  out = 0;
  for (std::string_view word : SplitList(t)) {
    if (EqualsIgnoreCase(word, "BATCH")) out |= kQueueBatch;
    else if (EqualsIgnoreCase(word, "INTERACTIVE")) out |= kQueueInteractive;
    else if (EqualsIgnoreCase(word, "PARALLEL")) out |= kQueueParallel;
    else if (EqualsIgnoreCase(word, "CHECKPOINTING")) out |= kQueueCheckpointing;
    else return "expected BATCH, INTERACTIVE, PARALLEL or CHECKPOINTING, not " + Quote(word);
  }
  return std::nullopt;
}

// The states qstat -f prints for an instance (schedk's `states` attribute):
// d D s S C P E u o close it; alarms (a A) schedk computes from the
// thresholds itself, and c (configuration ambiguous) changes nothing.
Reason ClosedStatesValue(std::string_view t, std::uint8_t& out) {
  out = 0;
  if (IsNone(t)) return std::nullopt;
  for (char letter : t) {
    if (std::string_view("aAcCdDEoPsSu").find(letter) == std::string_view::npos) {
      return "expected qstat's state letters (a A c C d D E o P s S u) or NONE, not " + Quote(t);
    }
    if (std::string_view("CdDEoPsSu").find(letter) != std::string_view::npos) out = 1;
  }
  return std::nullopt;
}

Reason AnyTextValue(std::string_view, std::string&) { return std::nullopt; }

}  // namespace

Status ClusterBuilder::BuildQueue(const ObjectBlock& block) {
  // Limits and settings execd applies: checked, then left (schedk plans no CPU time, memory or commands).
  static constexpr std::string_view kCpuLimits[] = {"s_cpu", "h_cpu"};
  static constexpr std::string_view kMemoryLimits[] = {"s_fsize", "h_fsize", "s_data", "h_data", "s_stack", "h_stack",
                                                       "s_core",  "h_core",  "s_rss",  "h_rss",  "s_vmem",  "h_vmem"};
  static constexpr std::string_view kTextAttributes[] = {
      "priority", "processors", "ckpt_list", "rerun", "tmpdir", "shell", "prolog", "epilog", "shell_start_mode",
      "starter_method", "suspend_method", "resume_method", "terminate_method", "notify", "owner_list",
      "subordinate_list", "calendar", "initial_state", "min_cpu_interval", "jc_list"};
  ClusterQueue& q = s_.cluster.queues[*s_.names.queues.Find(block.name)];
  auto per_host = [this](auto& field, auto parse) { return PerHostField(s_.names, field, parse); };
  auto complex_values = [this](std::string_view t, ComplexValueList& out) { return ComplexValuesFrom(t, out); };
  auto usersets = [this](std::string_view t, std::vector<UsersetId>& out) { return UsersetsFrom(t, out); };
  auto projects = [this](std::string_view t, std::vector<ProjectId>& out) { return ProjectsFrom(t, out); };
  auto pes = [this](std::string_view t, std::vector<PeId>& out) { return PesFrom(t, out); };
  // The rows of the execd-side lists read into these, which are then dropped.
  PerHost<Duration> cpu_limit;
  PerHost<double> memory_limit;
  PerHost<std::string> text;
  AttributeTable table{RepeatedKey::kRefused,
                       {
                           {"qname", SameAs(block.name)},
                           {"hostlist", [this, &q](const Attribute& a) { return QueueHostsFrom(a.value, q.hosts); }},
                           {"seq_no", per_host(q.seq_no, IntegerValue)},
                           {"load_thresholds", per_host(q.load_thresholds, complex_values)},
                           {"suspend_thresholds", per_host(q.suspend_thresholds, complex_values)},
                           {"nsuspend", per_host(q.nsuspend, QueueCountValue)},
                           {"suspend_interval", per_host(q.suspend_interval, DurationValue)},
                           {"qtype", per_host(q.qtype, QueueTypeValue)},
                           {"pe_list", per_host(q.pe_list, pes)},
                           {"slots", per_host(q.slots, QueueCountValue)},
                           {"complex_values", per_host(q.complex_values, complex_values)},
                           {"user_lists", per_host(q.user_lists, usersets)},
                           {"xuser_lists", per_host(q.xuser_lists, usersets)},
                           {"projects", per_host(q.projects, projects)},
                           {"xprojects", per_host(q.xprojects, projects)},
                           {"h_rt", per_host(q.h_rt, DurationValue)},
                           {"s_rt", per_host(q.s_rt, DurationValue)},
                           {"states", per_host(q.closed, ClosedStatesValue)},
                       }};
  AddRows(table, kCpuLimits, per_host(cpu_limit, DurationValue));
  AddRows(table, kMemoryLimits, per_host(memory_limit, MemoryValue));
  AddRows(table, kTextAttributes, per_host(text, AnyTextValue));
  return ApplyAttributeTable(s_, block, table, "queue " + block.name);
}

// hostlist: hosts and @hostgroups (their resolved hosts), sorted and unique.
Reason ClusterBuilder::QueueHostsFrom(std::string_view text, std::vector<HostId>& out) {
  out.clear();
  for (std::string_view member : SplitList(text)) {
    if (member.front() == '@') {
      auto g = s_.names.hostgroups.Find(member);
      if (!g) return "unknown hostgroup " + Quote(member);
      const auto& hosts = s_.cluster.hostgroups[*g].hosts;
      out.insert(out.end(), hosts.begin(), hosts.end());
    } else {
      out.emplace_back(s_.names.hosts.Intern(member));
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return std::nullopt;
}

Reason ClusterBuilder::PesFrom(std::string_view text, std::vector<PeId>& out) const {
  out.clear();
  for (std::string_view name : SplitList(text)) {
    auto id = s_.names.pes.Find(name);
    if (!id) return "unknown parallel environment " + Quote(name);
    out.emplace_back(*id);
  }
  return std::nullopt;
}

const char* UsageKindName(UsageKind kind) {
  switch (kind) {
    case UsageKind::kUser: return "user";
    case UsageKind::kProject: return "project";
    case UsageKind::kGroup: return "group";
    case UsageKind::kQos: return "qos";
    case UsageKind::kClass: return "class";
  }
  return "user";
}

// --- the whole build ----------------------------------------------------------------------------------

Status ClusterBuilder::Build() {
  const ObjectBlock* complex_block = nullptr;
  const ObjectBlock* sconf_block = nullptr;
  for (const ObjectBlock& b : s_.blocks) {
    if (b.kind == "complex") complex_block = &b;
    if (b.kind == "sconf") sconf_block = &b;
  }
  if (Status st = BuildComplex(complex_block); !st.ok()) return st;
  InternNames();
  // Without an sconf block every key takes its install default.
  const ObjectBlock no_sconf{"sconf", "", 0, {}, {}, ""};
  if (Status st = BuildSchedulerConfig(sconf_block != nullptr ? *sconf_block : no_sconf); !st.ok()) return st;
  // The other objects, kind by kind, each after the kinds its attributes
  // name: usersets and projects before the users, hosts, PEs and queues that
  // list them, hostgroups (resolved once all are read) before the hosts and
  // queues. A step builds its kinds' blocks in file order, then finishes.
  struct Step {
    std::string_view kinds[2];
    Status (ClusterBuilder::*build)(const ObjectBlock&);
    Status (ClusterBuilder::*finish)();
  };
  static constexpr Step kSteps[] = {
      {{"conf"}, &ClusterBuilder::BuildClusterConfig, nullptr},
      {{"department"}, &ClusterBuilder::BuildUserset, nullptr},
      {{"project"}, &ClusterBuilder::BuildProject, nullptr},
      {{"user"}, &ClusterBuilder::BuildUser, nullptr},
      {{"hostgroup"}, &ClusterBuilder::ReadHostgroup, &ClusterBuilder::ResolveHostgroups},
      {{"global", "exechost"}, &ClusterBuilder::BuildHost, nullptr},
      {{"pe"}, &ClusterBuilder::BuildPe, nullptr},
      {{"queue"}, &ClusterBuilder::BuildQueue, nullptr},
  };
  for (const Step& step : kSteps) {
    s_.cluster.hosts.resize(s_.names.hosts.size());  // hosts named by hostlists so far
    for (const ObjectBlock& b : s_.blocks) {
      if (b.kind != step.kinds[0] && b.kind != step.kinds[1]) continue;
      if (Status st = (this->*step.build)(b); !st.ok()) return st;
    }
    if (step.finish != nullptr) {
      if (Status st = (this->*step.finish)(); !st.ok()) return st;
    }
  }
  s_.cluster.hosts.resize(s_.names.hosts.size());  // hosts named only in queue hostlists
  return Status::Ok();
}

// Names of every object first, so references resolve whatever the block order; then the tables indexed
// by them take their sizes.
void ClusterBuilder::InternNames() {
  for (const ObjectBlock& b : s_.blocks) {
    const BlockKind* kind = FindBlockKind(b.kind);
    if (kind != nullptr && kind->names != nullptr) (s_.names.*kind->names).Intern(b.name);
  }
  EntityTables& entities = s_.cluster.entities;
  if (!s_.names.usersets.Find("defaultdepartment")) s_.names.usersets.Intern("defaultdepartment");
  entities.usersets.resize(s_.names.usersets.size());
  entities.default_department = UsersetId(*s_.names.usersets.Find("defaultdepartment"));
  entities.usersets[entities.default_department.index()].is_department = true;
  entities.projects.resize(s_.names.projects.size());
  s_.cluster.hostgroups.resize(s_.names.hostgroups.size());
  s_.cluster.pes.resize(s_.names.pes.size());
  s_.cluster.queues.resize(s_.names.queues.size());
}

Status ClusterBuilder::ApplyLoad(const std::vector<LoadLine>& loads) {
  for (const LoadLine& l : loads) {
    ComplexValueList* target = nullptr;
    if (l.host == "global") {
      target = &s_.cluster.global.load_values;
    } else if (auto h = s_.names.hosts.Find(l.host)) {
      target = &s_.cluster.hosts[*h].load_values;
    } else {
      return Error(l.line, "load: unknown host " + Quote(l.host));
    }
    for (std::string_view item : SplitList(l.values)) {
      const std::size_t eq = item.find('=');
      if (eq == std::string_view::npos)
        return Error(l.line, "load " + l.host + ": expected name=value, not " + Quote(item));
      if (!FindComplex(item.substr(0, eq))) {
        Warn(l.line, "load " + l.host + ": " + Quote(item.substr(0, eq)) + " has no complex attribute and is ignored");
        continue;
      }
      ComplexValueList one;
      if (auto e = ComplexValuesFrom(item, one)) return Error(l.line, "load " + l.host + ": " + *e);
      auto existing = std::find_if(target->begin(), target->end(),
                                   [&](const ComplexValue& v) { return v.complex == one.front().complex; });
      if (existing != target->end()) *existing = one.front();
      else target->push_back(one.front());
    }
  }
  return Status::Ok();
}

Status ClusterBuilder::ApplyHostStates(const std::vector<HostStateLine>& states) {
  for (const HostStateLine& l : states) {
    auto h = s_.names.hosts.Find(l.host);
    if (!h) return Error(l.line, "hoststate: unknown host " + Quote(l.host));
    s_.cluster.hosts[*h].down = l.down;
  }
  return Status::Ok();
}

Status ClusterBuilder::ParseUsage(int line, std::string_view text, UsageRecord& out) const {
  for (std::string_view item : SplitList(text)) {
    const std::size_t eq = item.find('=');
    auto d = eq == std::string_view::npos ? std::nullopt : ParseGeNumber(item.substr(eq + 1));
    if (!d || *d < 0 || *d > kLargestAmount) {
      return Error(line, "usage: expected name=value with a number from 0 to 1e300, not " + Quote(item));
    }
    const std::string name(item.substr(0, eq));
    for (const UsageValue& v : out.values) {
      if (v.name == name) return Error(line, "usage: " + Quote(name) + " is given twice");
    }
    out.values.push_back({name, *d});
  }
  return Status::Ok();
}

Status ClusterBuilder::FinishUsers(const std::vector<UsageLine>& usage) {
  for (const UsageLine& u : usage) {
    if (u.kind == UsageKind::kUser) s_.names.users.Intern(u.name);
  }
  EntityTables& entities = s_.cluster.entities;
  const SchedulerConfig& c = s_.cluster.config;
  entities.users.resize(s_.names.users.size());
  for (User& user : entities.users) {
    if (user.declared) continue;
    user.fshare = c.auto_user_fshare;
    user.oticket = c.auto_user_oticket;
    user.default_project = c.auto_user_default_project;
  }
  std::set<std::tuple<UsageKind, std::string, std::string>> seen;
  for (const UsageLine& u : usage) {
    if (!seen.insert({u.kind, u.name, u.project}).second) {
      return Error(u.line, "usage: " + std::string(UsageKindName(u.kind)) + " " + u.name + " is given twice");
    }
    UsageRecord record;
    record.time_stamp = u.at;
    if (Status st = ParseUsage(u.line, u.values, record); !st.ok()) return st;
    if (u.kind != UsageKind::kUser && u.kind != UsageKind::kProject) continue;  // Maui's alone
    if (u.kind == UsageKind::kProject) {
      auto p = s_.names.projects.Find(u.name);
      if (!p) return Error(u.line, "usage: unknown project " + Quote(u.name));
      entities.projects[*p].usage = std::move(record);
    } else {
      User& user = entities.users[*s_.names.users.Find(u.name)];
      if (u.project.empty()) {
        user.usage = std::move(record);
      } else {
        auto p = s_.names.projects.Find(u.project);
        if (!p) return Error(u.line, "usage: unknown project " + Quote(u.project));
        user.project_usage.emplace_back(ProjectId(*p), std::move(record));
      }
    }
  }
  return Status::Ok();
}

// One `id=` stanza of the sharetree block and the lines after it.
struct ClusterBuilder::ShareStanza {
  int line = 0;
  std::optional<std::uint64_t> id;
  std::string name;
  std::uint32_t shares = 0;
  std::vector<std::uint64_t> children;
};

Status ClusterBuilder::BuildShareTree() {
  auto stree =
      std::find_if(s_.blocks.begin(), s_.blocks.end(), [](const ObjectBlock& b) { return b.kind == "sharetree"; });
  if (stree == s_.blocks.end()) return Status::Ok();
  const ObjectBlock& block = *stree;
  std::vector<ShareStanza> stanzas;
  if (Status st = ReadShareStanzas(block, stanzas); !st.ok()) return st;
  if (stanzas.empty()) return Status::Ok();
  std::unordered_map<std::uint64_t, std::uint32_t> index;
  for (std::uint32_t i = 0; i < stanzas.size(); ++i) {
    if (stanzas[i].name.empty())
      return Error(stanzas[i].line, "sharetree: node " + std::to_string(*stanzas[i].id) + " has no name");
    if (!index.emplace(*stanzas[i].id, i).second) {
      return Error(stanzas[i].line, "sharetree: node id " + std::to_string(*stanzas[i].id) + " is defined twice");
    }
  }
  ShareTree& tree = s_.cluster.share_tree;
  tree.nodes.resize(stanzas.size());
  std::vector<int> parents(stanzas.size(), 0);
  for (std::uint32_t i = 0; i < stanzas.size(); ++i) {
    ShareTreeNode& node = tree.nodes[i];
    node.shares = stanzas[i].shares;
    node.is_default = stanzas[i].name == "default";
    if (auto u = s_.names.users.Find(stanzas[i].name)) node.user = UserId(*u);
    if (auto p = s_.names.projects.Find(stanzas[i].name)) node.project = ProjectId(*p);
    for (std::uint64_t c : stanzas[i].children) {
      auto it = index.find(c);
      if (it == index.end())
        return Error(stanzas[i].line, "sharetree: childnodes names unknown node " + std::to_string(c));
      node.children.emplace_back(it->second);
      if (++parents[it->second] > 1) {
        return Error(stanzas[it->second].line, "sharetree: node " + std::to_string(c) + " has more than one parent");
      }
    }
    s_.names.share_nodes.push_back(stanzas[i].name);
  }
  std::vector<std::uint32_t> roots;
  for (std::uint32_t i = 0; i < stanzas.size(); ++i) {
    if (parents[i] == 0) roots.push_back(i);
  }
  if (roots.size() != 1)
    return Error(block.line, "sharetree: expected exactly one root node, found " + std::to_string(roots.size()));
  tree.root = ShareNodeId(roots[0]);
  return CheckShareTreeReach(block, stanzas);
}

Status ClusterBuilder::ReadShareStanzas(const ObjectBlock& block, std::vector<ShareStanza>& stanzas) {
  for (const Attribute& raw : block.attributes) {
    // Lines are key=value; the block reader split them at the first blank.
    const std::string line = raw.value.empty() ? raw.key : raw.key + " " + raw.value;
    const std::size_t eq = line.find('=');
    if (eq == std::string::npos) return Error(raw.line, "sharetree: expected key=value, not " + Quote(line));
    const std::string key = std::string(Trim(std::string_view(line).substr(0, eq)));
    const std::string_view value = Trim(std::string_view(line).substr(eq + 1));
    auto fail = [&](const std::string& what) {
      return Error(raw.line, "sharetree: attribute " + Quote(key) + ": " + what);
    };
    if (key == "id") {
      auto v = ParseUnsigned(value);
      if (!v) return fail("expected a node number, not " + Quote(value));
      stanzas.push_back(ShareStanza{raw.line, *v, {}, 0, {}});
      continue;
    }
    if (stanzas.empty()) return fail("comes before the first id=");
    ShareStanza& s = stanzas.back();
    if (key == "name") {
      s.name = std::string(value);
    } else if (key == "type") {
      if (value != "0" && value != "1") return fail("expected 0 (user) or 1 (project)");
    } else if (key == "shares") {
      auto v = ParseUnsigned(value);
      if (!v || *v > UINT32_MAX) return fail("expected a non-negative integer, not " + Quote(value));
      s.shares = static_cast<std::uint32_t>(*v);
    } else if (key == "childnodes") {
      for (std::string_view c : SplitList(value)) {
        auto v = ParseUnsigned(c);
        if (!v) return fail("expected node numbers, not " + Quote(c));
        s.children.push_back(*v);
      }
    } else {
      Warn(raw.line, "sharetree: unknown attribute " + Quote(key) + " kept but not interpreted");
    }
  }
  return Status::Ok();
}

// Every node must hang below the root (no cycles), at most kMaxShareTreeDepth levels down.
Status ClusterBuilder::CheckShareTreeReach(const ObjectBlock& block, const std::vector<ShareStanza>& stanzas) const {
  const ShareTree& tree = s_.cluster.share_tree;
  std::vector<bool> reached(stanzas.size(), false);
  std::vector<std::pair<std::uint32_t, int>> walk = {{tree.root.index(), 0}};
  std::size_t count = 0;
  while (!walk.empty()) {
    const auto [n, depth] = walk.back();
    walk.pop_back();
    if (reached[n]) continue;
    if (depth > kMaxShareTreeDepth) {
      return Error(stanzas[n].line, "sharetree: node " + std::to_string(*stanzas[n].id) + " is more than " +
                                        std::to_string(kMaxShareTreeDepth) + " levels below the root");
    }
    reached[n] = true;
    ++count;
    for (ShareNodeId c : tree.nodes[n].children) walk.emplace_back(c.index(), depth + 1);
  }
  if (count != stanzas.size()) return Error(block.line, "sharetree: some nodes are not below the root (a cycle)");
  return Status::Ok();
}

}  // namespace schedk::io
