// SARIF 2.1.0 for code-scanning platforms (GitHub code scanning, SARIF Multitool). One
// writer for all three tools: each tool's model is flattened into SarifInput by the
// adapters below, from the same findings the text and JSON reports show.
#pragma once

#include <boost/json/object.hpp>
#include <filesystem>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "engine/audit.h"
#include "engine/chain_run.h"
#include "engine/diff_run.h"
#include "lib/digest/file_digests.h"
#include "reports/report_context.h"

namespace ckpt::reports {

/// GitHub code scanning accepts at most this many results per run; the rest are dropped
/// with a notification saying how many.
inline constexpr std::size_t kMaxSarifResults = 25000;

struct SarifFinding {
  const Finding* finding = nullptr;
  std::string artifact;              ///< artifact root the finding's file is relative to
  std::optional<Location> baseline;  ///< ckpt-diff: the same place in A (relatedLocations)
  std::string baseline_artifact;
  /// What a location without a file names: "header.json" of a Lensemble directory, or the
  /// input itself ("") when the input is a file (a tar, a safetensors file).
  std::string whole_file = "header.json";
};

struct SarifInput {
  std::vector<SarifFinding> findings;
  std::vector<FileDigest> files;           ///< every file read
  std::vector<std::string> tool_errors;    ///< toolExecutionNotifications, not results
  std::vector<std::string> dropped_notes;  ///< findings counted but not kept: warning notifications
  int exit_code = 0;
  std::string fallback_artifact;  ///< where run-level findings point (first input)
  /// Each input and its kind (inputs.md section 1): run properties `inputs`.
  std::vector<std::pair<std::string, std::string>> inputs;
  boost::json::object properties;  ///< more run properties (ckpt-diff: its summary)
  /// Results in the order of `findings` (already deterministic: ckpt-chain's root cause
  /// first); otherwise sorted by location.
  bool keep_order = false;
  /// tool.driver.rules lists every rule of the catalog (--list-rules); otherwise only the
  /// rules the results name, so a report of a few findings is not half a megabyte of catalog.
  bool whole_catalog = false;
};

struct SarifOptions {
  std::optional<std::string> category;  ///< --sarif-category: automationDetails.id = <tool>/<NAME>/
  std::filesystem::path source_root;    ///< %SRCROOT% (absolute); URIs are relative to it
};

SarifInput SarifFromAudit(std::span<const AuditResult> results, FailThreshold threshold);
SarifInput SarifFromChain(const ChainRun& run, FailThreshold threshold);
SarifInput SarifFromDiff(const DiffRun& run, FailThreshold threshold);

/// Percent-encoded, '/'-separated URI of `path` relative to `root` (RFC 3986 unreserved
/// characters and '/' kept; everything else, UTF-8 bytes included, as %XX).
std::string RelativeUri(const std::filesystem::path& path, const std::filesystem::path& root);
/// `text` percent-encoded the same way ('/' kept).
std::string EncodeUriPath(std::string_view text);

void WriteSarif(std::ostream& out, const SarifInput& input, const SarifOptions& options, const ReportContext& context);

}  // namespace ckpt::reports
