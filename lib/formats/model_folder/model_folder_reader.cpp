#include "lib/formats/model_folder/model_folder_reader.h"

#include <algorithm>
#include <exception>
#include <set>
#include <span>
#include <thread>
#include <utility>

#include "lib/core/byte_reader.h"
#include "lib/core/text.h"
#include "lib/formats/format_table.h"
#include "lib/formats/input_classifier.h"
#include "lib/formats/json_file_reader.h"
#include "lib/formats/tar/tar_reader.h"
#include "lib/formats/zip/zip_reader.h"
#include "lib/json/strict_parser.h"
#include "lib/metadata/chat_templates.h"
#include "lib/metadata/import_targets.h"
#include "lib/metadata/jinja_syntax.h"

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
void ReportTargets(const std::string& name, const std::vector<ImportTarget>& targets, ModelFolder& model,
                   DiagnosticSink& sink) {
  RecordTargets(targets, name, "", model.embedded_code);
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

// transformers' built-in attention implementations (and their paged| forms).
bool IsBuiltinAttention(std::string_view value) {
  if (value.starts_with("paged|")) value.remove_prefix(6);
  for (std::string_view name :
       {"eager", "sdpa", "flash_attention_2", "flash_attention_3", "flex_attention", "paged_attention"}) {
    if (value == name) return true;
  }
  return false;
}

// The libraries diffusers loads a model_index.json component from without code of the
// repository: its own and transformers' classes, and its pipeline modules that hold
// components (safety checkers, watermarkers, image encoders: diffusers.pipelines.NAME).
bool IsDiffusersLibrary(std::string_view library) {
  for (std::string_view name : {"diffusers",
                                "transformers",
                                "onnxruntime.training",
                                "stable_diffusion",
                                "stable_diffusion_safe",
                                "stable_diffusion_xl",
                                "stable_diffusion_3",
                                "deepfloyd_if",
                                "kandinsky",
                                "kandinsky2_2",
                                "kandinsky3",
                                "paint_by_example",
                                "alt_diffusion",
                                "latent_diffusion",
                                "unclip",
                                "wuerstchen",
                                "stable_cascade",
                                "audioldm2",
                                "shap_e",
                                "blip_diffusion",
                                "versatile_diffusion",
                                "vq_diffusion",
                                "musicldm",
                                "stable_audio",
                                "pixart_alpha",
                                "semantic_stable_diffusion",
                                "stable_video_diffusion",
                                "controlnet"}) {
    if (library == name) return true;
  }
  return false;
}

// "org/repo--module.Class" (auto_map naming code of another repository): the repository.
std::optional<std::string> OtherRepository(std::string_view reference) {
  const std::size_t dashes = reference.find("--");
  if (dashes == std::string_view::npos || dashes == 0) return std::nullopt;
  return std::string(reference.substr(0, dashes));
}

// auto_map, custom_pipelines, diffusers components and sentence-transformers modules: code the
// loader imports from the repository (with trust_remote_code).
void RecordRemoteCodeKeys(const std::string& name, const json::Value& root, ModelFolder& model) {
  const std::string_view base = BaseName(name);
  if (root.is(json::Type::kObject)) {
    if (const auto auto_map = root.Find("auto_map")) {
      std::set<std::string> others;
      const auto note = [&](const json::Value& v) {
        if (!v.is(json::Type::kString)) return;
        if (auto repo = OtherRepository(v.String())) others.insert(*repo);
      };
      for (const json::Member& m : auto_map->Members()) {
        note(m.value);
        for (const json::Value item : m.value.Items()) note(item);
      }
      std::string why = "its auto_map names classes from the repository";
      for (const std::string& repo : others)
        why += (repo == *others.begin() ? " and from " : ", ") + QuoteForMessage(repo, 80);
      model.remote_code.push_back({name, std::move(why)});
    }
    if (root.Find("custom_pipelines")) {
      model.remote_code.push_back({name, "its custom_pipelines names pipeline classes from the repository"});
    }
  }
  if (base == "model_index.json" && root.is(json::Type::kObject)) {
    for (const json::Member& m : root.Members()) {
      if (!m.value.is(json::Type::kArray) || m.value.Size() != 2) continue;
      const json::Value library = *m.value.Items().begin();
      if (!library.is(json::Type::kString)) continue;  // [null, null]: an absent component
      const std::string lib = library.String();
      if (m.key == "_class_name") {
        model.remote_code.push_back({name, "its _class_name names the custom pipeline " + QuoteForMessage(lib, 80) +
                                               ", which diffusers imports from the repository"});
      } else if (!IsDiffusersLibrary(lib)) {
        model.remote_code.push_back(
            {name, "its component " + QuoteForMessage(m.key, 80) + " comes from the library " +
                       QuoteForMessage(lib, 80) +
                       ", not diffusers or transformers: diffusers imports it from the repository (" +
                       QuoteForMessage(m.key + "/" + lib + ".py", 120) + ") with trust_remote_code"});
      }
    }
  }
  if (base == "modules.json" && root.is(json::Type::kArray)) {
    for (const json::Value module : root.Items()) {
      const auto type = module.is(json::Type::kObject) ? module.FindString("type") : std::nullopt;
      if (!type || type->starts_with("sentence_transformers.")) continue;
      model.remote_code.push_back({name, "its module type " + QuoteForMessage(*type, 120) +
                                             " is not sentence-transformers' own: sentence-transformers imports it "
                                             "from the repository with trust_remote_code"});
    }
  }
}

// Attention implementations and trust_remote_code at any depth (sub-configurations such as
// text_config carry their own): a visitor of the target walk, so a megabyte of added tokens is
// walked once. A key's JSON Pointer is written only for a finding.
void RecordAttentionKey(const std::string& name, std::string_view key, const json::Value& value,
                        const std::vector<std::string>& path, ModelFolder& model) {
  const auto pointer = [&] {
    std::vector<std::string> tokens = path;
    tokens.emplace_back(key);
    return QuoteForMessage(JsonPointerOf(tokens), 120);
  };
  if (key == "trust_remote_code") {
    if (value.is(json::Type::kBool) && value.boolean()) {
      model.remote_code.push_back(
          {name, "its " + pointer() + " is true", "loading this model asks to run code from the repository"});
    }
    return;
  }
  if ((key != "_attn_implementation" && key != "_attn_implementation_internal" && key != "attn_implementation") ||
      value.is(json::Type::kNull)) {
    return;
  }
  const std::string v = value.String();
  if (!value.is(json::Type::kString)) {
    model.remote_code.push_back({name,
                                 "its " + pointer() + " is " + value.Describe() +
                                     ", not one of transformers' built-in attention implementations",
                                 "loading this model may run code that is not transformers'"});
  } else if (v.find('/') != std::string::npos) {
    model.remote_code.push_back({name,
                                 "its " + pointer() + " names the kernels-hub repository " + QuoteForMessage(v, 120) +
                                     ", which transformers downloads and runs even without trust_remote_code "
                                     "(CVE-2026-4372)",
                                 "loading this model downloads and runs code from the Hub", true});
  } else if (!IsBuiltinAttention(v)) {
    model.remote_code.push_back({name,
                                 "its " + pointer() + " is " + QuoteForMessage(v, 80) +
                                     ", not one of transformers' built-in attention implementations",
                                 "loading this model may run code that is not transformers'"});
  }
}

}  // namespace

