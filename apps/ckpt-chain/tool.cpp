// ckpt-chain: audits a set of artifacts as a parent_hash history. Parses options, runs the
// library, writes one report. Exit codes: 0 the chain holds, 1 findings at or above
// --fail-on, 2 tool error.
#include <algorithm>
#include <iostream>
#include <optional>
#include <sstream>
#include <thread>
#include <variant>
#include <vector>

#include "apps/common/cli.h"
#include "apps/common/graphviz.h"
#include "apps/common/tool_mains.h"
#include "apps/common/writer_table.h"
#include "engine/attestation.h"
#include "engine/chain_run.h"
#include "lib/core/text.h"
#include "lib/gate/gate.h"
#include "reports/chain_reports.h"
#include "reports/ci_reports.h"
#include "reports/cyclonedx_report.h"
#include "reports/html_report.h"
#include "reports/sarif_report.h"

namespace po = boost::program_options;

namespace {

// The HTML report draws histories up to this size; longer ones get the table alone.
constexpr std::size_t kMostRoundsDrawn = 1000;

constexpr const char* kUsage = R"(Usage: ckpt-chain [options] PATH...
       ckpt-chain --trusted-key PUB [options] ENVELOPE|FOLDER...

Checks Lensemble rounds as one parent_hash history after auditing each. The rounds are
the artifacts under each PATH (an artifact directory, or a folder searched recursively
for directories holding header.json). The history holds when every artifact passes
ckpt-audit's rules, every link holds against the recomputed content hash of the parent,
rounds follow each other, wmcp_version stays, and there is exactly one genesis and no
fork, gap or cycle.

With --trusted-key, the history is proved from signed audit statements instead of the
bytes: each ENVELOPE (recognised by content; folders are searched for *.dsse.json) is
verified against PUB, and a verified statement with verdict pass stands for its round
with its recomputed content hash. Nothing else is read.

Exit status:
  0  the history holds: no finding at or above --fail-on
  1  findings at or above --fail-on (in an artifact or in the chain)
  2  the tool could not do its job: bad usage, a path that does not exist or cannot be
     read, no artifact found, or an internal error

Examples:
  ckpt-chain rounds/                            every round under rounds/, linked by parent_hash
  ckpt-chain --trusted-key signer.pub statements/   a history proved from signed statements

Options)";

// The options of ckpt-chain beyond CommonCli's.
struct ChainCli {
  std::string head;
  std::string genesis;
  std::string trusted_key;
  std::string trusted_parent;
  std::string inputs_from;
  unsigned jobs = std::max(1u, std::thread::hardware_concurrency());
};

void DeclareOptions(ckpt::cli::CommonCli& cli, ChainCli& o) {
  cli.options().add_options()("jobs,j", po::value(&o.jobs)->value_name("N"),
                              "artifacts audited in parallel (default: number of cores)")(
      "no-hash", "link on declared hashes only (reported as a warning: nothing is recomputed)")(
      "head", po::value(&o.head)->value_name("HEX"),
      "verify the lineage of this artifact back to genesis (content hash or a unique prefix of 8+ digits)")(
      "genesis", po::value(&o.genesis)->value_name("HEX"),
      "the genesis content hash must equal HEX (INV-WARMSTART-T0)")(
      "trusted-key", po::value(&o.trusted_key)->value_name("PUB"),
      "prove the history from signed statements (DSSE envelopes) verified with this Ed25519 public key (PEM)")(
      "trusted-parent", po::value(&o.trusted_parent)->value_name("HEX|ENVELOPE"),
      "verify only new rounds on top of an already-proven one: its content hash, or its signed statement "
      "(verified with --trusted-key, which also gives its round and wmcp_version)");
  cli.options().add_options()("inputs-from", po::value(&o.inputs_from)->value_name("FILE"),
                              "also take the rounds listed in FILE, one per line, blank lines and # comments skipped "
                              "(- reads standard input; lines "
                              "may be remote: https://.../ROUND/, a tar URL, hf://ORG/NAME@REV/ROUND)");
  cli.options().add_options()(
      "quiet,q", "text report: the story line, what failed (root cause first, each in its round) and the summary");
}

