// ckpt-diff: compares two rounds tensor by tensor. Parses options, runs the library,
// writes one report. Exit codes: 0 clean, 1 findings at or above --fail-on (in either
// artifact's audit or a gate), 2 tool error.
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

#include <boost/program_options.hpp>

#include "reports/sarif_report.h"

#include "lib/diff/diff.h"
#include "reports/diff_reports.h"

namespace po = boost::program_options;

namespace {

constexpr const char* kUsage = R"(Usage: ckpt-diff [options] A B

Audits artifacts A and B (every ckpt-audit rule), then compares them: header fields,
the parent link (is B's parent_hash A's recomputed content hash, is B's round A's + 1),
and every tensor of the union of both manifests, with one status: unchanged, changed
(with exact statistics: numel, changed, max_abs, l2, rel_l2, NaN/Inf appearing),
layout_changed, added, removed (or unreadable when one side's bytes cannot be read).

Exit status:
  0  no finding at or above --fail-on
  1  findings at or above --fail-on: in A's or B's audit, or from a gate below
  2  the tool could not do its job: bad usage, A or B missing or unreadable, A and B
     the same directory, or an internal error

Options)";

int UsageError(const std::string& message) {
  std::cerr << "ckpt-diff: " << message << "\nTry 'ckpt-diff --help'.\n";
  return ckpt::kExitToolError;
}

}  // namespace

int main(int argc, char** argv) try {
  std::string format = "text";
  std::string output;
  std::string fail_on = "error";
  std::string sarif_category;
  std::string source_root;
  double max_rel_l2 = 0;
  unsigned jobs = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::string> allow_change;
  std::vector<std::string> allow_groups;
  std::vector<std::string> paths;
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
      ("fail-on", po::value(&fail_on)->value_name("LEVEL"), "error|warning|note|none (default error)")
      ("allow-change", po::value(&allow_change)->value_name("GLOB"),
       "gate: only tensors matching a glob may change, appear or vanish (repeatable; '*' also matches '.')")
      ("max-rel-l2", po::value(&max_rel_l2)->value_name("X"),
       "gate: a changed tensor's rel_l2 must not exceed X; NaN/Inf appearing always exceeds")
      ("require-child", "gate: B must be the child of A")
      ("jobs,j", po::value(&jobs)->value_name("N"), "threads for hashing and comparing (default: number of cores)")
      ("no-hash", "do not recompute content hashes (the link uses A's declared hash)")
      ("allow-group", po::value(&allow_groups)->value_name("NAME"),
       "also accept this param group as shared in both audits (repeatable; reported as a note)");
  po::options_description hidden;
  hidden.add_options()("artifact", po::value(&paths));
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
    std::cout << "ckpt-diff " << CKPT_VERSION << "\n";
    return ckpt::kExitClean;
  }
  if (format != "text" && format != "json" && format != "sarif") {
    return UsageError("--format must be text, json or sarif, not '" + format + "'");
  }
  ckpt::FailThreshold threshold;
  if (!ckpt::ParseFailThreshold(fail_on, threshold)) {
    return UsageError("--fail-on must be error, warning, note or none, not '" + fail_on + "'");
  }
  if (paths.size() != 2) return UsageError("give exactly two artifacts, A and B");
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

  if (jobs == 0 || jobs > 1024) return UsageError("--jobs must be between 1 and 1024");
  if (vm.count("max-rel-l2") && !(std::isfinite(max_rel_l2) && max_rel_l2 >= 0)) {
    return UsageError("--max-rel-l2 must be a finite number >= 0");
  }
  std::error_code ec_a, ec_b;
  if (std::filesystem::equivalent(paths[0], paths[1], ec_a) && !ec_a) {
    return UsageError("A and B are the same directory ('" + paths[0] + "'); nothing to compare");
  }
  (void)ec_b;

  ckpt::DiffOptions diff;
  diff.jobs = jobs;
  diff.policy.compute_hash = vm.count("no-hash") == 0;
  diff.allow_change = allow_change;
  if (vm.count("max-rel-l2")) diff.max_rel_l2 = max_rel_l2;
  diff.require_child = vm.count("require-child") > 0;
  for (const std::string& group : allow_groups) {
    if (group.empty()) return UsageError("--allow-group needs a non-empty group name");
    if (!diff.policy.IsAllowedGroup(group)) diff.policy.extra_allowed_groups.push_back(group);
  }

  const ckpt::DiffRun run = ckpt::RunDiff(paths[0], paths[1], diff);

  ckpt::reports::ReportContext context;
  context.tool_name = "ckpt-diff";
  context.threshold = threshold;
  std::ofstream file;
  if (!output.empty()) {
    file.open(output, std::ios::binary | std::ios::trunc);
    if (!file) return UsageError("cannot write the report to '" + output + "'");
  }
  std::ostream& out = output.empty() ? std::cout : file;
  if (format == "json") {
    ckpt::reports::WriteDiffJson(out, run, context);
  } else if (format == "sarif") {
    ckpt::reports::WriteSarif(out, ckpt::reports::SarifFromDiff(run, threshold), sarif, context);
  } else {
    ckpt::reports::WriteDiffText(out, run, context);
  }
  out.flush();
  if (!out) {
    std::cerr << "ckpt-diff: writing the report failed\n";
    return ckpt::kExitToolError;
  }
  for (const auto* r : {&run.a, &run.b}) {
    for (const std::string& e : r->tool_errors) std::cerr << "ckpt-diff: " << e << "\n";
  }
  return ckpt::DiffExitCode(run, threshold);
} catch (const std::exception& e) {
  std::cerr << "ckpt-diff: internal error: " << e.what() << "\n";
  return ckpt::kExitToolError;
}
