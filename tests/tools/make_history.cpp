// ckpt-make-history: writes a linear parent_hash history for benchmarks and demos.
//   ckpt-make-history OUT_DIR ROUNDS [BYTES_PER_ROUND]
#include <exception>
#include <iostream>
#include <string>

#include "tests/support/history_builder.h"

int main(int argc, char** argv) try {
  if (argc < 3 || argc > 4) {
    std::cerr << "usage: ckpt-make-history OUT_DIR ROUNDS [BYTES_PER_ROUND]\n";
    return 2;
  }
  auto rounds = ckpt::testing::WriteHistory(argv[1], std::stoull(argv[2]), argc > 3 ? std::stoull(argv[3]) : 0);
  std::cout << rounds.front().hash << " .. " << rounds.back().hash << "\n";
  return 0;
} catch (const std::exception& e) {
  std::cerr << "ckpt-make-history: " << e.what() << "\n";
  return 2;
}
