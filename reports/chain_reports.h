// ckpt-chain reports: a text table for people, JSON for scripts, and pictures (Graphviz
// DOT, Mermaid) with forks, gaps and failed artifacts marked. Writers never parse.
#pragma once

#include <boost/json/value.hpp>
#include <ostream>
#include <string>

#include "engine/chain_run.h"
#include "reports/report_context.h"

namespace ckpt::reports {

void WriteChainText(std::ostream& out, const ChainRun& run, const ReportContext& context);
boost::json::value ChainReportToJson(const ChainRun& run, const ReportContext& context);
void WriteChainJson(std::ostream& out, const ChainRun& run, const ReportContext& context);
/// "40 artifacts in the history (41 found): 38 passed, 2 failed; rounds 0-40 (1 missing); 3 findings".
std::string ChainSummaryLine(const ChainRun& run, const ReportContext& context);
/// Graphviz: rows of 8 rounds that wrap, a box for each run of missing rounds in its place,
/// forks side by side, failed nodes with their first failing rule, a legend, wmcp changes on
/// their edges and the summary line as the title.
void WriteChainDot(std::ostream& out, const ChainRun& run, const ReportContext& context);
void WriteChainMermaid(std::ostream& out, const ChainRun& run, const ReportContext& context);

}  // namespace ckpt::reports
