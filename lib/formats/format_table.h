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
#include <string_view>
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

/// The loader a file name selects in a model folder (transformers, diffusers, numpy, joblib).
enum class NamedLoader : std::uint8_t { kTorch, kNumpy, kPickle, kSafetensors, kGguf, kHdf5 };

/// A file-name extension a format owns (formats.md section 1: the extension never decides
/// the kind, but loaders choose by it, and a name that says one kind over content of another
/// fools tools that trust it). No extension is a suffix of another's.
struct NameSuffix {
  std::string_view suffix;                           ///< ".npz", matched without case, after a non-empty stem
  std::optional<NamedLoader> loader = std::nullopt;  ///< what opens a model folder's file so named
  /// What the name claims, as a message calls it ("a NumPy .npz archive"); empty: it claims
  /// no content (".bin" is whatever torch.load reads).
  std::string_view claim = {};
  InputKinds also_fits = {};  ///< kinds of the same module whose content fits the name too
  /// Content in this container fits the name too (".joblib": any pickle joblib.load reads).
  PolyglotContainer also_fits_container = PolyglotContainer::kNone;
  bool fits_refused = false;  ///< content refused for what it is (".nemo": older NeMo wrote w:gz)
};

/// What torch.load makes of a file of the kind (NeMo restores its weights with it; derivations
/// and ckpt-convert take torch.save's own formats).
enum class TorchLoads : std::uint8_t {
  kNo,
  kTorchSave,    ///< a torch.save checkpoint (zip or legacy): storage records a derivation can name
  kPlainPickle,  ///< a pickle it unpickles (ckpt-convert converts one)
  kArray,        ///< a NumPy array
};

/// One entry per kind. Every column but the kind has a default (a single-file kind read by
/// nothing, in no container, naming nothing beside it): an entry spells only what it differs in.
struct InputFormat {
  InputKind kind;  ///< the one column without a default
  /// What the file is ("a GGUF model file") when its head is this kind's; nullptr for kinds
  /// recognised otherwise (directories, the unknown). Tried in the list's order.
  std::optional<std::string> (*sniff)(const FileHead& head) = nullptr;
  /// A sniff that matched on the head alone (a pickle without a PROTO opcode) confirmed with
  /// the open file (a syntax walk): false lets the kinds after it in the list try. nullptr: the
  /// sniff is final. The error is an I/O failure of the tool.
  IoResult<bool> (*confirm)(const std::string& description, const RandomAccessFile& file) = nullptr;
  /// A zip found only by its end record (behind a prefix, a spanning marker) is this kind.
  bool claims_zip_from_end = false;
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
  TorchLoads torch_loads = TorchLoads::kNo;
  /// A serialized program (TorchScript, torch.export): analysed wherever a loader would run it.
  bool program = false;
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
  /// The file-name extensions the format owns.
  std::span<const NameSuffix> names = {};
  /// Where weights belong (a weight file that failed to parse as safetensors), a file of this
  /// kind is named by its sniff and reported with this diagnostic; nullopt: not named there.
  std::optional<Diag> refused_as_weights = std::nullopt;
  /// A container whose files are each read as inputs of their own kinds (a model folder, a
  /// NeMo archive): rules about a format apply to it too.
  bool holds_other_formats = false;
};

/// The entry of `kind`.
const InputFormat& FormatOf(InputKind kind);
/// Every entry, in the list's order (the order recognition tries them).
std::span<const InputFormat* const> InputFormats();

/// The extension a file name ends in (after its last '/') and the format that owns it.
struct NamedFormat {
  const NameSuffix* suffix;
  const InputFormat* format;
};
/// What `name`'s extension says; nullopt for an extension no format owns.
std::optional<NamedFormat> FormatNamedBy(std::string_view name);
/// Whether content of kind `content` is what the extension claims (true when it claims nothing).
bool NameFits(const NamedFormat& named, InputKind content);

namespace formats {
#define CKPT_DECLARE_INPUT_FORMAT(Name, json) extern const InputFormat k##Name##Format;
CKPT_INPUT_KINDS(CKPT_DECLARE_INPUT_FORMAT)
#undef CKPT_DECLARE_INPUT_FORMAT
}  // namespace formats

}  // namespace ckpt
