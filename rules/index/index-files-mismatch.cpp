// index-files-mismatch: Shard files in weight_map differ from weight_files or the shards present.
// Checked here, after the artifact is read.
#include <set>

#include "lib/formats/layout.h"
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::index_files_mismatch {

const RuleInfo kRule{
    .id = "index-files-mismatch",
    .name = "IndexFilesMismatch",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Shard files in weight_map differ from weight_files or the shards present",
    .explanation =
        "The set of files named in weight_map must equal weight_files and the shard files"
        " present.",
    .remediation = "Re-export the sharded artifact so that index, header and shards agree.",
    .security = true,
    .tier = Tier::kRootCause,
};

void Check(const Artifact& artifact, FindingSink& sink) {
  if (!artifact.index || !artifact.index->weight_map) return;
  const ShardIndex& index = *artifact.index;
  std::set<std::string> mapped;
  for (const std::string& file : index.weight_map->files()) {
    if (!PathEscapeReason(file)) mapped.insert(file);
  }
  std::set<std::string> present;
  for (const DirectoryEntry& e : artifact.entries) {
    if (ParseShardName(e.name)) present.insert(e.name);
  }
  for (const std::string& file : mapped) {
    if (present.count(file) == 0) {
      sink.Report(
          kRule, index.json.At(index.json.doc.root().Find("weight_map")->offset(), "/weight_map"),
          "weight_map maps tensors to " + QuoteForMessage(file, 80) + ", which is not a shard of the artifact.");
    }
  }
  for (const std::string& file : present) {
    if (mapped.count(file) == 0) {
      sink.Report(kRule, index.json.At(index.json.doc.root().Find("weight_map")->offset(), "/weight_map"),
                  "Shard " + file + " is present but weight_map maps no tensor to it.");
    }
  }
  const Header* h = ReadableHeader(artifact);
  if (h == nullptr || !h->weight_files) return;
  std::set<std::string> declared(h->weight_files->begin(), h->weight_files->end());
  if (declared != mapped) {
    sink.Report(kRule, index.json.At(index.json.doc.root().Find("weight_map")->offset(), "/weight_map"),
                "The files in weight_map (" + std::to_string(mapped.size()) +
                    ") are not the files header.json lists in weight_files (" + std::to_string(declared.size()) + ").");
  }
}

}  // namespace ckpt::rules::index_files_mismatch
