// CycloneDX 1.6 JSON (sbom.md): the audited inputs as machine-learning-model components, each
// with the value --expect-hash pins, its files by SHA-256, its Lensemble parent (or, from
// ckpt-chain, the whole history) as pedigree,
// the verdict and counts as ckpt-audit: properties, and each security finding as a
// vulnerability (accepted ones not_affected, with the acceptance's reason).
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "engine/chain_run.h"
#include "lib/model/audit_result.h"
#include "reports/report_context.h"

namespace ckpt::reports {

struct CycloneDxOptions {
  /// The folder bom-refs are relative to (--source-root; empty: the current directory).
  std::string source_root;
  /// SOURCE_DATE_EPOCH when set: the timestamp, and the serial number derived from the BOM.
  std::optional<std::int64_t> source_date_epoch;
};

/// SOURCE_DATE_EPOCH from the environment, when it is a whole number of seconds from
/// 1970-01-01T00:00:00Z to 9999-12-31T23:59:59Z (what a CycloneDX date-time can say).
std::optional<std::int64_t> SourceDateEpochFromEnvironment();

/// Why SOURCE_DATE_EPOCH, set and not empty, cannot date a BOM (the reproducible-builds
/// convention: a malformed value is an error, never silently the current time); nullopt when
/// it is unset, empty or valid.
std::optional<std::string> SourceDateEpochProblem();

void WriteCycloneDx(std::ostream& out, const std::vector<AuditResult>& results, const ReportContext& context,
                    const CycloneDxOptions& options);

/// ckpt-chain's BOM: the newest round of the history the component, every round before it
/// (in history order, each with its content hash, files and verdict) its pedigree's ancestors,
/// the chain's verdict in the metadata's properties.
void WriteChainCycloneDx(std::ostream& out, const ChainRun& run, const ReportContext& context,
                         const CycloneDxOptions& options);

}  // namespace ckpt::reports
