#include "io/maui_priority_writer.hpp"

#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "io/job_line.hpp"
#include "io/json_text.hpp"
#include "io/row_text.hpp"
#include "io/tuning.hpp"
#include "kernel/priority/maui_priority.hpp"

namespace schedk::io {
namespace {

struct ComponentText {
  const char* key;    // JSON and key=value name
  const char* label;  // table label, as diagnose -p prints it
};
constexpr ComponentText kComponentText[kMauiComponents] = {{"cred", "Cred"},  {"fs", "FS"},   {"serv", "Serv"},
                                                           {"target", "Targ"}, {"res", "Res"}, {"usage", "Usage"}};
constexpr ComponentText kSubText[kMauiSubs] = {
    {"user", " User"},        {"group", "Group"},       {"account", "Accnt"},   {"qos", "  QOS"},
    {"class", "Class"},       {"fsuser", " User"},      {"fsgroup", "Group"},   {"fsaccount", "Accnt"},
    {"fsqos", "  QOS"},       {"fsclass", "Class"},     {"queuetime", "QTime"}, {"xfactor", "XFctr"},
    {"bypass", "Bypas"},      {"targetqueuetime", "QTime"}, {"targetxfactor", "XFctr"}, {"node", " Node"},
    {"proc", " Proc"},        {"mem", "  Mem"},         {"swap", " Swap"},      {"disk", " Disk"},
    {"ps", "   PS"},          {"pe", "   PE"},          {"walltime", "WTime"},  {"consumed", " Cons"},
    {"remaining", "  Rem"},   {"percent", " PerC"},     {"executiontime", " ExeT"},
};

// Which subcomponents diagnose -p shows: weight not 0, and for queue time and
// expansion factor also a QOS that adds weight to them.
std::array<bool, kMauiSubs> ShownSubs(const MauiConfig& c) {
  std::array<bool, kMauiSubs> shown{};
  for (std::size_t s = 0; s < kMauiSubs; ++s) shown[s] = c.sub_weight[s] != 0;
  const MauiCredentialTable& qos = c.table(MauiCredential::kQos);
  auto any = [&](auto member) {
    if (qos.fallback.*member != 0) return true;
    for (const MauiCredentialSettings& q : qos.by_id) {
      if (q.*member != 0) return true;
    }
    return false;
  };
  shown[static_cast<std::size_t>(MauiSub::kQueueTime)] |= any(&MauiCredentialSettings::qt_weight);
  shown[static_cast<std::size_t>(MauiSub::kXFactor)] |= any(&MauiCredentialSettings::xf_weight);
  return shown;
}

// A component is shown when its weight is not 0 and it shows a subcomponent.
std::array<bool, kMauiComponents> ShownComponents(const MauiConfig& c, const std::array<bool, kMauiSubs>& subs) {
  std::array<bool, kMauiComponents> shown{};
  for (std::size_t s = 0; s < kMauiSubs; ++s) {
    const auto comp = static_cast<std::size_t>(ComponentOf(static_cast<MauiSub>(s)));
    if (subs[s] && c.component_weight[comp] != 0) shown[comp] = true;
  }
  return shown;
}

std::string OneDecimal(double v) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.1f", v);
  return buffer;
}

// The identity of a row: names of its credentials.
struct RowNames {
  std::string_view user, group, account, qos, job_class;
};

class MauiRows {
 public:
  MauiRows(const Snapshot& s, const PriorityResult& result)
      : s_(s), result_(result), index_(s.jobs), context_(s.cluster, s.jobs), config_(s.cluster.maui),
        subs_(ShownSubs(config_)), components_(ShownComponents(config_, subs_)) {}

  const std::array<bool, kMauiSubs>& subs() const { return subs_; }
  const std::array<bool, kMauiComponents>& components() const { return components_; }

  // Output row i: its factors, the names of its credentials and its state.
  struct Row {
    MauiFactors factors;
    RowNames names;
    const char* state = "";
    JobNumber job = 0;
    TaskNumber task = 0;
  };
  Row RowAt(std::size_t i) const {
    Row out;
    RowNames& names = out.names;
    const DispatchEntry& e = result_.order[i];
    const JobShard& shard = s_.jobs.shards()[index_.shard(e.row)];
    const std::size_t r = index_.row(e.row);
    const RowRole role = result_.roles[e.row];
    out.job = shard.number[r];
    out.task = e.task;
    out.state = QstatState(shard.state[r], shard.flags[r], role);
    names.user = s_.names.users.Name(shard.owner[r].index());
    names.group = shard.group[r].valid() ? std::string_view(s_.names.groups.Name(shard.group[r].index())) : "NONE";
    names.account = shard.project[r].valid() ? std::string_view(s_.names.projects.Name(shard.project[r].index())) : "NONE";
    const QosId qos = shard.qos_of(r);
    names.qos = qos.valid() ? std::string_view(s_.names.qos.Name(qos.index())) : "DEFAULT";
    QueueId job_class;
    const JobExtras* extras = shard.extras_of(r);
    if ((role == RowRole::kRunning || role == RowRole::kSuspended) && extras != nullptr && !extras->granted.empty()) {
      job_class = extras->granted.front().queue;
    } else {
      for (const QueueSelector& q : s_.jobs.requests(shard.requests[r]).queue_hard) {
        if (q.queue.valid()) {
          job_class = q.queue;
          break;
        }
      }
    }
    names.job_class = job_class.valid() ? std::string_view(s_.names.queues.Name(job_class.index())) : "NONE";
    out.factors = context_.Factors(shard, r, role);
    return out;
  }