// --trusted-parent: a content hash, or a signed statement verified with --trusted-key.
std::optional<int> ApplyTrustedParent(const ckpt::cli::CommonCli& cli, const ChainCli& o,
                                      ckpt::ChainRunOptions& run_options) {
  std::string hex = o.trusted_parent;
  if (ckpt::NormalizeHex(hex, 64, 64)) {
    run_options.chain.trusted_parent = hex;
  } else {
    if (!run_options.trusted_key) {
      return cli.UsageError("--trusted-parent needs 64 hexadecimal digits, or a signed statement with --trusted-key");
    }
    const ckpt::ChainNode parent = ckpt::NodeFromEnvelope(o.trusted_parent, *run_options.trusted_key);
    if (!parent.link_hash) {
      std::string why = parent.tool_errors.empty() ? std::string() : ": " + parent.tool_errors.front();
      for (const ckpt::Finding& f : parent.audit_findings) {
        if (why.empty()) why = ": " + f.message + " [" + std::string(f.rule->id) + "]";
      }
      return cli.UsageError("--trusted-parent '" + o.trusted_parent +
                            "' is not a verified statement of a round that passed" + why);
    }
    run_options.chain.trusted_parent = parent.link_hash;
    run_options.chain.trusted_parent_round = parent.round_index;
    run_options.chain.trusted_parent_wmcp = parent.wmcp_version;
  }
  if (run_options.chain.genesis) return cli.UsageError("--genesis pins round 0; with --trusted-parent there is none");
  return std::nullopt;
}

// The run the options ask for, or the exit code of a usage error.
std::variant<ckpt::ChainRunOptions, int> ChainOptionsOf(ckpt::cli::CommonCli& cli, ChainCli& o,
                                                        std::vector<std::string>& paths) {
  if (o.jobs == 0 || o.jobs > 1024) return cli.UsageError("--jobs must be between 1 and 1024");
  if (cli.Has("inputs-from")) {
    if (auto stop = cli.AppendInputList(o.inputs_from, paths)) return *stop;
  }
  if (paths.empty()) return cli.UsageError("nothing to audit: give at least one PATH");
  ckpt::ChainRunOptions run_options;
  run_options.jobs = o.jobs;
  run_options.policy.compute_hash = !cli.Has("no-hash");
  run_options.chain.hashes_recomputed = run_options.policy.compute_hash;
  if (cli.Has("head")) {
    if (!ckpt::NormalizeHex(o.head, 8, 64)) return cli.UsageError("--head needs 8 to 64 hexadecimal digits");
    run_options.chain.head = o.head;
  }
  if (cli.Has("genesis")) {
    if (!ckpt::NormalizeHex(o.genesis, 64, 64)) return cli.UsageError("--genesis needs 64 hexadecimal digits");
    run_options.chain.genesis = o.genesis;
  }
  if (auto stop = cli.ApplyAllowGroups(run_options.policy)) return *stop;
  if (auto stop = cli.ApplyRemoteOptions(run_options.policy, paths)) return *stop;
  if (cli.Has("trusted-key")) {
    auto key = ckpt::attest::LoadPublicKey(o.trusted_key);
    if (auto* error = std::get_if<ckpt::attest::KeyError>(&key)) {
      return cli.UsageError("--trusted-key '" + o.trusted_key + "': " + error->message);
    }
    run_options.trusted_key = std::get<ckpt::attest::PublicKey>(key);
  }
  if (cli.Has("trusted-parent")) {
    if (auto stop = ApplyTrustedParent(cli, o, run_options)) return *stop;
  }
  if (const ckpt::ResolvedGate* gate = cli.gate()) {
    run_options.chain.allow_wmcp_change = gate->policy.allow_wmcp_change.value_or(false);
  }
  return run_options;
}

// The writer table: each --format / --report format (in --help's order) and what writes it.
using WriterEntry = ckpt::cli::WriterEntry<ckpt::ChainRun>;

// The picture when Graphviz is installed and the history small enough to draw.
void WriteHtml(std::ostream& out, const ckpt::ChainRun& run, const ckpt::cli::CommonCli& /*cli*/,
               const ckpt::reports::ReportContext& context) {
  std::optional<std::string> svg;
  if (!run.history.empty() && run.history.size() <= kMostRoundsDrawn) {
    std::ostringstream dot;
    ckpt::reports::WriteChainDot(dot, run, context);
    if (auto rendered = ckpt::cli::RenderSvg(dot.str())) svg = ckpt::reports::InlineSvg(*rendered);
  }
  ckpt::reports::WriteChainHtml(out, run, context, svg);
}

