#include "tests/support/audit_helpers.h"

namespace ckpt::testing {

AuditResult AuditFiles(const Files& files, const Policy& policy,
                       const std::vector<std::pair<std::string, EntryKind>>& entries,
                       const std::vector<std::string>& replaced_on_open) {
  MemorySource source;
  for (const std::string& name : replaced_on_open) source.ReplaceOnOpen(name);
  for (const auto& [name, bytes] : files) source.AddFile(name, bytes);
  for (const auto& [name, kind] : entries) source.AddEntry(name, kind);
  return AuditArtifact("memory", source, policy);
}

std::vector<const Finding*> FindingsOf(const AuditResult& result, std::string_view rule_id) {
  std::vector<const Finding*> out;
  for (const Finding& f : result.findings) {
    if (f.rule->id == rule_id) out.push_back(&f);
  }
  return out;
}

std::string Describe(const AuditResult& result) {
  std::string out;
  for (const Finding& f : result.findings) {
    out += std::string(f.rule->id) + " " + std::string(CodeName(f.rule->code)) + ": " + f.message + "\n";
  }
  for (const std::string& e : result.tool_errors) out += "tool error: " + e + "\n";
  return out.empty() ? "(no findings)\n" : out;
}

}  // namespace ckpt::testing
