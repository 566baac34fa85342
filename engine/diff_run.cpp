#include "engine/diff_run.h"

#include <algorithm>
#include <thread>

#include "engine/audit.h"
#include "lib/gate/gate.h"
#include "rules/catalog.h"

namespace ckpt {

namespace {

// Both artifacts are loaded, then one pass reads every tensor byte once (with hashing: both
// content hashes and the comparison fused), then both audits finish, so their identity
// checks come after the last read of the diff too.
DiffRun DiffRounds(const std::string& path_a, const std::string& path_b, const DiffOptions& options) {
  std::unique_ptr<AuditSession> a;
  std::unique_ptr<AuditSession> b;
  if (options.jobs > 1) {
    std::thread other([&] { b = BeginAuditPath(path_b, options.policy); });
    a = BeginAuditPath(path_a, options.policy);
    other.join();
  } else {
    a = BeginAuditPath(path_a, options.policy);
    b = BeginAuditPath(path_b, options.policy);
  }
  std::vector<TensorDiff> tensors = BuildTensorDiffs(a->result.artifact, b->result.artifact);
  if (!options.policy.compute_hash) {
    CompareTensors(tensors, std::max(1u, options.jobs));  // structure only: the comparison is the one read
  } else {
    FusedHashes hashes;
    // SARIF artifacts[]: each weight file's digest from the pass's own windows where the
    // pass reads the file in order; the rest are read again below.
    // An input without a content hash (a plain file, a model folder) is known by its files'
    // SHA-256 in the JSON report: from the same windows.
    // A torch zip's files are digested by the read that checks their CRC-32s, below (were the
    // pass to digest them, that read would skip them, and their CRC-32s would go unchecked).
    auto crcs_pending = [](const AuditSession& s) {
      return std::any_of(s.result.artifact.weights.begin(), s.result.artifact.weights.end(),
                         [](const WeightFile& wf) { return !wf.pending_crcs.empty(); });
    };
    std::vector<FileDigestRequest> requests[2];
    if ((options.policy.digest_files || !a->plan) && !crcs_pending(*a)) {
      requests[0] = WeightDigestRequests(a->result.artifact);
    }
    if ((options.policy.digest_files || !b->plan) && !crcs_pending(*b)) {
      requests[1] = WeightDigestRequests(b->result.artifact);
    }
    hashes.a.digests = requests[0];
    hashes.b.digests = requests[1];
    FusedHashAndCompare(tensors, a->plan ? &*a->plan : nullptr, b->plan ? &*b->plan : nullptr,
                        std::max(1u, options.jobs), hashes);
    RecordDigests(a->result.artifact, requests[0]);
    RecordDigests(b->result.artifact, requests[1]);
    for (auto [session, side] : {std::pair{a.get(), &hashes.a}, std::pair{b.get(), &hashes.b}}) {
      if (!session->plan) continue;
      if (side->hash) {
        RecordContentHash(*session, IoResult<std::string>(*side->hash));
      } else if (side->error) {
        RecordContentHash(*session, IoResult<std::string>(*side->error));
      } else {
        RecordContentHash(*session, ComputeContentHash(*session->plan));  // the pass could not cover its plan
      }
    }
    // What the pass could not digest in order (SARIF), and a torch zip's data records, whose
    // CRC-32s cover whole records: read again.
    auto needs = [&](const AuditSession& s) {
      if (options.policy.digest_files || !s.plan) return true;
      for (const WeightFile& wf : s.result.artifact.weights) {
        if (!wf.pending_crcs.empty()) return true;
      }
      return false;
    };
    if (needs(*a) || needs(*b)) {
      std::thread other([&] { DigestSessionFiles(*b); });
      DigestSessionFiles(*a);
      other.join();
    }
  }
  // Every read is done: the audits finish (and close their weight files).
  AuditResult finished_a = FinishAudit(*a);
  AuditResult finished_b = FinishAudit(*b);
  for (TensorDiff& t : tensors) {
    if (t.a) t.a->file = nullptr;
    if (t.b) t.b->file = nullptr;
  }
  return AssembleDiff(std::move(finished_a), std::move(finished_b), std::move(tensors), options);
}

}  // namespace

DiffRun RunDiff(const std::string& path_a, const std::string& path_b, const DiffOptions& options) {
  DiffRun run = DiffRounds(path_a, path_b, options);
  FindingSink sink;
  for (const rules::RuleEntry& rule : rules::AllRules()) {
    if (rule.diff_check != nullptr) rule.diff_check(run, sink);
  }
  run.findings = std::move(sink.findings());
  run.dropped = sink.dropped();
  if (options.policy.gate != nullptr) ApplyGate(*options.policy.gate, run.findings, run.dropped, path_b);
  return run;
}

int DiffExitCode(const DiffRun& run, FailThreshold threshold) {
  if (!run.a.tool_errors.empty() || !run.b.tool_errors.empty()) return kExitToolError;
  for (const AuditResult* r : {&run.a, &run.b}) {
    if (VerdictOf(*r, threshold) == Verdict::kFail && threshold) return kExitFindings;
  }
  for (const Finding& f : run.findings) {
    if (f.counts() && AtOrAbove(f.severity(), threshold)) return kExitFindings;
  }
  for (const DroppedFindings& d : run.dropped) {
    if (d.counts() && AtOrAbove(d.severity(), threshold)) return kExitFindings;
  }
  return kExitClean;
}

}  // namespace ckpt
