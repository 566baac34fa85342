// NeMo `.nemo` archives (formats.md section 9): what NeMo's SaveRestoreConnector writes, an
// uncompressed tar (arcname ".") with model_config.yaml, model_weights.ckpt (a torch.save
// state dict) and artifacts. Told apart from a Lensemble tar by its members; the tar is read
// in place with every tar check (sub-folders allowed), the config parsed with libyaml's event
// API (no recursion here, no aliases, anchors or tags, no duplicate keys) with every
// `_target_` checked against the allowlist, and the checkpoint analysed in place as a torch
// file. Nothing is extracted, unpickled or imported.
#include <yaml.h>

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

namespace ckpt {
namespace {

constexpr std::uint64_t kMaxConfigBytes = 10'000'000;
constexpr std::size_t kMaxConfigDepth = 64;
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

bool IsIdentifier(std::string_view part) {
  if (part.empty() || (std::isdigit(static_cast<unsigned char>(part.front())) != 0)) return false;
  return std::all_of(part.begin(), part.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; });
}

bool IsClassName(std::string_view part) { return IsIdentifier(part) && part.front() >= 'A' && part.front() <= 'Z'; }

// The `_target_` allowlist of formats.md section 9.
bool IsAllowedTarget(std::string_view target) {
  for (std::string_view torch_prefix :
       {"torch.nn.", "torch.optim.lr_scheduler.", "torch.optim.", "torch.utils.data."}) {
    if (target.starts_with(torch_prefix) && IsClassName(target.substr(torch_prefix.size()))) return true;
  }
  if (!target.starts_with("nemo.collections.") && !target.starts_with("nemo.core.")) return false;
  std::string_view rest = target;
  std::string_view last;
  while (!rest.empty()) {
    const std::size_t dot = rest.find('.');
    last = rest.substr(0, dot);
    if (!IsIdentifier(last)) return false;
    rest = dot == std::string_view::npos ? std::string_view() : rest.substr(dot + 1);
    if (dot != std::string_view::npos && rest.empty()) return false;  // a trailing dot
  }
  return IsClassName(last);
}

// Hydra 1.x's keys, and Hydra 0.x's `cls` and `class`, which NeMo's _convert_config turns into
// `_target_` before instantiating (code-in-metadata.md section 1).
bool IsTargetKey(std::string_view key) {
  return key == "_target_" || key == "target" || key == "cls" || key == "class";
}

// Parses model_config.yaml with libyaml's event parser: bounded depth, no aliases, anchors,
// tags or duplicate keys, one document; every target value checked.
class ConfigWalker {
 public:
  ConfigWalker(std::string file, DiagnosticSink& sink) : file_(std::move(file)), sink_(sink) {}

  void Walk(std::string_view text) {
    yaml_parser_t parser;
    if (yaml_parser_initialize(&parser) == 0) throw std::bad_alloc();
    const std::unique_ptr<yaml_parser_t, void (*)(yaml_parser_t*)> owned(&parser, &yaml_parser_delete);
    yaml_parser_set_input_string(&parser, reinterpret_cast<const unsigned char*>(text.data()), text.size());
    int documents = 0;
    while (true) {
      yaml_event_t event;
      if (yaml_parser_parse(&parser, &event) == 0) {
        Invalid(parser.problem_mark, std::string("it is not valid YAML (") +
                                         (parser.problem != nullptr ? parser.problem : "a parse error") + ")");
        return;
      }
      const std::unique_ptr<yaml_event_t, void (*)(yaml_event_t*)> held(&event, &yaml_event_delete);
      if (event.type == YAML_STREAM_END_EVENT) return;
      if (event.type == YAML_DOCUMENT_START_EVENT) {
        if (++documents > 1) return Invalid(event.start_mark, "it holds more than one YAML document");
        if (event.data.document_start.tag_directives.start != event.data.document_start.tag_directives.end) {
          return Invalid(event.start_mark, "it declares a %TAG directive");
        }
        continue;
      }
      if (!Event(event)) return;
    }
  }

 private:
  struct Frame {
    bool mapping = false;
    bool at_key = true;
    std::set<std::string, std::less<>> keys;
    std::string key;  ///< the key whose value is being read (mappings)
  };

