// The fire cases of the artifact rules: for every rule of the catalog's artifact scope, one
// or more generated artifacts on which it must fire (used by rules_test and sarif_test).
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "lib/model/artifact.h"
#include "tests/support/artifact_builder.h"

namespace ckpt::testing {

using Entries = std::vector<std::pair<std::string, EntryKind>>;

struct FireCase {
  std::string rule;
  std::string code;  ///< the spec's code string, written out so a catalog change is caught
  std::string variant;
  std::function<Files()> make;
  AuditOptions policy = {};
  Entries entries = {};
  std::vector<std::string> replaced_on_open = {};  ///< MemorySource::ReplaceOnOpen
  InputForm form = InputForm::kMemory;
  std::string input_name = "input";  ///< kFile: the one entry of make(); kFolder: the folder written
  /// Set while the case is audited (ScopedEnvironment): $CKPT_H5PROBE for the HDF5 reader's stand-in.
  std::vector<std::pair<std::string, std::string>> environment = {};
};

void PrintTo(const FireCase& fc, std::ostream* os);

/// ArtifactSpec::Clean() as files; the same with 3 shards; Clean() changed by `change`.
Files Clean();
Files Sharded();
Files FromSpec(const std::function<void(ArtifactSpec&)>& change);

std::vector<FireCase> AllFireCases();

}  // namespace ckpt::testing
