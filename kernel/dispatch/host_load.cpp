#include "kernel/dispatch/host_load.hpp"

#include <cmath>

namespace schedk {

HostLoad::HostLoad(const Cluster& cluster, const JobTable& jobs)
    : cluster_(cluster), host_factor_(cluster.hosts.size(), 0) {
  const SchedulerConfig& c = cluster.config;
  adjusting_ = c.load_adjustment_decay_time > 0 && !c.job_load_adjustments.empty();
  if (!adjusting_) return;
  const double decay = static_cast<double>(c.load_adjustment_decay_time);
  for (const JobShard& shard : jobs.shards()) {
    for (std::size_t r = 0; r < shard.size(); ++r) {
      if (shard.state[r] != JobState::kRunning) continue;
      const JobExtras* e = shard.extras_of(r);
      if (e == nullptr) continue;
      const Time age = cluster.now - e->start;
      if (age < 0 || static_cast<double>(age) >= decay) continue;
      const double weight = 1.0 - static_cast<double>(age) / decay;
      for (const GrantedSlots& g : e->granted) {
        if (!g.host.valid()) continue;
        host_factor_[g.host.index()] += static_cast<std::uint32_t>(weight * g.slots * 100);
      }
      global_factor_ += static_cast<std::uint32_t>(weight * 100);
    }
  }
}

double HostLoad::Processors(HostId host) const {
  // The reported num_proc, else the host's configured processors, else 1.
  const ExecHost& h = cluster_.hosts[host.index()];
  if (cluster_.complexes.num_proc.valid()) {
    if (const ComplexValue* v = FindValue(h.load_values, cluster_.complexes.num_proc); v && v->number > 0) {
      return v->number;
    }
  }
  return h.processors > 0 ? h.processors : 1.0;
}

double HostLoad::Corrected(ComplexId complex, double value, std::uint32_t factor, double processors) const {
  if (!adjusting_ || factor == 0) return value;
  for (const auto& [adjusted, amount] : cluster_.config.job_load_adjustments) {
    if (adjusted != complex) continue;
    const ComplexAttribute& a = cluster_.complexes[complex];
    double delta = amount * factor / 100.0;
    if (a.per_processor) delta /= processors;
    return a.relop == Relop::kGe || a.relop == Relop::kGt ? value + delta : value - delta;
  }
  return value;
}

std::optional<double> HostLoad::LoadValue(HostId host, ComplexId complex) const {
  const ExecHost& h = cluster_.hosts[host.index()];
  const ComplexValue* v = FindValue(h.load_values, complex);
  if (v == nullptr || !IsNumeric(cluster_.complexes[complex].type)) return std::nullopt;
  double value = v->number;
  for (const auto& [scaled, factor] : h.load_scaling) {
    if (scaled == complex) value *= factor;
  }
  return Corrected(complex, value, host_factor_[host.index()], Processors(host));
}

std::optional<double> HostLoad::GlobalLoadValue(ComplexId complex) const {
  const ComplexValue* v = FindValue(cluster_.global.load_values, complex);
  if (v == nullptr || !IsNumeric(cluster_.complexes[complex].type)) return std::nullopt;
  return Corrected(complex, v->number, global_factor_, 1.0);
}

std::optional<double> HostLoad::AttributeValue(HostId host, ComplexId complex) const {
  if (auto v = LoadValue(host, complex)) return v;
  if (const ComplexValue* v = FindValue(cluster_.hosts[host.index()].complex_values, complex)) return v->number;
  if (auto v = GlobalLoadValue(complex)) return v;
  if (const ComplexValue* v = FindValue(cluster_.global.complex_values, complex)) return v->number;
  return std::nullopt;
}

double HostLoad::FormulaValue(HostId host) const { return Evaluate(cluster_.config.load_formula_terms, host); }

double HostLoad::Evaluate(const LoadFormula& formula, HostId host) const {
  auto operand = [&](const LoadFormulaOperand& o) -> std::optional<double> {
    if (o.is_number) return o.number;
    if (!o.attribute.valid() || !IsNumeric(cluster_.complexes[o.attribute].type)) return std::nullopt;
    return AttributeValue(host, o.attribute);
  };
  double total = 0;
  for (const LoadFormulaTerm& t : formula.terms) {
    const std::optional<double> left = operand(t.left);
    if (!left) return kErrorLoadValue;
    double value = *left;
    if (t.op != 0) {
      const std::optional<double> right = operand(t.right);
      if (!right) return kErrorLoadValue;
      const auto a = static_cast<std::uint32_t>(*left), b = static_cast<std::uint32_t>(*right);
      switch (t.op) {
        case '*': value = *left * *right; break;
        case '/': value = *left / *right; break;
        case '&': value = a & b; break;
        case '|': value = a | b; break;
        case '^': value = a ^ b; break;
        default: break;
      }
    }
    total += t.negative ? -value : value;
  }
  return total;
}

bool HostLoad::AddSlots(HostId host, std::uint32_t slots) {
  if (!adjusting_) return false;
  host_factor_[host.index()] += 100 * slots;
  return true;
}

}  // namespace schedk
