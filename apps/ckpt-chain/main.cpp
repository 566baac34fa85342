// ckpt-chain: audits a set of artifacts as a parent_hash history. Parses options, runs the
// library, writes one report. Exit codes: 0 the chain holds, 1 findings at or above
// --fail-on, 2 tool error.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

#include <boost/program_options.hpp>

#include "reports/sarif_report.h"

#include "lib/chain/chain_run.h"
#include "lib/core/text.h"
#include "reports/chain_reports.h"

namespace po = boost::program_options;

namespace {

constexpr const char* kUsage = R"(Usage: ckpt-chain [options] PATH...

Audits the artifacts under each PATH (an artifact directory, or a folder searched
recursively for directories holding header.json) and checks them as one parent_hash
history: every artifact passes ckpt-audit's rules, every link holds against the
recomputed content hash of the parent, rounds follow each other, wmcp_version stays,
and there is exactly one genesis and no fork, gap or cycle.

Exit status:
  0  the history holds: no finding at or above --fail-on
  1  findings at or above --fail-on (in an artifact or in the chain)
  2  the tool could not do its job: bad usage, a path that does not exist or cannot be
     read, no artifact found, or an internal error

Options)";

int UsageError(const std::string& message) {
  std::cerr << "ckpt-chain: " << message << "\nTry 'ckpt-chain --help'.\n";
  return ckpt::kExitToolError;
}

// Lower-cases `text`; true when it is hex of a length between min and 64.
bool NormalizeHex(std::string& text, std::size_t min) {
  if (text.size() < min || text.size() > 64) return false;
  for (char& c : text) {
    if (c >= 'A' && c <= 'F') c = static_cast<char>(c - 'A' + 'a');
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) try {
  std::string format = "text";
  std::string output;
  std::string fail_on = "error";
  std::string sarif_category;
  std::string source_root;
  std::string head;
  std::string genesis;
  unsigned jobs = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::string> allow_groups;
  std::vector<std::string> paths;
  po::options_description options(kUsage);
  options.add_options()
      ("help,h", "show this help and exit")
      ("version", "show the version and exit")
      ("format", po::value(&format)->value_name("FORMAT"), "text|json|sarif|dot|mermaid (default text)")
      ("output,o", po::value(&output)->value_name("FILE"), "write the report to FILE instead of standard output")
      ("sarif-category", po::value(&sarif_category)->value_name("NAME"),
       "SARIF: automationDetails.id = <tool>/NAME/ (separates uploads on code-scanning platforms)")
      ("source-root", po::value(&source_root)->value_name("DIR"),
       "SARIF: URIs are relative to DIR (default: the current directory)")
      ("fail-on", po::value(&fail_on)->value_name("LEVEL"), "error|warning|note|none (default error)")
      ("jobs,j", po::value(&jobs)->value_name("N"), "artifacts audited in parallel (default: number of cores)")
      ("no-hash", "link on declared hashes only (reported as a warning: nothing is recomputed)")
      ("head", po::value(&head)->value_name("HEX"),
       "verify the lineage of this artifact back to genesis (content hash or a unique prefix of 8+ digits)")
      ("genesis", po::value(&genesis)->value_name("HEX"), "the genesis content hash must equal HEX (INV-WARMSTART-T0)")
      ("allow-group", po::value(&allow_groups)->value_name("NAME"),
       "also accept this param group as shared (repeatable; reported as a note)");
  po::options_description hidden;
  hidden.add_options()("path", po::value(&paths));
  po::options_description all;
  all.add(options).add(hidden);
  po::positional_options_description positional;
  positional.add("path", -1);
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
    std::cout << "ckpt-chain " << CKPT_VERSION << "\n";
    return ckpt::kExitClean;
  }
  if (format != "text" && format != "json" && format != "dot" && format != "mermaid" && format != "sarif") {
    return UsageError("--format must be text, json, sarif, dot or mermaid, not '" + format + "'");
  }
  ckpt::FailThreshold threshold;
  if (!ckpt::ParseFailThreshold(fail_on, threshold)) {
    return UsageError("--fail-on must be error, warning, note or none, not '" + fail_on + "'");
  }
  if (jobs == 0 || jobs > 1024) return UsageError("--jobs must be between 1 and 1024");
  if (paths.empty()) return UsageError("nothing to audit: give at least one PATH");
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


  ckpt::ChainRunOptions run_options;
  run_options.jobs = jobs;
  run_options.policy.compute_hash = vm.count("no-hash") == 0;
  run_options.chain.hashes_recomputed = run_options.policy.compute_hash;
  if (vm.count("head")) {
    if (!NormalizeHex(head, 8)) return UsageError("--head needs 8 to 64 hexadecimal digits");
    run_options.chain.head = head;
  }
  if (vm.count("genesis")) {
    if (!NormalizeHex(genesis, 64)) return UsageError("--genesis needs 64 hexadecimal digits");
    run_options.chain.genesis = genesis;
  }
  for (const std::string& group : allow_groups) {
    if (group.empty()) return UsageError("--allow-group needs a non-empty group name");
    if (!run_options.policy.IsAllowedGroup(group)) run_options.policy.extra_allowed_groups.push_back(group);
  }

  const ckpt::ChainRun run = ckpt::RunChain(paths, run_options);

  ckpt::reports::ReportContext context;
  context.tool_name = "ckpt-chain";
  context.threshold = threshold;
  std::ofstream file;
  if (!output.empty()) {
    file.open(output, std::ios::binary | std::ios::trunc);
    if (!file) return UsageError("cannot write the report to '" + output + "'");
  }
  std::ostream& out = output.empty() ? std::cout : file;
  if (format == "json") {
    ckpt::reports::WriteChainJson(out, run, context);
  } else if (format == "sarif") {
    ckpt::reports::WriteSarif(out, ckpt::reports::SarifFromChain(run, threshold), sarif, context);
  } else if (format == "dot") {
    ckpt::reports::WriteChainDot(out, run, context);
  } else if (format == "mermaid") {
    ckpt::reports::WriteChainMermaid(out, run, context);
  } else {
    ckpt::reports::WriteChainText(out, run, context);
  }
  out.flush();
  if (!out) {
    std::cerr << "ckpt-chain: writing the report failed\n";
    return ckpt::kExitToolError;
  }
  for (const std::string& e : run.discovery_errors) std::cerr << "ckpt-chain: " << e << "\n";
  if (run.graph.nodes.empty() && run.discovery_errors.empty()) {
    std::cerr << "ckpt-chain: no artifact (a directory holding header.json) found under the given paths\n";
  }
  for (const ckpt::ChainNode& node : run.graph.nodes) {
    for (const std::string& e : node.tool_errors) std::cerr << "ckpt-chain: " << e << "\n";
  }
  return ckpt::ChainExitCode(run, threshold);
} catch (const std::exception& e) {
  std::cerr << "ckpt-chain: internal error: " << e.what() << "\n";
  return ckpt::kExitToolError;
}
