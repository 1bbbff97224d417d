#include "io/cluster_builder.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <map>
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

Status ClusterBuilder::ErrorAt(const ObjectBlock& block, const Attribute& a, const std::string& what) const {
  std::string where = block.kind;
  if (!block.name.empty()) where += " " + block.name;
  return Error(a.line, where + ": attribute " + Quote(a.key) + ": " + what);
}

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
    auto type = ParseValueType(c[2]);
    if (!type) return fail("unknown type " + Quote(c[2]));
    a.type = *type;
    auto relop = ParseRelop(c[3]);
    if (!relop) return fail("unknown relational operator " + Quote(c[3]));
    a.relop = *relop;
    auto requestable = ParseRequestable(c[4]);
    if (!requestable) return fail("requestable must be YES, NO or FORCED, not " + Quote(c[4]));
    a.requestable = *requestable;
    auto consumable = ParseConsumable(c[5]);
    if (!consumable) return fail("consumable must be YES, NO, JOB or HOST, not " + Quote(c[5]));
    a.consumable = *consumable;
    if (a.consumable != Consumable::kNo && !IsNumeric(a.type)) return fail("only numeric types can be consumable");
    if (a.relop == Relop::kExcl && !(a.type == ValueType::kBool && a.consumable != Consumable::kNo)) {
      return fail("EXCL is only valid for consumable BOOL attributes");
    }
    if (!IsNumeric(a.type) && a.relop != Relop::kEq && a.relop != Relop::kNe) {
      return fail("string types allow only == and !=");
    }
    if (IsNumeric(a.type)) {
      auto d = IsNone(c[6]) ? std::optional<double>(0) : ParseTypedNumber(c[6], a.type);
      if (!d) return fail("malformed default " + Quote(c[6]));
      a.default_value = *d;
    } else if (!IsNone(c[6])) {
      a.default_text = std::string(c[6]);
    }
    auto urgency = ParseGeNumber(c[7]);
    if (!urgency) return fail("malformed urgency " + Quote(c[7]));
    a.urgency = *urgency;
    a.urgency_valid = true;
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
  }
  return Status::Ok();
}

// --- scheduler configuration --------------------------------------------------------------------

