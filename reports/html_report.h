// The HTML report of each tool: one self-contained page (inline CSS, no script at all, a
// Content-Security-Policy that forbids loading anything), the summary first, then findings
// grouped by rule with the rule's explanation and remediation, then the details (the diff's
// roll-ups as bars and its tensor table; the chain's picture and history table).
// Everything taken from the input is display-escaped (control, bidi and invalid bytes shown as
// escapes) and then HTML-escaped, so no name can become markup.
#pragma once

#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>

#include "engine/audit.h"
#include "engine/chain_run.h"
#include "engine/diff_run.h"
#include "reports/report_context.h"

namespace ckpt::reports {

/// `text` display-escaped (EscapeForDisplay), then markup-escaped (EscapeMarkup).
std::string HtmlEscape(std::string_view text);

void WriteAuditHtml(std::ostream& out, std::span<const AuditResult> results, const ReportContext& context);
void WriteDiffHtml(std::ostream& out, const DiffRun& run, const ReportContext& context);
/// `svg`: the chain picture as Graphviz rendered it (WriteChainDot through `dot -Tsvg`), shown
/// inline; without it the page shows the history table alone.
void WriteChainHtml(std::ostream& out, const ChainRun& run, const ReportContext& context,
                    const std::optional<std::string>& svg);

/// The <svg> element of Graphviz's SVG output, for inlining: what precedes "<svg" (the XML
/// declaration, the DOCTYPE) is dropped; nullopt when it holds no such element or holds
/// anything a page must not run (script, foreignObject, event handlers, javascript: links).
std::optional<std::string> InlineSvg(std::string_view graphviz_svg);

}  // namespace ckpt::reports
