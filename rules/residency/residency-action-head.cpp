// residency-action-head: Action-head tensor in a shared artifact.
// Checked here, after the artifact is read.
#include <algorithm>
#include <set>

#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::residency_action_head {

const RuleInfo kRule{
    .id = "residency-action-head",
    .name = "ResidencyActionHead",
    .code = Code::kResidencyViolation,
    .severity = Severity::kError,
    .title = "Action-head tensor in a shared artifact",
    .explanation = "INV-ACTIONHEAD-LOCAL: a tensor whose name has a '.'-separated component equal "
                    "(ignoring ASCII case) to action_head, action_heads or act_head is a "
                    "per-embodiment action head, which must never be published.",
    .remediation = "Remove action-head tensors before export; they stay on the embodiment.",
    .security = true,
};

namespace {

// A '.'-separated component equal, after ASCII lower-casing, to one of the patterns.
bool IsActionHeadName(std::string_view name, const std::vector<std::string>& patterns) {
  std::size_t start = 0;
  while (start <= name.size()) {
    std::size_t end = name.find('.', start);
    if (end == std::string_view::npos) end = name.size();
    std::string component(name.substr(start, end - start));
    for (char& c : component) {
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    if (std::find(patterns.begin(), patterns.end(), component) != patterns.end()) return true;
    start = end + 1;
  }
  return false;
}

}  // namespace

void Check(const Artifact& artifact, FindingSink& sink) {
  std::set<std::string> reported;
  // `locate` runs only for a hit: computing every tensor's location up front is O(n^2).
  auto check = [&](const std::string& name, const auto& locate, const std::string& where) {
    if (!IsActionHeadName(name, artifact.policy.action_head_patterns) || !reported.insert(name).second) return;
    Location loc = locate();
    loc.tensor = name;
    sink.Report(kRule, std::move(loc),
                "Tensor " + QuoteForMessage(name) + " (" + where +
                    ") is an action head; per-embodiment action heads must never appear in a shared artifact.");
  };
  if (const Header* h = ReadableHeader(artifact); h && h->tensor_manifest) {
    for (const ManifestEntry& e : *h->tensor_manifest) {
      check(e.name, [&] { return ManifestLocation(*h, e, "name"); }, "tensor_manifest");
    }
  }
  for (const WeightFile& wf : artifact.weights) {
    for (const StoredTensor& t : wf.tensors) {
      check(t.name, [&] { return wf.TensorLocation(t); }, wf.name);
    }
  }
  if (artifact.index && artifact.index->weight_map) {
    for (const auto& m : *artifact.index->weight_map) {
      check(m.tensor, [&] { return artifact.index->json.At(m.offset, "/weight_map/" + json::EscapePointerToken(m.tensor)); },
            "weights.index.json");
    }
  }
}

}  // namespace ckpt::rules::residency_action_head
