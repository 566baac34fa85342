// npz-duplicate-member: an .npz names one member twice.
// Checked on the reader's NpzFacts (lib/formats/npz): numpy.load takes a member by name from
// zipfile, which keeps the last entry of a name, while a reader that walks the local headers
// meets the first: two arrays under one key, and which one loads depends on the reader.
#include "lib/formats/npz/npz.h"
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::npz_duplicate_member {

const RuleInfo kRule{
    .id = "npz-duplicate-member",
    .name = "NpzDuplicateMember",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kError,
    .title = "An .npz archive holds two members of one name",
    .explanation =
        "numpy.load reads an .npz through zipfile, which keeps the last central directory entry of a "
        "name; a reader that walks the local headers, or stops at the first match, takes the other. "
        "One key then stands for two arrays, and what loads depends on the reader.",
    .remediation = "Write the archive again with numpy.savez, one member per array name.",
    .security = true,
    .inputs = {InputKind::kNpz},
};

void Check(const Artifact& artifact, FindingSink& sink) {
  for (const WeightFile& wf : artifact.weights) {
    const auto* facts = wf.FactsOf<npz::NpzFacts>();
    if (facts == nullptr) continue;
    for (const npz::NpzFacts::Duplicate& d : facts->duplicates) {
      Location at;
      at.file = wf.name;
      at.byte_offset = d.offset;
      sink.Report(kRule, at,
                  "Member " + QuoteForMessage(d.name) + " appears again at byte " + std::to_string(d.offset) +
                      " (first at byte " + std::to_string(d.first_at) +
                      "): numpy.load takes the last entry of a name, a reader of local headers the first.");
    }
  }
}

}  // namespace ckpt::rules::npz_duplicate_member
