#include "io/quota_set_reader.hpp"

#include <fnmatch.h>

#include <string>

#include "io/attribute_table.hpp"
#include "io/ge_value.hpp"
#include "io/untrusted_text.hpp"

namespace schedk::io {
namespace {

// The filter keywords of a `limit` rule, in the order qconf prints them.
struct FilterKind {
  std::string_view keyword;
  QuotaFilter QuotaRule::*filter;
};
constexpr FilterKind kFilterKinds[] = {
    {"users", &QuotaRule::users}, {"projects", &QuotaRule::projects}, {"pes", &QuotaRule::pes},
    {"queues", &QuotaRule::queues}, {"hosts", &QuotaRule::hosts},
};

bool IsRuleKeyword(std::string_view word) {
  if (word == "name" || word == "to") return true;
  for (const FilterKind& k : kFilterKinds) {
    if (word == k.keyword) return true;
  }
  return false;
}

bool IsPattern(std::string_view entry) { return entry.find_first_of("*?[") != std::string_view::npos; }

void Mark(std::vector<std::uint8_t>& marks, std::uint32_t id) {
  if (marks.size() <= id) marks.resize(id + 1, 0);
  marks[id] = 1;
}

class RuleReader {
 public:
  RuleReader(const Snapshot& s, const ClusterBuilder& builder) : s_(s), builder_(builder) {}

  // One `limit` line's value into `rule`; what is wrong otherwise.
  Reason Read(std::string_view text, QuotaRule& rule) const {
    const std::vector<std::string_view> words = SplitWords(text);
    std::size_t i = 0;
    std::vector<std::string_view> given;
    while (i < words.size() && words[i] != "to") {
      const std::string_view keyword = words[i++];
      if (!IsRuleKeyword(keyword)) {
        return "expected name, users, projects, pes, queues, hosts or to, not " + Quote(keyword);
      }
      if (std::find(given.begin(), given.end(), keyword) != given.end()) return Quote(keyword) + " given twice";
      given.push_back(keyword);
      std::string value;  // the words up to the next keyword: `{a, b}` is one value
      while (i < words.size() && !IsRuleKeyword(words[i])) value += words[i++];
      if (value.empty()) return Quote(keyword) + " without a value";
      if (keyword == "name") {
        rule.name = value;
        continue;
      }
      for (const FilterKind& k : kFilterKinds) {
        if (k.keyword != keyword) continue;
        if (Reason why = Filter(keyword, value, rule.*k.filter)) return why;
      }
    }
    if (i + 1 >= words.size()) return std::string("expected 'to <attribute>=<limit>,...' at the end");
    std::string limits;
    for (std::size_t k = i + 1; k < words.size(); ++k) limits += words[k];
    for (std::string_view item : SplitOn(limits, ',')) {
      if (Reason why = Limit(item, rule)) return why;
    }
    if (rule.limits.empty()) return std::string("expected at least one limit after 'to'");
    return std::nullopt;
  }

 private:
  static std::vector<std::string_view> SplitOn(std::string_view text, char separator) {
    std::vector<std::string_view> items;
    while (!text.empty()) {
      const std::size_t end = text.find(separator);
      items.push_back(text.substr(0, end));
      text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    }
    return items;
  }

  Reason Filter(std::string_view keyword, std::string_view text, QuotaFilter& f) const {
    f.present = true;
    if (text.front() == '{') {
      if (text.back() != '}') return "unterminated '{' in " + Quote(text);
      f.expand = true;
      text = text.substr(1, text.size() - 2);
    }
    const std::vector<std::string_view> entries = SplitOn(text, ',');
    if (entries.empty()) return Quote(keyword) + " needs at least one entry";
    std::string negated_text;  // qconf prints the negated entries after the others
    for (std::string_view entry : entries) {
      const bool negated = !entry.empty() && entry.front() == '!';
      std::string& list = negated ? negated_text : f.text;
      list += (list.empty() ? "" : ",") + std::string(entry);
      if (negated) entry.remove_prefix(1);
      if (entry.empty()) return "an empty entry in " + Quote(text);
      f.positive |= !negated;
      if (Reason why = Entry(keyword, entry, negated ? f.out : f.in, negated ? f.group_out : f.group_in)) return why;
    }
    if (!negated_text.empty()) f.text += (f.text.empty() ? "" : ",") + negated_text;
    return std::nullopt;
  }

