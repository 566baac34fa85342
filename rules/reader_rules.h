// Which catalog rule reports each reader diagnostic.
#pragma once

#include "lib/findings/diagnostic.h"

namespace ckpt::rules {

/// The rule a reader diagnostic is reported under.
const RuleInfo& RuleForDiagnostic(Diag kind);

}  // namespace ckpt::rules