bool IsLoaderConfigName(std::string_view base) {
  for (std::string_view name : {"config.json", "tokenizer_config.json", "processor_config.json",
                                "preprocessor_config.json", "feature_extractor_config.json", "generation_config.json",
                                "model_index.json", "modules.json", "chat_template.json"}) {
    if (base == name) return true;
  }
  return false;
}

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
  WeightMap mappings;
  mappings.Reserve(map->Size(), index.json.text().size());
  bool ok = true;
  std::string scratch;
  for (const json::Member& m : map->Members()) {
    if (!m.value.is(json::Type::kString)) {
      sink.Report(invalid, index.json.At(m.value.offset(), "/weight_map/" + json::EscapePointerToken(m.key)),
                  "weight_map entry " + QuoteForMessage(m.key) + " in " + shown + " is " +
                      std::string(json::TypeName(m.value.type())) + ", not a file name.");
      ok = false;
      continue;
    }
    mappings.Add(m.key, index.json.doc.StringAt(m.value.tape_index(), scratch), m.key_offset, m.value.offset());
  }
  if (ok) {
    mappings.Finish();
    index.weight_map = std::move(mappings);
  }
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
  if (IsLoaderConfigName(base)) {
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
  return EndsWith(base, ".json") && !IsModelIndexName(path) && !IsPickleIndexName(path) && !IsLoaderConfigName(base);
}

