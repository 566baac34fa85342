// NeMo `.nemo` archives (formats.md section 9): what NeMo's SaveRestoreConnector writes, an
// uncompressed tar (arcname ".") with model_config.yaml, model_weights.ckpt (a torch.save
// state dict) and artifacts. Told apart from a Lensemble tar by its members; the tar is read
// in place with every tar check (sub-folders allowed), the config parsed with libyaml's event
// API (no recursion here, no aliases, anchors or tags, no duplicate keys) with every
// `_target_` checked against the allowlist, and the checkpoint analysed in place as a torch
// file. Nothing is extracted, unpickled or imported.
#include <algorithm>
#include <array>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lib/core/text.h"
#include "lib/formats/format_table.h"
#include "lib/formats/input_classifier.h"
#include "lib/formats/tar/tar_reader.h"
#include "lib/formats/torch/torch_checkpoint.h"
#include "lib/io/window_file.h"
#include "lib/metadata/import_targets.h"

namespace ckpt {
namespace {

constexpr std::uint64_t kMaxConfigBytes = 10'000'000;
constexpr std::string_view kConfigName = "model_config.yaml";
constexpr std::string_view kWeightsName = "model_weights.ckpt";

// The tar reader names the tar itself by an empty file; inside a model folder it is `name`.
class NamingSink final : public DiagnosticSink {
 public:
  NamingSink(std::string name, DiagnosticSink& sink) : name_(std::move(name)), sink_(sink) {}
  void Report(Diag kind, Location location, std::string message) override {
    if (location.file.empty()) location.file = name_;
    sink_.Report(kind, std::move(location), std::move(message));
  }