Status ClusterBuilder::BuildSchedulerConfig(const ObjectBlock& block) {
  SchedulerConfig& c = s_.cluster.config;
  bool job_load_adjustments_given = false;
  using Handler = std::function<std::optional<std::string>(std::string_view)>;
  auto real = [](double& field) -> Handler {
    return [&field](std::string_view v) -> std::optional<std::string> {
      auto d = ParseGeNumber(v);
      if (!d || !std::isfinite(*d) || *d == DBL_MAX) return "expected a number";
      field = *d;
      return std::nullopt;
    };
  };
  auto count = [](std::uint32_t& field) -> Handler {
    return [&field](std::string_view v) -> std::optional<std::string> {
      auto d = ParseUnsigned(v);
      if (!d || *d > UINT32_MAX) return "expected a non-negative integer";
      field = static_cast<std::uint32_t>(*d);
      return std::nullopt;
    };
  };
  auto tickets = [](double& field) -> Handler {
    return [&field](std::string_view v) -> std::optional<std::string> {
      auto d = ParseUnsigned(v);
      if (!d || *d > UINT32_MAX) return "expected a non-negative integer number of tickets";
      field = static_cast<double>(*d);
      return std::nullopt;
    };
  };
  auto flag = [](bool& field) -> Handler {
    return [&field](std::string_view v) -> std::optional<std::string> {
      auto b = ParseBool(v);
      if (!b) return "expected TRUE or FALSE";
      field = *b;
      return std::nullopt;
    };
  };
  auto duration = [](Duration& field) -> Handler {
    return [&field](std::string_view v) -> std::optional<std::string> {
      auto d = ParseDuration(v);
      if (!d) return "expected a time (seconds, h:m:s or INFINITY)";
      field = *d;
      return std::nullopt;
    };
  };
  auto ignored = [](std::string_view) -> std::optional<std::string> { return std::nullopt; };
  auto usage_list = [](std::vector<UsageValue>& field, char separator) -> Handler {
    return [&field, separator](std::string_view v) -> std::optional<std::string> {
      field.clear();
      if (IsNone(v)) return std::nullopt;
      std::size_t start = 0;
      for (std::size_t i = 0; i <= v.size(); ++i) {
        if (i < v.size() && v[i] != separator) continue;
        const std::string_view item = Trim(v.substr(start, i - start));
        start = i + 1;
        const std::size_t eq = item.find('=');
        if (eq == std::string_view::npos) return "expected name=value items";
        auto d = ParseGeNumber(Trim(item.substr(eq + 1)));
        if (!d) return "malformed value in " + Quote(item);
        field.push_back({std::string(Trim(item.substr(0, eq))), *d});
      }
      return std::nullopt;
    };
  };
  std::map<std::string, Handler, std::less<>> handlers = {
      {"algorithm", ignored},
      {"schedule_interval", duration(c.schedule_interval)},
      {"maxujobs", count(c.maxujobs)},
      {"queue_sort_method",
       [&c](std::string_view v) -> std::optional<std::string> {
         if (EqualsIgnoreCase(v, "load")) c.queue_sort_method = QueueSortMethod::kLoad;
         else if (EqualsIgnoreCase(v, "seqno")) c.queue_sort_method = QueueSortMethod::kSeqNo;
         else return "expected load or seqno";
         return std::nullopt;
       }},
      {"job_load_adjustments",
       [&](std::string_view v) -> std::optional<std::string> {
         job_load_adjustments_given = true;
         c.job_load_adjustments.clear();
         for (std::string_view item : SplitList(v)) {
           const std::size_t eq = item.find('=');
           if (eq == std::string_view::npos) return "expected name=value items";
           auto id = FindComplex(item.substr(0, eq));
           if (!id) return "unknown complex attribute " + Quote(item.substr(0, eq));
           auto d = ParseGeNumber(item.substr(eq + 1));
           if (!d) return "malformed value in " + Quote(item);
           c.job_load_adjustments.emplace_back(*id, *d);
         }
         return std::nullopt;
       }},
      {"load_adjustment_decay_time", duration(c.load_adjustment_decay_time)},
      {"load_formula",
       [&c](std::string_view v) -> std::optional<std::string> {
         c.load_formula = std::string(v);
         return std::nullopt;
       }},
      {"schedd_job_info", ignored},
      {"flush_submit_sec", ignored},
      {"flush_finish_sec", ignored},
      {"params",
       [&](std::string_view v) -> std::optional<std::string> {
         for (std::string_view item : SplitList(v)) {
           const std::size_t eq = item.find('=');
           const std::string_view key = item.substr(0, eq);
           const std::string_view value = eq == std::string_view::npos ? "1" : item.substr(eq + 1);
           if (key == "MONITOR" || key == "PROFILE") {
             auto b = ParseBool(value);
             if (!b) return std::string(key) + " must be 0 or 1";
             (key == "MONITOR" ? c.monitor : c.profile) = *b;
           } else if (key == "DURATION_OFFSET") {
             auto d = ParseDuration(value);
             if (!d) return "DURATION_OFFSET must be a time";
             c.duration_offset = *d;
           } else if (key == "RESERVE_IN_GAPS") {
             auto b = ParseBool(value);
             if (!b) return std::string(key) + " must be 0 or 1";
             c.reserve_in_gaps = *b;
           } else if (key == "PE_RANGE_ALG") {
             if (value != "auto" && value != "least" && value != "bin" && value != "highest") {
               return "PE_RANGE_ALG must be auto, least, bin or highest";
             }
             c.pe_range_alg = std::string(value);
           } else if (key == "PRIORITY_POLICY") {
             if (EqualsIgnoreCase(value, "ge")) c.priority_policy = PriorityPolicy::kGridEngine;
             else if (EqualsIgnoreCase(value, "maui")) c.priority_policy = PriorityPolicy::kMaui;
             else return std::string("PRIORITY_POLICY must be ge or maui");
           } else if (key == "PRIORITY_NORMALIZATION") {
             if (EqualsIgnoreCase(value, "ge")) c.normalization = PriorityNormalization::kGridEngine;
             else if (EqualsIgnoreCase(value, "pending")) c.normalization = PriorityNormalization::kPendingOnly;
             else if (EqualsIgnoreCase(value, "linear")) c.normalization = PriorityNormalization::kLinear;
             else return std::string("PRIORITY_NORMALIZATION must be ge, pending or linear");
           } else if (key == "FUNCTIONAL_SPLIT") {
             if (EqualsIgnoreCase(value, "ge")) c.functional_split = FunctionalSplit::kGridEngine;
             else if (EqualsIgnoreCase(value, "linear")) c.functional_split = FunctionalSplit::kLinear;
             else return std::string("FUNCTIONAL_SPLIT must be ge or linear");
           } else if (key == "SHARE_TREE_PENDING") {
             if (value == "6.2") c.share_tree_pending = ShareTreePending::kJobs;
             else if (value == "8.1") c.share_tree_pending = ShareTreePending::kSlots;
             else return std::string("SHARE_TREE_PENDING must be 6.2 or 8.1");
           } else if (key == "LINEAR_URGENCY_SCALE" || key == "LINEAR_TICKET_SCALE") {
             auto d = ParseGeNumber(value);
             const bool urgency = key == "LINEAR_URGENCY_SCALE";
             if (!d || !std::isfinite(*d) || *d <= 0 || *d == DBL_MAX) {
               return std::string(key) + " must be a positive number";
             }
             (urgency ? c.linear_urgency_scale : c.linear_ticket_scale) = *d;
           } else {
             unknown_params_.push_back(std::string(key));
           }
         }
         return std::nullopt;
       }},
      {"reprioritize_interval", duration(c.reprioritize_interval)},
      {"halftime",
       [&c](std::string_view v) -> std::optional<std::string> {
         auto d = ParseInteger(v);
         if (!d) return "expected whole hours";
         c.halftime_hours = *d;
         return std::nullopt;
       }},
      {"usage_weight_list", usage_list(c.usage_weight_list, ',')},
      {"compensation_factor", real(c.compensation_factor)},
      {"weight_user", real(c.weight_user)},
      {"weight_project", real(c.weight_project)},
      {"weight_department", real(c.weight_department)},
      {"weight_job", real(c.weight_job)},
      {"weight_tickets_functional", tickets(c.weight_tickets_functional)},
      {"weight_tickets_share", tickets(c.weight_tickets_share)},
      {"weight_tickets_override", ignored},  // written back by Grid Engine, not an input
      {"share_override_tickets", flag(c.share_override_tickets)},
      {"share_functional_shares", flag(c.share_functional_shares)},
      {"max_functional_jobs_to_schedule", count(c.max_functional_jobs_to_schedule)},
      {"report_pjob_tickets", flag(c.report_pjob_tickets)},
      {"max_pending_tasks_per_job", count(c.max_pending_tasks_per_job)},
      {"halflife_decay_list", usage_list(c.halflife_decay_list, ':')},
      {"policy_hierarchy",
       [&c](std::string_view v) -> std::optional<std::string> {
         c.policy_hierarchy.clear();
         if (IsNone(v)) return std::nullopt;
         for (char letter : v) {
           TicketPolicy p;
           switch (letter) {
             case 'O': case 'o': p = TicketPolicy::kOverride; break;
             case 'F': case 'f': p = TicketPolicy::kFunctional; break;
             case 'S': case 's': p = TicketPolicy::kShareTree; break;
             case 'D': case 'd': continue;  // the deadline policy letter is obsolete
             default: return "letters must be O, F, S (or NONE)";
           }
           if (std::find(c.policy_hierarchy.begin(), c.policy_hierarchy.end(), p) != c.policy_hierarchy.end()) {
             return "a policy letter appears twice";
           }
           c.policy_hierarchy.push_back(p);
         }
         return std::nullopt;
       }},
      {"weight_ticket", real(c.weight_ticket)},
      {"weight_waiting_time", real(c.weight_waiting_time)},
      {"weight_deadline", real(c.weight_deadline)},
      {"weight_urgency", real(c.weight_urgency)},
      {"weight_priority", real(c.weight_priority)},
      {"max_reservation", count(c.max_reservation)},
      {"default_duration", duration(c.default_duration)},
      {"auto_user_fshare", tickets(c.auto_user_fshare)},
      {"auto_user_oticket", tickets(c.auto_user_oticket)},
      {"auto_user_default_project",
       [&](std::string_view v) -> std::optional<std::string> {
         if (IsNone(v)) return std::nullopt;
         auto p = s_.names.projects.Find(v);
         if (!p) return "unknown project " + Quote(v);
         c.auto_user_default_project = ProjectId(*p);
         return std::nullopt;
       }},
  };
  std::set<std::string> seen;
  for (const Attribute& a : block.attributes) {
    if (!seen.insert(a.key).second) return ErrorAt(block, a, "given twice");
    auto h = handlers.find(a.key);
    if (h == handlers.end()) {
      Warn(a.line, "sconf: unknown attribute " + Quote(a.key) + " kept but not interpreted");
      continue;
    }
    if (a.key.rfind("auto_user_", 0) == 0) seen_auto_user_.insert(a.key);
    unknown_params_.clear();
    if (auto why = h->second(a.value)) return ErrorAt(block, a, *why + ", not " + Quote(a.value));
    for (const std::string& p : unknown_params_) Warn(a.line, "sconf: params: unknown parameter " + Quote(p) + " ignored");
  }
  if (!job_load_adjustments_given) {
    if (auto np = FindComplex("np_load_avg")) c.job_load_adjustments = {{*np, 0.50}};
  }
  c.load_formula_terms = ReadLoadFormula(c.load_formula);
  return Status::Ok();
}

