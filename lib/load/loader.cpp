#include "lib/load/loader.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <map>
#include <tuple>

#include "lib/core/text.h"
#include "lib/digest/whole_file_digest.h"
#include "lib/formats/format_table.h"
#include "lib/formats/gguf/gguf_reader.h"
#include "lib/formats/input_classifier.h"
#include "lib/formats/layout.h"
#include "lib/formats/layout_profile.h"
#include "lib/formats/lensemble/header_reader.h"
#include "lib/formats/lensemble/shard_index_reader.h"
#include "lib/formats/model_folder/model_folder_reader.h"
#include "lib/formats/polyglot.h"
#include "lib/formats/torch/torch_checkpoint.h"
#include "lib/formats/weight_formats.h"
#include "lib/formats/zip/zip_reader.h"
#include "lib/io/model_folder_source.h"
#include "lib/metadata/chat_templates.h"

namespace ckpt {
namespace {

// A file of an input for a message: the input itself when the file is its one file ("").
std::string Within(const std::string& input, const std::string& name) {
  return name.empty() ? input : input + "/" + name;
}

// What the source claims each file is (a Hub listing): checked once the bytes are hashed.
void RecordExpectedContent(Artifact& artifact, const ArtifactSource& source) {
  for (AdmittedFile& f : artifact.files) {
    auto expected = source.Expected(f.name);
    if (!expected) continue;
    f.expected_size = expected->size;
    f.linked_size = expected->linked_size;
    if (!f.blob_digest && expected->digest) {
      f.blob_digest = expected->digest;
      f.expected_as = expected->described_as;
    }
  }
}

AdmittedFile Admit(const std::string& name, const FileIdentity& identity) {
  AdmittedFile admitted;
  admitted.name = name;
  admitted.identity = identity;
  return admitted;
}

std::string Describe(const std::string& context, const boost::system::error_code& error) {
  return context + ": " + error.message();
}

bool IsHexDigest(std::string_view text) {
  return (text.size() == 64 || text.size() == 40) &&
         text.find_first_not_of("0123456789abcdef") == std::string_view::npos;
}

// GGUF split sets among `files` (by their names), each checked as a whole.
void CheckGgufSets(const std::vector<WeightFile>& files, DiagnosticSink& sink) {
  std::map<std::pair<std::string, std::uint32_t>, std::vector<const WeightFile*>> sets;
  for (const WeightFile& wf : files) {
    const std::string base = wf.name.substr(wf.name.rfind('/') + 1);
    if (auto split = ParseGgufSplitName(base); split && wf.gguf) {
      sets[{wf.name.substr(0, wf.name.size() - base.size()) + split->prefix, split->count}].push_back(&wf);
    }
  }
  for (const auto& [key, parts] : sets) {
    GgufSplitName expected;
    expected.prefix = ParseGgufSplitName(parts.front()->name.substr(parts.front()->name.rfind('/') + 1))->prefix;
    expected.count = key.second;
    CheckGgufSplitSet(expected, parts, sink);
  }
}

// Whether the zip in `file` holds a member torch would load: a name ending in data.pkl
// compared without ASCII case, as miniz finds records (inputs.md section 4).
bool IsTorchZip(const RandomAccessFile& file) {
  DiagnosticList ignored;  // the analysis reports them, if it runs
  auto dir = ReadZipDirectory(file, "", ignored);
  if (!dir) return false;
  return std::any_of(dir->members.begin(), dir->members.end(),
                     [](const ZipMember& m) { return AsciiLower(m.name).ends_with("data.pkl"); });
}

// Analyses the pickle-based file `name` of `source` for its diagnostics alone (a pickle in
// a Lensemble artifact or a model folder: its findings say what loading it would do).
// Returns the names of the tensors the analysis listed, sorted (nothing when it could not run).
std::optional<WeightFile> AnalysePickleFamily(const ArtifactSource& source, const std::string& name,
                                              DiagnosticSink& sink, std::vector<std::string>& tool_errors,
                                              const std::string& display_path) {
  auto file = source.Open(name);
  if (!file) return std::nullopt;  // reported where it was first opened
  auto classified = ClassifyFile(**file);
  if (!classified) return std::nullopt;  // the identity check or the reader reports the file
  const InputFormat& format = FormatOf(classified->kind);
  if (!format.pickle_family) return std::nullopt;
  auto read = format.read(name, std::move(*file), sink);
  if (!read) {
    if (read.error().value() != kFileChangedErrno) {
      tool_errors.push_back(Describe("cannot read " + Within(display_path, name), read.error()));
    }
    return std::nullopt;
  }
  return std::move(*read);
}

// Everything of a model folder besides its weight files (read already): its links, shard
// indexes and configuration, and what every other file is.

// Places the diagnostics a refusal reports about "the input" at the folder's file it judged.
class LocatingSink final : public DiagnosticSink {
 public:
  LocatingSink(DiagnosticSink& next, std::string file) : next_(next), file_(std::move(file)) {}
  void Report(Diag kind, Location location, std::string message) override {
    if (location.file.empty()) location.file = file_;
    next_.Report(kind, std::move(location), std::move(message));
  }

