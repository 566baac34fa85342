// What one artifact's audit produced: the model, the findings (root causes first) and the
// tool's own failures. Produced by the engine (engine/audit.h), read by reports.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lib/model/artifact.h"
#include "lib/model/finding.h"
#include "lib/model/signature_facts.h"

namespace ckpt {

/// --verify-attestation / --verify-derivation: each check performed and what it established,
/// so a report says what was verified, not only that it passed.
struct VerificationFacts {
  enum class Signature { kUnreadable, kVerified, kInvalid, kForeignKey };
  std::string method;           ///< "attestation" or "derivation"
  std::string envelope;         ///< the envelope (or record) file
  std::string envelope_sha256;  ///< SHA-256 of its bytes as read
  std::string key_id;           ///< the trusted key's id: SHA-256 of its DER SubjectPublicKeyInfo
  Signature signature = Signature::kUnreadable;
  bool payload_type_ok = false;  ///< the signed payload is an in-toto statement
  std::string predicate_type;    ///< set when the statement parsed as that predicate
  std::string tool_name;         ///< the signer's tool (audit statements)
  std::string tool_version;
  std::string signed_kind;                    ///< the input kind the statement names
  std::optional<std::string> signed_verdict;  ///< audit statements: "pass" or "fail"
  std::optional<std::uint64_t> rules_count;
  std::optional<std::string> rules_fingerprint;
  std::optional<bool> rules_match;  ///< the signer's rule set equals this tool's, under this policy
  bool subjects_compared = false;
  std::size_t subjects = 0;          ///< signed subjects
  std::size_t subjects_matched = 0;  ///< of them, files of the input with the same name and SHA-256 now
  // Derivation records only:
  std::string input_record;  ///< the checkpoint the output was made from (its name)
  std::string input_sha256;
  bool input_checked = false;  ///< --derived-from was given and compared
  std::size_t tensors = 0;
  std::size_t aliases = 0;
};

struct AuditResult {
  Artifact artifact;
  std::vector<Finding> findings;         ///< root causes first (Tier), then by file and position
  std::vector<DroppedFindings> dropped;  ///< counted, not kept: repeats past the per-file cap, --max-findings
  std::vector<std::string> tool_errors;  ///< the tool could not finish (I/O failure): exit 2
  /// --verify-model-signature: what the model signature check established.
  std::optional<oms::ModelSignatureFacts> model_signature;
  /// --verify-attestation / --verify-derivation: the checks performed.
  std::optional<VerificationFacts> verification;
  /// --attest: the signed statement this run wrote for the input (its path and the SHA-256 of
  /// its bytes), which a bill of materials references.
  std::optional<std::pair<std::string, std::string>> statement_written;
};

}  // namespace ckpt
