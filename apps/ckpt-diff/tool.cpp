// ckpt-diff: compares two rounds tensor by tensor. Parses options, runs the library,
// writes one report. Exit codes: 0 clean, 1 findings at or above --fail-on (in either
// artifact's audit or a gate), 2 tool error.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <optional>
#include <thread>
#include <variant>
#include <vector>

#include "apps/common/cli.h"
#include "apps/common/tool_mains.h"
#include "apps/common/writer_table.h"
#include "engine/diff_run.h"
#include "lib/core/text.h"
#include "lib/gate/gate.h"
#include "reports/ci_reports.h"
#include "reports/diff_reports.h"
#include "reports/html_report.h"
#include "reports/sarif_report.h"

namespace po = boost::program_options;

namespace {

constexpr const char* kUsage = R"(Usage: ckpt-diff [options] A B

Compares two checkpoints tensor by tensor after auditing both. A and B are any input
ckpt-audit reads (safetensors, pickle-based and GGUF files, model folders, Lensemble
rounds), judged by every ckpt-audit rule; then every tensor of the union of both gets
one status: unchanged, changed
(with exact statistics: numel, changed, max_abs, l2, rel_l2, NaN/Inf appearing),
layout_changed, added, removed (or unreadable when one side's bytes cannot be read).
For two Lensemble rounds, the header fields and the parent link too (is B's parent_hash A's
recomputed content hash, is B's round A's + 1). A summary comes first: the whole model's L2 and relative L2, counts by status, the same per
manifest group and per name prefix (--rollup), and the tensors that moved most (--top).

Exit status:
  0  no finding at or above --fail-on
  1  findings at or above --fail-on: in A's or B's audit, or from a gate below
  2  the tool could not do its job: bad usage, A or B missing or unreadable, A and B
     the same file or folder, or an internal error

Examples:
  ckpt-diff rounds/round-0041 rounds/round-0042
  ckpt-diff --max-rel-l2 0.05 --max-rel-l2 encoder=0 rounds/round-0041 rounds/round-0042

Options)";

// The options of ckpt-diff beyond CommonCli's.
struct DiffCli {
  std::vector<std::string> max_rel_l2;
  unsigned rollup = 2;
  std::size_t top = 10;
  unsigned jobs = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::string> allow_change;
};

void DeclareOptions(ckpt::cli::CommonCli& cli, DiffCli& o) {
  cli.options().add_options()("quiet,q",
                              "text report: the inputs, the findings and the summary line only (no tables of groups, "
                              "prefixes and tensors)")(
      "allow-change", po::value(&o.allow_change)->value_name("GLOB"),
      "gate: only tensors matching a glob may change, appear or vanish (repeatable; '*' also matches '.')")(
      "max-rel-l2", po::value(&o.max_rel_l2)->value_name("[PATTERN=]X"),
      "gate: a changed tensor's rel_l2 must not exceed X; with PATTERN, only for tensors of that group, "
      "dotted name prefix or name glob (repeatable; the most specific pattern wins; X = 0 freezes: any changed "
      "bit, added, removed or re-laid-out tensor fails). NaN/Inf appearing always exceeds")(
      "require-child", "gate: B must be the child of A")(
      "rollup", po::value(&o.rollup)->value_name("N"),
      "summary: roll tensors up by their first N name components, e.g. 3 for 'encoder.layers.3' (default 2; 0: "
      "no prefix roll-up)")(
      "top", po::value(&o.top)->value_name("K"),
      "summary: the K changed tensors that moved most (default 10); given, the tensor table lists only those "
      "and every added, removed, re-laid-out or unreadable tensor")(
      "changed-only", "the tensor table leaves out unchanged tensors (the summary still counts them)")(
      "jobs,j", po::value(&o.jobs)->value_name("N"), "threads for hashing and comparing (default: number of cores)")(
      "no-hash", "do not recompute content hashes (the link uses A's declared hash)");
}

// The comparison the options ask for, or the exit code of a usage error.
std::variant<ckpt::DiffOptions, int> DiffOptionsOf(ckpt::cli::CommonCli& cli, const DiffCli& o,
                                                   std::vector<std::string>& paths) {
  if (paths.size() != 2) return cli.UsageError("give exactly two artifacts, A and B");
  if (o.jobs == 0 || o.jobs > 1024) return cli.UsageError("--jobs must be between 1 and 1024");
  if (o.rollup > 64) return cli.UsageError("--rollup must be between 0 and 64");
  if (o.top > 1000000) return cli.UsageError("--top must be at most 1000000");
  std::vector<ckpt::RelL2Limit> command_line_limits;
  for (const std::string& text : o.max_rel_l2) {
    auto parsed = ckpt::ParseRelL2Limit(text);
    if (const auto* error = std::get_if<std::string>(&parsed)) {
      return cli.UsageError("--max-rel-l2 " + ckpt::QuoteForMessage(text) + ": " + *error);
    }
    command_line_limits = ckpt::MergeRelL2Limits(std::move(command_line_limits), {std::get<ckpt::RelL2Limit>(parsed)});
  }
  std::error_code ec;
  if (std::filesystem::equivalent(paths[0], paths[1], ec) && !ec) {
    const bool folder = std::filesystem::is_directory(paths[0], ec);
    return cli.UsageError("A and B are the same " + std::string(folder ? "folder" : "file") + " ('" + paths[0] +
                          "'); nothing to compare");
  }
  ckpt::DiffOptions diff;
  diff.jobs = o.jobs;
  diff.policy.file_jobs = std::max(1u, o.jobs / 2);  // each side's files, when they are read whole (SARIF)
  diff.policy.compute_hash = !cli.Has("no-hash");
  diff.policy.keep_all_weight_files = true;  // a model folder's tensors, whatever their files' format
  diff.allow_change = o.allow_change;
  diff.require_child = cli.Has("require-child");
  diff.rollup_depth = o.rollup;
  diff.top = o.top;
  diff.top_given = cli.Has("top");
  diff.changed_only = cli.Has("changed-only");
  if (auto stop = cli.ApplyAllowGroups(diff.policy)) return *stop;
  if (auto stop = cli.ApplyRemoteOptions(diff.policy, paths)) return *stop;
  // The policy file's limits, each replaced by a command-line limit of the same pattern.
  if (const ckpt::ResolvedGate* gate = cli.gate()) diff.max_rel_l2 = gate->policy.max_rel_l2;
  diff.max_rel_l2 = ckpt::MergeRelL2Limits(std::move(diff.max_rel_l2), command_line_limits);
  return diff;
}

// The writer table: each --format / --report format (in --help's order) and what writes it.
using WriterEntry = ckpt::cli::WriterEntry<ckpt::DiffRun>;
const std::vector<WriterEntry>& Writers() {
  static const std::vector<WriterEntry> writers = {
      {"text", [](auto& out, const auto& run, const auto&,
                  const auto& context) { ckpt::reports::WriteDiffText(out, run, context); }},
      {"json", [](auto& out, const auto& run, const auto&,
                  const auto& context) { ckpt::reports::WriteDiffJson(out, run, context); }},
      {"sarif",
       [](auto& out, const auto& run, const auto& cli, const auto& context) {
         ckpt::reports::WriteSarif(out, ckpt::reports::SarifFromDiff(run, context.threshold), cli.sarif(), context);
       }},
      {"junit", [](auto& out, const auto& run, const auto&,
                   const auto& context) { ckpt::reports::WriteDiffJunit(out, run, context); }},
      {"gitlab", [](auto& out, const auto& run, const auto&,
                    const auto& context) { ckpt::reports::WriteDiffGitlab(out, run, context); }},
      {"html", [](auto& out, const auto& run, const auto&,
                  const auto& context) { ckpt::reports::WriteDiffHtml(out, run, context); }},
  };
  return writers;
}

// Records the accepted findings of both audits and the comparison when --write-baseline asks.
std::optional<int> WriteBaseline(const ckpt::cli::CommonCli& cli, ckpt::DiffRun& run, const std::string& b_path) {
  std::vector<std::pair<ckpt::Finding*, std::string>> accepted;
  for (ckpt::AuditResult* r : {&run.a, &run.b}) {
    for (ckpt::Finding& f : r->findings) accepted.emplace_back(&f, ckpt::ReportedPath(r->artifact.path, f.location));
  }
  for (ckpt::Finding& f : run.findings) accepted.emplace_back(&f, ckpt::ReportedPath(b_path, f.location));
  return cli.WriteBaseline(accepted);
}

// Writes every report of the run, says each side's tool errors, and returns the exit code.
int ReportAndExit(const ckpt::cli::CommonCli& cli, const ckpt::DiffOptions& diff, const ckpt::DiffRun& run) {
  ckpt::reports::ReportContext context = cli.Context();
  context.quiet = cli.Has("quiet");
  if (context.policy) {  // the limits in force belong to the effective policy
    boost::json::object limits;
    for (const ckpt::RelL2Limit& l : diff.max_rel_l2) limits[ckpt::ToValidUtf8(l.pattern)] = l.limit;
    (*context.policy)["max_rel_l2"] = std::move(limits);
  }
  auto write_failed = ckpt::cli::WriteReports<ckpt::DiffRun>(cli, context, Writers(), run);
  if (write_failed) return *write_failed;
  for (const auto* r : {&run.a, &run.b}) {
    for (const std::string& e : r->tool_errors) std::cerr << "ckpt-diff: " << e << "\n";
  }
  return ckpt::DiffExitCode(run, context.threshold);
}

}  // namespace

int ckpt::apps::DiffMain(int argc, char** argv) try {
  ckpt::cli::CommonCli cli("ckpt-diff", ckpt::cli::WriterNames<ckpt::DiffRun>(Writers()), kUsage);
  cli.AllowReportsInsideInputs();
  DiffCli o;
  DeclareOptions(cli, o);
  std::vector<std::string> paths;
  if (auto stop = cli.Parse(argc, argv, paths)) return *stop;
  auto options = DiffOptionsOf(cli, o, paths);
  if (const int* stop = std::get_if<int>(&options)) return *stop;
  const auto& diff = std::get<ckpt::DiffOptions>(options);

  ckpt::DiffRun run = ckpt::RunDiff(paths[0], paths[1], diff);
  for (ckpt::Finding& f : cli.ExpiredEntryFindings()) run.findings.push_back(std::move(f));
  if (auto failed = WriteBaseline(cli, run, paths[1])) return *failed;
  return ReportAndExit(cli, diff, run);
} catch (const std::exception& e) {
  std::cerr << "ckpt-diff: internal error: " << e.what() << "\n";
  return ckpt::kExitToolError;
}
