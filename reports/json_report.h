// The JSON report: a documented, versioned schema (reports/ckpt-audit-report.schema.json).
#pragma once

#include <boost/json/value.hpp>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "engine/audit.h"
#include "reports/json_pretty.h"
#include "reports/report_context.h"

namespace ckpt::reports {

/// Version of the report schema; bump on any incompatible change.
inline constexpr int kJsonReportSchemaVersion = 2;

boost::json::value FindingToJson(const Finding& finding);
/// The baseline entry that suppresses a finding: reason, expires, its 1-based entry and path glob.
boost::json::object SuppressionToJson(const Suppression& s);
/// [{rule, file, count}]: findings counted but not kept (per rule and file cap, --max-findings).
boost::json::array DroppedToJson(const std::vector<DroppedFindings>& dropped);
/// An artifact's `model_signature` (--verify-model-signature): what the check established.
boost::json::object ModelSignatureToJson(const oms::ModelSignatureFacts& facts);
/// "verified by key HINT (PREDICATE), N files, root sha256:ROOT", or "not verified": the text
/// and HTML reports' line.
std::string ModelSignatureLine(const oms::ModelSignatureFacts& facts);
/// An input's `verification` (--verify-attestation / --verify-derivation): each check and its outcome.
boost::json::object VerificationToJson(const VerificationFacts& facts);
/// The checks a verification performed, one line each ("signature: verified with the trusted
/// key ..."): the text and HTML reports' block. Everything from the input escaped.
std::vector<std::string> VerificationLines(const VerificationFacts& facts);
/// The JSON report; with `streamed`, each artifact's tensor list is a placeholder of it (see
/// StreamedArrays), for WritePrettyJson to write as it is made.
boost::json::value AuditReportToJson(std::span<const AuditResult> results, const ReportContext& context,
                                     StreamedArrays* streamed = nullptr);
void WriteJsonReport(std::ostream& out, std::span<const AuditResult> results, const ReportContext& context);

}  // namespace ckpt::reports