 private:
  DiagnosticSink& next_;
  std::string file_;
};

// Passes every diagnostic on but one kind (a lone file's "audit the folder" that a folder resolves).
class DroppingSink final : public DiagnosticSink {
 public:
  DroppingSink(DiagnosticSink& next, std::optional<Diag> dropped) : next_(next), dropped_(dropped) {}
  void Report(Diag kind, Location location, std::string message) override {
    if (dropped_ && kind == *dropped_) return;
    next_.Report(kind, std::move(location), std::move(message));
  }

 private:
  DiagnosticSink& next_;
  std::optional<Diag> dropped_;
};

// Files of the folder that an analysed file names as its own (an ONNX model's external data,
// formats.md section 11): resolved by the file's format, then listed as part of it.
void ResolveClaims(const std::string& path, const ArtifactSource& source, ModelFolder& model,
                   const std::vector<std::pair<std::size_t, const InputFormat*>>& resolvers, DiagnosticSink& sink,
                   std::vector<std::string>& tool_errors) {
  std::map<std::string, std::string> owner;  // claimed path -> the file claiming it
  for (const auto& [index, format] : resolvers) {
    const WeightFile& wf = model.analysed.at(index);
    std::vector<std::string> claimed;
    if (auto resolved = format->resolve_in_folder(wf, source, sink, claimed);
        !resolved && resolved.error().value() != kFileChangedErrno) {
      tool_errors.push_back(Describe("cannot read " + Within(path, wf.name), resolved.error()));
    }
    for (std::string& name : claimed) owner.emplace(std::move(name), wf.name);
  }
  for (InventoryItem& item : model.inventory) {
    auto it = owner.find(item.name);
    if (it == owner.end() || item.kind != InventoryClass::kData) continue;
    item.kind = InventoryClass::kExternalData;
    item.description = "external data of " + QuoteForMessage(it->second);
  }
}

// Files whose names say a loader opens them and that no reader reads (an HTML error page, an
// empty or LZ4 file) are refused as each would be alone, unless a model claims them as its own.
// A Git LFS pointer (a clone without `git lfs pull`) is the cause to name, not "no weight file".
void RefuseUnreadable(const std::vector<std::pair<std::string, ClassifiedFile>>& unreadable, const ModelFolder& model,
                      DiagnosticSink& sink) {
  for (const auto& [name, classified] : unreadable) {
    const auto item = std::lower_bound(model.inventory.begin(), model.inventory.end(), name,
                                       [](const InventoryItem& i, const std::string& n) { return i.name < n; });
    if (item != model.inventory.end() && item->name == name && item->kind == InventoryClass::kExternalData) continue;
    if (classified.refused_as == Diag::kWeightsFormatGitLfsPointer) {
      Location at;
      at.file = name;
      at.byte_offset = 0;
      sink.Report(
          Diag::kWeightsFormatGitLfsPointer, std::move(at),
          QuoteForMessage(name) + " is " + classified.description + "; " + std::string(kGitLfsPointerRemedy) + ".");
      continue;
    }
    LocatingSink located(sink, name);
    FormatOf(classified.kind)
        .refusal(
            name,
            classified.kind == InputKind::kUnknown && !classified.refused_as ? std::string() : classified.description,
            located);
  }
}

void LoadModelFolderExtras(Artifact& artifact, const ArtifactSource& source, DiagnosticSink& sink,
                           std::vector<std::string>& tool_errors) {
  ModelFolder& model = artifact.model.emplace();
  // The folder's own facts come with its source (links followed only inside a hub cache).
  if (const auto* folder = dynamic_cast<const ModelFolderSource*>(&source)) {
    model.repository = folder->repository();
    for (const FolderLink& link : folder->links()) {
      model.links.push_back({link.name, link.target, link.resolved, link.refusal});
    }
    model.artifacts = folder->artifacts();
    model.not_walked = folder->not_walked();
    // A folder left out is never a silent pass: the audit says it could not cover it.
    for (const std::string& path : model.not_walked) {
      tool_errors.push_back("not audited: " + artifact.path + "/" + path + " (beyond " +
                            std::to_string(ModelFolderSource::kMaxDepth) + " folder levels or " +
                            std::to_string(ModelFolderSource::kMaxEntries) + " entries, or unreadable)");
    }
  }
  std::map<std::string, std::string> blob_of;  // admitted link -> its blob's digest name
  for (const ModelFolder::Link& link : model.links) {
    if (!link.resolved || !link.resolved->starts_with("blobs/")) continue;
    const std::string blob = link.resolved->substr(6);
    if (IsHexDigest(blob)) blob_of[link.name] = blob;
  }
  for (AdmittedFile& f : artifact.files) {  // the weight files, admitted while reading them
    if (auto it = blob_of.find(f.name); it != blob_of.end()) f.blob_digest = it->second;
  }
  std::vector<WeightFile> gguf_files;                                 // split sets are checked once all are read
  std::vector<std::pair<std::string, ClassifiedFile>> unreadable;     // loader-named, no reader reads it
  std::vector<std::pair<std::size_t, const InputFormat*>> resolvers;  // analysed files that name others
  for (const DirectoryEntry& entry : artifact.entries) {
    if (entry.kind == EntryKind::kOther) model.special_files.push_back(entry.name);
    if (entry.kind != EntryKind::kRegular) continue;
    if (IsSafetensorsFileName(entry.name)) {
      model.inventory.push_back({entry.name, entry.size, "a safetensors file", InventoryClass::kWeights});
      continue;
    }
    auto file = source.Open(entry.name);
    if (!file) {
      tool_errors.push_back(Describe("cannot open " + Within(artifact.path, entry.name), file.error()));
      continue;
    }
    AdmittedFile admitted;
    admitted.name = entry.name;
    admitted.identity = (*file)->identity();
    if (auto it = blob_of.find(entry.name); it != blob_of.end()) admitted.blob_digest = it->second;
    artifact.files.push_back(std::move(admitted));
    // A file a reader reads whole is digested from that read (DigestOtherFiles skips it).
    WholeFileRead digest_read;
    if (artifact.policy.compute_hash) {
      digest_read = [&artifact, at = artifact.files.size() - 1](std::string_view bytes) {
        DigestWholeText(bytes, artifact.files[at]);
      };
    }
    if (IsModelIndexName(entry.name) || IsPickleIndexName(entry.name)) {
      auto index = ReadModelIndex(entry.name, **file, sink);
      if (!index) {
        if (index.error().value() != kFileChangedErrno) {
          tool_errors.push_back(Describe("cannot read " + Within(artifact.path, entry.name), index.error()));
        }
        continue;
      }
      if (artifact.policy.compute_hash && index->json.doc.text().size() == (*file)->size()) {
        DigestWholeText(index->json.doc.text(), artifact.files.back());
      }
      model.inventory.push_back({entry.name, entry.size, "a shard index", InventoryClass::kIndex});
      (IsPickleIndexName(entry.name) ? model.pickle_indexes : model.indexes).push_back(std::move(*index));
      continue;
    }
    std::array<std::byte, kClassifyLength> head{};
    const auto length = static_cast<std::size_t>(std::min<std::uint64_t>((*file)->size(), head.size()));
    if (auto read = (*file)->ReadAt(0, std::span(head).first(length)); !read) {
      if (read.error().value() != kFileChangedErrno) {
        tool_errors.push_back(Describe("cannot read " + Within(artifact.path, entry.name), read.error()));
      }
      continue;
    }
    auto classified = ClassifyFile(**file);
    if (!classified) {
      if (classified.error().value() != kFileChangedErrno) {
        tool_errors.push_back(Describe("cannot read " + Within(artifact.path, entry.name), classified.error()));
      }
      continue;
    }
    InventoryItem item = ClassifyInventoryFile(entry.name, std::span(head).first(length), (*file)->size(), *classified);
    if (auto checked = CheckPolyglot(**file, classified->kind, entry.name, LoaderForName(entry.name), sink);
        !checked && checked.error().value() != kFileChangedErrno) {
      tool_errors.push_back(Describe("cannot read " + Within(artifact.path, entry.name), checked.error()));
    }
    // A file whose name says a loader opens it is judged as it would be alone (formats.md
    // section 14): content its name does not claim is input-name-mismatch, and content no
    // reader can read (an HTML error page, an empty or LZ4 file) is refused as it would be,
    // never listed as an "other" file. A Git LFS pointer (a clone without `git lfs pull`) is
    // the cause to name, not "no weight file".
    // Refusals wait for the claims: a model's external data may have any name (weights.bin).
    CheckNameClaim(entry.name, classified->kind, classified->description, entry.name, sink);
    if (LoaderOpensByName(entry.name) && FormatOf(classified->kind).opening == InputOpening::kRefused) {
      unreadable.push_back({entry.name, *classified});
      item.description = classified->description;
    }
    if (item.kind == InventoryClass::kArchive && IsTorchZip(**file)) {
      // torch loads any zip holding <folder>/data.pkl, whatever its first member (a file with
      // no end record is not a zip: ClassifyFile looked for one already).
      item.kind = InventoryClass::kPickleFamily;
      item.description = "a torch.save checkpoint (zip)";
    }
    if (item.kind == InventoryClass::kConfig) {
      if (auto read = ReadModelConfig(entry.name, **file, model, sink, digest_read);
          !read && read.error().value() != kFileChangedErrno) {
        tool_errors.push_back(Describe("cannot read " + Within(artifact.path, entry.name), read.error()));
      }
    } else if (IsTemplateFileName(entry.name) && item.kind == InventoryClass::kData) {
      if (auto read = ReadTemplateFile(entry.name, **file, model, sink, digest_read);
          !read && read.error().value() != kFileChangedErrno) {
        tool_errors.push_back(Describe("cannot read " + Within(artifact.path, entry.name), read.error()));
      }
    } else if (IsConfigTextName(entry.name) && item.kind == InventoryClass::kData) {
      if (auto read = ReadConfigTargets(entry.name, **file, model, sink, digest_read);
          !read && read.error().value() != kFileChangedErrno) {
        tool_errors.push_back(Describe("cannot read " + Within(artifact.path, entry.name), read.error()));
      }
    } else if (item.kind == InventoryClass::kArchive) {
      if (auto read = ReadArchiveConfigTargets(entry.name, **file, model, sink);
          !read && read.error().value() != kFileChangedErrno) {
        tool_errors.push_back(Describe("cannot read " + Within(artifact.path, entry.name), read.error()));
      }
    } else if (item.kind == InventoryClass::kPythonSource) {
      model.remote_code.push_back({entry.name, "Python source shipped with the model"});
    } else if (item.kind == InventoryClass::kPickleFamily) {
      if (auto read = AnalysePickleFamily(source, entry.name, sink, tool_errors, artifact.path)) {
        std::vector<std::string> tensors;
        tensors.reserve(read->tensors.size());
        for (const StoredTensor& t : read->tensors) tensors.push_back(t.name);
        std::sort(tensors.begin(), tensors.end());  // looked up by the index rules
        model.pickle_tensors.emplace(entry.name, std::move(tensors));
        // Its tensors join the folder's list (formats.md section 11); the file stays open only
        // for a diff, which compares its bytes.
        if (!artifact.policy.keep_all_weight_files) read->file.reset();
        model.other_weights.push_back(std::move(*read));
      }
    } else if (item.kind == InventoryClass::kProgram || item.kind == InventoryClass::kAnalysedWeights) {
      // Read by its format for its findings (formats.md section 11); a program lists no tensor.
      const InputFormat& format = FormatOf(classified->kind);
      // What a lone file reports as unresolved, the folder resolves below (ResolveClaims).
      DroppingSink read_sink(sink, format.lone_file_diagnostic);
      auto read = format.read(entry.name, std::move(*file), read_sink);
      if (read && item.kind == InventoryClass::kAnalysedWeights) {
        read->file.reset();  // facts only: nothing more is read from it
        model.analysed.push_back(std::move(*read));
        if (format.resolve_in_folder != nullptr) resolvers.emplace_back(model.analysed.size() - 1, &format);
      } else if (!read && read.error().value() != kFileChangedErrno) {
        tool_errors.push_back(Describe("cannot read " + Within(artifact.path, entry.name), read.error()));
      }
    } else if (item.kind == InventoryClass::kGguf) {
      // Analysed for its findings, like a pickle-based file (inputs.md section 4).
      auto gguf = ReadGguf(entry.name, std::move(*file), sink);
      if (gguf) {
        if (!artifact.policy.keep_all_weight_files) gguf->file.reset();  // facts only: nothing more is read from it
        gguf_files.push_back(std::move(*gguf));
      } else if (gguf.error().value() != kFileChangedErrno) {
        tool_errors.push_back(Describe("cannot read " + Within(artifact.path, entry.name), gguf.error()));
      }
    }
    model.inventory.push_back(std::move(item));
  }
  CheckGgufSets(gguf_files, sink);
  for (WeightFile& wf : gguf_files) model.other_weights.push_back(std::move(wf));
  ResolveClaims(artifact.path, source, model, resolvers, sink, tool_errors);
  std::sort(model.inventory.begin(), model.inventory.end(),
            [](const InventoryItem& a, const InventoryItem& b) { return a.name < b.name; });
  RefuseUnreadable(unreadable, model, sink);
}

}  // namespace

void VerifyAdmittedFiles(Artifact& artifact, const ArtifactSource& source) {
  for (AdmittedFile& f : artifact.files) {
    auto now = source.Stat(f.name);
    if (!now) {
      f.change = "it can no longer be found under its name (" + now.error().message() + ")";
    } else if (*now != f.identity) {
      f.change = DescribeIdentityChange(f.identity, *now);
    }
  }
}

Artifact LoadArtifact(const std::string& display_path, const ArtifactSource& source, const AuditOptions& policy,
                      DiagnosticSink& sink, std::vector<std::string>& tool_errors, InputKind kind) {
  Artifact artifact;
  artifact.path = display_path;
  artifact.kind = kind;
  artifact.policy = policy;
  auto entries = source.List();
  if (!entries) {
    tool_errors.push_back(Describe("cannot list " + display_path, entries.error()));
    return artifact;
  }
  artifact.entries = std::move(*entries);
  const LayoutProfile& profile = SelectLayoutProfile(kind);
  artifact.layout = profile.classify(artifact.entries);

  // Weight files first: their transient header DOMs then never coexist with header.json's
  // manifest (at 10^6 tensors that ordering alone is about 150 MB of peak memory).
  // Findings are sorted afterwards, so reports read header.json first as the spec says.
  std::vector<std::string> weight_names;
  for (const DirectoryEntry& entry : artifact.entries) {
    if (entry.kind == EntryKind::kRegular && profile.is_weight_file(entry.name)) weight_names.push_back(entry.name);
  }
  std::sort(weight_names.begin(), weight_names.end(),
            [&](const std::string& a, const std::string& b) { return profile.weight_file_before(a, b); });
  // Each entry is admitted once and each weight file read once: no reallocation copies them all.
  artifact.files.reserve(artifact.entries.size());
  artifact.weights.reserve(weight_names.size());
  for (const std::string& name : weight_names) {
    auto file = source.Open(name);
    if (!file) {
      tool_errors.push_back(Describe("cannot open " + Within(display_path, name), file.error()));
      continue;
    }
    artifact.files.push_back(Admit(name, (*file)->identity()));
    // One meaning, or refuse: a weight file that another reader would read as another container.
    // The input file itself ("") has the input's kind, classified when it was opened.
    const auto loader = kind == InputKind::kModelFolder ? LoaderForName(name) : std::nullopt;
    // A remote artifact read for its structure only (--no-hash) transfers its headers and no
    // more (remote.md section 7): only what each first read shows is checked, and its
    // hash-not-verified warning says so. Other kinds keep the whole check (no warning to say it).
    const bool structure_only =
        !policy.compute_hash && (*file)->ReadsAreRequests() && InputKinds::Lensemble().Has(kind);
    auto checked = structure_only ? CheckPolyglotHead(**file, name, sink)
                   : name.empty() ? CheckPolyglot(**file, kind, name, loader, sink)
                                  : CheckPolyglot(**file, name, loader, sink);
    if (!checked && checked.error().value() != kFileChangedErrno) {
      tool_errors.push_back(Describe("cannot read " + Within(display_path, name), checked.error()));
    }
    // The input's own reader for its one file; safetensors for the weights of the rest.
    const InputFormat& format = FormatOf(kind);
    auto weights = format.read != nullptr ? format.read(name, std::move(*file), sink)
                                          : AcceptedWeightFormat().read(name, std::move(*file), sink);
    if (weights && !weights->valid && !weights->pickle && !weights->gguf && !IsPickleFamily(kind)) {
      // A pickle where weights belong stays an error whatever it holds, and its analysis
      // says what loading it would do.
      (void)AnalysePickleFamily(source, name, sink, tool_errors, display_path);
    }
    if (!weights) {
      if (weights.error().value() != kFileChangedErrno) {
        tool_errors.push_back(Describe("cannot read " + Within(display_path, name), weights.error()));
      }
      continue;
    }
    // The descriptor stays in the shared pool (at most 64 open; an evicted file is reopened
    // by name and checked against its identity when its bytes are hashed).
    artifact.weights.push_back(std::move(*weights));
  }
  if (FormatOf(kind).opening == InputOpening::kGgufSet && !artifact.weights.empty()) {
    CheckGgufSets(artifact.weights, sink);
    if (artifact.weights.size() > 1) {  // a split set: its parts are files of the first part's folder
      artifact.files_root = std::filesystem::path(display_path).parent_path().string();
      if (artifact.files_root.empty()) artifact.files_root = ".";
    }
  }
  if (kind == InputKind::kModelFolder) {
    LoadModelFolderExtras(artifact, source, sink, tool_errors);
    RecordExpectedContent(artifact, source);
    artifact.BuildIndexes();
    return artifact;
  }
  for (const DirectoryEntry& entry : artifact.entries) {
    if (entry.kind != EntryKind::kRegular) continue;
    const bool in_layout = (!profile.header_file.empty() && entry.name == profile.header_file) ||
                           (!profile.index_file.empty() && entry.name == profile.index_file) ||
                           profile.is_weight_file(entry.name);
    if (profile.is_weight_file(entry.name)) continue;  // read above, in shard order
    auto file = source.Open(entry.name);
    if (!file) {
      tool_errors.push_back(Describe("cannot open " + Within(display_path, entry.name), file.error()));
      continue;
    }
    artifact.files.push_back(Admit(entry.name, (*file)->identity()));
    if (!profile.header_file.empty() && entry.name == profile.header_file) {
      auto header = ReadHeader(**file, sink);
      if (header && policy.digest_files && header->json.text().size() == (*file)->size()) {
        DigestWholeText(header->json.text(), artifact.files.back());
      }
      if (!header) {
        if (header.error().value() != kFileChangedErrno)
          tool_errors.push_back(Describe("cannot read " + display_path + "/header.json", header.error()));
      } else {
        artifact.header = std::move(*header);
      }
    } else if (!profile.index_file.empty() && entry.name == profile.index_file) {
      auto index = ReadShardIndex(**file, sink);
      if (index && policy.digest_files && index->json.text().size() == (*file)->size()) {
        DigestWholeText(index->json.text(), artifact.files.back());
      }
      if (!index) {
        if (index.error().value() != kFileChangedErrno)
          tool_errors.push_back(Describe("cannot read " + Within(display_path, entry.name), index.error()));
      } else {
        artifact.index = std::move(*index);
      }
    } else if (!in_layout) {
      // Say what a stray file is (a pickle next to the weights is worth naming).
      std::array<std::byte, kSniffLength> head{};
      auto length = static_cast<std::size_t>(std::min<std::uint64_t>((*file)->size(), head.size()));
      if ((*file)->ReadAt(0, std::span(head).first(length))) {
        if (auto other = RecogniseRefusedFormat(std::span(head).first(length), (*file)->size())) {
          artifact.entry_descriptions.emplace_back(entry.name, std::move(other->description));
        }
      }
    }
  }

  RecordExpectedContent(artifact, source);
  artifact.BuildIndexes();
  return artifact;
}

}  // namespace ckpt
