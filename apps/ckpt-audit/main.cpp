// ckpt-audit: audits Lensemble checkpoint artifacts. Parses options, runs the library,
// writes one report. Exit codes: 0 clean, 1 findings at or above --fail-on, 2 tool error.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <boost/program_options.hpp>

#include "reports/sarif_report.h"

#include "lib/audit/audit.h"
#include "lib/audit/verdict.h"
#include "lib/core/text.h"
#include "reports/json_report.h"
#include "reports/rule_catalog_report.h"
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

int UsageError(const std::string& message) {
  std::cerr << "ckpt-audit: " << message << "\nTry 'ckpt-audit --help'.\n";
  return ckpt::kExitToolError;
}

bool IsHex64(std::string& text) {
  for (char& c : text) {
    if (c >= 'A' && c <= 'F') c = static_cast<char>(c - 'A' + 'a');
  }
  return ckpt::IsLowerHex64(text);
}

}  // namespace

int main(int argc, char** argv) try {
  std::string format = "text";
  std::string output;
  std::string expect_hash;
  std::string fail_on = "error";
  std::string sarif_category;
  std::string source_root;
  std::vector<std::string> allow_groups;
  std::vector<std::string> artifacts;
  po::options_description options(kUsage);
  options.add_options()
      ("help,h", "show this help and exit")
      ("version", "show the version and exit")
      ("format", po::value(&format)->value_name("FORMAT"), "report format: text, json or sarif (default text)")
      ("output,o", po::value(&output)->value_name("FILE"), "write the report to FILE instead of standard output")
      ("sarif-category", po::value(&sarif_category)->value_name("NAME"),
       "SARIF: automationDetails.id = <tool>/NAME/ (separates uploads on code-scanning platforms)")
      ("source-root", po::value(&source_root)->value_name("DIR"),
       "SARIF: URIs are relative to DIR (default: the current directory)")
      ("expect-hash", po::value(&expect_hash)->value_name("HEX"),
       "the recomputed content hash must equal HEX (64 hex digits)")
      ("fail-on", po::value(&fail_on)->value_name("LEVEL"),
       "error|warning|note|none: lowest severity that fails (default error)")
      ("no-hash", "check structure only; do not recompute the content hash")
      ("allow-group", po::value(&allow_groups)->value_name("NAME"),
       "also accept this param group as shared (repeatable; reported as a note)")
      ("list-rules", "print the rule catalog (text or json) and exit");
  po::options_description hidden;
  hidden.add_options()("artifact", po::value(&artifacts));
  po::options_description all;
  all.add(options).add(hidden);
  po::positional_options_description positional;
  positional.add("artifact", -1);

  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc, argv).options(all).positional(positional).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    return UsageError(e.what());
  }
  if (vm.count("help")) {
    std::cout << options << "\n";
    return ckpt::kExitClean;
  }
  if (vm.count("version")) {
    std::cout << "ckpt-audit " << CKPT_VERSION << "\n";
    return ckpt::kExitClean;
  }
  if (format != "text" && format != "json" && format != "sarif") {
    return UsageError("--format must be text, json or sarif, not '" + format + "'");
  }
  if (vm.count("list-rules")) {
    format == "json" ? ckpt::reports::WriteRuleCatalogJson(std::cout) : ckpt::reports::WriteRuleCatalogText(std::cout);
    return ckpt::kExitClean;
  }
  ckpt::FailThreshold threshold;
  if (!ckpt::ParseFailThreshold(fail_on, threshold)) return UsageError("--fail-on must be error, warning, note or none, not '" + fail_on + "'");
  if (artifacts.empty()) return UsageError("nothing to audit: give at least one ARTIFACT directory");
  ckpt::reports::SarifOptions sarif;
  if (vm.count("sarif-category")) {
    if (sarif_category.empty() || sarif_category.find('/') != std::string::npos) {
      return UsageError("--sarif-category needs a non-empty NAME without '/'");
    }
    sarif.category = sarif_category;
  }
  {
    std::error_code ec;
    sarif.source_root = std::filesystem::absolute(source_root.empty() ? std::filesystem::current_path(ec) : std::filesystem::path(source_root), ec);
    if (ec || !std::filesystem::is_directory(sarif.source_root, ec)) return UsageError("--source-root must be a directory");
  }


  ckpt::Policy policy;
  policy.compute_hash = vm.count("no-hash") == 0;
  if (vm.count("expect-hash")) {
    if (!IsHex64(expect_hash)) return UsageError("--expect-hash needs 64 hexadecimal digits");
    if (!policy.compute_hash) return UsageError("--expect-hash needs the hash, so it cannot be combined with --no-hash");
    policy.expected_hash = expect_hash;
  }
  for (const std::string& group : allow_groups) {
    if (group.empty()) return UsageError("--allow-group needs a non-empty group name");
    if (!policy.IsAllowedGroup(group)) policy.extra_allowed_groups.push_back(group);
  }

  std::vector<ckpt::AuditResult> results;
  results.reserve(artifacts.size());
  for (const std::string& path : artifacts) results.push_back(ckpt::AuditPath(path, policy));

  ckpt::reports::ReportContext context;
  context.threshold = threshold;
  std::ofstream file;
  if (!output.empty()) {
    file.open(output, std::ios::binary | std::ios::trunc);
    if (!file) return UsageError("cannot write the report to '" + output + "'");
  }
  std::ostream& out = output.empty() ? std::cout : file;
  context.color = output.empty() && format == "text" && ::isatty(STDOUT_FILENO) && std::getenv("NO_COLOR") == nullptr;
  if (format == "json") {
    ckpt::reports::WriteJsonReport(out, results, context);
  } else if (format == "sarif") {
    ckpt::reports::WriteSarif(out, ckpt::reports::SarifFromAudit(results, threshold), sarif, context);
  } else {
    ckpt::reports::WriteTextReport(out, results, context);
  }
  out.flush();
  if (!out) {
    std::cerr << "ckpt-audit: writing the report failed\n";
    return ckpt::kExitToolError;
  }
  for (const auto& r : results) {
    for (const auto& e : r.tool_errors) std::cerr << "ckpt-audit: " << e << "\n";
  }
  return ckpt::ExitCodeOf(results, threshold);
} catch (const std::exception& e) {
  std::cerr << "ckpt-audit: internal error: " << e.what() << "\n";
  return ckpt::kExitToolError;
}
