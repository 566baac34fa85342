// The formats of an audit's report and what writes each, in --help's order: ckpt-audit writes
// them all, ckpt-convert the first three (text, JSON, SARIF).
#pragma once

#include <span>
#include <vector>

#include "apps/common/writer_table.h"
#include "lib/model/audit_result.h"

namespace ckpt::cli {

using AuditWriterEntry = WriterEntry<std::vector<AuditResult>>;

/// text, json, sarif, junit, gitlab, html, markdown.
std::span<const AuditWriterEntry> AuditWriters();

}  // namespace ckpt::cli
