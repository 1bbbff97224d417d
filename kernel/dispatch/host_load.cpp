#include "kernel/dispatch/host_load.hpp"

#include <cmath>

namespace schedk {

HostLoad::HostLoad(const Cluster& cluster, const JobTable& jobs)
    : cluster_(cluster), host_factor_(cluster.hosts.size(), 0) {
  CountRecentStarts(jobs);
  const std::vector<LoadFormulaTerm>& terms = cluster.config.load_formula_terms.terms;
  formula_operands_.reserve(cluster.hosts.size() * terms.size() * 2);
  processors_.reserve(cluster.hosts.size());
  for (std::uint32_t h = 0; h < cluster.hosts.size(); ++h) {
    processors_.push_back(Processors(HostId(h)));
    for (const LoadFormulaTerm& t : terms) {
      formula_operands_.push_back(Locate(HostId(h), t.left));
      formula_operands_.push_back(Locate(HostId(h), t.right));
    }
  }
}

void HostLoad::CountRecentStarts(const JobTable& jobs) {
  const SchedulerConfig& c = cluster_.config;
  adjusting_ = c.load_adjustment_decay_time > 0 && !c.job_load_adjustments.empty();
  if (!adjusting_) return;
  const double decay = static_cast<double>(c.load_adjustment_decay_time);
  for (const JobShard& shard : jobs.shards()) {
    for (std::size_t r = 0; r < shard.size(); ++r) {
      if (shard.state[r] != JobState::kRunning) continue;
      const JobExtras* e = shard.extras_of(r);
      if (e == nullptr) continue;
      const Time age = cluster_.now - e->start;
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

std::optional<double> HostLoad::ScaledLoadValue(HostId host, ComplexId complex) const {
  const ExecHost& h = cluster_.hosts[host.index()];
  const ComplexValue* v = FindValue(h.load_values, complex);
  if (v == nullptr || !IsNumeric(cluster_.complexes[complex].type)) return std::nullopt;
  double value = v->number;
  for (const auto& [scaled, factor] : h.load_scaling) {
    if (scaled == complex) value *= factor;
  }
  return value;
}

std::optional<double> HostLoad::LoadValue(HostId host, ComplexId complex) const {
  const std::optional<double> value = ScaledLoadValue(host, complex);
  if (!value) return std::nullopt;
  return Corrected(complex, *value, host_factor_[host.index()], Processors(host));
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

HostLoad::FormulaOperand HostLoad::Locate(HostId host, const LoadFormulaOperand& o) const {
  using Source = FormulaOperand::Source;
  if (o.is_number) return {Source::kFixed, {}, o.number};
  if (!o.attribute.valid() || !IsNumeric(cluster_.complexes[o.attribute].type)) return {};
  if (const std::optional<double> v = ScaledLoadValue(host, o.attribute)) return {Source::kHostLoad, o.attribute, *v};
  // Past the host's load values, AttributeValue's sources do not change in the interval.
  if (const std::optional<double> v = AttributeValue(host, o.attribute)) return {Source::kFixed, {}, *v};
  return {};
}

std::optional<double> HostLoad::OperandValue(const LoadFormulaOperand& o, HostId host) const {
  if (o.is_number) return o.number;
  if (!o.attribute.valid() || !IsNumeric(cluster_.complexes[o.attribute].type)) return std::nullopt;
  return AttributeValue(host, o.attribute);
}

template <class Operand>
double HostLoad::Combine(const LoadFormula& formula, Operand&& operand) {
  double total = 0;
  for (std::size_t k = 0; k < formula.terms.size(); ++k) {
    const LoadFormulaTerm& t = formula.terms[k];
    const std::optional<double> left = operand(k, false);
    if (!left) return kErrorLoadValue;
    double value = *left;
    if (t.op != 0) {
      const std::optional<double> right = operand(k, true);
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

double HostLoad::FormulaValue(HostId host) const {
  const LoadFormula& formula = cluster_.config.load_formula_terms;
  const std::uint32_t h = host.index();
  const FormulaOperand* operands = formula_operands_.data() + std::size_t{h} * formula.terms.size() * 2;
  return Combine(formula, [&](std::size_t term, bool right) -> std::optional<double> {
    const FormulaOperand& o = operands[2 * term + (right ? 1 : 0)];
    switch (o.source) {
      case FormulaOperand::Source::kHostLoad: return Corrected(o.complex, o.value, host_factor_[h], processors_[h]);
      case FormulaOperand::Source::kFixed: return o.value;
      case FormulaOperand::Source::kNone: break;
    }
    return std::nullopt;
  });
}

double HostLoad::Evaluate(const LoadFormula& formula, HostId host) const {
  return Combine(formula, [&](std::size_t term, bool right) {
    return OperandValue(right ? formula.terms[term].right : formula.terms[term].left, host);
  });
}

bool HostLoad::AddSlots(HostId host, std::uint32_t slots) {
  if (!adjusting_) return false;
  host_factor_[host.index()] += 100 * slots;
  return true;
}

}  // namespace schedk
