#include "apps/common/audit_writers.h"

#include <array>

#include "reports/ci_reports.h"
#include "reports/cyclonedx_report.h"
#include "reports/html_report.h"
#include "reports/json_report.h"
#include "reports/sarif_report.h"
#include "reports/text_report.h"

namespace ckpt::cli {
namespace {

void WriteText(std::ostream& out, const std::vector<AuditResult>& results, const CommonCli& /*cli*/,
               const reports::ReportContext& context) {
  reports::WriteTextReport(out, results, context);
}
void WriteJson(std::ostream& out, const std::vector<AuditResult>& results, const CommonCli& /*cli*/,
               const reports::ReportContext& context) {
  reports::WriteJsonReport(out, results, context);
}
void WriteSarif(std::ostream& out, const std::vector<AuditResult>& results, const CommonCli& cli,
                const reports::ReportContext& context) {
  reports::WriteSarif(out, reports::SarifFromAudit(results, context.threshold), cli.sarif(), context);
}
void WriteJunit(std::ostream& out, const std::vector<AuditResult>& results, const CommonCli& /*cli*/,
                const reports::ReportContext& context) {
  reports::WriteAuditJunit(out, results, context);
}
void WriteGitlab(std::ostream& out, const std::vector<AuditResult>& results, const CommonCli& /*cli*/,
                 const reports::ReportContext& context) {
  reports::WriteAuditGitlab(out, results, context);
}
void WriteHtml(std::ostream& out, const std::vector<AuditResult>& results, const CommonCli& /*cli*/,
               const reports::ReportContext& context) {
  reports::WriteAuditHtml(out, results, context);
}
void WriteMarkdown(std::ostream& out, const std::vector<AuditResult>& results, const CommonCli& /*cli*/,
                   const reports::ReportContext& context) {
  reports::WriteAuditMarkdown(out, results, context);
}

void WriteGithub(std::ostream& out, const std::vector<AuditResult>& results, const CommonCli& /*cli*/,
                 const reports::ReportContext& context) {
  reports::WriteAuditGithub(out, results, context);
}

void WriteCycloneDx(std::ostream& out, const std::vector<AuditResult>& results, const CommonCli& cli,
                    const reports::ReportContext& context) {
  reports::CycloneDxOptions options;
  options.source_root = cli.sarif().source_root.string();
  options.source_date_epoch = reports::SourceDateEpochFromEnvironment();
  reports::WriteCycloneDx(out, results, context, options);
}

constexpr std::array<AuditWriterEntry, 9> kAuditWriters{{
    {"text", &WriteText},
    {"json", &WriteJson},
    {"sarif", &WriteSarif},
    {"junit", &WriteJunit},
    {"gitlab", &WriteGitlab},
    {"html", &WriteHtml},
    {"markdown", &WriteMarkdown},
    {"github", &WriteGithub},
    {"cyclonedx", &WriteCycloneDx},
}};

}  // namespace

std::span<const AuditWriterEntry> AuditWriters() { return kAuditWriters; }

}  // namespace ckpt::cli
