// Fire cases of the torchscript rules: each input a rule fires on (tests/support/fire_cases.h).
#include "tests/support/fire_cases/fire_case_list.h"

namespace ckpt::testing {

void AddTorchscriptFireCases(std::vector<FireCase>& c) {
  using namespace pk;  // NOLINT(google-build-using-namespace): the opcode vocabulary
  // TorchScript and torch.export archives (formats.md section 4): programs, never weights.
  PickleCase(c, "torchscript-code", "torch.jit.save layout", "traced.pt", [] {
    return ZipOf({{"ts/data.pkl", OneTensorPickle()},
                  {"ts/code/__torch__.py", "def forward(self, x):\n    return x\n"},
                  {"ts/constants.pkl", Proto(2) + kEmptyTuple + kStop},
                  {"ts/version", "3\n"}});
  });
  PickleCase(c, "torchscript-export", "pt2 archive_format", "model.pt2", [] {
    return ZipOf({{"model/archive_format", "pt2"},
                  {"model/archive_version", "0"},
                  {"model/models/model.json", "{}"},
                  {"model/data/weights/weight_0", std::string(16, '\0')}});
  });
  PickleCase(c, "torchscript-native-code", "AOTInductor shared object", "model.pt2", [] {
    return ZipOf({{"model/archive_format", "pt2"},
                  {"model/models/model.json", "{}"},
                  {"model/data/aotinductor/model/model.so", std::string("\x7f"
                                                                        "ELF\x02\x01\x01",
                                                                        7) +
                                                                std::string(57, '\0')}});
  });
}

}  // namespace ckpt::testing
