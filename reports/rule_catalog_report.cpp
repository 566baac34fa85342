#include "reports/rule_catalog_report.h"

#include <boost/json.hpp>

#include "reports/json_pretty.h"
#include "rules/catalog.h"

namespace ckpt::reports {
namespace {

std::string_view CheckedWhere(const rules::RuleEntry& entry) {
  switch (entry.scope()) {
    case rules::RuleScope::kChain:
      return " (checked on the parent_hash history, ckpt-chain)";
    case rules::RuleScope::kDiff:
      return " (checked on two rounds compared, ckpt-diff)";
    case rules::RuleScope::kConversion:
      return " (reported by ckpt-convert)";
    case rules::RuleScope::kGate:
      return " (reported about a --baseline or --policy file)";
    case rules::RuleScope::kAttestation:
      return " (checked when a signed statement or derivation record is verified)";
    case rules::RuleScope::kArtifact:
      break;
  }
  return entry.check ? " (checked after reading)" : " (detected while reading)";
}

}  // namespace

void WriteRuleCatalogText(std::ostream& out) {
  for (const rules::RuleEntry& entry : rules::AllRules()) {
    const RuleInfo& r = *entry.info;
    out << r.id << "  " << SeverityName(r.severity) << "  " << CodeName(r.code) << (r.security ? "  security" : "")
        << "\n  " << r.title << "\n  Why: " << r.explanation << "\n  Fix: " << r.remediation
        << "\n  Source: " << entry.source << CheckedWhere(entry) << "\n\n";
  }
  out << rules::AllRules().size() << " rules\n";
}

void WriteRuleCatalogJson(std::ostream& out) {
  boost::json::array list;
  for (const rules::RuleEntry& entry : rules::AllRules()) {
    const RuleInfo& r = *entry.info;
    list.push_back(boost::json::object{{"id", r.id},
                                       {"name", r.name},
                                       {"code", CodeName(r.code)},
                                       {"severity", SeverityName(r.severity)},
                                       {"security", r.security},
                                       {"title", r.title},
                                       {"explanation", r.explanation},
                                       {"remediation", r.remediation},
                                       {"source", entry.source}});
  }
  WritePrettyJson(out, boost::json::object{{"rules", std::move(list)}});
}

}  // namespace ckpt::reports