  // " <component>(<sub>:<sub>...)" for every shown component and its shown
  // subcomponents, as diagnose -p lays its cells out (components %6s, subcomponents %5s).
  template <class ComponentCell, class SubCell>
  void AppendCells(std::string& out, ComponentCell component, SubCell sub) const {
    for (std::size_t c = 0; c < kMauiComponents; ++c) {
      if (!components_[c]) continue;
      std::string values;
      for (std::size_t s = 0; s < kMauiSubs; ++s) {
        if (!subs_[s] || static_cast<std::size_t>(ComponentOf(static_cast<MauiSub>(s))) != c) continue;
        if (!values.empty()) values += ':';
        AppendFormat(values, "%5s", sub(s).c_str());
      }
      AppendFormat(out, " %6s(%s)", component(c).c_str(), values.c_str());
    }
  }

  // The header, and the weights line under it.
  std::string Header() const {
    std::string header, weights;
    AppendFormat(header, "%8s %6s %10s %-5s %-12s %-12s %-12s %-10s %-10s", "job", "task", "PRIORITY", "state", "user",
                 "group", "account", "qos", "class");
    AppendFormat(weights, "%8s %6s %10s %-5s %-12s %-12s %-12s %-10s %-10s", "", "", "Weights", "", "", "", "", "", "");
    AppendCells(header, [](std::size_t c) { return std::string(kComponentText[c].label); },
                [](std::size_t s) { return std::string(kSubText[s].label); });
    AppendCells(weights, [&](std::size_t c) { return std::to_string(config_.component_weight[c]); },
                [&](std::size_t s) { return std::to_string(config_.sub_weight[s]); });
    return header + "\n" + weights + "\n\n";
  }

  void TableRow(std::size_t i, std::string& out, std::vector<double>& sums) const {
    const auto [f, n, state, job, task] = RowAt(i);
    AppendFormat(out, "%8u %6u %10.0f %-5s %-12.*s %-12.*s %-12.*s %-10.*s %-10.*s", job, task, f.priority, state,
                 static_cast<int>(n.user.size()), n.user.data(), static_cast<int>(n.group.size()), n.group.data(),
                 static_cast<int>(n.account.size()), n.account.data(), static_cast<int>(n.qos.size()), n.qos.data(),
                 static_cast<int>(n.job_class.size()), n.job_class.data());
    AppendCells(out, [&](std::size_t c) { return OneDecimal(f.Percent(f.Contribution(config_, static_cast<MauiComponent>(c)))); },
                [&](std::size_t s) { return OneDecimal(f.Contribution(config_, static_cast<MauiSub>(s))); });
    out += '\n';
    if (i < result_.dispatchable_tasks) Accumulate(f, sums);
  }

  // Sums of |contribution| per component and subcomponent, then of abs_total.
  void Accumulate(const MauiFactors& f, std::vector<double>& sums) const {
    for (std::size_t c = 0; c < kMauiComponents; ++c) {
      sums[c] += std::fabs(f.Contribution(config_, static_cast<MauiComponent>(c)));
    }
    for (std::size_t s = 0; s < kMauiSubs; ++s) {
      sums[kMauiComponents + s] += std::fabs(f.Contribution(config_, static_cast<MauiSub>(s)));
    }
    sums.back() += f.abs_total;
  }

  std::string Footer(const std::vector<double>& sums) const {
    std::string out;
    AppendFormat(out, "\n%-20s %-72s", "Percent Contribution", "(over the dispatchable rows)");
    const double total = sums.back();
    auto percent = [&](double part) { return OneDecimal(total != 0 ? part / total * 100.0 : 0.0); };
    AppendCells(out, [&](std::size_t c) { return percent(sums[c]); },
                [&](std::size_t s) { return percent(sums[kMauiComponents + s]); });
    return out + "\n";
  }

