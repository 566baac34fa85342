// ckpt-make-history: writes a parent_hash history for benchmarks, demos and screenshots.
//   ckpt-make-history OUT_DIR ROUNDS [BYTES_PER_ROUND] [--gap R]... [--fork R]... [--tamper R]...
// --gap R leaves round R out (its child still names it); --fork R adds a second child of
// round R ("fork-NNNN"); --tamper R flips one weight byte of round R after it was written.
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <string>

#include "tests/support/history_builder.h"

int main(int argc, char** argv) try {
  std::vector<std::string> positional;
  std::set<std::uint64_t> gaps, forks, tampered;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if ((arg == "--gap" || arg == "--fork" || arg == "--tamper") && i + 1 < argc) {
      (arg == "--gap" ? gaps : arg == "--fork" ? forks : tampered).insert(std::stoull(argv[++i]));
    } else {
      positional.push_back(arg);
    }
  }
  if (positional.size() < 2 || positional.size() > 3) {
    std::cerr << "usage: ckpt-make-history OUT_DIR ROUNDS [BYTES_PER_ROUND] [--gap R]... [--fork R]... "
                 "[--tamper R]...\n";
    return 2;
  }
  const std::filesystem::path root = positional[0];
  const std::uint64_t bytes = positional.size() > 2 ? std::stoull(positional[2]) : 0;
  auto rounds = ckpt::testing::WriteHistory(root, std::stoull(positional[1]), bytes);
  for (std::uint64_t r : forks) {
    if (r >= rounds.size()) continue;
    ckpt::testing::ArtifactSpec other = ckpt::testing::RoundSpec(r + 1, rounds[r].hash, bytes);
    other.tensors[0].data[0] = static_cast<char>(other.tensors[0].data[0] ^ 1);
    std::string name = std::to_string(r + 1);
    name.insert(0, name.size() < 4 ? 4 - name.size() : 0, '0');
    ckpt::testing::WriteRound(root, "fork-" + name, other);
  }
  for (std::uint64_t r : tampered) {
    if (r >= rounds.size()) continue;
    for (const auto& entry : std::filesystem::directory_iterator(rounds[r].dir)) {
      if (entry.path().extension() != ".safetensors") continue;
      std::fstream f(entry.path(), std::ios::in | std::ios::out | std::ios::binary);
      f.seekg(-1, std::ios::end);
      const int last = f.get();
      f.seekp(-1, std::ios::end);
      f.put(static_cast<char>(last ^ 0x40));
      break;
    }
  }
  for (std::uint64_t r : gaps) {
    if (r < rounds.size()) std::filesystem::remove_all(rounds[r].dir);
  }
  std::cout << rounds.front().hash << " .. " << rounds.back().hash << "\n";
  return 0;
} catch (const std::exception& e) {
  std::cerr << "ckpt-make-history: " << e.what() << "\n";
  return 2;
}
