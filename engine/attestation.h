// Signed audits, their verification, chains from signed statements and derivation records
// (attestations.md): the statement an audit signs, and each verification as findings of
// the attest-* and derivation-* rules, so every report format shows which check failed.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "engine/gate.h"
#include "engine/verdict.h"
#include "lib/attest/ed25519.h"
#include "lib/attest/statement.h"
#include "lib/chain/chain_graph.h"
#include "lib/remote/http_client.h"

namespace ckpt {

/// Findings about a signed file (an envelope, a bundle) point at that file: its folder as the
/// root, its name as the file.
Location FileLocation(const std::string& path);

struct AttestOptions {
  FailThreshold threshold = Severity::kError;
  const ResolvedGate* gate = nullptr;  ///< --policy and --baseline in force
  /// --attestation-time: written as the predicate's `audited_at` (RFC 3339, UTC); absent by
  /// default so two runs on the same input sign identical statements.
  std::optional<std::string> time;
};

/// The audit statement's payload (attestations.md section 2) for `result`, with `subjects`.
std::string AuditStatementPayload(const AuditResult& result, const std::vector<attest::Subject>& subjects,
                                  const AttestOptions& options);

/// The files of an audited input with their SHA-256, reusing the digests the audit computed
/// from its own reads (AuditOptions::digest_files). `error` set when they cannot be read.
struct InputSubjects {
  std::vector<attest::Subject> subjects;
  std::optional<std::string> error;
};
InputSubjects SubjectsOfAudit(const AuditResult& result);

/// --verify-attestation: the envelope at `envelope_path` against `key` and the input at
/// `input_path` now. The result's findings say which check failed (none: it holds);
/// tool_errors when a file cannot be read.
AuditResult VerifyAttestation(const std::string& envelope_path, const attest::PublicKey& key,
                              const std::string& input_path, const AuditOptions& options = {});

/// verify-then-load's lazy hold: each subject's SHA-256 by name, from our audit statement at
/// `envelope_path` once its signature verified against `key` and its signed verdict is pass;
/// else why not (the first finding's message). The files themselves are not read here.
std::variant<std::map<std::string, std::string>, std::string> VerifiedSubjectDigests(const std::string& envelope_path,
                                                                                     const attest::PublicKey& key);

/// --verify-derivation: the record at `record_path` against `key`, the safetensors
/// `output_path` and, when given, the checkpoint it was derived from (a local file, or a
/// remote one read through `remote` as an audit reads it).
AuditResult VerifyDerivationRecord(const std::string& record_path, const attest::PublicKey& key,
                                   const std::string& output_path, const std::optional<std::string>& input_path,
                                   const remote::RemoteOptions& remote = {});

/// ckpt-chain --trusted-key: a history node from the envelope at `path` (section 3). A
/// verified statement with verdict pass offers its recomputed content hash; anything else is
/// an untrusted node with findings saying why.
ChainNode NodeFromEnvelope(const std::string& path, const attest::PublicKey& key);

}  // namespace ckpt
