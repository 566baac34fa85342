// ckpt-chain reports: a text table for people, JSON for scripts, and pictures (Graphviz
// DOT, Mermaid) with forks, gaps and failed artifacts marked. Writers never parse.
#pragma once

#include <boost/json/value.hpp>
#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "engine/chain_run.h"
#include "reports/report_context.h"

namespace ckpt::reports {

void WriteChainText(std::ostream& out, const ChainRun& run, const ReportContext& context);
boost::json::value ChainReportToJson(const ChainRun& run, const ReportContext& context);
void WriteChainJson(std::ostream& out, const ChainRun& run, const ReportContext& context);
/// "40 artifacts in the history (41 found): 38 passed, 2 failed; rounds 0-40 (1 missing); 3 findings".
std::string ChainSummaryLine(const ChainRun& run, const ReportContext& context);
/// A finding of the history with the node (round) it is on; nullopt: the history as a whole.
struct PlacedFinding {
  const Finding* finding = nullptr;
  std::optional<std::size_t> node;
};
/// Every finding in scope (the rounds' own audits and the chain rules'), root cause first:
/// by tier (what is missing or broken before what fails because of it), then round, then
/// history order, then as reported. Every format lists findings in this order.
std::vector<PlacedFinding> ChainFindingsByCause(const ChainRun& run);

/// One event of the story: what broke, at which round.
struct StoryEvent {
  std::string what;  ///< "tampered", "gap", "fork", "forged", "foreign-signed", or a rule id
  std::optional<std::uint64_t> round;
  std::optional<std::uint64_t> last_round;  ///< a run of missing rounds ends here
  std::string rule;                         ///< the finding behind it
  std::string path;                         ///< the round it is on ("" for the history)
};
struct ChainStory {
  std::optional<std::size_t> head;  ///< --head, else the latest round (first in history order)
  bool traces = false;              ///< every link from the head back to genesis (or the proven parent) holds
  std::vector<StoryEvent> events;   ///< in round order
  std::string line;                 ///< "round 29 does not trace to genesis: tampered at 7, gap at 12, fork at 20"
};
ChainStory TellChainStory(const ChainRun& run, FailThreshold threshold);

/// The runs of rounds missing between the rounds the history holds: first -> last.
std::map<std::uint64_t, std::uint64_t> MissingRoundRuns(const ChainRun& run);
/// The round a node stands for ("?" when it has none).
std::string RoundLabel(const ChainNode& node);
/// The id of the first finding that fails `node` (its audit's, then the chain's), or "".
std::string FirstFailingRule(const ChainRun& run, std::size_t node, FailThreshold threshold);

/// Graphviz: rows of 8 rounds that wrap, a box for each run of missing rounds in its place,
/// forks side by side, failed nodes with their first failing rule, a legend, wmcp changes on
/// their edges and the summary line as the title.
void WriteChainDot(std::ostream& out, const ChainRun& run, const ReportContext& context);
void WriteChainMermaid(std::ostream& out, const ChainRun& run, const ReportContext& context);

}  // namespace ckpt::reports
