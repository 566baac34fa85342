// Builds parent_hash histories of generated artifacts on disk for chain tests and benchmarks.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "tests/support/artifact_builder.h"

namespace ckpt::testing {

struct Round {
  ArtifactSpec spec;
  std::string hash;           ///< its content hash
  std::filesystem::path dir;  ///< where it was written
};

/// The spec of round `index` of a history: tensors vary with the round so every round
/// hashes differently; `bytes_per_round` sizes one float32 tensor (0: the Clean() tensors).
ArtifactSpec RoundSpec(std::uint64_t index, const std::optional<std::string>& parent,
                       std::uint64_t bytes_per_round = 0);

/// Writes rounds 0 .. count-1 as `root/round-NNNN`, each naming its predecessor.
std::vector<Round> WriteHistory(const std::filesystem::path& root, std::size_t count,
                                std::uint64_t bytes_per_round = 0);

/// Writes `spec` as `root/name` and returns the round.
Round WriteRound(const std::filesystem::path& root, const std::string& name, ArtifactSpec spec);

}  // namespace ckpt::testing
