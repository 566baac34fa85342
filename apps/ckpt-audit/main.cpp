// ckpt-audit: audits Lensemble checkpoint artifacts. Parses options, runs the library,
// writes one report. Exit codes: 0 clean, 1 findings at or above --fail-on, 2 tool error.
#include <filesystem>
#include <iostream>
#include <optional>

#include "apps/common/cli.h"
#include "engine/audit.h"
#include "lib/artifact/input.h"
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
  std::vector<std::string> expect_hashes;
  cli.options().add_options()(
      "expect-hash", po::value(&expect_hashes)->value_name("[PATH=]HEX"),
      "the recomputed content hash must equal HEX (64 hex digits); with several artifacts, name each as "
      "PATH=HEX (repeatable)")("no-hash",
                               "check structure only; do not recompute the content hash (reported as a warning)");
  std::vector<std::string> artifacts;
  if (auto stop = cli.Parse(argc, argv, artifacts)) return *stop;
  if (artifacts.empty()) return cli.UsageError("nothing to audit: give at least one ARTIFACT directory");
  {  // a hub root, a models--ORG--NAME folder or a folder of rounds stands for several audits
    std::vector<std::string> expanded;
    for (const std::string& path : artifacts) {
      for (std::string& one : ckpt::ExpandInputPath(path)) expanded.push_back(std::move(one));
    }
    artifacts = std::move(expanded);
  }

  ckpt::Policy policy;
  policy.compute_hash = !cli.Has("no-hash");
  // --expect-hash pins one artifact's hash: bare HEX only when there is one artifact.
  std::vector<std::optional<std::string>> pinned(artifacts.size());
  for (const std::string& value : expect_hashes) {
    if (!policy.compute_hash)
      return cli.UsageError("--expect-hash needs the hash, so it cannot be combined with --no-hash");
    const std::size_t eq = value.rfind('=');
    std::string hex = eq == std::string::npos ? value : value.substr(eq + 1);
    if (!ckpt::NormalizeHex(hex, 64, 64)) return cli.UsageError("--expect-hash needs 64 hexadecimal digits");
    if (eq == std::string::npos) {
      if (artifacts.size() != 1) {
        return cli.UsageError("with several artifacts, say which one --expect-hash pins: --expect-hash PATH=HEX");
      }
      pinned[0] = hex;
      continue;
    }
    const std::string path = value.substr(0, eq);
    bool found = false;
    for (std::size_t i = 0; i < artifacts.size(); ++i) {
      std::error_code ec;
      if (artifacts[i] == path || (std::filesystem::equivalent(artifacts[i], path, ec) && !ec)) {
        pinned[i] = hex;
        found = true;
      }
    }
    if (!found) return cli.UsageError("--expect-hash names '" + path + "', which is not one of the artifacts");
  }
  if (auto stop = cli.ApplyAllowGroups(policy)) return *stop;

  std::vector<ckpt::AuditResult> results;
  results.reserve(artifacts.size());
  for (std::size_t i = 0; i < artifacts.size(); ++i) {
    ckpt::Policy own = policy;
    own.expected_hash = pinned[i];
    results.push_back(ckpt::AuditPath(artifacts[i], own));
  }

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