namespace {

// The targets of one YAML or JSON configuration's text (a file of the folder, or an archive's member).
void ReadConfigTargetsText(const std::string& name, std::string text, ModelFolder& model, DiagnosticSink& sink) {
  const std::string_view base = BaseName(name);
  if (!EndsWith(base, ".json")) {
    const YamlConfig config = ReadYamlConfig(text);
    ReportTargets(name, config.targets, model, sink);
    if (config.refused) {
      model.invalid_configs.emplace_back(name, config.refused->why + " (line " + std::to_string(config.refused->line) +
                                                   "), so the import targets it may hold cannot be checked");
    }
    return;
  }
  json::Document doc(std::move(text));
  if (json::Parse(doc)) return;  // not JSON the strict parser reads: data, not a configuration
  ReportTargets(name, FindJsonTargets(doc, ClassKey::kBesideHydraKeys), model, sink);
}

// Bounds on an archive's configuration members: how many are read, how large each may be, and
// how many bytes they make together (a hostile archive cannot make the audit read gigabytes).
constexpr std::size_t kMaxArchiveConfigs = 256;
constexpr std::uint64_t kMaxArchiveConfigBytes = 1'000'000;
constexpr std::uint64_t kMaxArchiveConfigTotal = 16'000'000;

}  // namespace

IoResult<void> ReadConfigTargets(const std::string& name, const RandomAccessFile& file, ModelFolder& model,
                                 DiagnosticSink& sink, const WholeFileRead& read_whole) {
  if (file.size() > kMaxConfigBytes) return {};  // a tokenizer.json or a data file, no configuration
  auto text = ReadAll(file);
  if (!text) return text.error();
  if (read_whole) read_whole(*text);
  ReadConfigTargetsText(name, std::move(*text), model, sink);
  return {};
}

IoResult<void> ReadArchiveConfigTargets(const std::string& name, const RandomAccessFile& file, ModelFolder& model,
                                        DiagnosticSink& sink) {
  std::size_t read = 0;
  std::uint64_t bytes = 0;
  const auto within_bounds = [&](std::uint64_t size) {
    return read < kMaxArchiveConfigs && size <= kMaxArchiveConfigTotal - bytes;
  };
  if (const std::shared_ptr<const ZipDirectory> zip = SniffZipDirectory(file)) {
    for (const ZipMember& member : zip->members) {
      if (!within_bounds(0)) break;
      if (!IsConfigTextName(member.name) || member.size > kMaxArchiveConfigBytes || !within_bounds(member.size)) {
        continue;
      }
      auto text = ReadZipMemberPrefix(file, member, static_cast<std::size_t>(member.size));
      if (!text) return text.error();
      if (text->size() != member.size) continue;  // not located or not inflated: nothing a loader reads either
      ++read;
      bytes += member.size;
      ReadConfigTargetsText(name + "/" + member.name, std::move(*text), model, sink);
    }
    return {};
  }
  // A tar's table is read for its configuration members only; what is wrong with it as a tar
  // is not this folder's finding (model-archive names the archive).
  DiagnosticList ignored;
  auto index = ReadTar(file, ignored, TarNesting::kNested);
  if (!index) return index.error();
  for (const TarMember& member : index->members) {
    if (!within_bounds(0)) break;
    if ((member.type != '0' && member.type != '\0') || !IsConfigTextName(member.name) ||
        member.size > kMaxArchiveConfigBytes || !within_bounds(member.size) || member.data_offset > file.size() ||
        member.size > file.size() - member.data_offset) {
      continue;
    }
    std::string text(static_cast<std::size_t>(member.size), '\0');
    if (auto got = file.ReadAt(member.data_offset, std::as_writable_bytes(std::span(text))); !got) return got.error();
    ++read;
    bytes += member.size;
    ReadConfigTargetsText(name + "/" + member.name, std::move(text), model, sink);
  }
  return {};
}

