// input-hard-link: A file of an audited folder with other hard links.
// Checked on the artifact model after reading.
#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::input_hard_link {

const RuleInfo kRule{
    .id = "input-hard-link",
    .name = "InputHardLink",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kWarning,
    .title = "A file of the folder has other hard links",
    .explanation =
        "The file is also reachable under another path, possibly outside the folder: whoever can "
        "write there changes what the audit passed after the audit (a loader reads it later), and "
        "a link to a file that is not the model's (a key, a dataset) is audited, hashed and "
        "shipped with it. Symbolic links are refused; hard links cannot be told from the file "
        "itself, so the audit says so.",
    .remediation =
        "Copy the file into the folder (`cp --remove-destination`), so the model owns its bytes; "
        "or check where the other links are (`find / -samefile FILE`).",
    .security = false,
    .tier = Tier::kPrimary,
    .inputs = InputKinds{InputKind::kLensemble, InputKind::kModelFolder},
};

void Check(const Artifact& artifact, FindingSink& sink) {
  constexpr std::size_t kMaxListed = 100;  // a folder of hard links is one story, not 10,000 lines
  std::size_t reported = 0;
  for (const DirectoryEntry& entry : artifact.entries) {
    if (entry.kind != EntryKind::kRegular || entry.links <= 1) continue;
    if (++reported > kMaxListed) break;
    sink.Report(kRule, FileLocation(entry.name),
                QuoteForMessage(entry.name) + " has " + std::to_string(entry.links) +
                    " hard links: the same file is reachable by " + std::to_string(entry.links - 1) +
                    (entry.links == 2 ? " other path" : " other paths") + ", which can change it after the audit.");
  }
}

}  // namespace ckpt::rules::input_hard_link
