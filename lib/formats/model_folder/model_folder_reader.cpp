#include "lib/formats/model_folder/model_folder_reader.h"

#include "lib/core/byte_reader.h"
#include "lib/core/text.h"
#include "lib/formats/format_table.h"
#include "lib/formats/input_classifier.h"
#include "lib/formats/json_file_reader.h"
#include "lib/json/strict_parser.h"
#include "lib/metadata/import_targets.h"

namespace ckpt {
namespace {

constexpr std::string_view kIndexSuffix = ".safetensors.index.json";
constexpr std::uint64_t kMaxConfigBytes = 10'000'000;

std::string_view BaseName(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

bool EndsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// Each target outside the allowlist, as a finding at its line in `name`.
void ReportTargets(const std::string& name, const std::vector<ImportTarget>& targets, DiagnosticSink& sink) {
  for (const ImportTarget& target : targets) {
    if (target.allowed) continue;
    Location at;
    at.file = name;
    at.line = target.line;
    at.column = target.column;
    sink.Report(Diag::kConfigTargetUnsafe, at,
                "The " + target.key + " at " + QuoteForMessage(target.key_path, 120) + " " +
                    DescribeTargetValue(target) +
                    ": instantiating this configuration (Hydra, OmegaConf, NeMo) imports and calls it, and " +
                    std::string(kAllowedTargetsText) + ".");
  }
}

}  // namespace

bool IsModelIndexName(std::string_view path) {
  const std::string_view base = BaseName(path);
  return base.size() > kIndexSuffix.size() && EndsWith(base, kIndexSuffix);
}

bool IsPickleIndexName(std::string_view path) {
  const std::string_view base = BaseName(path);
  for (std::string_view suffix : {std::string_view(".bin.index.json"), std::string_view(".pt.index.json")}) {
    if (base.size() > suffix.size() && EndsWith(base, suffix)) return true;
  }
  return false;
}

IoResult<ModelIndex> ReadModelIndex(const std::string& name, const RandomAccessFile& file, DiagnosticSink& sink) {
  ModelIndex index;
  index.json.name = name;
  const std::size_t slash = name.rfind('/');
  index.folder = slash == std::string::npos ? "" : name.substr(0, slash);
  const std::string_view base = BaseName(name);
  // The prefix before ".safetensors.index.json" (or ".bin.index.json", ".pt.index.json").
  std::string_view prefix = base.substr(0, base.size() - std::string_view(".index.json").size());
  prefix = prefix.substr(0, prefix.rfind('.') == std::string_view::npos ? prefix.size() : prefix.rfind('.'));
  index.prefix = std::string(prefix);
  const Diag invalid = Diag::kModelIndexInvalid;
  const JsonFileDiagnostics json_rules{invalid, invalid, invalid, invalid, invalid, invalid};
  if (auto read = ReadJsonFile(file, json_rules, index.json, sink); !read) return read.error();
  if (!index.json.parsed) return index;
  const json::Value root = index.json.doc.root();
  for (const json::Member& m : root.Members()) {
    if (m.key != "metadata" && m.key != "weight_map") index.unknown_keys.emplace_back(m.key, m.key_offset);
  }
  const std::string shown = QuoteForMessage(name);
  if (auto metadata = root.Find("metadata")) {
    if (!metadata->is(json::Type::kObject)) {
      sink.Report(invalid, index.json.At(metadata->offset(), "/metadata"),
                  "metadata in " + shown + " is " + metadata->Describe() + ", not an object.");
    } else if (auto total = metadata->Find("total_size")) {
      if (auto t = total->AsInteger()) {
        index.total_size = t;
        index.total_size_offset = total->offset();
      } else {
        sink.Report(invalid, index.json.At(total->offset(), "/metadata/total_size"),
                    "metadata.total_size in " + shown + " is " +
                        (total->is(json::Type::kNumber) ? std::string(total->Raw()) : total->Describe()) +
                        ", not a JSON integer.");
      }
    }
  }
  auto map = root.Find("weight_map");
  if (!map || !map->is(json::Type::kObject)) {
    sink.Report(invalid, map ? index.json.At(map->offset(), "/weight_map") : index.json.At(0, ""),
                map ? "weight_map in " + shown + " is " + map->Describe() + ", not an object."
                    : shown + " has no weight_map: loaders cannot find any tensor through it.");
    return index;
  }
  std::vector<ShardIndex::Mapping> mappings;
  bool ok = true;
  for (const json::Member& m : map->Members()) {
    if (!m.value.is(json::Type::kString)) {
      sink.Report(invalid, index.json.At(m.value.offset(), "/weight_map/" + json::EscapePointerToken(m.key)),
                  "weight_map entry " + QuoteForMessage(m.key) + " in " + shown + " is " +
                      std::string(json::TypeName(m.value.type())) + ", not a file name.");
      ok = false;
      continue;
    }
    mappings.push_back({m.key, m.value.String(), m.key_offset, m.value.offset()});
  }
  if (ok) index.weight_map = std::move(mappings);
  return index;
}

InventoryItem ClassifyInventoryFile(const std::string& name, std::span<const std::byte> head, std::uint64_t size,
                                    const ClassifiedFile& classified) {
  InventoryItem item{name, size, "", InventoryClass::kData};
  const std::string_view base = BaseName(name);
  if (StartsWith(head,
                 "\x7f"
                 "ELF")) {
    item.kind = InventoryClass::kExecutable;
    item.description = "an ELF executable or shared library";
    return item;
  }
  if (StartsWith(head, "MZ") && size >= 64) {
    item.kind = InventoryClass::kExecutable;
    item.description = "a Windows (PE) executable or DLL";
    return item;
  }
  for (std::string_view magic : {std::string_view("\xfe\xed\xfa\xce", 4), std::string_view("\xfe\xed\xfa\xcf", 4),
                                 std::string_view("\xce\xfa\xed\xfe", 4), std::string_view("\xcf\xfa\xed\xfe", 4),
                                 std::string_view("\xca\xfe\xba\xbe", 4)}) {
    if (StartsWith(head, magic)) {
      item.kind = InventoryClass::kExecutable;
      item.description = "a Mach-O executable or library";
      return item;
    }
  }
  if (StartsWith(head, std::string_view("7z\xbc\xaf\x27\x1c", 6))) {
    item.kind = InventoryClass::kArchive;
    item.description = "a 7z archive";
    return item;
  }
  if (const InputFormat& format = FormatOf(classified.kind); format.inventory != nullptr) {
    format.inventory(head, classified.description, item);
    return item;
  }
  if (EndsWith(base, ".py")) {
    item.kind = InventoryClass::kPythonSource;
    item.description = "Python source";
    return item;
  }
  if (base == "config.json" || base == "tokenizer_config.json") {
    item.kind = InventoryClass::kConfig;
    item.description = "a configuration file";
    return item;
  }
  item.description = FormatOf(classified.kind).container == PolyglotContainer::kSafetensors ? "a safetensors file"
                                                                                            : classified.description;
  return item;
}

bool IsConfigTextName(std::string_view path) {
  const std::string_view base = BaseName(path);
  if (EndsWith(base, ".yaml") || EndsWith(base, ".yml")) return true;
  return EndsWith(base, ".json") && !IsModelIndexName(path) && !IsPickleIndexName(path) && base != "config.json" &&
         base != "tokenizer_config.json";
}

IoResult<void> ReadConfigTargets(const std::string& name, const RandomAccessFile& file, ModelFolder& model,
                                 DiagnosticSink& sink) {
  if (file.size() > kMaxConfigBytes) return {};  // a tokenizer.json or a data file, no configuration
  auto text = ReadAll(file);
  if (!text) return text.error();
  const std::string_view base = BaseName(name);
  if (!EndsWith(base, ".json")) {
    const YamlConfig config = ReadYamlConfig(*text);
    ReportTargets(name, config.targets, sink);
    if (config.refused) {
      model.invalid_configs.emplace_back(name, config.refused->why + " (line " + std::to_string(config.refused->line) +
                                                   "), so the import targets it may hold cannot be checked");
    }
    return {};
  }
  json::Document doc(std::move(*text));
  if (json::Parse(doc)) return {};  // not JSON the strict parser reads: data, not a configuration
  ReportTargets(name, FindJsonTargets(doc, ClassKey::kBesideHydraKeys), sink);
  return {};
}

IoResult<void> ReadModelConfig(const std::string& name, const RandomAccessFile& file, ModelFolder& model,
                               DiagnosticSink& sink) {
  if (file.size() > kMaxConfigBytes) {
    model.invalid_configs.emplace_back(name, "it is " + std::to_string(file.size()) + " bytes, over the " +
                                                 std::to_string(kMaxConfigBytes) + "-byte bound for a configuration");
    return {};
  }
  auto text = ReadAll(file);
  if (!text) return text.error();
  json::Document doc(std::move(*text));
  if (const auto error = json::Parse(doc)) {
    model.invalid_configs.emplace_back(name, error->message);
    return {};
  }
  const json::Value root = doc.root();
  if (!root.is(json::Type::kObject)) {
    model.invalid_configs.emplace_back(name, "its root is " + root.Describe() + ", not an object");
    return {};
  }
  if (root.Find("auto_map")) model.remote_code.emplace_back(name, "its auto_map names classes from the repository");
  ReportTargets(name, FindJsonTargets(doc, ClassKey::kBesideHydraKeys), sink);
  return {};
}

// Any other directory: the Hugging Face layout (inputs.md section 4).
const InputFormat formats::kModelFolderFormat{
    .kind = InputKind::kModelFolder,
    .opening = InputOpening::kDirectory,
    .layout = &kModelFolderLayout,
    .holds_other_formats = true,
};

}  // namespace ckpt
