// The text report for people: one block per artifact, one line per finding
// (<path>:<line>:<column> or <path>@<byte offset>, severity, message, [rule-id CODE]),
// then a summary line. Colour only when the context asks for it.
#pragma once

#include <ostream>
#include <span>

#include "engine/audit.h"
#include "reports/report_context.h"

namespace ckpt::reports {

/// One finding as every text report prints it, gcc-style:
/// "<artifact>/<file>:LINE:COL: error: <message> [rule-id CODE]" (the location is left out
/// when there is none). Everything taken from the input is escaped (EscapeForDisplay).
std::string FindingLine(const std::string& artifact_path, const Finding& finding, bool color = false);

/// The findings of one input, each on a line after `indent`: those that count, then the ones
/// a --baseline suppresses, dimmed under a line counting them ("3 suppressed by the baseline"),
/// then those a reviewed acceptance accepts, the same way.
void WriteFindingLines(std::ostream& out, const std::string& indent, const std::string& artifact_path,
                       const std::vector<Finding>& findings, bool color);

/// Why a finding that does not count is accepted: "accepted until DATE: reason", or the
/// reviewed acceptance, its file and the SHA-256 of the bytes it holds for.
std::string AcceptedWhy(const Suppression& suppression);

/// "... and 5 more header-field-type findings in header.json, not shown (...)".
std::string DroppedLine(const DroppedFindings& dropped);

/// A statistic as the reports print it: "%.6g".
std::string FormatNumber(double value);
/// A relative L2 as the reports print it: FormatNumber, or "inf (A is zero)" (||a|| = 0: any
/// change is infinitely large relative to A).
std::string FormatRelL2(const std::optional<double>& rel_l2);
/// The same for a roll-up whose change has L2 `l2`: nothing moved against a zero A reads "-".
std::string FormatRelL2(const std::optional<double>& rel_l2, double l2);

/// `text` padded with spaces to `width` columns, one per code point; never cut.
std::string PadToColumns(std::string text, std::size_t width);

/// "fail-on error", or for --fail-on none a note that the run was not gating.
std::string ThresholdText(FailThreshold threshold);

/// "dir/header.json:12:5" or "dir/weights.safetensors@1234" or "dir/file"; the location's own
/// artifact, when it names one, over `artifact_path`.
std::string FormatLocation(const std::string& artifact_path, const Location& location);

void WriteTextReport(std::ostream& out, std::span<const AuditResult> results, const ReportContext& context);

}  // namespace ckpt::reports
