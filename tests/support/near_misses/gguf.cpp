// Near misses of the gguf rules: inputs as close to firing as each rule allows (tests/support/near_misses.h).
#include "tests/support/near_misses/near_miss_list.h"

namespace ckpt::testing {

void AddGgufNearMisses(std::vector<NearMiss>& n) {
  using namespace pk;  // NOLINT(google-build-using-namespace): the opcode vocabulary
  GgufNear(n, "gguf-header-invalid", "version 2", [] {
    gg::Spec s = gg::Several();
    s.version = 2;
    return s;
  });
  GgufNear(n, "gguf-length-invalid", "no tensors, no key/values", [] { return gg::Spec{}; });
  GgufNear(n, "gguf-string-invalid", "UTF-8 values and keys", [] {
    gg::Spec s = gg::Several();
    s.kvs.push_back(gg::Str("general.name", "mod\xc3\xa8le \xe2\x80\x94 \xf0\x9f\xa6\x99"));
    return s;
  });
  GgufNear(n, "gguf-duplicate-key", "keys that differ by case", [] {
    gg::Spec s = gg::Several();
    s.kvs.push_back(gg::Str("General.Architecture", "llama"));
    return s;
  });
  GgufNear(n, "gguf-value-type-invalid", "every scalar type", [] {
    gg::Spec s = gg::Several();
    s.kvs.push_back(gg::U16("a.u16", 7));
    s.kvs.push_back(gg::I32("a.i32", -7));
    s.kvs.push_back(gg::U64("a.u64", 7));
    s.kvs.push_back(gg::Bool("a.bool", 0));
    return s;
  });
  GgufNear(n, "gguf-nested-array", "array of strings", [] { return gg::Several(); });
  GgufNear(n, "gguf-alignment-invalid", "alignment 64", [] {
    gg::Spec s = gg::Several();
    s.alignment = 64;
    return s;
  });
  GgufNear(n, "gguf-tensor-name-invalid", "63-byte name", [] {
    gg::Spec s = gg::Several();
    s.tensors[0].name = std::string(63, 'n');
    return s;
  });
  GgufNear(n, "gguf-duplicate-tensor", "names that differ by one byte", [] {
    gg::Spec s = gg::Several();
    s.tensors[1].name = s.tensors[0].name + "2";
    return s;
  });
  GgufNear(n, "gguf-type-unknown", "MXFP4 and Q2_K", [] {
    gg::Spec s = gg::Several();
    s.tensors.push_back({"mx.weight", {64}, 39, {}, {}});
    s.tensors.push_back({"k.weight", {256}, 10, {}, {}});
    return s;
  });
  GgufNear(n, "gguf-rank-invalid", "rank 4", [] { return gg::Several(); });
  GgufNear(n, "gguf-shape-invalid", "an empty tensor", [] {
    gg::Spec s = gg::Several();
    s.tensors.push_back({"empty.weight", {0, 4}, 0, {}, {}});
    return s;
  });
  GgufNear(n, "gguf-offset-invalid", "offsets at each aligned end", [] { return gg::Several(); });
  GgufNear(n, "gguf-data-past-end", "last tensor ends at the end", [] {
    gg::Spec s = gg::Several();
    s.tensors.back().dims = {8};  // 32 bytes: the file ends right after them
    return s;
  });
  GgufNear(n, "gguf-trailing-data", "zero padding to the alignment", [] { return gg::Several(); });

  for (const char* rule : {"gguf-split-incomplete", "gguf-split-inconsistent"}) {
    NearMiss m{rule, "a whole 3-part split set", [] {
                 Files f;
                 for (auto& [name, bytes] : gg::SplitSet("model", 3)) f[name] = bytes;
                 return f;
               }};
    m.form = InputForm::kFolder;
    m.input_name = "model";
    m.clean = true;
    n.push_back(std::move(m));
  }
}

}  // namespace ckpt::testing
