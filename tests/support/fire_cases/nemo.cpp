// Fire cases of the nemo rules: each input a rule fires on (tests/support/fire_cases.h).
#include "tests/support/fire_cases/fire_case_list.h"

namespace ckpt::testing {

void AddNemoFireCases(std::vector<FireCase>& c) {
  using namespace pk;  // NOLINT(google-build-using-namespace): the opcode vocabulary
  // NeMo archives (formats.md section 9): a tar as SaveRestoreConnector writes it (arcname ".").
  {
    const std::string ckpt = BuildZip(TorchZipEntries(OneTensorPickle(), {{"0", OneTensorRecord()}}));
    const auto nemo = [ckpt](const std::string& config) {
      return BuildTar(TarOfFiles({{"model_config.yaml", config}, {"model_weights.ckpt", ckpt}}, "./"));
    };
    PickleCase(c, "nemo-config-invalid", "an alias", "model.nemo",
               [nemo] { return nemo("base: &b {n: 1}\nencoder: *b\n"); });
    PickleCase(c, "nemo-target-unsafe", "os.system", "model.nemo", [nemo] {
      return nemo("target: nemo.collections.asr.models.EncDecCTCModel\nx:\n  _target_: os.system\n");
    });
    PickleCase(c, "nemo-weights-missing", "no model_weights.ckpt", "model.nemo", [] {
      return BuildTar(
          TarOfFiles({{"model_config.yaml", "target: nemo.collections.asr.models.EncDecCTCModel\n"}}, "./"));
    });
  }
}

}  // namespace ckpt::testing
