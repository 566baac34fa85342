// ckpt-diff: compares two rounds tensor by tensor. Parses options, runs the library,
// writes one report. Exit codes: 0 clean, 1 findings at or above --fail-on (in either
// artifact's audit or a gate), 2 tool error.
#include <cmath>
#include <filesystem>
#include <iostream>
#include <thread>

#include "apps/common/cli.h"
#include "engine/diff_run.h"
#include "lib/findings/gate.h"
#include "reports/ci_reports.h"
#include "reports/diff_reports.h"
#include "reports/sarif_report.h"

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

}  // namespace

int main(int argc, char** argv) try {
  ckpt::cli::CommonCli cli("ckpt-diff", {"text", "json", "sarif", "junit", "gitlab"}, kUsage);
  double max_rel_l2 = 0;
  unsigned jobs = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::string> allow_change;
  cli.options().add_options()(
      "allow-change", po::value(&allow_change)->value_name("GLOB"),
      "gate: only tensors matching a glob may change, appear or vanish (repeatable; '*' also matches '.')")(
      "max-rel-l2", po::value(&max_rel_l2)->value_name("X"),
      "gate: a changed tensor's rel_l2 must not exceed X; NaN/Inf appearing always exceeds")(
      "require-child", "gate: B must be the child of A")(
      "jobs,j", po::value(&jobs)->value_name("N"), "threads for hashing and comparing (default: number of cores)")(
      "no-hash", "do not recompute content hashes (the link uses A's declared hash)");
  std::vector<std::string> paths;
  if (auto stop = cli.Parse(argc, argv, paths)) return *stop;
  if (paths.size() != 2) return cli.UsageError("give exactly two artifacts, A and B");
  if (jobs == 0 || jobs > 1024) return cli.UsageError("--jobs must be between 1 and 1024");
  if (cli.Has("max-rel-l2") && !(std::isfinite(max_rel_l2) && max_rel_l2 >= 0)) {
    return cli.UsageError("--max-rel-l2 must be a finite number >= 0");
  }
  std::error_code ec;
  if (std::filesystem::equivalent(paths[0], paths[1], ec) && !ec) {
    return cli.UsageError("A and B are the same directory ('" + paths[0] + "'); nothing to compare");
  }

  ckpt::DiffOptions diff;
  diff.jobs = jobs;
  diff.policy.compute_hash = !cli.Has("no-hash");
  diff.allow_change = allow_change;
  if (cli.Has("max-rel-l2")) diff.max_rel_l2 = max_rel_l2;
  diff.require_child = cli.Has("require-child");
  if (auto stop = cli.ApplyAllowGroups(diff.policy)) return *stop;

  ckpt::DiffRun run = ckpt::RunDiff(paths[0], paths[1], diff);
  for (ckpt::Finding& f : cli.ExpiredEntryFindings()) run.findings.push_back(std::move(f));
  {
    std::vector<std::pair<const ckpt::Finding*, std::string>> accepted;
    for (const ckpt::AuditResult* r : {&run.a, &run.b}) {
      for (const ckpt::Finding& f : r->findings)
        accepted.emplace_back(&f, ckpt::ReportedPath(r->artifact.path, f.location));
    }
    for (const ckpt::Finding& f : run.findings) accepted.emplace_back(&f, ckpt::ReportedPath(paths[1], f.location));
    if (auto failed = cli.WriteBaseline(accepted)) return *failed;
  }

  const ckpt::reports::ReportContext context = cli.Context();
  auto write_failed = cli.WriteReport([&](std::ostream& out, const std::string& format) {
    ckpt::reports::ReportContext shown = context;
    shown.color = shown.color && &out == &std::cout;  // colour only on the terminal
    if (format == "json") {
      ckpt::reports::WriteDiffJson(out, run, shown);
    } else if (format == "junit") {
      ckpt::reports::WriteDiffJunit(out, run, shown);
    } else if (format == "gitlab") {
      ckpt::reports::WriteDiffGitlab(out, run, shown);
    } else if (format == "sarif") {
      ckpt::reports::WriteSarif(out, ckpt::reports::SarifFromDiff(run, shown.threshold), cli.sarif(), shown);
    } else {
      ckpt::reports::WriteDiffText(out, run, shown);
    }
  });
  if (write_failed) return *write_failed;
  for (const auto* r : {&run.a, &run.b}) {
    for (const std::string& e : r->tool_errors) std::cerr << "ckpt-diff: " << e << "\n";
  }
  return ckpt::DiffExitCode(run, context.threshold);
} catch (const std::exception& e) {
  std::cerr << "ckpt-diff: internal error: " << e.what() << "\n";
  return ckpt::kExitToolError;
}
