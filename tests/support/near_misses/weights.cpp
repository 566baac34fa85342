// Near misses of the weights rules: inputs as close to firing as each rule allows (tests/support/near_misses.h).
#include "tests/support/near_misses/near_miss_list.h"

namespace ckpt::testing {

void AddWeightsNearMisses(std::vector<NearMiss>& n) {
  using namespace pk;  // NOLINT(google-build-using-namespace): the opcode vocabulary
  // weights
  Add(
      n, "weights-file-empty", "an empty stray file is a stray entry, not empty weights",
      [] { return WithStray("notes.txt", ""); }, false);
  Add(n, "weights-files-mismatch", "every listed file present", Sharded);
  Add(
      n, "weights-format-gguf", "a GGUF file beside the weights", [] { return WithStray("model.gguf", "GGUF\x03"); },
      false);
  Add(
      n, "weights-format-git-lfs-pointer", "an LFS pointer beside the weights",
      [] { return WithStray("big.bin", "version https://git-lfs.github.com/spec/v1\n"); }, false);
  Add(
      n, "weights-format-html", "an HTML page beside the weights",
      [] { return WithStray("index.html", "<html></html>"); }, false);
  Add(
      n, "weights-format-numpy", "a .npy file beside the weights", [] { return WithStray("a.npy", "\x93NUMPY"); },
      false);
  Add(n, "weights-format-pickle", "valid safetensors whose length prefix reads as a pickle (N = 640)", [] {
    Files f = Clean();
    SafetensorsParts parts = SplitSafetensors(f.at("weights.safetensors"));
    parts.header.append(640 - parts.header.size(), ' ');  // N = 640 = 0x0280: the file starts 80 02
    f["weights.safetensors"] = SafetensorsFile(parts.header, parts.data);
    return f;
  });
  Add(
      n, "weights-format-zip", "a zip beside the weights",
      [] { return WithStray("model.zip", std::string("PK\x03\x04", 4)); }, false);
  Add(n, "weights-metadata-content-hash", "metadata naming the right hash", [] {
    ArtifactSpec spec = ArtifactSpec::Clean();
    spec.metadata.push_back({"content_hash", spec.ContentHash()});
    return spec.Build();
  });
  Add(n, "weights-metadata-schema-version", "metadata naming the schema as written", [] {
    return FromSpec([](ArtifactSpec& s) { s.metadata.push_back({"schema_version", "1"}); });
  });
  Add(n, "weights-tensor-in-two-files", "each tensor in one shard", Sharded);
}

}  // namespace ckpt::testing
