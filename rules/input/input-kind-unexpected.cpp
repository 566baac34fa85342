// input-kind-unexpected: The input is not a kind the gate admits (--expect-kind).
// Checked here, after the artifact is read.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::input_kind_unexpected {

const RuleInfo kRule{
    .id = "input-kind-unexpected",
    .name = "InputKindUnexpected",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "Input is not a kind the gate admits",
    .explanation =
        "The gate was told which kinds of input it admits (--expect-kind, or expect_kinds in the "
        "policy file), and this input is another: a gate for Lensemble rounds that meets a torch "
        "checkpoint, or a safetensors gate that meets a pickle, would otherwise judge it by the "
        "rules of what it turned out to be.",
    .remediation = "Give the gate the input it is meant for, or add the kind to --expect-kind if it belongs.",
    .security = true,
    .tier = Tier::kRootCause,
    .inputs = InputKinds::All(),
};

void Check(const Artifact& artifact, FindingSink& sink) {
  const std::vector<InputKind>& admitted = artifact.policy.expected_kinds;
  if (admitted.empty() || std::find(admitted.begin(), admitted.end(), artifact.kind) != admitted.end()) return;
  std::string names;
  for (InputKind k : admitted) {
    if (!names.empty()) names += ", ";
    names += InputKindName(k);
  }
  Location at;  // the input itself
  at.byte_offset = 0;
  sink.Report(
      kRule, at,
      "The input is " + std::string(InputKindName(artifact.kind)) + ", not a kind the gate admits (" + names + ").");
}

}  // namespace ckpt::rules::input_kind_unexpected
