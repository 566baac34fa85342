#include "engine/diff_run.h"

#include <thread>

#include "engine/audit.h"
#include "rules/catalog.h"

namespace ckpt {

DiffRun RunDiff(const std::string& path_a, const std::string& path_b, const DiffOptions& options) {
  AuditResult a;
  AuditResult b;
  if (options.jobs > 1) {
    std::thread other([&] { b = AuditPath(path_b, options.policy, KeepFiles::kOpen); });
    a = AuditPath(path_a, options.policy, KeepFiles::kOpen);
    other.join();
  } else {
    a = AuditPath(path_a, options.policy, KeepFiles::kOpen);
    b = AuditPath(path_b, options.policy, KeepFiles::kOpen);
  }
  DiffRun run = CompareAudited(std::move(a), std::move(b), options);
  FindingSink sink;
  for (const rules::RuleEntry& rule : rules::AllRules()) {
    if (rule.diff_check != nullptr) rule.diff_check(run, sink);
  }
  run.findings = std::move(sink.findings());
  run.dropped = sink.dropped();
  // The weight files are no longer needed.
  for (AuditResult* r : {&run.a, &run.b}) {
    for (WeightFile& wf : r->artifact.weights) wf.file.reset();
  }
  for (TensorDiff& t : run.tensors) {
    if (t.a) t.a->file = nullptr;
    if (t.b) t.b->file = nullptr;
  }
  return run;
}

int DiffExitCode(const DiffRun& run, FailThreshold threshold) {
  if (!run.a.tool_errors.empty() || !run.b.tool_errors.empty()) return kExitToolError;
  for (const AuditResult* r : {&run.a, &run.b}) {
    if (VerdictOf(*r, threshold) == Verdict::kFail && threshold) return kExitFindings;
  }
  for (const Finding& f : run.findings) {
    if (AtOrAbove(f.severity(), threshold)) return kExitFindings;
  }
  for (const DroppedFindings& d : run.dropped) {
    if (AtOrAbove(d.rule->severity, threshold)) return kExitFindings;
  }
  return kExitClean;
}

}  // namespace ckpt