 private:
  std::string name_;
  DiagnosticSink& sink_;
};

// A member's name without "./" and the archive's one top folder (if any), as NeMo's restore
// finds its files.
std::string_view RootName(std::string_view name) {
  if (name.starts_with("./")) name.remove_prefix(2);
  return name;
}

bool NamesRootFile(std::string_view member, std::string_view file) {
  member = RootName(member);
  if (member == file) return true;
  const std::size_t slash = member.find('/');
  return slash != std::string_view::npos && slash > 0 && member.substr(slash + 1) == file;
}

// Recognition (formats.md section 1 row 3): a tar with a member model_config.yaml (bare, "./"
// or under one top folder) and no header.json.
std::optional<std::string> SniffNemo(const FileHead& head) {
  if (head.file == nullptr || !HasTarMagic(head.bytes)) return std::nullopt;
  DiagnosticList ignored;  // the read proper reports them
  auto index = ReadTar(*head.file, ignored, TarNesting::kNested);
  if (!index) return std::nullopt;
  bool config = false;
  for (const TarMember& m : index->members) {
    if (NamesRootFile(m.name, "header.json")) return std::nullopt;
    config |= NamesRootFile(m.name, kConfigName);
  }
  if (!config) return std::nullopt;
  return "a NeMo archive (.nemo)";
}

// The config's refusal and its targets outside the allowlist, as findings of the archive.
void ReportConfig(const std::string& file, std::string_view text, EmbeddedCode& record, DiagnosticSink& sink) {
  const YamlConfig config = ReadYamlConfig(text);
  RecordTargets(config.targets, file, "", record);
  const auto at = [&file](std::uint64_t line, std::uint64_t column) {
    Location location;
    location.file = file;
    location.line = line;
    location.column = column;
    return location;
  };
  for (const ImportTarget& target : config.targets) {
    if (target.allowed) continue;
    sink.Report(Diag::kNemoTargetUnsafe, at(target.line, target.column),
                "The " + target.key + " at line " + std::to_string(target.line) + " " + DescribeTargetValue(target) +
                    ": restoring the model instantiates it (Hydra), and " + std::string(kAllowedTargetsText) + ".");
  }
  if (config.refused) {
    sink.Report(Diag::kNemoConfigInvalid, at(config.refused->line, config.refused->column),
                "model_config.yaml is refused: " + config.refused->why +
                    "; NeMo restores the model from it, so it is not read further.");
  }
}

// Shifts a tensor read from a member window to the archive's offsets.
void InArchive(StoredTensor& t, std::uint64_t member_at) {
  t.entry_offset += member_at;
  if (t.data_length > 0 || t.end > 0) {
    t.data_offset += member_at;
    t.begin += member_at;
    t.end += member_at;
  }
}

const TarMember* FindRootMember(const TarIndex& index, std::string_view file) {
  for (const TarMember& m : index.members) {
    if (m.admitted && m.entry_name == file) return &m;
  }
  return nullptr;
}

IoResult<WeightFile> ReadNemo(std::string name, std::unique_ptr<RandomAccessFile> file, DiagnosticSink& outer) {
  WeightFile wf;
  wf.name = std::move(name);
  wf.size = file->size();
  wf.header_read = true;
  NamingSink sink(wf.name, outer);
  auto index = ReadTar(*file, sink, TarNesting::kNested);
  if (!index) return index.error();
  const auto member_name = [&wf](std::string_view member) {
    return wf.name.empty() ? std::string(member) : wf.name + "/" + std::string(member);
  };
  bool valid = index->complete;
  if (const TarMember* config = FindRootMember(*index, kConfigName)) {
    if (config->size > kMaxConfigBytes) {
      Location at;
      at.file = member_name(kConfigName);
      at.byte_offset = 0;
      sink.Report(Diag::kNemoConfigInvalid, at,
                  "model_config.yaml is " + std::to_string(config->size) + " bytes, above the limit of " +
                      std::to_string(kMaxConfigBytes) + "; it was not read.");
      valid = false;
    } else {
      std::string text(static_cast<std::size_t>(config->size), '\0');
      if (auto read = file->ReadAt(config->data_offset, std::as_writable_bytes(std::span(text))); !read) {
        return read.error();
      }
      ReportConfig(member_name(kConfigName), text, wf.embedded_code, sink);
    }
  }
  const TarMember* weights = FindRootMember(*index, kWeightsName);
  if (weights == nullptr) {
    Location at;
    at.file = wf.name;
    at.byte_offset = 0;
    sink.Report(Diag::kNemoWeightsMissing, at,
                "The archive holds no model_weights.ckpt at its root: NeMo restores the weights from it, so there is "
                "nothing to audit.");
    valid = false;
  } else {
    auto window = std::make_unique<WindowFile>(*file, weights->data_offset, weights->size);
    auto classified = ClassifyFile(*window);
    if (!classified) return classified.error();
    const InputFormat& format = FormatOf(classified->kind);
    if (!format.pickle_family || format.torch_loads == TorchLoads::kNo) {
      Location at;
      at.file = member_name(kWeightsName);
      at.byte_offset = 0;
      sink.Report(Diag::kNemoWeightsMissing, at,
                  "model_weights.ckpt is " +
                      (classified->description.empty() ? std::string("no format the audit recognises")
                                                       : classified->description) +
                      ", not a torch.save checkpoint: NeMo's restore cannot read it as its weights.");
      valid = false;
    } else {
      auto inner = ReadPickleFamily(classified->kind, member_name(kWeightsName), std::move(window), sink);
      if (!inner) return inner.error();
      valid = valid && inner->valid;
      for (StoredTensor& t : inner->tensors) {
        InArchive(t, weights->data_offset);
        wf.tensors.push_back(std::move(t));
      }
      for (PendingCrc& crc : inner->pending_crcs) {
        crc.offset += weights->data_offset;
        wf.pending_crcs.push_back(std::move(crc));
      }
      wf.pickle = std::move(inner->pickle);
      if (wf.pickle) {
        for (PickleFacts::Record& r : wf.pickle->records) r.offset += weights->data_offset;
        wf.pickle->container = "nemo";
      }
    }
  }
  // Artifacts (tokenizers, vocabularies) are sniffed as a model folder's files are: one that
  // is a pickle, or a program, is analysed for its findings (NeMo hands them to loaders).
  for (const TarMember& m : index->members) {
    if (!m.admitted || &m == weights || m.entry_name == kConfigName) continue;
    auto window = std::make_unique<WindowFile>(*file, m.data_offset, m.size);
    auto classified = ClassifyFile(*window);
    if (!classified) return classified.error();
    const InputFormat& format = FormatOf(classified->kind);
    if (format.read == nullptr || (!format.pickle_family && !format.program)) continue;
    auto read = format.read(member_name(m.entry_name), std::move(window), sink);
    if (!read) return read.error();
    valid = valid && read->valid;
  }
  wf.valid = valid;
  wf.BuildNameIndex();
  wf.file = std::move(file);
  return wf;
}

void NemoInInventory(std::span<const std::byte> /*head*/, const std::string& /*description*/, InventoryItem& item) {
  item.kind = InventoryClass::kAnalysedWeights;
  item.description = "a NeMo archive (.nemo)";
}

}  // namespace

constexpr std::array<NameSuffix, 1> kNemoNames{{
    // Older NeMo wrote w:gz archives, refused as compressed.
    {".nemo", std::nullopt, "a NeMo archive", {}, PolyglotContainer::kNone, true},
}};

const InputFormat formats::kNemoFormat{
    .kind = InputKind::kNemo,
    .sniff = &SniffNemo,
    .read = &ReadNemo,
    .inventory = &NemoInInventory,
    .container = PolyglotContainer::kTar,
    .names = kNemoNames,
    .holds_other_formats = true,
};

}  // namespace ckpt