// The cluster configuration (qconf -sconf, sge_conf(5)). The scheduler reads
// its auto_user_* keys (older snapshots give them in sconf, which still
// works) and max_aj_instances; the other keys serve qmaster and execd and are
// kept, unread.
Status ClusterBuilder::BuildClusterConfig(const ObjectBlock& block) {
  static const std::set<std::string, std::less<>> kUnread = {
      "execd_spool_dir", "mailer", "xterm", "load_sensor", "prolog", "epilog", "shell_start_mode", "login_shells",
      "min_uid", "min_gid", "user_lists", "xuser_lists", "administrator_mail", "projects", "xprojects",
      "load_report_time", "reschedule_unknown", "max_unheard", "loglevel", "max_aj_tasks",
      "max_u_jobs", "max_jobs", "max_advance_reservations", "enforce_project", "enforce_user",
      "auto_user_delete_time", "set_token_cmd", "pag_cmd", "token_extend_time", "shepherd_cmd", "gid_range",
      "qmaster_params", "execd_params", "reporting_params", "finished_jobs", "qlogin_daemon", "qlogin_command",
      "rlogin_daemon", "rlogin_command", "rsh_daemon", "rsh_command", "delegated_file_staging", "reprioritize",
      "jsv_url", "jsv_allowed_mod", "libjvm_path", "additional_jvm_args"};
  SchedulerConfig& c = s_.cluster.config;
  std::set<std::string> seen;
  for (const Attribute& a : block.attributes) {
    if (!seen.insert(a.key).second) return ErrorAt(block, a, "given twice");
    if (kUnread.count(a.key)) continue;
    if (a.key == "max_aj_instances") {
      auto v = ParseUnsigned(a.value);
      if (!v || *v > UINT32_MAX) return ErrorAt(block, a, "expected a non-negative integer number of tasks, not " + Quote(a.value));
      c.max_aj_instances = static_cast<std::uint32_t>(*v);
      continue;
    }
    if (a.key != "auto_user_fshare" && a.key != "auto_user_oticket" && a.key != "auto_user_default_project") {
      Warn(a.line, "conf: unknown attribute " + Quote(a.key) + " kept but not interpreted");
      continue;
    }
    if (seen_auto_user_.count(a.key)) return ErrorAt(block, a, "is also given in the sconf block");
    if (a.key == "auto_user_default_project") {
      if (IsNone(a.value)) continue;
      auto p = s_.names.projects.Find(a.value);
      if (!p) return ErrorAt(block, a, "unknown project " + Quote(a.value));
      c.auto_user_default_project = ProjectId(*p);
      continue;
    }
    auto v = ParseUnsigned(a.value);
    if (!v || *v > UINT32_MAX) return ErrorAt(block, a, "expected a non-negative integer number of tickets, not " + Quote(a.value));
    (a.key == "auto_user_fshare" ? c.auto_user_fshare : c.auto_user_oticket) = static_cast<double>(*v);
  }
  return Status::Ok();
}

