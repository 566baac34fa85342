// Links against ckpt::lib alone and calls into every part of it, so every object file of
// the bottom layer is pulled in: an upward call (lib -> rules, engine or reports) has no
// definition on this link line and fails to link. See ARCHITECTURE.md.
#include <iostream>

#include "lib/chain/chain_analysis.h"
#include "lib/chain/discovery.h"
#include "lib/core/unicode.h"
#include "lib/diff/diff.h"
#include "lib/digest/content_hash.h"
#include "lib/io/memory_source.h"
#include "lib/json/json_writer.h"
#include "lib/json/strict_parser.h"
#include "lib/load/loader.h"

int main() {
  ckpt::MemorySource source;
  source.AddFile("header.json", "{}");
  source.AddFile("weights.safetensors", std::string(8, '\0'));
  source.AddFile("weights.index.json", "{}");
  ckpt::DiagnosticList diagnostics;
  std::vector<std::string> errors;
  ckpt::Artifact artifact = ckpt::LoadArtifact("memory", source, ckpt::AuditOptions{}, diagnostics, errors);
  ckpt::VerifyAdmittedFiles(artifact, source);
  const ckpt::PlanOrReason plan = ckpt::BuildHashPlan(artifact);
  auto parsed = ckpt::json::ParseStrict("[1]");
  ckpt::AuditResult a;
  ckpt::AuditResult b;
  std::vector<ckpt::TensorDiff> tensors = ckpt::BuildTensorDiffs(a.artifact, b.artifact);
  ckpt::CompareTensors(tensors, 1);
  const ckpt::DiffRun diff = ckpt::AssembleDiff(std::move(a), std::move(b), std::move(tensors), ckpt::DiffOptions{});
  const ckpt::ChainGraph graph = ckpt::BuildChainGraph({}, ckpt::ChainOptions{});
  const std::size_t touched = ckpt::DiscoverArtifacts({}).artifacts.size() + ckpt::HistoryOrder(graph).size() +
                              diff.tensors.size() + ckpt::NfkcCasefold("A").value_or("").size() +
                              ckpt::json::ToCompactJson(std::get<ckpt::json::Document>(parsed).root()).size();
  std::cout << diagnostics.items.size() << " diagnostics, " << touched << (plan.plan ? " planned" : " not planned")
            << "\n";
  return diagnostics.items.empty() ? 1 : 0;
}
