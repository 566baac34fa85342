// ckpt-audit: audits Lensemble checkpoint artifacts. Parses options, runs the library,
// writes one report. Exit codes: 0 clean, 1 findings at or above --fail-on, 2 tool error.
#include <iostream>

#include "apps/common/cli.h"
#include "lib/audit/audit.h"
#include "lib/core/text.h"
#include "reports/json_report.h"
#include "reports/rule_catalog_report.h"
#include "reports/sarif_report.h"
#include "reports/text_report.h"

namespace po = boost::program_options;

namespace {

constexpr const char* kUsage = R"(Usage: ckpt-audit [options] ARTIFACT...

Audits each ARTIFACT directory (header.json plus safetensors weights) against the
Lensemble artifact format: schema version and migration, header fields, strict
safetensors structure, manifest and shard index cross-checks, path confinement,
action-head exclusion, pickle refusal and the recomputed content hash.

Exit status:
  0  no finding at or above --fail-on
  1  findings at or above --fail-on (an artifact that cannot be parsed is a finding)
  2  the tool could not do its job: bad usage, a path that does not exist or cannot
     be read, nothing to audit, or an internal error

Options)";

}  // namespace

int main(int argc, char** argv) try {
  ckpt::cli::CommonCli cli("ckpt-audit", {"text", "json", "sarif"}, kUsage);
  std::string expect_hash;
  cli.options().add_options()
      ("expect-hash", po::value(&expect_hash)->value_name("HEX"),
       "the recomputed content hash must equal HEX (64 hex digits)")
      ("no-hash", "check structure only; do not recompute the content hash (reported as a warning)");
  std::vector<std::string> artifacts;
  if (auto stop = cli.Parse(argc, argv, artifacts)) return *stop;
  if (artifacts.empty()) return cli.UsageError("nothing to audit: give at least one ARTIFACT directory");

  ckpt::Policy policy;
  policy.compute_hash = !cli.Has("no-hash");
  if (cli.Has("expect-hash")) {
    if (!ckpt::NormalizeHex(expect_hash, 64, 64)) return cli.UsageError("--expect-hash needs 64 hexadecimal digits");
    if (!policy.compute_hash) return cli.UsageError("--expect-hash needs the hash, so it cannot be combined with --no-hash");
    policy.expected_hash = expect_hash;
  }
  if (auto stop = cli.ApplyAllowGroups(policy)) return *stop;

  std::vector<ckpt::AuditResult> results;
  results.reserve(artifacts.size());
  for (const std::string& path : artifacts) results.push_back(ckpt::AuditPath(path, policy));

  const ckpt::reports::ReportContext context = cli.Context();
  auto write_failed = cli.WriteReport([&](std::ostream& out) {
    if (cli.format() == "json") {
      ckpt::reports::WriteJsonReport(out, results, context);
    } else if (cli.format() == "sarif") {
      ckpt::reports::WriteSarif(out, ckpt::reports::SarifFromAudit(results, context.threshold), cli.sarif(), context);
    } else {
      ckpt::reports::WriteTextReport(out, results, context);
    }
  });
  if (write_failed) return *write_failed;
  for (const auto& r : results) {
    for (const auto& e : r.tool_errors) std::cerr << "ckpt-audit: " << e << "\n";
  }
  return ckpt::ExitCodeOf(results, context.threshold);
} catch (const std::exception& e) {
  std::cerr << "ckpt-audit: internal error: " << e.what() << "\n";
  return ckpt::kExitToolError;
}
