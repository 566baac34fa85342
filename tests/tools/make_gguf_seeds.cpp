// Writes the GGUF fuzz seeds (fixtures/fuzz/make-seeds runs it) with the test GGUF writer: a
// valid file of several types, one with alignment 64 at version 2, a split part, an empty
// file and a nested array.
#include <filesystem>
#include <fstream>

#include "tests/support/gguf_builder.h"

int main(int argc, char** argv) {
  namespace gg = ckpt::testing::gg;
  const std::filesystem::path out = argc > 1 ? argv[1] : "gguf";
  std::filesystem::create_directories(out);
  auto write = [&](const char* name, const std::string& bytes) {
    std::ofstream(out / name, std::ios::binary) << bytes;
  };
  write("several.gguf", gg::Build(gg::Several()));
  gg::Spec aligned = gg::Several();
  aligned.alignment = 64;
  aligned.version = 2;
  write("aligned64-v2.gguf", gg::Build(aligned));
  write("split-part1.gguf", gg::SplitSet("model", 2).front().second);
  write("empty.gguf", gg::Build(gg::Spec{}));
  gg::Spec nested = gg::Several();
  nested.kvs.push_back(gg::NestedArray("general.nested"));
  write("nested.gguf", gg::Build(nested));
  return 0;
}
