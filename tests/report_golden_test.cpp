// Golden files for the text and JSON reports of all three tools (SARIF has its own in
// sarif_test), and the exact rendered line of every artifact rule's fire case: the
// clang-tidy CHECK-MESSAGES discipline, kept in fixtures/golden/ so a change of wording,
// location or rule shows as a reviewed diff. CKPT_UPDATE_GOLDEN=1 rewrites them.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include "engine/audit.h"
#include "engine/chain_run.h"
#include "engine/diff_run.h"
#include "reports/chain_reports.h"
#include "reports/cyclonedx_report.h"
#include "reports/diff_reports.h"
#include "reports/json_pretty.h"
#include "reports/json_report.h"
#include "reports/text_report.h"
#include "tests/support/artifact_builder.h"
#include "tests/support/audit_helpers.h"
#include "tests/support/fire_cases.h"
#include "tests/support/golden_scenarios.h"
#include "tests/support/history_builder.h"

namespace ckpt::testing {
namespace {

namespace fs = std::filesystem;

// What legitimately varies between runs: the temporary directory, the version, and file
// identities (device, inode, times) in JSON.
std::string Normalize(std::string text, const fs::path& temp_root) {
  const std::string temp = fs::absolute(temp_root).string();
  for (std::size_t at; (at = text.find(temp)) != std::string::npos;) text.replace(at, temp.size(), "$TMP");
  const std::string version = std::string("\"version\": \"") + CKPT_VERSION + "\"";
  for (std::size_t at; (at = text.find(version)) != std::string::npos;) {
    text.replace(at, version.size(), "\"version\": \"VERSION\"");
  }
  for (const char* tool : {"ckpt-audit ", "ckpt-chain ", "ckpt-diff "}) {  // text summaries name the version
    const std::string named = tool + std::string(CKPT_VERSION) + ")";
    for (std::size_t at; (at = text.find(named)) != std::string::npos;) {
      text.replace(at, named.size(), tool + std::string("VERSION)"));
    }
  }
  return text;
}

std::string NormalizeJson(const boost::json::value& report, const fs::path& temp_root) {
  boost::json::value v = report;
  // Identities differ on every run; keep the keys, blank the values.
  std::function<void(boost::json::value&)> blank = [&](boost::json::value& node) {
    if (auto* object = node.if_object()) {
      for (const char* key : {"device", "inode", "mtime_ns", "ctime_ns"}) {
        if (object->contains(key)) (*object)[key] = 0;
      }
      for (auto& member : *object) blank(member.value());
    } else if (auto* array = node.if_array()) {
      for (auto& item : *array) blank(item);
    }
  };
  blank(v);
  std::ostringstream out;
  reports::WritePrettyJson(out, v);
  return Normalize(out.str(), temp_root);
}

void ExpectGolden(const std::string& got, const fs::path& golden) {
  if (std::getenv("CKPT_UPDATE_GOLDEN")) {
    std::ofstream(golden, std::ios::binary) << got;
    return;
  }
  std::ifstream in(golden, std::ios::binary);
  ASSERT_TRUE(in) << golden << " missing: run with CKPT_UPDATE_GOLDEN=1";
  const std::string want((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(got, want) << golden << " changed; if intended, rerun with CKPT_UPDATE_GOLDEN=1 and review the diff";
}

AuditResult Tampered(const fs::path& root) {
  WriteFiles(TamperedFiles(), root / "tampered");
  return AuditPath((fs::absolute(root) / "tampered").string(), AuditOptions{});
}

TEST(ReportGolden, AuditTextAndJson) {
  TempDir dir;
  const AuditResult result = Tampered(dir.path());
  reports::ReportContext context;
  // Fingerprints are relative to the root, as the tools set it: the same bytes in every run.
  context.fingerprint_root = fs::weakly_canonical(fs::absolute(dir.path())).string();
  std::ostringstream text;
  reports::WriteTextReport(text, {&result, 1}, context);
  ExpectGolden(Normalize(text.str(), dir.path()), "fixtures/golden/ckpt-audit-tampered.txt");
  ExpectGolden(NormalizeJson(reports::AuditReportToJson({&result, 1}, context), dir.path()),
               "fixtures/golden/ckpt-audit-tampered.json");
  // The tools write the tensor list as it is made (issue 50: a million tensors as JSON values
  // doubled the memory): the same bytes as the whole report written at once.
  ASSERT_GT(result.artifact.weights.front().tensors.size(), 1U);
  std::ostringstream whole;
  reports::WritePrettyJson(whole, reports::AuditReportToJson({&result, 1}, context));
  std::ostringstream streamed;
  reports::WriteJsonReport(streamed, {&result, 1}, context);
  EXPECT_EQ(streamed.str(), whole.str());
}

TEST(ReportGolden, ChainTextAndJson) {
  TempDir dir;
  ChainRunOptions options;
  options.jobs = 2;
  const ChainRun run = RunGapAndFork(dir.path(), options);
  reports::ReportContext context;
  context.tool_name = "ckpt-chain";
  std::ostringstream text;
  reports::WriteChainText(text, run, context);
  ExpectGolden(Normalize(text.str(), dir.path()), "fixtures/golden/ckpt-chain-gap-fork.txt");
  ExpectGolden(NormalizeJson(reports::ChainReportToJson(run, context), dir.path()),
               "fixtures/golden/ckpt-chain-gap-fork.json");
}

// The CycloneDX BOMs of the same two runs as the tools write them with SOURCE_DATE_EPOCH set
// (the same bytes every run), the files listed by the SHA-256 of the audit's own reads: the
// tampered artifact with its vulnerabilities; the history with its gap and its fork, every
// round before the newest its pedigree.
TEST(ReportGolden, AuditAndChainCycloneDx) {
  TempDir dir;
  AuditOptions digested;
  digested.digest_files = true;
  WriteFiles(TamperedFiles(), dir.path() / "tampered");
  std::vector<AuditResult> results;
  results.push_back(AuditPath((fs::absolute(dir.path()) / "tampered").string(), digested));
  reports::ReportContext context;
  const reports::CycloneDxOptions options{fs::absolute(dir.path()).string(), 1'700'000'000};
  std::ostringstream audit_bom;
  reports::WriteCycloneDx(audit_bom, results, context, options);
  ExpectGolden(Normalize(audit_bom.str(), dir.path()), "fixtures/golden/ckpt-audit-tampered.cdx.json");

  ChainRunOptions chain_options;
  chain_options.jobs = 2;
  chain_options.policy.digest_files = true;
  const ChainRun run = RunGapAndFork(dir.path(), chain_options);
  context.tool_name = "ckpt-chain";
  std::ostringstream chain_bom;
  reports::WriteChainCycloneDx(chain_bom, run, context, options);
  ExpectGolden(Normalize(chain_bom.str(), dir.path()), "fixtures/golden/ckpt-chain-gap-fork.cdx.json");
}

TEST(ReportGolden, DiffTextAndJson) {
  TempDir dir;
  DiffOptions options;
  options.jobs = 2;
  const DiffRun run = RunGatedDiff(dir.path(), options);
  reports::ReportContext context;
  context.tool_name = "ckpt-diff";
  std::ostringstream text;
  reports::WriteDiffText(text, run, context);
  ExpectGolden(Normalize(text.str(), dir.path()), "fixtures/golden/ckpt-diff-gates.txt");
  ExpectGolden(NormalizeJson(reports::DiffReportToJson(run, context), dir.path()),
               "fixtures/golden/ckpt-diff-gates.json");
  ASSERT_GT(run.tensors.size(), 1U);
  std::ostringstream whole;
  reports::WritePrettyJson(whole, reports::DiffReportToJson(run, context));
  std::ostringstream streamed;
  reports::WriteDiffJson(streamed, run, context);
  EXPECT_EQ(streamed.str(), whole.str());
}

// A message may name the temporary folder its case was written in (which folder to audit):
// each such path, up to the folder's random suffix, reads DIR.
std::string WithoutTemporaryFolders(std::string line) {
  constexpr std::string_view kMark = "ckpt-test-";
  for (std::size_t at = line.find(kMark); at != std::string::npos; at = line.find(kMark, at)) {
    std::size_t begin = at;
    while (begin > 0 && line[begin - 1] != ' ' && line[begin - 1] != '\'') --begin;
    std::size_t end = at + kMark.size();
    while (end < line.size() && std::isalnum(static_cast<unsigned char>(line[end])) != 0) ++end;
    line.replace(begin, end - begin, "DIR");
    at = begin + 3;
  }
  return line;
}

// Every artifact rule's fire case, rendered as the text report renders it: rule, variant,
// then each line of that rule (file:line:col or @byte, severity, message, [id CODE]). One
// golden per rule family (the id up to its first '-'), fixtures/golden/fire-cases/FAMILY.txt,
// each in the cases' order: two changes to two families never touch one file.
TEST(ReportGolden, EveryFireCaseRendersExactly) {
  std::map<std::string, std::string> by_family;
  for (const FireCase& fc : AllFireCases()) {
    const ScopedEnvironment environment(fc.environment);
    const AuditResult result =
        AuditInput(fc.make(), fc.form, fc.input_name, fc.policy, fc.entries, fc.replaced_on_open);
    std::string& out = by_family[fc.rule.substr(0, fc.rule.find('-'))];
    out += "== " + fc.rule + " (" + fc.variant + ")\n";
    std::size_t lines = 0;
    for (const Finding& f : result.findings) {
      if (f.rule->id != fc.rule) continue;
      out += WithoutTemporaryFolders(reports::FindingLine("ART", f)) + "\n";
      ++lines;
    }
    EXPECT_GT(lines, 0u) << fc.rule << " (" << fc.variant << ") did not fire";
  }
  const fs::path folder = "fixtures/golden/fire-cases";
  for (const auto& [family, out] : by_family) ExpectGolden(out, folder / (family + ".txt"));
  // A family without cases leaves no golden behind.
  for (const auto& entry : fs::directory_iterator(folder)) {
    EXPECT_TRUE(by_family.count(entry.path().stem().string())) << entry.path() << " belongs to no family's cases";
  }
}

}  // namespace
}  // namespace ckpt::testing