  void JsonRow(std::size_t i, std::string& out) const {
    const auto [f, n, state, job, task] = RowAt(i);
    out += "{\"job\":" + std::to_string(job) + ",\"task\":" + std::to_string(task) + ",\"priority\":";
    AppendJsonNumber(out, f.priority);
    out += ",\"total\":";
    AppendJsonNumber(out, f.total);
    for (const auto& [key, value] : {std::pair<const char*, std::string_view>{"state", state}, {"user", n.user},
                                     {"group", n.group}, {"account", n.account}, {"qos", n.qos}, {"class", n.job_class}}) {
      out += ",\"";
      out += key;
      out += "\":";
      AppendJsonString(out, value);
    }
    // "<name>":{"weight":w,"<value key>":v,"contribution":c,"percent":p (left open).
    auto open_part = [&](const char* name, double weight, const char* value_key, double value, double part) {
      out += '"';
      out += name;
      out += "\":{";
      const std::pair<const char*, double> numbers[] = {
          {"weight", weight}, {value_key, value}, {"contribution", part}, {"percent", f.Percent(part)}};
      for (const auto& [key, number] : numbers) {
        if (out.back() != '{') out += ',';
        out += '"';
        out += key;
        out += "\":";
        AppendJsonNumber(out, number);
      }
    };
    out += ",\"components\":{";
    for (std::size_t c = 0; c < kMauiComponents; ++c) {
      if (c) out += ',';
      open_part(kComponentText[c].key, static_cast<double>(config_.component_weight[c]), "value", f.component[c],
                f.Contribution(config_, static_cast<MauiComponent>(c)));
      out += ",\"subcomponents\":{";
      bool first = true;
      for (std::size_t s = 0; s < kMauiSubs; ++s) {
        if (static_cast<std::size_t>(ComponentOf(static_cast<MauiSub>(s))) != c) continue;
        if (!first) out += ',';
        first = false;
        open_part(kSubText[s].key, f.weight[s], "factor", f.factor[s], f.Contribution(config_, static_cast<MauiSub>(s)));
        out += '}';
      }
      out += "}}";
    }
    out += "}}\n";
  }

  void KeyValueRow(std::size_t i, std::string& out) const {
    const auto [f, n, state, job, task] = RowAt(i);
    auto number = [&](const std::string& name, double value) {
      out += ' ' + name + '=';
      AppendJsonNumber(out, value);
    };
    out += "job=" + std::to_string(job) + " task=" + std::to_string(task);
    number("priority", f.priority);
    for (std::size_t c = 0; c < kMauiComponents; ++c) {
      number(kComponentText[c].key, f.Contribution(config_, static_cast<MauiComponent>(c)));
    }
    for (std::size_t s = 0; s < kMauiSubs; ++s) {
      if (!subs_[s]) continue;
      const std::size_t c = static_cast<std::size_t>(ComponentOf(static_cast<MauiSub>(s)));
      number(std::string(kComponentText[c].key) + "." + kSubText[s].key, f.Contribution(config_, static_cast<MauiSub>(s)));
    }
    AppendKeyValue(out, "user", n.user);
    AppendKeyValue(out, "group", n.group);
    AppendKeyValue(out, "account", n.account);
    AppendKeyValue(out, "qos", n.qos);
    AppendKeyValue(out, "class", n.job_class);
    AppendKeyValue(out, "state", state);
    out += '\n';
  }

 private:
  const Snapshot& s_;
  const PriorityResult& result_;
  const RowIndex index_;
  const MauiPriorityContext context_;
  const MauiConfig& config_;
  const std::array<bool, kMauiSubs> subs_;
  const std::array<bool, kMauiComponents> components_;
};

}  // namespace

bool WriteMauiPriorities(const Snapshot& snapshot, const PriorityResult& result, PriorityFormat format,
                         const std::function<bool(std::string_view)>& sink) {
  const MauiRows rows(snapshot, result);
  const std::size_t n = result.order.size();
  switch (format) {
    case PriorityFormat::kJsonl:
      return WriteRowBlocks(n, 1200, [&](std::size_t i, std::string& out) { rows.JsonRow(i, out); }, sink);
    case PriorityFormat::kKeyValue:
      return WriteRowBlocks(n, 300, [&](std::size_t i, std::string& out) { rows.KeyValueRow(i, out); }, sink);
    case PriorityFormat::kTable: break;
  }
  if (!sink(rows.Header())) return false;
  // Per-block sums of the footer's parts, added in block order: the same total with any thread count.
  constexpr std::size_t kBlock = tuning::kRowBlockSize;  // WriteRowBlocks' block: one task formats its rows
  const std::size_t parts = kMauiComponents + kMauiSubs + 1;
  std::vector<std::vector<double>> sums((n + kBlock - 1) / kBlock, std::vector<double>(parts, 0.0));
  const bool written =
      WriteRowBlocks(n, 200, [&](std::size_t i, std::string& out) { rows.TableRow(i, out, sums[i / kBlock]); }, sink);
  if (!written) return false;
  std::vector<double> total(parts, 0.0);
  for (const std::vector<double>& block : sums) {
    for (std::size_t k = 0; k < parts; ++k) total[k] += block[k];
  }
  return sink(rows.Footer(total));
}

}  // namespace schedk::io
