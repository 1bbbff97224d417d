// host_load.hpp
// Host load during one interval: reported load
// values scaled by load_scaling and corrected for recently started tasks
// (correct_load: each task started less than load_adjustment_decay_time ago
// adds (1 - age/decay) x its slots x 100, truncated, to its host's load
// correction factor; each slot dispatched in the interval adds 100), the load
// formula per host (scaled_mixed_load), and the load-threshold alarm test.
// Corrected value of an attribute listed in job_load_adjustments:
// value +/- adjustment x factor / 100 (+ for relops >= and >), divided by the
// processor count for np_* attributes.
// Invariant: factors only grow during an interval. FormulaValue reads each
// host's formula operands from where the constructor found them (a reported
// host load value, corrected with the host's factor as it is then; or a value
// fixed for the interval); Evaluate, its plain twin, looks every one up.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "kernel/model/cluster.hpp"
#include "kernel/model/job_table.hpp"

namespace schedk {

class HostLoad {
 public:
  HostLoad(const Cluster& cluster, const JobTable& jobs);

  // The host's reported load value of `complex`, scaled and corrected; nullopt if not reported.
  std::optional<double> LoadValue(HostId host, ComplexId complex) const;
  // The global host's reported load value, corrected with the global factor.
  std::optional<double> GlobalLoadValue(ComplexId complex) const;
  // The load formula for `host`: kErrorLoadValue when any attribute has no value.
  double FormulaValue(HostId host) const;
  // Any load formula for `host` (a quota's dynamic limit), every operand looked up.
  double Evaluate(const LoadFormula& formula, HostId host) const;
  std::uint32_t correction(HostId host) const { return host_factor_[host.index()]; }

  // debit_job_from_hosts: `slots` more dispatched to `host` in this interval.
  // Returns whether anything changed (decay time > 0 and adjustments configured).
  bool AddSlots(HostId host, std::uint32_t slots);

 private:
  // Where a load formula operand's value comes from on one host, as
  // AttributeValue finds it: the host's reported load value (scaled, to be
  // corrected), a value fixed for the interval, or none.
  struct FormulaOperand {
    enum class Source : std::uint8_t { kHostLoad, kFixed, kNone };
    Source source = Source::kNone;
    ComplexId complex;
    double value = 0;
  };
  // The factors of the tasks started less than load_adjustment_decay_time ago.
  void CountRecentStarts(const JobTable& jobs);
  FormulaOperand Locate(HostId host, const LoadFormulaOperand& operand) const;
  std::optional<double> OperandValue(const LoadFormulaOperand& operand, HostId host) const;
  // The formula's value from its operands' values, operand(term, right).
  template <class Operand>
  static double Combine(const LoadFormula& formula, Operand&& operand);
  double Corrected(ComplexId complex, double value, std::uint32_t factor, double processors) const;
  std::optional<double> ScaledLoadValue(HostId host, ComplexId complex) const;
  std::optional<double> AttributeValue(HostId host, ComplexId complex) const;
  double Processors(HostId host) const;

  const Cluster& cluster_;
  // Per host, the load formula's operands (left and right of each term), and its processors.
  std::vector<FormulaOperand> formula_operands_;
  std::vector<double> processors_;
  bool adjusting_ = false;
  std::vector<std::uint32_t> host_factor_;
  std::uint32_t global_factor_ = 0;
};

}  // namespace schedk
