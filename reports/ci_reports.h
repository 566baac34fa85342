// Reports for the places CI systems show results where people review them: JUnit XML (one
// test case per input, its failure carrying the findings; Jenkins' junit-10.xsd dialect that
// GitLab, Jenkins and most CI viewers read) and GitLab Code Quality JSON (findings in merge
// requests). Accepted findings are listed apart in JUnit's system-out; GitLab leaves out what
// a baseline suppresses and lists what a reviewed acceptance accepts as info, saying so.
#pragma once

#include <ostream>
#include <span>

#include "engine/chain_run.h"
#include "lib/diff/diff.h"
#include "reports/report_context.h"

namespace ckpt::reports {

void WriteAuditJunit(std::ostream& out, std::span<const AuditResult> results, const ReportContext& context);
void WriteChainJunit(std::ostream& out, const ChainRun& run, const ReportContext& context);
void WriteDiffJunit(std::ostream& out, const DiffRun& run, const ReportContext& context);

void WriteAuditGitlab(std::ostream& out, std::span<const AuditResult> results, const ReportContext& context);

/// GitHub-flavoured Markdown for a job summary ($GITHUB_STEP_SUMMARY) or a merge-request note:
/// a table of inputs with their verdicts, the counting findings, and what was accepted under a
/// <details>. Every character taken from the input is escaped, so no finding can shape the page.
void WriteAuditMarkdown(std::ostream& out, std::span<const AuditResult> results, const ReportContext& context);
/// GitHub Actions workflow commands, one line a finding that counts (::error, ::warning,
/// ::notice with file, line, col and title) and one per tool error: annotations in the job log
/// and on the pull request's files, without code scanning. At most 50 findings (the most a job
/// shows), then a notice of how many more the SARIF report holds.
void WriteAuditGithub(std::ostream& out, std::span<const AuditResult> results, const ReportContext& context);
void WriteChainGitlab(std::ostream& out, const ChainRun& run, const ReportContext& context);
void WriteDiffGitlab(std::ostream& out, const DiffRun& run, const ReportContext& context);

/// Text made safe for XML 1.0 character data and attribute values: control characters and
/// bytes that are not UTF-8 escaped for display first (XML cannot carry them at all), then
/// & < > " ' as entities.
std::string XmlEscape(std::string_view text);

}  // namespace ckpt::reports