// --- usersets, projects, users --------------------------------------------------------------------

std::optional<std::string> ClusterBuilder::UsersetsFrom(std::string_view text, std::vector<UsersetId>& out) const {
  out.clear();
  for (std::string_view name : SplitList(text)) {
    auto id = s_.names.usersets.Find(name);
    if (!id) return "unknown access list " + Quote(name);
    out.emplace_back(*id);
  }
  return std::nullopt;
}

std::optional<std::string> ClusterBuilder::ProjectsFrom(std::string_view text, std::vector<ProjectId>& out) const {
  out.clear();
  for (std::string_view name : SplitList(text)) {
    auto id = s_.names.projects.Find(name);
    if (!id) return "unknown project " + Quote(name);
    out.emplace_back(*id);
  }
  return std::nullopt;
}

std::optional<std::string> ClusterBuilder::ComplexValuesFrom(std::string_view text, ComplexValueList& out) const {
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

Status ClusterBuilder::BuildUserset(const ObjectBlock& block) {
  const UsersetId id(s_.names.usersets.Intern(block.name));
  Userset& u = s_.cluster.entities.usersets[id.index()];
  u.is_department = true;  // a `department` block is type DEPT unless its type says otherwise
  for (const Attribute& a : block.attributes) {
    if (a.key == "name") {
      if (a.value != block.name) return ErrorAt(block, a, "does not match the block name");
    } else if (a.key == "type") {
      u.is_department = u.is_access_list = false;
      for (std::string_view t : SplitList(a.value)) {
        if (EqualsIgnoreCase(t, "DEPT")) u.is_department = true;
        else if (EqualsIgnoreCase(t, "ACL")) u.is_access_list = true;
        else return ErrorAt(block, a, "type must be ACL and/or DEPT, not " + Quote(t));
      }
    } else if (a.key == "fshare" || a.key == "oticket") {
      auto v = ParseUnsigned(a.value);
      if (!v || *v > UINT32_MAX) return ErrorAt(block, a, "expected a non-negative integer, not " + Quote(a.value));
      (a.key == "fshare" ? u.fshare : u.oticket) = static_cast<double>(*v);
    } else if (a.key == "entries") {
      for (std::string_view e : SplitList(a.value)) {
        if (e.front() == '@') u.groups.emplace_back(s_.names.groups.Intern(e.substr(1)));
        else u.users.emplace_back(s_.names.users.Intern(e));
      }
    } else {
      Warn(a.line, "department " + block.name + ": unknown attribute " + Quote(a.key) + " kept but not interpreted");
    }
  }
  return Status::Ok();
}

Status ClusterBuilder::BuildProject(const ObjectBlock& block) {
  Project& p = s_.cluster.entities.projects[*s_.names.projects.Find(block.name)];
  for (const Attribute& a : block.attributes) {
    if (a.key == "name") {
      if (a.value != block.name) return ErrorAt(block, a, "does not match the block name");
    } else if (a.key == "fshare" || a.key == "oticket") {
      auto v = ParseUnsigned(a.value);
      if (!v || *v > UINT32_MAX) return ErrorAt(block, a, "expected a non-negative integer, not " + Quote(a.value));
      (a.key == "fshare" ? p.fshare : p.oticket) = static_cast<double>(*v);
    } else if (a.key == "acl") {
      if (auto e = UsersetsFrom(a.value, p.acl)) return ErrorAt(block, a, *e);
    } else if (a.key == "xacl") {
      if (auto e = UsersetsFrom(a.value, p.xacl)) return ErrorAt(block, a, *e);
    } else {
      Warn(a.line, "project " + block.name + ": unknown attribute " + Quote(a.key) + " kept but not interpreted");
    }
  }
  return Status::Ok();
}

Status ClusterBuilder::BuildUser(const ObjectBlock& block) {
  const UserId id(s_.names.users.Intern(block.name));
  if (s_.cluster.entities.users.size() <= id.index()) s_.cluster.entities.users.resize(id.index() + 1);
  User& u = s_.cluster.entities.users[id.index()];
  u.declared = true;
  for (const Attribute& a : block.attributes) {
    if (a.key == "name") {
      if (a.value != block.name) return ErrorAt(block, a, "does not match the block name");
    } else if (a.key == "fshare" || a.key == "oticket" || a.key == "delete_time") {
      auto v = ParseUnsigned(a.value);
      if (!v || *v > UINT32_MAX) return ErrorAt(block, a, "expected a non-negative integer, not " + Quote(a.value));
      if (a.key == "fshare") u.fshare = static_cast<double>(*v);
      if (a.key == "oticket") u.oticket = static_cast<double>(*v);
    } else if (a.key == "default_project") {
      if (IsNone(a.value)) continue;
      auto p = s_.names.projects.Find(a.value);
      if (!p) return ErrorAt(block, a, "unknown project " + Quote(a.value));
      u.default_project = ProjectId(*p);
    } else {
      Warn(a.line, "user " + block.name + ": unknown attribute " + Quote(a.key) + " kept but not interpreted");
    }
  }
  return Status::Ok();
}

// --- hosts and hostgroups ------------------------------------------------------------------------

Status ClusterBuilder::BuildHostgroups() {
  // Members first, then resolve nested groups (rejecting cycles).
  std::vector<std::vector<std::uint32_t>> direct_groups(s_.names.hostgroups.size());
  std::vector<std::vector<HostId>> direct_hosts(s_.names.hostgroups.size());
  for (const ObjectBlock& block : s_.blocks) {
    if (block.kind != "hostgroup") continue;
    const std::uint32_t g = *s_.names.hostgroups.Find(block.name);
    for (const Attribute& a : block.attributes) {
      if (a.key == "group_name") {
        if (a.value != block.name) return ErrorAt(block, a, "does not match the block name");
      } else if (a.key == "hostlist") {
        for (std::string_view member : SplitList(a.value)) {
          if (member.front() == '@') {
            auto sub = s_.names.hostgroups.Find(member);
            if (!sub) return ErrorAt(block, a, "unknown hostgroup " + Quote(member));
            direct_groups[g].push_back(*sub);
          } else {
            direct_hosts[g].emplace_back(s_.names.hosts.Intern(member));
          }
        }
      } else {
        Warn(a.line, "hostgroup " + block.name + ": unknown attribute " + Quote(a.key) + " kept but not interpreted");
      }
    }
  }
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

Status ClusterBuilder::BuildHost(const ObjectBlock& block, bool global) {
  ExecHost scratch;
  ExecHost& h = global ? scratch : s_.cluster.hosts[*s_.names.hosts.Find(block.name)];
  h.declared = true;
  for (const Attribute& a : block.attributes) {
    if (a.key == "hostname") {
      if (a.value != (global ? std::string("global") : block.name)) return ErrorAt(block, a, "does not match the block name");
    } else if (a.key == "complex_values") {
      if (auto e = ComplexValuesFrom(a.value, h.complex_values)) return ErrorAt(block, a, *e);
    } else if (a.key == "load_values") {
      h.load_values.clear();
      for (std::string_view item : SplitList(a.value)) {
        const std::size_t eq = item.find('=');
        if (eq == std::string_view::npos) return ErrorAt(block, a, "expected name=value, not " + Quote(item));
        auto id = FindComplex(item.substr(0, eq));
        if (!id) {
          Warn(a.line, block.kind + " " + block.name + ": load value " + Quote(item.substr(0, eq)) +
                           "' has no complex attribute and is ignored");
          continue;
        }
        ComplexValueList one;
        if (auto e = ComplexValuesFrom(item, one)) return ErrorAt(block, a, *e);
        h.load_values.push_back(one.front());
      }
    } else if (a.key == "load_scaling") {
      h.load_scaling.clear();
      for (std::string_view item : SplitList(a.value)) {
        const std::size_t eq = item.find('=');
        auto id = eq == std::string_view::npos ? std::nullopt : FindComplex(item.substr(0, eq));
        auto d = eq == std::string_view::npos ? std::nullopt : ParseGeNumber(item.substr(eq + 1));
        if (!id || !d) return ErrorAt(block, a, "expected attribute=factor, not " + Quote(item));
        h.load_scaling.emplace_back(*id, *d);
      }
    } else if (a.key == "processors") {
      auto v = ParseUnsigned(a.value);
      if (!v || *v > UINT32_MAX) return ErrorAt(block, a, "expected a non-negative integer, not " + Quote(a.value));
      h.processors = static_cast<std::uint32_t>(*v);
    } else if (a.key == "user_lists") {
      if (auto e = UsersetsFrom(a.value, h.user_lists)) return ErrorAt(block, a, *e);
    } else if (a.key == "xuser_lists") {
      if (auto e = UsersetsFrom(a.value, h.xuser_lists)) return ErrorAt(block, a, *e);
    } else if (a.key == "projects") {
      if (auto e = ProjectsFrom(a.value, h.projects)) return ErrorAt(block, a, *e);
    } else if (a.key == "xprojects") {
      if (auto e = ProjectsFrom(a.value, h.xprojects)) return ErrorAt(block, a, *e);
    } else if (a.key == "usage_scaling" || a.key == "report_variables") {
      // Accounting-side settings: kept as written.
    } else {
      Warn(a.line, block.kind + " " + block.name + ": unknown attribute " + Quote(a.key) + " kept but not interpreted");
    }
  }
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

// --- parallel environments -------------------------------------------------------------------------

Status ClusterBuilder::BuildPe(const ObjectBlock& block) {
  ParallelEnvironment& pe = s_.cluster.pes[*s_.names.pes.Find(block.name)];
  for (const Attribute& a : block.attributes) {
    const std::string& v = a.value;
    if (a.key == "pe_name") {
      if (v != block.name) return ErrorAt(block, a, "does not match the block name");
    } else if (a.key == "slots") {
      auto n = ParseUnsigned(v);
      if (!n || *n > 9999999) return ErrorAt(block, a, "expected a slot count, not " + Quote(v));
      pe.slots = static_cast<std::uint32_t>(*n);
    } else if (a.key == "user_lists") {
      if (auto e = UsersetsFrom(v, pe.user_lists)) return ErrorAt(block, a, *e);
    } else if (a.key == "xuser_lists") {
      if (auto e = UsersetsFrom(v, pe.xuser_lists)) return ErrorAt(block, a, *e);
    } else if (a.key == "allocation_rule") {
      if (v == "$pe_slots") pe.allocation_rule = AllocationRule::kPeSlots;
      else if (v == "$fill_up") pe.allocation_rule = AllocationRule::kFillUp;
      else if (v == "$round_robin") pe.allocation_rule = AllocationRule::kRoundRobin;
      else if (auto n = ParseUnsigned(v); n && *n > 0 && *n <= UINT32_MAX) {
        pe.allocation_rule = AllocationRule::kFixed;
        pe.slots_per_host = static_cast<std::uint32_t>(*n);
      } else {
        return ErrorAt(block, a, "expected $pe_slots, $fill_up, $round_robin or a positive number, not " + Quote(v));
      }
    } else if (a.key == "urgency_slots") {
      if (EqualsIgnoreCase(v, "min")) pe.urgency_slots = UrgencySlots::kMin;
      else if (EqualsIgnoreCase(v, "max")) pe.urgency_slots = UrgencySlots::kMax;
      else if (EqualsIgnoreCase(v, "avg")) pe.urgency_slots = UrgencySlots::kAvg;
      else if (auto n = ParseUnsigned(v); n && *n <= UINT32_MAX) {
        pe.urgency_slots = UrgencySlots::kFixed;
        pe.urgency_slots_fixed = static_cast<std::uint32_t>(*n);
      } else {
        return ErrorAt(block, a, "expected min, max, avg or a number, not " + Quote(v));
      }
    } else if (a.key == "control_slaves" || a.key == "job_is_first_task" || a.key == "accounting_summary" ||
               a.key == "daemon_forks_slaves" || a.key == "master_forks_slaves") {
      auto b = ParseBool(v);
      if (!b) return ErrorAt(block, a, "expected TRUE or FALSE, not " + Quote(v));
      if (a.key == "control_slaves") pe.control_slaves = *b;
      if (a.key == "job_is_first_task") pe.job_is_first_task = *b;
      if (a.key == "accounting_summary") pe.accounting_summary = *b;
    } else if (a.key == "start_proc_args" || a.key == "stop_proc_args" || a.key == "qsort_args") {
      // Commands run by execd: kept as written.
    } else {
      Warn(a.line, "pe " + block.name + ": unknown attribute " + Quote(a.key) + " kept but not interpreted");
    }
  }
  return Status::Ok();
}

// --- queues --------------------------------------------------------------------------------------------

Status ClusterBuilder::BuildQueue(const ObjectBlock& block) {
  ClusterQueue& q = s_.cluster.queues[*s_.names.queues.Find(block.name)];
  // Parses a per-host attribute with `parse(value_text, T&) -> optional<error>`.
  auto per_host = [&](const Attribute& a, auto& field, auto parse) -> Status {
    std::string why;
    auto split = SplitOverrides(a.value, why);
    if (!split) return ErrorAt(block, a, why);
    if (split->default_value.empty()) return ErrorAt(block, a, "missing the default value");
    field.group_values.clear();
    field.host_values.clear();
    if (auto e = parse(split->default_value, field.default_value)) return ErrorAt(block, a, *e);
    for (const auto& [target, text] : split->overrides) {
      typename std::remove_reference_t<decltype(field)>::value_type value{};
      if (auto e = parse(text, value)) return ErrorAt(block, a, "[" + std::string(target) + "=...]: " + *e);
      if (target.front() == '@') {
        auto g = s_.names.hostgroups.Find(target);
        if (!g) return ErrorAt(block, a, "unknown hostgroup " + Quote(target));
        field.group_values.emplace_back(HostgroupId(*g), std::move(value));
      } else {
        field.host_values.emplace_back(HostId(s_.names.hosts.Intern(target)), std::move(value));
      }
    }
    return Status::Ok();
  };
  using Error = std::optional<std::string>;
  auto integer = [](std::string_view t, std::int64_t& out) -> Error {
    auto v = ParseInteger(t);
    if (!v) return "expected an integer, not " + Quote(t);
    out = *v;
    return std::nullopt;
  };
  auto count = [](std::string_view t, std::uint32_t& out) -> Error {
    auto v = ParseUnsigned(t);
    if (!v || *v > 9999999) return "expected a non-negative count, not " + Quote(t);
    out = static_cast<std::uint32_t>(*v);
    return std::nullopt;
  };
  auto duration = [](std::string_view t, Duration& out) -> Error {
    auto v = ParseDuration(t);
    if (!v) return "expected a time (seconds, h:m:s or INFINITY), not " + Quote(t);
    out = *v;
    return std::nullopt;
  };
  auto memory = [](std::string_view t, double& out) -> Error {
    auto v = ParseGeNumber(t);
    if (!v) return "expected a memory size or INFINITY, not " + Quote(t);
    out = *v;
    return std::nullopt;
  };
  auto complex_values = [&](std::string_view t, ComplexValueList& out) { return ComplexValuesFrom(t, out); };
  auto userset_list = [&](std::string_view t, std::vector<UsersetId>& out) { return UsersetsFrom(t, out); };
  auto project_list = [&](std::string_view t, std::vector<ProjectId>& out) { return ProjectsFrom(t, out); };
  auto pe_list = [&](std::string_view t, std::vector<PeId>& out) -> Error {
    out.clear();
    for (std::string_view name : SplitList(t)) {
      auto id = s_.names.pes.Find(name);
      if (!id) return "unknown parallel environment " + Quote(name);
      out.emplace_back(*id);
    }
    return std::nullopt;
  };
  auto qtype = [](std::string_view t, std::uint8_t& out) -> Error {
    out = 0;
    for (std::string_view word : SplitList(t)) {
      if (EqualsIgnoreCase(word, "BATCH")) out |= kQueueBatch;
      else if (EqualsIgnoreCase(word, "INTERACTIVE")) out |= kQueueInteractive;
      else if (EqualsIgnoreCase(word, "PARALLEL")) out |= kQueueParallel;
      else if (EqualsIgnoreCase(word, "CHECKPOINTING")) out |= kQueueCheckpointing;
      else return "expected BATCH, INTERACTIVE, PARALLEL or CHECKPOINTING, not " + Quote(word);
    }
    return std::nullopt;
  };
  auto any_text = [](std::string_view, std::string&) -> Error { return std::nullopt; };
  // The states qstat -f prints for an instance (schedk's `states` attribute):
  // d D s S C P E u o close it; alarms (a A) schedk computes from the
  // thresholds itself, and c (configuration ambiguous) changes nothing.
  auto states = [](std::string_view t, std::uint8_t& out) -> Error {
    out = 0;
    if (IsNone(t)) return std::nullopt;
    for (char letter : t) {
      if (std::string_view("aAcCdDEoPsSu").find(letter) == std::string_view::npos) {
        return "expected qstat's state letters (a A c C d D E o P s S u) or NONE, not " + Quote(t);
      }
      if (std::string_view("CdDEoPsSu").find(letter) != std::string_view::npos) out = 1;
    }
    return std::nullopt;
  };
  static const std::set<std::string, std::less<>> kMemoryLimits = {
      "s_fsize", "h_fsize", "s_data", "h_data", "s_stack", "h_stack", "s_core", "h_core",
      "s_rss",   "h_rss",   "s_vmem", "h_vmem"};
  static const std::set<std::string, std::less<>> kTextAttributes = {
      "priority", "processors", "ckpt_list", "rerun", "tmpdir", "shell", "prolog", "epilog", "shell_start_mode",
      "starter_method", "suspend_method", "resume_method", "terminate_method", "notify", "owner_list",
      "subordinate_list", "calendar", "initial_state", "min_cpu_interval", "jc_list"};
  std::set<std::string> seen;
  for (const Attribute& a : block.attributes) {
    if (!seen.insert(a.key).second) return ErrorAt(block, a, "given twice");
    Status st = Status::Ok();
    if (a.key == "qname") {
      if (a.value != block.name) return ErrorAt(block, a, "does not match the block name");
    } else if (a.key == "hostlist") {
      q.hosts.clear();
      for (std::string_view member : SplitList(a.value)) {
        if (member.front() == '@') {
          auto g = s_.names.hostgroups.Find(member);
          if (!g) return ErrorAt(block, a, "unknown hostgroup " + Quote(member));
          const auto& hosts = s_.cluster.hostgroups[*g].hosts;
          q.hosts.insert(q.hosts.end(), hosts.begin(), hosts.end());
        } else {
          q.hosts.emplace_back(s_.names.hosts.Intern(member));
        }
      }
      std::sort(q.hosts.begin(), q.hosts.end());
      q.hosts.erase(std::unique(q.hosts.begin(), q.hosts.end()), q.hosts.end());
    } else if (a.key == "seq_no") {
      st = per_host(a, q.seq_no, integer);
    } else if (a.key == "load_thresholds") {
      st = per_host(a, q.load_thresholds, complex_values);
    } else if (a.key == "suspend_thresholds") {
      st = per_host(a, q.suspend_thresholds, complex_values);
    } else if (a.key == "nsuspend") {
      st = per_host(a, q.nsuspend, count);
    } else if (a.key == "suspend_interval") {
      st = per_host(a, q.suspend_interval, duration);
    } else if (a.key == "qtype") {
      st = per_host(a, q.qtype, qtype);
    } else if (a.key == "pe_list") {
      st = per_host(a, q.pe_list, pe_list);
    } else if (a.key == "slots") {
      st = per_host(a, q.slots, count);
    } else if (a.key == "complex_values") {
      st = per_host(a, q.complex_values, complex_values);
    } else if (a.key == "user_lists") {
      st = per_host(a, q.user_lists, userset_list);
    } else if (a.key == "xuser_lists") {
      st = per_host(a, q.xuser_lists, userset_list);
    } else if (a.key == "projects") {
      st = per_host(a, q.projects, project_list);
    } else if (a.key == "xprojects") {
      st = per_host(a, q.xprojects, project_list);
    } else if (a.key == "h_rt") {
      st = per_host(a, q.h_rt, duration);
    } else if (a.key == "s_rt") {
      st = per_host(a, q.s_rt, duration);
    } else if (a.key == "states") {
      st = per_host(a, q.closed, states);
    } else if (a.key == "s_cpu" || a.key == "h_cpu") {
      PerHost<Duration> limit;
      st = per_host(a, limit, duration);
    } else if (kMemoryLimits.count(a.key)) {
      PerHost<double> limit;
      st = per_host(a, limit, memory);
    } else if (kTextAttributes.count(a.key)) {
      PerHost<std::string> text;
      st = per_host(a, text, any_text);
    } else {
      Warn(a.line, "queue " + block.name + ": unknown attribute " + Quote(a.key) + " kept but not interpreted");
    }
    if (!st.ok()) return st;
  }
  return Status::Ok();
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
  // Names of every object first, so references resolve whatever the block order.
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

  // Without an sconf block every key takes its install default.
  const ObjectBlock no_sconf{"sconf", "", 0, {}, {}, ""};
  if (Status st = BuildSchedulerConfig(sconf_block != nullptr ? *sconf_block : no_sconf); !st.ok()) return st;
  for (const ObjectBlock& b : s_.blocks) {
    if (b.kind == "conf") {
      if (Status st = BuildClusterConfig(b); !st.ok()) return st;
    }
  }
  for (const ObjectBlock& b : s_.blocks) {
    if (b.kind == "department") {
      if (Status st = BuildUserset(b); !st.ok()) return st;
    }
  }
  for (const ObjectBlock& b : s_.blocks) {
    if (b.kind == "project") {
      if (Status st = BuildProject(b); !st.ok()) return st;
    }
  }
  for (const ObjectBlock& b : s_.blocks) {
    if (b.kind == "user") {
      if (Status st = BuildUser(b); !st.ok()) return st;
    }
  }
  if (Status st = BuildHostgroups(); !st.ok()) return st;
  s_.cluster.hosts.resize(s_.names.hosts.size());
  for (const ObjectBlock& b : s_.blocks) {
    if (b.kind == "global" || b.kind == "exechost") {
      if (Status st = BuildHost(b, b.kind == "global"); !st.ok()) return st;
    }
  }
  for (const ObjectBlock& b : s_.blocks) {
    if (b.kind == "pe") {
      if (Status st = BuildPe(b); !st.ok()) return st;
    }
  }
  for (const ObjectBlock& b : s_.blocks) {
    if (b.kind == "queue") {
      if (Status st = BuildQueue(b); !st.ok()) return st;
    }
  }
  s_.cluster.hosts.resize(s_.names.hosts.size());  // hosts named only in queue hostlists
  return Status::Ok();
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
      if (eq == std::string_view::npos) return Error(l.line, "load " + l.host + ": expected name=value, not " + Quote(item));
      if (!FindComplex(item.substr(0, eq))) {
        Warn(l.line, "load " + l.host + ": " + Quote(item.substr(0, eq)) + " has no complex attribute and is ignored");
        continue;
      }
      ComplexValueList one;
      if (auto e = ComplexValuesFrom(item, one)) return Error(l.line, "load " + l.host + ": " + *e);
      auto existing = std::find_if(target->begin(), target->end(), [&](const ComplexValue& v) { return v.complex == one.front().complex; });
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

Status ClusterBuilder::BuildShareTree() {
  auto stree = std::find_if(s_.blocks.begin(), s_.blocks.end(), [](const ObjectBlock& b) { return b.kind == "sharetree"; });
  if (stree == s_.blocks.end()) return Status::Ok();
  const ObjectBlock& block = *stree;
  struct Stanza {
    int line = 0;
    std::optional<std::uint64_t> id;
    std::string name;
    std::uint32_t shares = 0;
    std::vector<std::uint64_t> children;
  };
  std::vector<Stanza> stanzas;
  for (const Attribute& raw : block.attributes) {
    // Lines are key=value; the block reader split them at the first blank.
    const std::string line = raw.value.empty() ? raw.key : raw.key + " " + raw.value;
    const std::size_t eq = line.find('=');
    if (eq == std::string::npos) return Error(raw.line, "sharetree: expected key=value, not " + Quote(line));
    const std::string key = std::string(Trim(std::string_view(line).substr(0, eq)));
    const std::string_view value = Trim(std::string_view(line).substr(eq + 1));
    auto fail = [&](const std::string& what) { return Error(raw.line, "sharetree: attribute " + Quote(key) + ": " + what); };
    if (key == "id") {
      auto v = ParseUnsigned(value);
      if (!v) return fail("expected a node number, not " + Quote(value));
      stanzas.push_back(Stanza{raw.line, *v, {}, 0, {}});
      continue;
    }
    if (stanzas.empty()) return fail("comes before the first id=");
    Stanza& s = stanzas.back();
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
  if (stanzas.empty()) return Status::Ok();
  std::unordered_map<std::uint64_t, std::uint32_t> index;
  for (std::uint32_t i = 0; i < stanzas.size(); ++i) {
    if (stanzas[i].name.empty()) return Error(stanzas[i].line, "sharetree: node " + std::to_string(*stanzas[i].id) + " has no name");
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
      if (it == index.end()) return Error(stanzas[i].line, "sharetree: childnodes names unknown node " + std::to_string(c));
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
  if (roots.size() != 1) return Error(block.line, "sharetree: expected exactly one root node, found " + std::to_string(roots.size()));
  tree.root = ShareNodeId(roots[0]);
  // Every node must hang below the root (no cycles), at most kMaxShareTreeDepth levels down.
  std::vector<bool> reached(stanzas.size(), false);
  std::vector<std::pair<std::uint32_t, int>> walk = {{roots[0], 0}};
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