  // One node event; false once the config is refused.
  bool Event(const yaml_event_t& event) {
    switch (event.type) {
      case YAML_ALIAS_EVENT:
        Invalid(event.start_mark, "it uses an alias (*" +
                                      QuoteForMessage(reinterpret_cast<const char*>(event.data.alias.anchor), 40) +
                                      "), which can expand a small file into a huge one");
        return false;
      case YAML_SCALAR_EVENT:
        if (!Plain(event, event.data.scalar.anchor, event.data.scalar.tag)) return false;
        return Scalar(
            event, std::string_view(reinterpret_cast<const char*>(event.data.scalar.value), event.data.scalar.length));
      case YAML_SEQUENCE_START_EVENT:
        if (!Plain(event, event.data.sequence_start.anchor, event.data.sequence_start.tag)) return false;
        return Open(event, false);
      case YAML_MAPPING_START_EVENT:
        if (!Plain(event, event.data.mapping_start.anchor, event.data.mapping_start.tag)) return false;
        return Open(event, true);
      case YAML_SEQUENCE_END_EVENT:
      case YAML_MAPPING_END_EVENT:
        if (!frames_.empty()) frames_.pop_back();
        ValueDone();
        return true;
      default:
        return true;
    }
  }

  bool Plain(const yaml_event_t& event, const unsigned char* anchor, const unsigned char* tag) {
    if (anchor != nullptr) {
      Invalid(event.start_mark, "it declares an anchor (&" +
                                    QuoteForMessage(reinterpret_cast<const char*>(anchor), 40) +
                                    "): aliases to it can expand a small file into a huge one");
      return false;
    }
    if (tag != nullptr) {
      Invalid(event.start_mark, "it uses the tag " + QuoteForMessage(reinterpret_cast<const char*>(tag), 80) +
                                    ", which a YAML loader may turn into a Python object");
      return false;
    }
    return true;
  }

  bool Open(const yaml_event_t& event, bool mapping) {
    if (!frames_.empty() && frames_.back().mapping && frames_.back().at_key) {
      Invalid(event.start_mark, "it has a mapping or list as a key");
      return false;
    }
    if (!frames_.empty() && frames_.back().mapping && IsTargetKey(frames_.back().key)) {
      Unsafe(event.start_mark, frames_.back().key, "is not a string");
    }
    if (frames_.size() >= kMaxConfigDepth) {
      Invalid(event.start_mark, "it nests deeper than " + std::to_string(kMaxConfigDepth) + " levels");
      return false;
    }
    Frame f;
    f.mapping = mapping;
    frames_.push_back(std::move(f));
    return true;
  }

  bool Scalar(const yaml_event_t& event, std::string_view value) {
    if (frames_.empty()) return true;  // a document of one scalar: nothing to check
    Frame& f = frames_.back();
    if (f.mapping && f.at_key) {
      if (!f.keys.emplace(value).second) {
        Invalid(event.start_mark, "it repeats the key " + QuoteForMessage(value, 80) +
                                      " in one mapping (YAML loaders keep one of the values)");
        return false;
      }
      f.key = std::string(value);
      f.at_key = false;
      return true;
    }
    if (f.mapping && IsTargetKey(f.key)) {
      const bool plain_null = event.data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
                              (value.empty() || value == "null" || value == "~" || value == "Null" || value == "NULL");
      if (plain_null) {
        Unsafe(event.start_mark, f.key, "is not a string");
      } else if (!IsAllowedTarget(value)) {
        Unsafe(event.start_mark, f.key, "is " + QuoteForMessage(value, 120));
      }
    }
    ValueDone();
    return true;
  }

  void ValueDone() {
    if (!frames_.empty() && frames_.back().mapping) frames_.back().at_key = true;
  }

  [[nodiscard]] Location At(const yaml_mark_t& mark) const {
    Location at;
    at.file = file_;
    at.line = mark.line + 1;
    at.column = mark.column + 1;
    return at;
  }

  void Invalid(const yaml_mark_t& mark, const std::string& why) {
    sink_.Report(
        Diag::kNemoConfigInvalid, At(mark),
        "model_config.yaml is refused: " + why + "; NeMo restores the model from it, so it is not read further.");
  }

  void Unsafe(const yaml_mark_t& mark, const std::string& key, const std::string& what) {
    sink_.Report(Diag::kNemoTargetUnsafe, At(mark),
                 "The " + key + " at line " + std::to_string(mark.line + 1) + " " + what +
                     ": restoring the model instantiates it (Hydra), and only nemo.collections / nemo.core classes "
                     "and torch.nn, torch.optim and torch.utils.data classes are allowed.");
  }

  std::string file_;
  DiagnosticSink& sink_;
  std::vector<Frame> frames_;
};

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
      ConfigWalker(member_name(kConfigName), sink).Walk(text);
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
