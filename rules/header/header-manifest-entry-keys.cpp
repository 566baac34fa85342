// header-manifest-entry-keys: tensor_manifest entry does not have exactly name, group, dtype and shape.
// Checked after reading, on each manifest entry in the header's parsed document.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

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

void Check(const Artifact& artifact, FindingSink& sink) {
  const std::vector<ManifestEntry>* manifest = Manifest(artifact);
  if (manifest == nullptr) return;
  const Header& h = *artifact.header;
  const std::string file = "header.json";
  for (const ManifestEntry& entry : *manifest) {
    const json::Value item(&h.json.doc, entry.tape_index);
    if (!item.is(json::Type::kObject)) continue;  // header-field-type says what it is
    for (const json::Member& m : item.Members()) {
      if (m.key == "name" || m.key == "group" || m.key == "dtype" || m.key == "shape") continue;
      sink.ReportWith(kRule, file, [&] {
        return std::pair(h.json.At(m.key_offset, entry.Pointer() + "/" + json::EscapePointerToken(m.key)),
                         "tensor_manifest entry " + std::to_string(entry.index) + " has unknown key " +
                             QuoteForMessage(m.key) + ".");
      });
    }
    for (const char* key : {"name", "group", "dtype", "shape"}) {
      if (item.Find(key)) continue;
      sink.ReportWith(kRule, file, [&] {
        return std::pair(h.json.At(item.offset(), entry.Pointer()),
                         "tensor_manifest entry " + std::to_string(entry.index) + " has no " + key + ".");
      });
    }
  }
}

}  // namespace ckpt::rules::header_manifest_entry_keys
