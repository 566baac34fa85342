// Fire cases of the gguf rules: each input a rule fires on (tests/support/fire_cases.h).
#include "tests/support/fire_cases/fire_case_list.h"

namespace ckpt::testing {

void AddGgufFireCases(std::vector<FireCase>& c) {
  using namespace pk;  // NOLINT(google-build-using-namespace): the opcode vocabulary
  GgufCase(c, "gguf-header-invalid", "version 1", [] {
    gg::Spec s = gg::Several();
    s.version = 1;
    return s;
  });
  GgufCase(c, "gguf-header-invalid", "byte-swapped version", [] {
    gg::Spec s = gg::Several();
    s.version = 0x03000000;
    return s;
  });
  GgufCase(c, "gguf-length-invalid", "2^60 tensors", [] {
    gg::Spec s = gg::Several();
    s.tensor_count = std::uint64_t{1} << 60;
    return s;
  });
  GgufCase(c, "gguf-length-invalid", "a 2^62-byte string", [] {
    gg::Spec s = gg::Several();
    s.kvs.push_back({"general.name", 8, std::string("\x00\x00\x00\x00\x00\x00\x00\x40", 8)});
    return s;
  });
  GgufCase(c, "gguf-string-invalid", "key with NUL", [] {
    gg::Spec s = gg::Several();
    s.kvs.push_back(gg::U32(std::string("a\0b", 3), 1));
    return s;
  });
  GgufCase(c, "gguf-duplicate-key", "general.architecture twice", [] {
    gg::Spec s = gg::Several();
    s.kvs.push_back(gg::Str("general.architecture", "evil"));
    return s;
  });
  GgufCase(c, "gguf-value-type-invalid", "bool of 2", [] {
    gg::Spec s = gg::Several();
    s.kvs.push_back(gg::Bool("general.other", 2));
    return s;
  });
  GgufCase(c, "gguf-nested-array", "array of arrays", [] {
    gg::Spec s = gg::Several();
    s.kvs.push_back(gg::NestedArray("general.nested"));
    return s;
  });
  GgufCase(c, "gguf-alignment-invalid", "alignment 48", [] {
    gg::Spec s = gg::Several();
    s.kvs.insert(s.kvs.begin(), gg::U32("general.alignment", 48));
    return s;
  });
  GgufCase(c, "gguf-tensor-name-invalid", "64-byte name", [] {
    gg::Spec s = gg::Several();
    s.tensors[0].name = std::string(64, 'n');
    return s;
  });
  GgufCase(c, "gguf-duplicate-tensor", "two token_embd.weight", [] {
    gg::Spec s = gg::Several();
    s.tensors[1].name = s.tensors[0].name;
    return s;
  });
  GgufCase(c, "gguf-type-unknown", "removed Q4_2", [] {
    gg::Spec s = gg::Several();
    s.tensors[0].type = 4;
    s.tensors[0].data_bytes = 512;
    return s;
  });
  GgufCase(c, "gguf-rank-invalid", "rank 5", [] {
    gg::Spec s = gg::Several();
    s.tensors[0].dims = {2, 2, 2, 2, 2};
    return s;
  });
  GgufCase(c, "gguf-shape-invalid", "Q8_0 row of 40", [] {
    gg::Spec s = gg::Several();
    s.tensors[3].dims = {40, 2};
    s.tensors[3].data_bytes = 68;
    return s;
  });
  GgufCase(c, "gguf-offset-invalid", "overlapping tensors", [] {
    gg::Spec s = gg::Several();
    s.tensors[1].offset = 0;
    return s;
  });
  GgufCase(c, "gguf-data-past-end", "last tensor cut", [] {
    gg::Spec s = gg::Several();
    s.tensors.back().data_bytes = 16;  // written short; its dims say 480 bytes
    return s;
  });
  GgufCase(
      c, "gguf-trailing-data", "bytes appended", [] { return gg::Several(); }, "PAYLOAD");
  SplitCase(c, "gguf-split-incomplete", "part 2 of 3 missing",
            [](std::vector<std::pair<std::string, std::string>>& p) { p.erase(p.begin() + 1); });
  SplitCase(c, "gguf-split-inconsistent", "a tensor in two parts",
            [](std::vector<std::pair<std::string, std::string>>& p) {
              // Part 3 again, renamed as part 2: its tensors are then in two parts, and the count is off.
              p[1].second = p[2].second;
            });
}

}  // namespace ckpt::testing
