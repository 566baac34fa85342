// What every report writer needs besides the results.
#pragma once

#include <boost/json.hpp>
#include <optional>
#include <string>

#include "engine/verdict.h"

namespace ckpt::reports {

struct ReportContext {
  std::string tool_name = "ckpt-audit";
  std::string version = CKPT_VERSION;
  FailThreshold threshold = Severity::kError;
  bool color = false;    ///< ANSI colour (the app decides: TTY and NO_COLOR unset)
  bool quiet = false;    ///< --quiet: text lists only what failed (and passing inputs' warnings)
  bool verbose = false;  ///< --verbose / --inventory: text gives each input's files, digests and tensors
  /// The folder finding fingerprints are relative to (the baseline's root; absolute, or empty).
  std::string fingerprint_root;
  std::optional<std::string> config_file;  ///< the configuration file that set defaults, if any
  /// The effective policy and rule-set fingerprint (EffectivePolicyJson), printed by JSON and SARIF.
  std::optional<boost::json::object> policy;
};

}  // namespace ckpt::reports
