// header-manifest-entry-keys: tensor_manifest entry does not have exactly name, group, dtype and shape.
// Detected while reading, by lib/formats/header_reader.cpp.
#include "rules/catalog.h"

namespace ckpt::rules::header_manifest_entry_keys {

const RuleInfo kRule{
    .id = "header-manifest-entry-keys",
    .name = "HeaderManifestEntryKeys",
    .code = Code::kArtifactInvalid,
    .severity = Severity::kError,
    .title = "tensor_manifest entry does not have exactly name, group, dtype and shape",
    .explanation =
        "Each manifest entry is an object with exactly the keys name, group, dtype and "
        "shape; a missing key leaves the tensor undefined and an extra key is data "
        "outside the hash.",
    .remediation = "Regenerate the manifest entry with exactly those four keys.",
    .security = false,
};

}  // namespace ckpt::rules::header_manifest_entry_keys
