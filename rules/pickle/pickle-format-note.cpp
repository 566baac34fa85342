// pickle-format-note: A pickle-based file, even a clean one, is a note recommending safetensors.
// Checked on the artifact model after reading.
#include <set>
#include <string_view>

#include "rules/catalog.h"
#include "rules/rule_helpers.h"

namespace ckpt::rules::pickle_format_note {

const RuleInfo kRule{
    .id = "pickle-format-note",
    .name = "PickleFormatNote",
    .code = Code::kCheckpointIntegrity,
    .severity = Severity::kNote,
    .title = "Pickle-based format: prefer safetensors",
    .explanation =
        "Loading a pickle-based checkpoint (torch.save zip or legacy, a pickle, a .npy file) runs whatever "
        "the file names. The static analysis found what it holds, but every consumer that loads it trusts the "
        "file, not this report; safetensors holds only data.",
    .remediation = "Convert the checkpoint to safetensors (ckpt-convert rebuilds it without running the pickle).",
    .security = false,
    .tier = Tier::kPrimary,
    .inputs = {},
    .pickle_inputs = true,
};

void Check(const Artifact& artifact, FindingSink& sink) {
  auto note = [&](const std::string& file, const std::string& what) {
    Location at;
    at.file = file;
    at.byte_offset = 0;
    sink.Report(kRule, std::move(at),
                (file.empty() ? std::string("This file") : QuoteForMessage(file)) + " is " + what +
                    ": pickle-based format, prefer safetensors (loading it runs whatever it names).");
  };
  // A folder's pickle-based files are noted once, by their inventory line below.
  std::set<std::string_view> in_inventory;
  if (artifact.model) {
    for (const InventoryItem& item : artifact.model->inventory) {
      if (item.kind == InventoryClass::kPickleFamily) in_inventory.insert(item.name);
    }
  }
  for (const WeightFile* listed : artifact.ListedWeightFiles()) {
    const WeightFile& wf = *listed;
    if (!wf.pickle || in_inventory.contains(wf.name)) continue;
    const std::string& c = wf.pickle->container;
    note(wf.name, c == "torch-zip"      ? "a torch.save checkpoint (zip)"
                  : c == "torch-legacy" ? "a torch.save checkpoint (legacy format)"
                  : c == "numpy"        ? "a NumPy .npy file"
                  : c == "joblib"       ? "a joblib file"
                  : c == "nemo"         ? "a NeMo archive whose model_weights.ckpt is a torch.save checkpoint"
                                        : "a Python pickle");
  }
  if (artifact.model) {
    for (const InventoryItem& item : artifact.model->inventory) {
      if (item.kind == InventoryClass::kPickleFamily) note(item.name, item.description);
    }
  }
}

}  // namespace ckpt::rules::pickle_format_note
