// What every report writer needs besides the results.
#pragma once

#include <string>

#include "engine/verdict.h"

namespace ckpt::reports {

struct ReportContext {
  std::string tool_name = "ckpt-audit";
  std::string version = CKPT_VERSION;
  FailThreshold threshold = Severity::kError;
  bool color = false;  ///< ANSI colour (the app decides: TTY and NO_COLOR unset)
};

}  // namespace ckpt::reports
