// Near misses of the nemo rules: inputs as close to firing as each rule allows (tests/support/near_misses.h).
#include "tests/support/near_misses/near_miss_list.h"

namespace ckpt::testing {

void AddNemoNearMisses(std::vector<NearMiss>& n) {
  using namespace pk;  // NOLINT(google-build-using-namespace): the opcode vocabulary
  // NeMo: plain YAML with quoted '&' and '*' text, allowed targets of every allowed root, the
  // checkpoint under the archive's one top folder.
  {
    const std::string ckpt = BuildZip(TorchZipEntries(OneTensorPickle(), {{"0", OneTensorRecord()}}));
    const auto nemo = [ckpt](const std::string& config, const std::string& prefix) {
      return BuildTar(TarOfFiles({{"model_config.yaml", config}, {"model_weights.ckpt", ckpt}}, prefix));
    };
    PickleNear(
        n, "nemo-config-invalid", "quoted & and * text", "model.nemo",
        [nemo] { return nemo("name: '&b *b'\nlist: [1, 2]\n", "./"); }, false);
    PickleNear(
        n, "nemo-target-unsafe", "allowed targets", "model.nemo",
        [nemo] {
          return nemo(
              "target: nemo.collections.asr.models.EncDecCTCModel\nencoder:\n  _target_: "
              "nemo.core.classes.NeuralModule\noptim:\n  _target_: torch.optim.AdamW\n  sched:\n    _target_: "
              "torch.optim.lr_scheduler.StepLR\nlayers:\n  - _target_: torch.nn.Linear\n",
              "./");
        },
        false);
    PickleNear(
        n, "nemo-weights-missing", "under one top folder", "model.nemo",
        [nemo] { return nemo("sample_rate: 16000\n", "model/"); }, false);
  }
}

}  // namespace ckpt::testing