  // Marks the ids one entry names.
  Reason Entry(std::string_view keyword, std::string_view entry, std::vector<std::uint8_t>& ids,
               std::vector<std::uint8_t>& groups) const {
    const Names& n = s_.names;
    if (entry.front() == '@' && keyword == "users") {
      const auto set = n.usersets.Find(entry.substr(1));
      if (!set) return "unknown userset " + Quote(entry);
      const Userset& u = s_.cluster.entities.usersets[*set];
      for (UserId user : u.users) Mark(ids, user.value);
      for (GroupId group : u.groups) Mark(groups, group.value);
      return std::nullopt;
    }
    if (entry.front() == '@' && keyword == "hosts") {
      const auto group = n.hostgroups.Find(entry);
      if (!group) return "unknown hostgroup " + Quote(entry);
      for (HostId host : s_.cluster.hostgroups[*group].hosts) Mark(ids, host.value);
      return std::nullopt;
    }
    const NameTable& table = keyword == "users"      ? n.users
                             : keyword == "projects" ? n.projects
                             : keyword == "pes"      ? n.pes
                             : keyword == "queues"   ? n.queues
                                                     : n.hosts;
    const int flags = keyword == "hosts" ? FNM_CASEFOLD : 0;  // host names compare without case
    if (!IsPattern(entry) && flags == 0) {
      if (const auto id = table.Find(entry)) Mark(ids, *id);
      return std::nullopt;
    }
    const std::string pattern(entry);
    for (std::uint32_t id = 0; id < table.size(); ++id) {
      if (fnmatch(pattern.c_str(), table.Name(id).c_str(), flags) == 0) Mark(ids, id);
    }
    return std::nullopt;
  }

  Reason Limit(std::string_view item, QuotaRule& rule) const {
    const std::size_t eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0 || eq + 1 == item.size()) {
      return "expected <attribute>=<limit>, not " + Quote(item);
    }
    const std::string_view name = item.substr(0, eq), value = item.substr(eq + 1);
    const std::optional<ComplexId> attribute = builder_.FindComplex(name);
    if (!attribute) return "unknown complex attribute " + Quote(name);
    QuotaLimit limit;
    limit.attribute = *attribute;
    const ComplexAttribute& a = s_.cluster.complexes[*attribute];
    if (value.find('$') != std::string_view::npos) {
      if (!rule.hosts.present || !rule.hosts.expand) {
        return "the dynamic limit " + Quote(item) + " needs an expanded hosts filter (hosts {...})";
      }
      limit.dynamic = true;
      limit.formula = builder_.ReadLoadFormula(value);
    } else if (IsNumeric(a.type)) {
      const std::optional<double> number = ParseTypedNumber(value, a.type);
      if (!number) return "malformed limit " + Quote(item);
      limit.value = *number;
    } else if (a.consumable != Consumable::kNo) {
      return "malformed limit " + Quote(item);
    }
    rule.limits.push_back(std::move(limit));
    return std::nullopt;
  }

  const Snapshot& s_;
  const ClusterBuilder& builder_;
};

}  // namespace

Status BuildQuotaSets(Snapshot& s, const ClusterBuilder& builder) {
  s.cluster.quota_sets.clear();
  const RuleReader rules(s, builder);
  for (const ObjectBlock& block : s.blocks) {
    if (block.kind != "rqs") continue;
    ResourceQuotaSet set;
    set.name = block.name;
    auto limit = [&](const Attribute& a) -> Reason {
      QuotaRule rule;
      if (Reason why = rules.Read(a.value, rule)) return why;
      set.rules.push_back(std::move(rule));
      return std::nullopt;
    };
    const AttributeTable table{RepeatedKey::kApplied,
                               {
                                   {"name", SameAs(block.name)},
                                   {"description", KeptAsWritten()},
                                   {"enabled", FlagField(set.enabled)},
                                   {"limit", limit},
                               }};
    if (Status st = ApplyAttributeTable(s, block, table, "rqs " + block.name); !st.ok()) return st;
    if (set.rules.empty()) {
      return Status::InvalidInput(block.source.empty() ? s.source : block.source, block.line,
                                  "rqs " + block.name + ": a resource quota set needs at least one limit");
    }
    s.cluster.quota_sets.push_back(std::move(set));
  }
  return Status::Ok();
}

}  // namespace schedk::io
