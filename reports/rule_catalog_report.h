// Renders the rule catalog for --list-rules (text or JSON).
#pragma once

#include <ostream>

namespace ckpt::reports {

void WriteRuleCatalogText(std::ostream& out);
void WriteRuleCatalogJson(std::ostream& out);

}  // namespace ckpt::reports
