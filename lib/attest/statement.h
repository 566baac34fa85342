// In-toto Statement v1 payloads (attestations.md sections 2 and 4), read strictly: the
// audit predicate (what ckpt-audit --attest signs) and the derivation predicate (what a
// conversion signs). Each Parse reports what is wrong (attest-statement-invalid,
// attest-predicate-unknown) and returns nothing then.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/model/diagnostic.h"

namespace ckpt::attest {

inline constexpr std::string_view kStatementType = "https://in-toto.io/Statement/v1";
/// The predicate types this project defines (README "Signed audits"); versioned.
inline constexpr std::string_view kAuditPredicateType = "https://github.com/ckpt-audit/ckpt-audit/predicates/audit/v1";
inline constexpr std::string_view kDerivationPredicateType =
    "https://github.com/ckpt-audit/ckpt-audit/predicates/derivation/v1";

struct Subject {
  std::string name;        ///< path relative to the input root, '/'-separated
  std::string sha256;      ///< lowercase hex
  std::uint64_t size = 0;  ///< bytes hashed (files listed from disk; not part of a statement)
};

struct SignedFinding {
  std::string rule;
  std::string code;
  std::string severity;
  std::string file;
  /// The signer's baseline accepted it (reason, expires): it did not count toward the verdict.
  std::optional<std::pair<std::string, std::string>> suppressed;
};

struct AuditPredicate {
  std::optional<std::uint64_t> rules_count;      ///< `rules` {count, fingerprint}, when signed
  std::optional<std::string> rules_fingerprint;  ///< the signer's rule set (ids, codes, severities)
  std::string tool_name;
  std::string tool_version;
  std::string kind;     ///< InputKindName of the input
  std::string verdict;  ///< "pass" or "fail"
  std::vector<SignedFinding> findings;
  // Lensemble inputs only (absent fields stay empty):
  std::optional<std::string> content_hash;  ///< the recomputed hash; nullopt: null (not computed)
  std::optional<std::string> declared_content_hash;
  bool parent_present = false;
  std::optional<std::string> parent_hash;  ///< nullopt with parent_present: null (genesis)
  std::optional<std::uint64_t> round_index;
  std::optional<std::string> wmcp_version;
  std::optional<std::uint64_t> schema_version;
};

struct AuditStatement {
  std::vector<Subject> subjects;  ///< sorted by name, unique
  AuditPredicate predicate;
};

struct DerivedTensor {
  std::string name;
  std::string dtype;  ///< safetensors token
  std::vector<std::uint64_t> shape;
  std::uint64_t size_bytes = 0;
  std::string sha256;
  std::string record;  ///< zip member name, or "storage:<key>" in a legacy file
  std::uint64_t offset_bytes = 0;
  std::uint64_t offset = 0;  ///< where the entry is in the payload, for messages
};

struct DerivationStatement {
  std::vector<Subject> subjects;
  std::string input_name;
  std::string input_sha256;
  std::vector<DerivedTensor> tensors;
  std::map<std::string, std::string> aliases;  ///< name -> kept name
};

/// `payload` as an audit statement; nothing after reporting why it is not one.
std::optional<AuditStatement> ParseAuditStatement(std::string_view payload, const FileReporter& report);
/// `payload` as a derivation record.
std::optional<DerivationStatement> ParseDerivationStatement(std::string_view payload, const FileReporter& report);

/// True for 64 lowercase hexadecimal digits.
bool IsSha256Hex(std::string_view text);

}  // namespace ckpt::attest
