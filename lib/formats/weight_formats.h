// Where weights belong (an artifact's weight files): the one accepted format (safetensors)
// and what a file that fails to parse as it is named as instead: the input kinds whose format
// table entry has refused_as_weights (pickle, torch zip, NumPy, GGUF), recognised by their
// own sniffs, and the files that are no input kind (empty files, Git LFS pointers, HTML
// pages), listed here. Each is reported with its own diagnostic.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "lib/io/artifact_source.h"
#include "lib/model/artifact.h"
#include "lib/model/diagnostic.h"

namespace ckpt {

/// Bytes of the file start that recognisers look at, at most.
inline constexpr std::size_t kSniffLength = 64;

struct WeightFormat {
  std::string_view name;  ///< "safetensors", "pickle", ...
  /// What the file is ("a Python pickle (protocol 4)") when its first bytes (at most
  /// kSniffLength) and size are this format's; nullopt otherwise. nullptr for formats that
  /// are recognised only by reading them (safetensors has no magic number).
  std::optional<std::string> (*recognise)(std::span<const std::byte> head, std::uint64_t size);
  /// Reads the file into the model; nullptr: recognised, not accepted.
  IoResult<WeightFile> (*read)(std::string name, std::unique_ptr<RandomAccessFile> file, DiagnosticSink& sink);
  /// The diagnostic for a file of a recognised-not-accepted format standing where weights
  /// belong (unused for accepted formats).
  Diag refused;
};

/// The accepted format, then the recognised-not-accepted files that are no input kind.
std::span<const WeightFormat> WeightFormats();

/// The format weight files of an artifact are read with (safetensors).
const WeightFormat& AcceptedWeightFormat();

/// How a Git LFS pointer is described, and what to do about one.
inline constexpr std::string_view kGitLfsPointerDescription = "a Git LFS pointer (the weights were never downloaded)";
inline constexpr std::string_view kGitLfsPointerRemedy =
    "fetch the weights with git lfs pull (in GitHub Actions: actions/checkout with lfs: true), then audit again";

struct Recognised {
  Diag refused;           ///< the diagnostic for it where weights belong
  std::string_view name;  ///< "empty", "git-lfs-pointer", "html" or the kind's JSON name ("pickle")
  std::string description;
};
/// The first recognised-not-accepted format these bytes are, if any: the files that are no
/// input kind first, then the format table's kinds refused as weights. Recognition only ever
/// labels a file that failed to parse: it never causes a failure (a valid safetensors file
/// can start with the bytes of a pickle header).
std::optional<Recognised> RecogniseRefusedFormat(std::span<const std::byte> head, std::uint64_t size);

}  // namespace ckpt
