// layout-shard-numbering: Shard files are not numbered 0 to N-1 of N.
// Checked here, after the artifact is read.
#include <map>
#include <set>

#include "lib/formats/layout.h"
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::layout_shard_numbering {

const RuleInfo kRule{
    .id = "layout-shard-numbering",
    .name = "LayoutShardNumbering",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Shard files are not numbered 0 to N-1 of N",
    .explanation =
        "Shard names must be weights-IIIII-of-NNNNN.safetensors with N >= 2, the same N "
        "in every name, and every index from 00000 to N-1 present exactly once. A missing"
        " or extra shard means tensors were lost or added.",
    .remediation =
        "Re-export the sharded artifact so that all N shards are present and named "
        "consistently.",
    .security = false,
    .tier = Tier::kRootCause,
};

void Check(const Artifact& artifact, FindingSink& sink) {
  std::map<std::uint32_t, std::set<std::uint32_t>> by_count;  // N -> indexes present
  for (const DirectoryEntry& e : artifact.entries) {
    if (auto shard = ParseShardName(e.name)) by_count[shard->count].insert(shard->index);
  }
  if (by_count.empty()) return;
  if (by_count.size() > 1) {
    std::string counts;
    for (const auto& [count, indexes] : by_count) counts += (counts.empty() ? "" : ", ") + std::to_string(count);
    sink.Report(kRule, FileLocation(MakeShardName(*by_count.begin()->second.begin(), by_count.begin()->first)),
                "Shard file names disagree on the shard count N (" + counts + ").");
    return;
  }
  const auto& [count, indexes] = *by_count.begin();
  if (count < 2) {
    sink.Report(kRule, FileLocation(MakeShardName(*indexes.begin(), count)),
                "A sharded artifact needs N >= 2 shards, but the shard names say N = " + std::to_string(count) + ".");
  }
  for (std::uint32_t index : indexes) {
    if (index >= count) {
      sink.Report(
          kRule, FileLocation(MakeShardName(index, count)),
          "Shard " + MakeShardName(index, count) + " has index " + std::to_string(index) + ", outside 0 to N-1.");
    }
  }
  for (std::uint32_t i = 0; i < count && i < 100000; ++i) {
    if (indexes.count(i) == 0) {
      sink.Report(kRule, FileLocation(MakeShardName(i, count)), "Shard " + MakeShardName(i, count) + " is missing.");
    }
  }
}

}  // namespace ckpt::rules::layout_shard_numbering
