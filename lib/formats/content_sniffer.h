// Names what a file that failed to parse as safetensors looks like instead. Sniffing only
// labels a failure, never causes one (a valid safetensors file can begin with the bytes of a
// pickle header). Nothing is ever unpickled or executed: only the first bytes are compared.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "lib/findings/diagnostic.h"

namespace ckpt {

enum class ContentKind { kUnknown, kEmpty, kPickle, kZip, kNumpy, kGguf, kGitLfsPointer, kHtml };

struct SniffResult {
  ContentKind kind = ContentKind::kUnknown;
  std::string description;  ///< "a Python pickle (protocol 4)"; empty for kUnknown
};

/// Bytes of the file start that SniffContent looks at, at most.
inline constexpr std::size_t kSniffLength = 64;

/// Classifies a file from its first bytes (at most kSniffLength) and total size.
SniffResult SniffContent(std::span<const std::byte> head, std::uint64_t file_size);

/// The diagnostic for a weight file of this kind; nullopt for kUnknown.
std::optional<Diag> DiagForContentKind(ContentKind kind);

}  // namespace ckpt
