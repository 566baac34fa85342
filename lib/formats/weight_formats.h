// The weight-format seam (bloaty's TryOpenELF -> TryOpenMachO chain, as a table): every
// format a weight file can be in, what recognises it from its first bytes, and what reads
// it into the format-neutral model (WeightFile: tensors with a Dtype and an absolute data
// region). Adding a format is one reader file, one entry in weight_formats.cpp and its
// rules. Formats recognised but not accepted (pickle, zip, NumPy, GGUF, LFS pointers, HTML,
// empty files) have no reader: a file of that kind is reported with its own diagnostic.
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

/// Every format, the accepted ones first, in the order they are tried.
std::span<const WeightFormat> WeightFormats();

/// The format weight files of an artifact are read with (safetensors).
const WeightFormat& AcceptedWeightFormat();

/// How a Git LFS pointer is described, and what to do about one.
inline constexpr std::string_view kGitLfsPointerDescription = "a Git LFS pointer (the weights were never downloaded)";
inline constexpr std::string_view kGitLfsPointerRemedy =
    "fetch the weights with git lfs pull (in GitHub Actions: actions/checkout with lfs: true), then audit again";

struct Recognised {
  const WeightFormat* format = nullptr;
  std::string description;
};
/// The first recognised-not-accepted format these bytes are, if any. Recognition only ever
/// labels a file that failed to parse: it never causes a failure (a valid safetensors file
/// can start with the bytes of a pickle header).
std::optional<Recognised> RecogniseRefusedFormat(std::span<const std::byte> head, std::uint64_t size);

}  // namespace ckpt
