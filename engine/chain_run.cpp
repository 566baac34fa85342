#include "engine/chain_run.h"

#include <algorithm>
#include <tuple>

#include "engine/attestation.h"
#include "engine/audit.h"
#include "lib/chain/discovery.h"
#include "lib/core/parallel.h"
#include "rules/catalog.h"

namespace ckpt {

std::vector<ChainFinding> CheckChain(const ChainGraph& graph) {
  ChainFindingSink sink;
  for (const rules::RuleEntry& rule : rules::AllRules()) {
    if (rule.chain_check != nullptr) rule.chain_check(graph, sink);
  }
  std::vector<ChainFinding> findings = std::move(sink.findings());
  std::stable_sort(findings.begin(), findings.end(), [](const ChainFinding& a, const ChainFinding& b) {
    return std::tuple(a.node.has_value(), a.node.value_or(0), a.finding.rule->id) <
           std::tuple(b.node.has_value(), b.node.value_or(0), b.finding.rule->id);
  });
  return findings;
}

std::vector<ChainNode> AuditArtifacts(std::span<const std::string> paths, const AuditOptions& policy, unsigned jobs) {
  std::vector<ChainNode> nodes(paths.size());
  // Audits already run one per core: each reads in its own thread, without a read-ahead
  // thread of its own that would only oversubscribe the cores.
  AuditOptions own = policy;
  own.overlap_reads = jobs <= 1 || paths.size() <= 1;
  const unsigned cores = std::max(1u, jobs);
  own.file_jobs = std::max(1u, cores / static_cast<unsigned>(std::clamp<std::size_t>(paths.size(), 1, cores)));
  ParallelFor(paths.size(), jobs,
              [&](std::size_t i) { nodes[i] = SummarizeAudit(AuditPath(paths[i], own), own.compute_hash); });
  return nodes;
}

ChainRun RunChain(const std::vector<std::string>& roots, const ChainRunOptions& options) {
  ChainRun run;
  Discovery found = DiscoverArtifacts(roots, options.trusted_key.has_value());
  run.discovery_errors = std::move(found.errors);
  std::vector<ChainNode> nodes = AuditArtifacts(found.artifacts, options.policy, options.jobs);
  if (options.trusted_key) {
    // Statements read no weights: verifying them is cheap, one after another.
    for (const std::string& envelope : found.envelopes) {
      ChainNode node = NodeFromEnvelope(envelope, *options.trusted_key);
      // The local policy and baseline judge the signed findings as they judge an audit's
      // (the signed verdict still decides whether the round offers its hash).
      if (options.policy.gate != nullptr) {
        ApplyGate(*options.policy.gate, node.audit_findings, node.audit_dropped, node.path);
      }
      nodes.push_back(std::move(node));
    }
  }
  run.graph = BuildChainGraph(std::move(nodes), options.chain);
  run.findings = CheckChain(run.graph);
  if (options.policy.gate != nullptr) {
    std::erase_if(run.findings, [&](const ChainFinding& f) {
      auto it = options.policy.gate->severity.find(f.finding.rule);
      return it != options.policy.gate->severity.end() && !it->second;
    });
    std::vector<DroppedFindings> none;
    for (ChainFinding& f : run.findings) {
      std::vector<Finding> one{std::move(f.finding)};
      ApplyGate(*options.policy.gate, one, none, "");
      f.finding = std::move(one.front());
    }
  }
  run.history = HistoryOrder(run.graph);
  return run;
}

Verdict NodeVerdict(const ChainRun& run, std::size_t node, FailThreshold threshold) {
  const ChainNode& n = run.graph.nodes[node];
  if (!n.tool_errors.empty()) return Verdict::kError;
  const FailThreshold judged = VerdictThreshold(threshold);
  for (const Finding& f : n.audit_findings) {
    if (f.counts() && AtOrAbove(f.severity(), judged)) return Verdict::kFail;
  }
  for (const DroppedFindings& d : n.audit_dropped) {
    if (d.counts() && AtOrAbove(d.severity(), judged)) return Verdict::kFail;
  }
  for (const ChainFinding& f : run.findings) {
    if (f.node == node && f.finding.counts() && AtOrAbove(f.finding.severity(), judged)) return Verdict::kFail;
  }
  return Verdict::kPass;
}

int ChainExitCode(const ChainRun& run, FailThreshold threshold) {
  if (!run.discovery_errors.empty() || run.graph.nodes.empty()) return kExitToolError;
  int code = kExitClean;
  for (std::size_t node : run.graph.scope) {
    Verdict v = NodeVerdict(run, node, threshold);
    if (v == Verdict::kError) return kExitToolError;
    if (v == Verdict::kFail && threshold) code = kExitFindings;
  }
  for (const ChainFinding& f : run.findings) {
    if (!f.node && f.finding.counts() && AtOrAbove(f.finding.severity(), threshold)) code = kExitFindings;
  }
  return code;
}

}  // namespace ckpt
