// header-param-groups-invalid: param_groups is empty or repeats a group.
// Checked here, after the artifact is read.
#include <map>

#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::header_param_groups_invalid {

const RuleInfo kRule{
    .id = "header-param-groups-invalid",
    .name = "HeaderParamGroupsInvalid",
    .code = Code::kArtifactInvalid,
    .severity = Severity::kError,
    .title = "param_groups is empty or repeats a group",
    .explanation = "param_groups must be a non-empty array of unique strings.",
    .remediation = "List each shared parameter group once.",
    .security = false,
};

void Check(const Artifact& artifact, FindingSink& sink) {
  const Header* h = ReadableHeader(artifact);
  if (h == nullptr || !h->param_groups) return;
  if (h->param_groups->empty()) {
    sink.Report(kRule, h->FieldLocation("param_groups"), "param_groups is empty; it must list at least one group.");
  }
  const std::vector<std::string>& groups = *h->param_groups;
  std::map<std::string_view, std::size_t> first_index;  // O(n log n) whatever the header holds
  for (std::size_t i = 0; i < groups.size(); ++i) {
    auto [it, inserted] = first_index.emplace(groups[i], i);
    if (inserted) continue;
    sink.Report(kRule, h->json.At(h->param_group_offsets[i], "/param_groups/" + std::to_string(i)),
                "param_groups lists " + QuoteForMessage(groups[i]) + " twice (entries " + std::to_string(it->second) +
                    " and " + std::to_string(i) + ").");
  }
}

}  // namespace ckpt::rules::header_param_groups_invalid
