// ckpt-make-artifact: writes a generated, valid artifact for benchmarks and demos.
//   ckpt-make-artifact OUT_DIR [TENSORS [BYTES_PER_TENSOR [SHARDS]]]
// The tensors' bytes are generated in memory and written from there (1 GiB benchmark
// artifact: 1 GiB of memory), not meant for anything much larger.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>

#include "tests/support/artifact_builder.h"

int main(int argc, char** argv) try {
  // An option where OUT_DIR belongs (--help) is a usage error, never a folder to write.
  if (argc < 2 || argc > 5 || argv[1][0] == '-') {
    std::cerr << "usage: ckpt-make-artifact OUT_DIR [TENSORS [BYTES_PER_TENSOR [SHARDS]]]\n";
    return 2;
  }
  const std::size_t tensors = argc > 2 ? std::stoull(argv[2]) : 6;
  const std::uint64_t bytes = argc > 3 ? std::stoull(argv[3]) : 64;
  const auto shards = static_cast<std::uint32_t>(argc > 4 ? std::stoul(argv[4]) : 0);
  ckpt::testing::ArtifactSpec spec = ckpt::testing::ArtifactSpec::Uniform(tensors, bytes);
  spec.shards = shards;
  spec.Write(argv[1]);
  std::cout << spec.ContentHash() << "\n";
  return 0;
} catch (const std::exception& e) {
  std::cerr << "ckpt-make-artifact: " << e.what() << "\n";
  return 2;
}
