// model-shard-name: Shard names do not follow <prefix>-IIIII-of-NNNNN.
// Checked on the artifact model after reading (model folders).
#include <map>
#include <optional>
#include <set>

#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::model_shard_name {

const RuleInfo kRule{
    .id = "model-shard-name",
    .name = "ModelShardName",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kWarning,
    .title = "Shard names do not follow <prefix>-IIIII-of-NNNNN",
    .explanation =
        "save_pretrained names shards <prefix>-00001-of-0000N.safetensors, 1-based, N the number "
        "of shards. Loaders follow weight_map as written, so other names still load, but a name "
        "that does not say its place hides a missing or extra shard.",
    .remediation = "Re-export with save_pretrained, or rename the shards and their weight_map values.",
    .security = false,
    .tier = Tier::kPrimary,
    .inputs = {InputKind::kModelFolder},
};

namespace {

// "<prefix>-IIIII-of-NNNNN.safetensors" -> {I, N}.
std::optional<std::pair<unsigned, unsigned>> ShardNumbers(std::string_view name, std::string_view prefix) {
  constexpr std::string_view kSuffix = ".safetensors";
  if (name.size() != prefix.size() + 1 + 5 + 4 + 5 + kSuffix.size()) return std::nullopt;
  if (name.substr(0, prefix.size()) != prefix || name[prefix.size()] != '-') return std::nullopt;
  const std::string_view rest = name.substr(prefix.size() + 1);
  if (rest.substr(5, 4) != "-of-" || rest.substr(14) != kSuffix) return std::nullopt;
  auto number = [](std::string_view digits) -> std::optional<unsigned> {
    unsigned n = 0;
    for (char c : digits) {
      if (c < '0' || c > '9') return std::nullopt;
      n = n * 10 + static_cast<unsigned>(c - '0');
    }
    return n;
  };
  auto i = number(rest.substr(0, 5));
  auto n = number(rest.substr(9, 5));
  if (!i || !n) return std::nullopt;
  return std::pair(*i, *n);
}

}  // namespace

void Check(const Artifact& artifact, FindingSink& sink) {
  if (!artifact.model) return;
  for (const ModelIndex& index : artifact.model->indexes) {
    if (!index.weight_map) continue;
    std::set<std::string> files;
    for (const std::string& file : index.weight_map->files()) {
      if (IsBareFileName(file)) files.insert(file);
    }
    const auto count = static_cast<unsigned>(files.size());
    for (const std::string& file : files) {
      const auto numbers = ShardNumbers(file, index.prefix);
      if (numbers && numbers->second == count && numbers->first >= 1 && numbers->first <= count) continue;
      std::string expected = index.prefix + "-IIIII-of-" +
                             std::string(5 - std::min<std::size_t>(5, std::to_string(count).size()), '0') +
                             std::to_string(count) + ".safetensors";
      sink.Report(kRule, FileLocation(InFolder(index.folder, file)),
                  QuoteForMessage(file) + " does not follow the shard naming " + QuoteForMessage(expected) +
                      " (1-based, " + std::to_string(count) + (count == 1 ? " shard" : " shards") + " in " +
                      QuoteForMessage(index.json.name) + ").");
    }
  }
}

}  // namespace ckpt::rules::model_shard_name
