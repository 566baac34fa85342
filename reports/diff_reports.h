// ckpt-diff reports: a summary (whole model, groups, name prefixes, the tensors that moved
// most), then a text table sorted by rel_l2 (largest first); JSON holds the same with the
// header diff, link verdict and findings. Writers never parse.
#pragma once

#include <boost/json/value.hpp>
#include <ostream>

#include "engine/diff_run.h"
#include "lib/diff/diff_summary.h"
#include "reports/json_pretty.h"
#include "reports/report_context.h"

namespace ckpt::reports {

void WriteDiffText(std::ostream& out, const DiffRun& run, const ReportContext& context);
/// "6 tensors: 3 changed, 1 added, 2 unchanged" (`separator` between the counts).
std::string StatusCounts(const DiffRollup& rollup, std::string_view separator = ", ");
/// The rows of the tensor table in rank order, after --changed-only and --top.
std::vector<const TensorDiff*> ListedTensors(const DiffRun& run);
/// The diff's `summary` object (JSON report, SARIF run properties): model, groups, prefixes,
/// top, and how many tensors the table lists (`ListedTensors(run).size()`).
boost::json::object DiffSummaryJson(const DiffRun& run, std::size_t listed_tensors, StreamedArrays* streamed = nullptr);
/// The JSON report; with `streamed`, the tensor list is a placeholder of it (see StreamedArrays).
boost::json::value DiffReportToJson(const DiffRun& run, const ReportContext& context,
                                    StreamedArrays* streamed = nullptr);
void WriteDiffJson(std::ostream& out, const DiffRun& run, const ReportContext& context);

}  // namespace ckpt::reports
