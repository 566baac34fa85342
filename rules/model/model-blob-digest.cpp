// model-blob-digest: Hub-cache blob does not hash to its name.
// Checked on the artifact model after reading (model folders).
#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::model_blob_digest {

const RuleInfo kRule{
    .id = "model-blob-digest",
    .name = "ModelBlobDigest",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Hub-cache blob does not hash to its name",
    .explanation =
        "A blob of the Hugging Face cache is named by its digest: 64 hex digits are the SHA-256 "
        "of an LFS object, 40 the git blob SHA-1 of a small file. Content that hashes otherwise "
        "was changed after download. On the Hub itself (hf://) the listing at the pinned commit "
        "gives each file's size and LFS SHA-256 or git blob SHA-1: bytes served with another size "
        "or digest are not the ones committed.",
    .remediation = "Delete the snapshot's blobs and download the model again.",
    .security = true,
    .tier = Tier::kPrimary,
    .inputs = {InputKind::kModelFolder, InputKind::kLensemble},  // a Lensemble round in an hf:// repository too
};

void Check(const Artifact& artifact, FindingSink& sink) {
  // A model folder's hub-cache blobs, or any file a Hub listing describes (hf://).
  const bool listed = std::any_of(artifact.files.begin(), artifact.files.end(),
                                  [](const AdmittedFile& f) { return f.expected_size.has_value(); });
  if (!artifact.model && !listed) return;
  for (const AdmittedFile& f : artifact.files) {
    const std::uint64_t served = f.identity.size;
    if (f.expected_size && (served != *f.expected_size || (f.linked_size && *f.linked_size != *f.expected_size))) {
      const std::uint64_t claimed = served != *f.expected_size ? served : *f.linked_size;
      sink.Report(kRule, FileLocation(f.name),
                  QuoteForMessage(f.name) + " is listed at " + std::to_string(*f.expected_size) +
                      " bytes but the server serves " + std::to_string(claimed) +
                      ": the bytes served are not the ones committed.");
      continue;
    }
    if (!f.blob_digest) continue;
    const bool sha1 = f.blob_digest->size() == 40;
    const std::optional<std::string>& actual = sha1 ? f.git_blob_sha1 : f.sha256;
    if (!actual || *actual == *f.blob_digest) continue;  // not hashed (--no-hash), or intact
    if (!f.expected_as.empty()) {                        // a Hub listing's object
      sink.Report(kRule, FileLocation(f.name),
                  QuoteForMessage(f.name) + " is " + f.expected_as + " " + *f.blob_digest +
                      " but its content hashes to " + *actual + (sha1 ? " (git blob SHA-1)" : " (SHA-256)") +
                      ": the bytes served are not the ones committed.");
      continue;
    }
    sink.Report(kRule, FileLocation(f.name),
                QuoteForMessage(f.name) + " is the blob " + *f.blob_digest + " but its content hashes to " + *actual +
                    (sha1 ? " (git blob SHA-1)" : " (SHA-256)") + ": the cache was altered after download.");
  }
}

}  // namespace ckpt::rules::model_blob_digest
