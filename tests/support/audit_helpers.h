// Helpers for tests that audit generated artifacts from memory and assert findings.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/audit.h"
#include "lib/io/memory_source.h"
#include "tests/support/artifact_builder.h"

namespace ckpt::testing {

/// Audits `files` (plus non-regular `entries`) from memory.
AuditResult AuditFiles(const Files& files, const Policy& policy = {},
                       const std::vector<std::pair<std::string, EntryKind>>& entries = {},
                       const std::vector<std::string>& replaced_on_open = {});

/// The findings of `rule_id`.
std::vector<const Finding*> FindingsOf(const AuditResult& result, std::string_view rule_id);

/// "rule-id CODE: message" for every finding, one per line (for failure messages).
std::string Describe(const AuditResult& result);

}  // namespace ckpt::testing