const std::vector<WriterEntry>& Writers() {
  static const std::vector<WriterEntry> writers = {
      {"text", [](auto& out, const auto& run, const auto&,
                  const auto& context) { ckpt::reports::WriteChainText(out, run, context); }},
      {"json", [](auto& out, const auto& run, const auto&,
                  const auto& context) { ckpt::reports::WriteChainJson(out, run, context); }},
      {"sarif",
       [](auto& out, const auto& run, const auto& cli, const auto& context) {
         ckpt::reports::WriteSarif(out, ckpt::reports::SarifFromChain(run, context.threshold), cli.sarif(), context);
       }},
      {"junit", [](auto& out, const auto& run, const auto&,
                   const auto& context) { ckpt::reports::WriteChainJunit(out, run, context); }},
      {"gitlab", [](auto& out, const auto& run, const auto&,
                    const auto& context) { ckpt::reports::WriteChainGitlab(out, run, context); }},
      {"html", &WriteHtml},
      {"dot", [](auto& out, const auto& run, const auto&,
                 const auto& context) { ckpt::reports::WriteChainDot(out, run, context); }},
      {"mermaid", [](auto& out, const auto& run, const auto&,
                     const auto& context) { ckpt::reports::WriteChainMermaid(out, run, context); }},
      {"cyclonedx",
       [](auto& out, const auto& run, const auto& cli, const auto& context) {
         ckpt::reports::CycloneDxOptions options;
         options.source_root = cli.sarif().source_root.string();
         options.source_date_epoch = ckpt::reports::SourceDateEpochFromEnvironment();
         ckpt::reports::WriteChainCycloneDx(out, run, context, options);
       }},
  };
  return writers;
}

// Records the accepted findings of every round and of the chain when --write-baseline asks.
std::optional<int> WriteBaseline(const ckpt::cli::CommonCli& cli, ckpt::ChainRun& run) {
  std::vector<std::pair<ckpt::Finding*, std::string>> accepted;
  for (ckpt::ChainNode& node : run.graph.nodes) {
    for (ckpt::Finding& f : node.audit_findings) accepted.emplace_back(&f, ckpt::ReportedPath(node.path, f.location));
  }
  for (ckpt::ChainFinding& f : run.findings)
    accepted.emplace_back(&f.finding, ckpt::ReportedPath("", f.finding.location));
  return cli.WriteBaseline(accepted);
}

// Writes every report of the run, says what could not be read, and returns the exit code.
int ReportAndExit(const ckpt::cli::CommonCli& cli, const ckpt::ChainRunOptions& run_options,
                  const ckpt::ChainRun& run) {
  ckpt::reports::ReportContext context = cli.Context();
  context.quiet = cli.Has("quiet");
  auto write_failed = ckpt::cli::WriteReports<ckpt::ChainRun>(cli, context, Writers(), run);
  if (write_failed) return *write_failed;
  for (const std::string& e : run.discovery_errors) std::cerr << "ckpt-chain: " << e << "\n";
  if (run.graph.nodes.empty() && run.discovery_errors.empty()) {
    std::cerr << (run_options.trusted_key
                      ? "ckpt-chain: no signed statement (*.dsse.json) or artifact found under the given paths\n"
                      : "ckpt-chain: no artifact (a directory holding header.json) found under the given paths\n");
  }
  for (const ckpt::ChainNode& node : run.graph.nodes) {
    for (const std::string& e : node.tool_errors) std::cerr << "ckpt-chain: " << e << "\n";
  }
  return ckpt::ChainExitCode(run, context.threshold);
}

}  // namespace

int ckpt::apps::ChainMain(int argc, char** argv) try {
  ckpt::cli::CommonCli cli("ckpt-chain", ckpt::cli::WriterNames<ckpt::ChainRun>(Writers()), kUsage);
  // A report beside the rounds (a repository's root) is never one of them: the search takes
  // folders holding header.json and *.dsse.json statements, names a report cannot have.
  cli.AllowReportsInsideInputs();
  ChainCli o;
  DeclareOptions(cli, o);
  std::vector<std::string> paths;
  if (auto stop = cli.Parse(argc, argv, paths)) return *stop;
  auto options = ChainOptionsOf(cli, o, paths);
  if (const int* stop = std::get_if<int>(&options)) return *stop;
  const auto& run_options = std::get<ckpt::ChainRunOptions>(options);

  ckpt::ChainRun run = ckpt::RunChain(paths, run_options);
  for (ckpt::Finding& f : cli.ExpiredEntryFindings()) run.findings.push_back({std::move(f), std::nullopt});
  if (auto failed = WriteBaseline(cli, run)) return *failed;
  return ReportAndExit(cli, run_options, run);
} catch (const std::exception& e) {
  std::cerr << "ckpt-chain: internal error: " << e.what() << "\n";
  return ckpt::kExitToolError;
}
