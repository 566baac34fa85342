// header-hash-format: Hash field is not 64 lowercase hex characters.
// Checked here, after the artifact is read.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::header_hash_format {

const RuleInfo kRule{
    .id = "header-hash-format",
    .name = "HeaderHashFormat",
    .code = Code::kArtifactInvalid,
    .severity = Severity::kError,
    .title = "Hash field is not 64 lowercase hex characters",
    .explanation =
        "content_hash, config_hash and parent_hash are SHA-256 digests written as 64 "
        "lowercase hexadecimal characters; any other form cannot be compared byte for "
        "byte.",
    .remediation = "Write the digest as 64 lowercase hex characters.",
    .security = false,
};

void Check(const Artifact& artifact, FindingSink& sink) {
  const Header* h = ReadableHeader(artifact);
  if (h == nullptr) return;
  auto check = [&](const char* field, const std::optional<std::string>& value) {
    if (value && !IsLowerHex64(*value)) {
      sink.Report(kRule, h->FieldLocation(field),
                  std::string(field) + " is " + QuoteForMessage(*value, 80) + ", not 64 lowercase hex characters.");
    }
  };
  check("content_hash", h->content_hash);
  check("config_hash", h->config_hash);
  check("parent_hash", h->parent_hash);
}

}  // namespace ckpt::rules::header_hash_format
