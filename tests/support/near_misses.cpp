#include "tests/support/near_misses.h"

#include "tests/support/near_misses/near_miss_list.h"

namespace ckpt::testing {

// One call per rule family (tests/support/near_misses/FAMILY.cpp).
std::vector<NearMiss> AllNearMisses() {
  std::vector<NearMiss> n;
  AddHashNearMisses(n);
  AddHeaderNearMisses(n);
  AddIndexNearMisses(n);
  AddLayoutNearMisses(n);
  AddManifestNearMisses(n);
  AddPathNearMisses(n);
  AddResidencyNearMisses(n);
  AddSafetensorsNearMisses(n);
  AddWeightsNearMisses(n);
  AddTarNearMisses(n);
  AddInputNearMisses(n);
  AddModelNearMisses(n);
  AddPickleNearMisses(n);
  AddZipNearMisses(n);
  AddTorchNearMisses(n);
  AddNumpyNearMisses(n);
  AddGgufNearMisses(n);
  AddNpzNearMisses(n);
  AddTorchscriptNearMisses(n);
  AddJoblibNearMisses(n);
  AddMsgpackNearMisses(n);
  AddNemoNearMisses(n);
  AddOnnxNearMisses(n);
  AddKerasNearMisses(n);
  AddHdf5NearMisses(n);
  AddConfigNearMisses(n);
  AddTemplateNearMisses(n);
  return n;
}

}  // namespace ckpt::testing
