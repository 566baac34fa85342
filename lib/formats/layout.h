// File names of the artifact layout (artifact-format.md section 1).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

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
/// A model folder's weight file: "<stem>.safetensors" with a non-empty stem.
bool IsSafetensorsFileName(std::string_view name);

/// Why a declared file name could escape the artifact root ("contains '/'", ...), or
/// nullopt when it is a plain name.
std::optional<std::string> PathEscapeReason(std::string_view name);

}  // namespace ckpt
