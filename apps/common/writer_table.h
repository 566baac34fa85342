// The writer table of a tool (the one list of its --format / --report formats, in --help's
// order, and what writes each), and the one way every tool writes its reports through it.
#pragma once

#include <algorithm>
#include <iostream>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "apps/common/cli.h"
#include "reports/report_context.h"

namespace ckpt::cli {

/// One format of a tool whose run is a `Run` (audit results, a diff, a chain).
template <typename Run>
struct WriterEntry {
  const char* format;
  void (*write)(std::ostream& out, const Run& run, const CommonCli& cli, const reports::ReportContext& context);
};

/// The formats of `writers`, for CommonCli (the first is the default).
template <typename Run>
std::vector<std::string> WriterNames(std::span<const WriterEntry<Run>> writers) {
  std::vector<std::string> names;
  for (const WriterEntry<Run>& entry : writers) names.emplace_back(entry.format);
  return names;
}

/// Writes every report the command line asks for (colour only on the terminal); the exit code
/// of a failed write.
template <typename Run>
std::optional<int> WriteReports(const CommonCli& cli, const reports::ReportContext& context,
                                std::span<const WriterEntry<Run>> writers, const Run& run) {
  return cli.WriteReport([&](std::ostream& out, const std::string& format) {
    reports::ReportContext shown = context;
    shown.color = shown.color && &out == &std::cout;
    // CommonCli admits only the table's formats; the first is the default.
    const auto writer = std::find_if(writers.begin(), writers.end(),
                                     [&](const WriterEntry<Run>& entry) { return format == entry.format; });
    (writer != writers.end() ? *writer : writers.front()).write(out, run, cli, shown);
  });
}

}  // namespace ckpt::cli
