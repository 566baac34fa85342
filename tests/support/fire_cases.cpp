#include "tests/support/fire_cases.h"

#include "tests/support/fire_cases/fire_case_list.h"

namespace ckpt::testing {

Files Clean() { return ArtifactSpec::Clean().Build(); }

Files Sharded() {
  ArtifactSpec spec = ArtifactSpec::Clean();
  spec.shards = 3;
  return spec.Build();
}

Files FromSpec(const std::function<void(ArtifactSpec&)>& change) {
  ArtifactSpec spec = ArtifactSpec::Clean();
  change(spec);
  return spec.Build();
}

void PrintTo(const FireCase& fc, std::ostream* os) { *os << fc.rule << " (" << fc.variant << ")"; }

// One call per rule family (tests/support/fire_cases/FAMILY.cpp), in the order the families'
// goldens were first written.
std::vector<FireCase> AllFireCases() {
  std::vector<FireCase> c;
  AddLayoutFireCases(c);
  AddHeaderFireCases(c);
  AddSafetensorsFireCases(c);
  AddWeightsFireCases(c);
  AddManifestFireCases(c);
  AddIndexFireCases(c);
  AddPathFireCases(c);
  AddResidencyFireCases(c);
  AddHashFireCases(c);
  AddTarFireCases(c);
  AddInputFireCases(c);
  AddModelFireCases(c);
  AddPickleFireCases(c);
  AddZipFireCases(c);
  AddTorchFireCases(c);
  AddNumpyFireCases(c);
  AddGgufFireCases(c);
  AddNpzFireCases(c);
  AddTorchscriptFireCases(c);
  AddJoblibFireCases(c);
  AddMsgpackFireCases(c);
  AddNemoFireCases(c);
  AddOnnxFireCases(c);
  AddKerasFireCases(c);
  AddHdf5FireCases(c);
  AddConfigFireCases(c);
  AddTemplateFireCases(c);
  return c;
}

}  // namespace ckpt::testing
