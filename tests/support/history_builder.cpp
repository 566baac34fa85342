#include "tests/support/history_builder.h"

#include <cstdio>

namespace ckpt::testing {

ArtifactSpec RoundSpec(std::uint64_t index, const std::optional<std::string>& parent, std::uint64_t bytes_per_round) {
  ArtifactSpec spec = bytes_per_round == 0 ? ArtifactSpec::Clean() : ArtifactSpec::Uniform(1, bytes_per_round);
  spec.round_index = index;
  spec.parent_hash = parent;
  // Different weights every round, as training would produce.
  for (TensorSpec& t : spec.tensors) {
    for (std::size_t b = 0; b < t.data.size(); b += 97)
      t.data[b] = static_cast<char>(t.data[b] + static_cast<char>(index + 1));
  }
  return spec;
}

Round WriteRound(const std::filesystem::path& root, const std::string& name, ArtifactSpec spec) {
  Round round{std::move(spec), "", root / name};
  round.hash = round.spec.ContentHash();
  round.spec.Write(round.dir);
  return round;
}

std::vector<Round> WriteHistory(const std::filesystem::path& root, std::size_t count, std::uint64_t bytes_per_round) {
  std::vector<Round> rounds;
  std::optional<std::string> parent;
  for (std::size_t i = 0; i < count; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "round-%04zu", i);
    rounds.push_back(WriteRound(root, name, RoundSpec(i, parent, bytes_per_round)));
    parent = rounds.back().hash;
  }
  return rounds;
}

}  // namespace ckpt::testing
