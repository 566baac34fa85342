// One near miss per artifact rule: an input as close to firing as the rule allows, on which
// the rule must stay quiet (clang-tidy's Valid() blocks). `clean` marks near misses on
// which no rule at all may fire.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "lib/model/artifact.h"
#include "tests/support/artifact_builder.h"

namespace ckpt::testing {

struct NearMiss {
  std::string rule;
  std::string variant;
  std::function<Files()> make;
  bool clean = true;
  AuditOptions policy = {};
  InputForm form = InputForm::kMemory;
  std::string input_name = "input";  ///< kFile: the one entry of make(); kFolder: the folder written
};

std::vector<NearMiss> AllNearMisses();

}  // namespace ckpt::testing
