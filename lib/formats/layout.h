// File names of the artifact layout (artifact-format.md section 1).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "lib/core/input_kind.h"

namespace ckpt {

inline constexpr std::string_view kHeaderFileName = "header.json";
inline constexpr std::string_view kSingleWeightsFileName = "weights.safetensors";
inline constexpr std::string_view kShardIndexFileName = "weights.index.json";

/// I and N of a name of the form weights-IIIII-of-NNNNN.safetensors (five digits each).
struct ShardName {
  std::uint32_t index = 0;
  std::uint32_t count = 0;
};
std::optional<ShardName> ParseShardName(std::string_view name);
std::string MakeShardName(std::uint32_t index, std::uint32_t count);

/// True for weights.safetensors and any well-formed shard name.
bool IsWeightFileName(std::string_view name);

/// True when `name` ends in ".safetensors": what the name claims, not what the file is.
bool ClaimsSafetensors(std::string_view name);
/// What a file's extension claims it is (formats.md section 1: the extension never decides,
/// but a name that says one kind over content of another fools tools that trust it).
struct NameClaim {
  std::string_view suffix;  ///< ".npz", matched without case
  std::string_view format;  ///< what a message calls it: "safetensors", "a NumPy .npz archive"
  InputKinds kinds;         ///< the kinds whose content the name fits
};
/// The claim `name`'s extension makes; nullptr for an extension that claims no kind.
const NameClaim* ClaimOfName(std::string_view name);

/// A model folder's weight file: "<stem>.safetensors" with a non-empty stem.
bool IsSafetensorsFileName(std::string_view name);

/// Why a declared file name could escape the artifact root ("contains '/'", ...), or
/// nullopt when it is a plain name.
std::optional<std::string> PathEscapeReason(std::string_view name);

}  // namespace ckpt
