// Links against ckpt::rules (and ckpt::lib below it) only and runs every artifact rule: a
// call from a rule into the engine, the reports or the apps fails to link here.
#include <iostream>

#include "lib/io/memory_source.h"
#include "lib/load/loader.h"
#include "rules/catalog.h"
#include "rules/reader_rules.h"

int main() {
  ckpt::MemorySource source;
  source.AddFile("header.json", "{\"schema_version\": 1}");
  ckpt::DiagnosticList diagnostics;
  std::vector<std::string> errors;
  const ckpt::Artifact artifact = ckpt::LoadArtifact("memory", source, ckpt::AuditOptions{}, diagnostics, errors);
  ckpt::FindingSink sink;
  for (const ckpt::Diagnostic& d : diagnostics.items)
    sink.Report(ckpt::rules::RuleForDiagnostic(d.kind), d.location, d.message);
  for (const ckpt::rules::RuleEntry& rule : ckpt::rules::AllRules()) {
    if (rule.check != nullptr) rule.check(artifact, sink);
  }
  std::cout << sink.findings().size() << " findings\n";
  return sink.findings().empty() ? 1 : 0;
}
