// The format table (bloaty's TryOpen chain, LIEF's Parser::parse, as one table): for every
// input kind of CKPT_INPUT_KINDS (lib/core/input_kind.h), what recognises it from a file's
// first bytes, how an input file of the kind is opened, which layout names its files, what
// reads its weights, what a model folder's inventory calls it, and which container another
// reader would take it for (the one-meaning check). Code that depends on a kind looks its
// entry up here instead of switching on the kind. Each entry is defined by its format's
// module (ckpt::formats::k<Name>Format), so a new format is one list line and one module.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "lib/core/input_kind.h"
#include "lib/formats/layout_profile.h"
#include "lib/io/artifact_source.h"
#include "lib/model/artifact.h"
#include "lib/model/diagnostic.h"

namespace ckpt {

/// What recognition sees of a file: its first bytes (at most kClassifyLength), its size and,
/// when the caller confirms a headerless pickle by a syntax walk, its last byte; and the file
/// itself when the caller has it open (a zip's kind is in its central directory). A sniff that
/// needs the file does not match without it.
struct FileHead {
  std::span<const std::byte> bytes;
  std::uint64_t size = 0;
  std::optional<std::byte> last_byte;
  const RandomAccessFile* file = nullptr;
};

/// How an input file of a kind becomes the source its files are read through.
enum class InputOpening : std::uint8_t {
  kDirectory,   ///< a directory input (never a file)
  kTar,         ///< the members of a tar, read in place
  kSingleFile,  ///< the file is the input's one file
  kGgufSet,     ///< the file, or the split set whose first part it is
  kRefused,     ///< not read: its refusal is the finding
};

/// The container a file of the kind is to its own loaders (inputs.md 1a, formats.md section
/// 14): every kind a file can be has one; kNone is for kinds refused for what they are
/// (unknown, compressed) and for directories.
enum class PolyglotContainer : std::uint8_t {
  kNone,
  kSafetensors,
  kZip,
  kPickle,
  kNumpy,
  kGguf,
  kTar,
  kHdf5,
  kOnnx,
  kMsgpack
};

/// One entry per kind. Every column but the kind has a default (a single-file kind read by
/// nothing, in no container, naming nothing beside it): an entry spells only what it differs in.
struct InputFormat {
  InputKind kind;  ///< the one column without a default
  /// What the file is ("a GGUF model file") when its head is this kind's; nullptr for kinds
  /// recognised otherwise (directories, the unknown). Tried in the list's order.
  std::optional<std::string> (*sniff)(const FileHead& head) = nullptr;
  InputOpening opening = InputOpening::kSingleFile;
  const LayoutProfile* layout = &kSingleFileLayout;
  /// Reads a weight file of this kind into the model; nullptr: not read as weights.
  IoResult<WeightFile> (*read)(std::string name, std::unique_ptr<RandomAccessFile> file,
                               DiagnosticSink& sink) = nullptr;
  /// Places a file of this kind in a model folder's inventory: its class and description,
  /// from its head and what recognition called it. nullptr: placed by its name instead.
  void (*inventory)(std::span<const std::byte> head, const std::string& description, InventoryItem& item) = nullptr;
  PolyglotContainer container = PolyglotContainer::kNone;
  bool pickle_family = false;  ///< analysed by the pickle analyser (inputs.md section 6)
  /// InputOpening::kRefused: reports why an input file of this kind (named `name`, called
  /// `description` by recognition, which may be empty) is not read.
  void (*refusal)(const std::string& name, const std::string& description, DiagnosticSink& sink) = nullptr;
  /// In a model folder: resolves what a file of this kind names beside it (ONNX external data)
  /// against the folder's own files, reporting what is missing or out of range, and appends the
  /// folder paths it claims as part of the file to `claimed`. nullptr: the kind names nothing.
  /// The error is an I/O failure of the tool.
  IoResult<void> (*resolve_in_folder)(const WeightFile& file, const ArtifactSource& folder, DiagnosticSink& sink,
                                      std::vector<std::string>& claimed) = nullptr;
  /// What a lone file of the kind reports instead of that resolution ("audit the folder"):
  /// dropped when the file is read in a folder, which resolves it.
  std::optional<Diag> lone_file_diagnostic = std::nullopt;
};

/// The entry of `kind`.
const InputFormat& FormatOf(InputKind kind);
/// Every entry, in the list's order (the order recognition tries them).
std::span<const InputFormat* const> InputFormats();

namespace formats {
#define CKPT_DECLARE_INPUT_FORMAT(Name, json) extern const InputFormat k##Name##Format;
CKPT_INPUT_KINDS(CKPT_DECLARE_INPUT_FORMAT)
#undef CKPT_DECLARE_INPUT_FORMAT
}  // namespace formats

}  // namespace ckpt
