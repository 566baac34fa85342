#include "reports/rule_catalog_report.h"

#include <boost/json.hpp>

#include "reports/json_pretty.h"
#include "rules/catalog.h"

namespace ckpt::reports {

void WriteRuleCatalogText(std::ostream& out) {
  for (const rules::RuleEntry& entry : rules::AllRules()) {
    const RuleInfo& r = *entry.info;
    out << r.id << "  " << SeverityName(r.severity) << "  " << CodeName(r.code) << (r.security ? "  security" : "")
        << "\n  " << r.title << "\n  Why: " << r.explanation << "\n  Fix: " << r.remediation
        << "\n  Source: " << entry.source << (entry.check ? "" : " (detected while reading)") << "\n\n";
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
