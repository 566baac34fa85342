// ckpt-chain reports: a text table for people, JSON for scripts, and pictures (Graphviz
// DOT, Mermaid) with forks, gaps and failed artifacts marked. Writers never parse.
#pragma once

#include <boost/json/value.hpp>
#include <ostream>

#include "engine/chain_run.h"
#include "reports/report_context.h"

namespace ckpt::reports {

void WriteChainText(std::ostream& out, const ChainRun& run, const ReportContext& context);
boost::json::value ChainReportToJson(const ChainRun& run, const ReportContext& context);
void WriteChainJson(std::ostream& out, const ChainRun& run, const ReportContext& context);
void WriteChainDot(std::ostream& out, const ChainRun& run, const ReportContext& context);
void WriteChainMermaid(std::ostream& out, const ChainRun& run, const ReportContext& context);

}  // namespace ckpt::reports
