// ckpt-diff reports: a text table sorted by rel_l2 (largest first) with a summary, and JSON
// (tensors, header diff, link verdict, findings). Writers never parse.
#pragma once

#include <boost/json/value.hpp>
#include <ostream>

#include "engine/diff_run.h"
#include "reports/report_context.h"

namespace ckpt::reports {

void WriteDiffText(std::ostream& out, const DiffRun& run, const ReportContext& context);
boost::json::value DiffReportToJson(const DiffRun& run, const ReportContext& context);
void WriteDiffJson(std::ostream& out, const DiffRun& run, const ReportContext& context);

}  // namespace ckpt::reports