IoResult<void> ReadModelConfig(const std::string& name, const RandomAccessFile& file, ModelFolder& model,
                               DiagnosticSink& sink, const WholeFileRead& read_whole) {
  if (file.size() > kMaxConfigBytes) {
    model.invalid_configs.emplace_back(name, "it is " + std::to_string(file.size()) + " bytes, over the " +
                                                 std::to_string(kMaxConfigBytes) + "-byte bound for a configuration");
    return {};
  }
  auto text = ReadWhole(file);
  if (!text) return text.error();
  json::Document doc(std::move(*text));
  // A large file's digest is taken beside its parsing, on another core (joined before `doc` goes).
  std::jthread digest;
  if (read_whole && doc.text().size() >= TextBuffer::kMapFrom) {
    digest = std::jthread([&read_whole, bytes = doc.text()] {
      try {
        read_whole(bytes);
      } catch (const std::exception&) {
        // Out of memory on the helper: the file keeps no digest here and is read again for one.
      }
    });
  } else if (read_whole) {
    read_whole(doc.text());
  }
  if (const auto error = json::Parse(doc)) {
    model.invalid_configs.emplace_back(name, error->message);
    return {};
  }
  const json::Value root = doc.root();
  const bool list_root = BaseName(name) == "modules.json";  // sentence-transformers: a list of modules
  if (!root.is(list_root ? json::Type::kArray : json::Type::kObject)) {
    model.invalid_configs.emplace_back(
        name, "its root is " + root.Describe() + ", not " + (list_root ? "an array" : "an object"));
    return {};
  }
  RecordRemoteCodeKeys(name, root, model);
  if (name == "config.json") {  // what the model says it is: model_type, architectures
    if (const auto type = root.Find("model_type"); type && type->is(json::Type::kString)) {
      model.model_type = type->String();
    }
    if (const auto names = root.Find("architectures"); names && names->is(json::Type::kArray)) {
      for (const json::Value& item : names->Items()) {
        if (item.is(json::Type::kString) && model.architectures.size() < 16)
          model.architectures.push_back(item.String());
      }
    }
  }
  ReportJsonChatTemplates(name, doc, sink, &model.embedded_code);
  ReportTargets(
      name,
      FindJsonTargets(doc, ClassKey::kBesideHydraKeys,
                      [&](std::string_view key, const json::Value& value, const std::vector<std::string>& path) {
                        RecordAttentionKey(name, key, value, path, model);
                      }),
      model, sink);
  return {};
}

IoResult<void> ReadTemplateFile(const std::string& name, const RandomAccessFile& file, ModelFolder& model,
                                DiagnosticSink& sink, const WholeFileRead& read_whole) {
  TemplateSite site;
  const std::string_view base = BaseName(name);
  site.name = base == "chat_template.jinja" ? "chat_template" : std::string(base.substr(0, base.size() - 6));
  site.at.file = name;
  site.whole_file = true;
  if (file.size() > jinja::kMaxTemplateBytes) {
    sink.Report(Diag::kTemplateInvalid, site.at,
                "The chat template " + QuoteForMessage(site.name, 80) + " is " + std::to_string(file.size()) +
                    " bytes, over the " + std::to_string(jinja::kMaxTemplateBytes) +
                    "-byte bound for a template: what it reaches is not checked.");
    return {};
  }
  auto text = ReadAll(file);
  if (!text) return text.error();
  if (read_whole) read_whole(*text);
  ReportChatTemplate(site, *text, sink, &model.embedded_code);
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
