// The CI gate as people run it: baselines (suppressed, expired, refused, malformed, by path
// glob) and policy files (raise, lower, turn off, refused, malformed, printed) in all three
// tools and every report format, JUnit XML checked against the rules of Jenkins' junit-10.xsd
// with xmllint, GitLab Code Quality against its schema, and --jobs, --quiet, --inputs-from.
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>

#include "tests/support/artifact_builder.h"
#include "tests/support/built_tools.h"
#include "tests/support/history_builder.h"
#include "tests/support/prerequisite.h"
#include "tests/support/process.h"

namespace ckpt::testing {
namespace {

namespace fs = std::filesystem;

bool Has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The rules of the Jenkins xUnit plugin's junit-10.xsd that a report must keep, written out
// here: the root and its attributes, a testsuite's required counts, a testcase's required
// name and its only children (failure, error, skipped, system-out, system-err), Surefire times.
constexpr const char* kJunitXsd = R"(<?xml version="1.0" encoding="UTF-8"?>
<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">
  <xs:simpleType name="time">
    <xs:restriction base="xs:string"><xs:pattern value="(([0-9]{0,3},)*[0-9]{3}|[0-9]{0,3})*(\.[0-9]*)?"/></xs:restriction>
  </xs:simpleType>
  <xs:complexType name="message" mixed="true">
    <xs:attribute name="type" type="xs:string"/>
    <xs:attribute name="message" type="xs:string"/>
  </xs:complexType>
  <xs:element name="property">
    <xs:complexType>
      <xs:attribute name="name" type="xs:string" use="required"/>
      <xs:attribute name="value" type="xs:string" use="required"/>
    </xs:complexType>
  </xs:element>
  <xs:element name="properties">
    <xs:complexType><xs:sequence><xs:element ref="property" minOccurs="0" maxOccurs="unbounded"/></xs:sequence></xs:complexType>
  </xs:element>
  <xs:element name="testcase">
    <xs:complexType>
      <xs:choice minOccurs="0" maxOccurs="unbounded">
        <xs:element name="skipped" type="message"/>
        <xs:element name="error" type="message"/>
        <xs:element name="failure" type="message"/>
        <xs:element name="system-out" type="xs:string"/>
        <xs:element name="system-err" type="xs:string"/>
      </xs:choice>
      <xs:attribute name="name" type="xs:string" use="required"/>
      <xs:attribute name="time" type="xs:string"/>
      <xs:attribute name="classname" type="xs:string"/>
      <xs:attribute name="group" type="xs:string"/>
    </xs:complexType>
  </xs:element>
  <xs:element name="testsuite">
    <xs:complexType>
      <xs:choice minOccurs="0" maxOccurs="unbounded">
        <xs:element ref="properties"/>
        <xs:element ref="testcase"/>
        <xs:element name="system-out" type="xs:string"/>
        <xs:element name="system-err" type="xs:string"/>
      </xs:choice>
      <xs:attribute name="name" type="xs:string" use="required"/>
      <xs:attribute name="tests" type="xs:string" use="required"/>
      <xs:attribute name="failures" type="xs:string" use="required"/>
      <xs:attribute name="errors" type="xs:string" use="required"/>
      <xs:attribute name="group" type="xs:string"/>
      <xs:attribute name="time" type="time"/>
      <xs:attribute name="skipped" type="xs:string"/>
      <xs:attribute name="timestamp" type="xs:string"/>
      <xs:attribute name="hostname" type="xs:string"/>
      <xs:attribute name="id" type="xs:string"/>
      <xs:attribute name="package" type="xs:string"/>
      <xs:attribute name="file" type="xs:string"/>
      <xs:attribute name="log" type="xs:string"/>
      <xs:attribute name="url" type="xs:string"/>
    </xs:complexType>
  </xs:element>
  <xs:element name="testsuites">
    <xs:complexType>
      <xs:sequence><xs:element ref="testsuite" minOccurs="0" maxOccurs="unbounded"/></xs:sequence>
      <xs:attribute name="name" type="xs:string"/>
      <xs:attribute name="time" type="time"/>
      <xs:attribute name="tests" type="xs:string"/>
      <xs:attribute name="failures" type="xs:string"/>
      <xs:attribute name="errors" type="xs:string"/>
    </xs:complexType>
  </xs:element>
</xs:schema>
)";

// GitLab's Code Quality report as its documentation lays it out (the Code Climate subset
// GitLab reads): an array of issues, each with a description, a check name, a fingerprint,
// a severity GitLab knows and a repository-relative path with a line.
constexpr const char* kGitlabSchema = R"({
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "array",
  "items": {
    "type": "object",
    "required": ["description", "check_name", "fingerprint", "severity", "location"],
    "properties": {
      "type": {"const": "issue"},
      "description": {"type": "string", "minLength": 1},
      "check_name": {"type": "string", "minLength": 1},
      "fingerprint": {"type": "string", "minLength": 1},
      "severity": {"enum": ["info", "minor", "major", "critical", "blocker"]},
      "categories": {"type": "array", "items": {"type": "string"}},
      "location": {
        "type": "object",
        "required": ["path", "lines"],
        "properties": {
          "path": {"type": "string", "minLength": 1, "not": {"pattern": "^/"}},
          "lines": {"type": "object", "required": ["begin"], "properties": {"begin": {"type": "integer", "minimum": 1}}}
        }
      }
    }
  }
})";

class Gate : public ::testing::Test {
 protected:
  void SetUp() override {
    rounds_ = WriteHistory(root() / "history", 3);
    // Round 2's created_at is not RFC 3339: header-created-at-invalid, an error no security rule guards.
    boost::json::value header = boost::json::parse(ReadText(rounds_[2].dir / "header.json"));
    header.as_object()["created_at"] = "yesterday";
    const std::string text = boost::json::serialize(header);
    WriteText(rounds_[2].dir / "header.json", text);
    // Columns count UTF-16 code units: every byte but a UTF-8 continuation byte starts one.
    const std::string before = text.substr(0, text.find("\"yesterday\""));
    const auto column = std::count_if(before.begin(), before.end(), [](char c) { return (c & 0xC0) != 0x80; }) + 1;
    where_ = "history/round-0002/header.json:1:" + std::to_string(column);
  }
  [[nodiscard]] const fs::path& root() const { return dir_.path(); }
  // Runs `tool` from the temporary folder, so reported paths are relative ("history/round-0002").
  CommandResult Run(const std::string& tool, const std::string& args) const {
    return RunCommand("cd " + ShellQuote(root()) + " && " + tool + " " + args + " 2>&1");
  }
  CommandResult Audit(const std::string& args) const { return Run(CKPT_AUDIT_BIN, args); }
  CommandResult Chain(const std::string& args) const { return Run(CKPT_CHAIN_BIN, args); }
  CommandResult Diff(const std::string& args) const { return Run(CKPT_DIFF_BIN, args); }
  // The three tools on inputs where round 2's finding shows: an audit, the history, a diff.
  std::vector<std::pair<std::string, std::function<CommandResult(const std::string&)>>> Tools() const {
    return {{"ckpt-audit", [this](const std::string& a) { return Audit(a + " history/round-0002"); }},
            {"ckpt-chain", [this](const std::string& a) { return Chain(a + " history"); }},
            {"ckpt-diff", [this](const std::string& a) { return Diff(a + " history/round-0001 history/round-0002"); }}};
  }
  void Baseline(const std::string& entries) const {
    WriteText(root() / "baseline.json", "{\"suppressions\": [" + entries + "]}");
  }
  TempDir dir_;
  std::vector<Round> rounds_;
  std::string where_;  ///< where round 2's finding is reported: "history/round-0002/header.json:1:COL"
};

constexpr const char* kAccepted =
    R"({"rule": "header-created-at-invalid", "path_glob": "*round-0002/header.json", "reason": "tracked in #12", "expires": "2099-12-31"})";

TEST_F(Gate, NearMissWithoutABaselineTheFindingFailsEveryTool) {
  for (const auto& [tool, run] : Tools()) {
    const CommandResult r = run("");
    EXPECT_EQ(r.exit_code, 1) << tool << r.output;
    EXPECT_TRUE(Has(r.output, "history/round-0002/header.json:1:")) << tool << r.output;
    EXPECT_TRUE(Has(r.output, "[header-created-at-invalid ARTIFACT_INVALID]")) << tool << r.output;
  }
}

TEST_F(Gate, SuppressedFindingsStayInEveryReportAndDoNotCount) {
  Baseline(kAccepted);
  for (const auto& [tool, run] : Tools()) {
    SCOPED_TRACE(tool);
    CommandResult r = run("--baseline baseline.json");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(Has(r.output, "1 finding suppressed by the baseline:\n")) << r.output;
    EXPECT_TRUE(Has(r.output,
                    where_ + ": error: created_at is 'yesterday', not an RFC 3339 date-time "
                             "with offset Z, z or +00:00. [header-created-at-invalid ARTIFACT_INVALID] (accepted until "
                             "2099-12-31: tracked in #12)"))
        << r.output;
    // Dimmed on a terminal (--color always): the line sits inside a dim span.
    r = run("--baseline baseline.json --color always");
    EXPECT_TRUE(Has(r.output, "\033[2m" + where_ + ": error: created_at")) << r.output;

    r = run("--baseline baseline.json --format json");
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_TRUE(Has(r.output, R"("suppressed": {)")) << r.output;
    EXPECT_TRUE(Has(r.output, R"("reason": "tracked in #12")")) << r.output;
    EXPECT_TRUE(Has(r.output, R"("path_glob": "*round-0002/header.json")")) << r.output;

    r = run("--baseline baseline.json --format sarif -o " + tool + ".sarif");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    const boost::json::value sarif = boost::json::parse(ReadText(root() / (tool + ".sarif")));
    bool found = false;
    for (const boost::json::value& result : sarif.at("runs").at(0).at("results").as_array()) {
      if (result.at("ruleId").as_string() != "header-created-at-invalid") continue;
      found = true;
      const boost::json::value& s = result.at("suppressions").at(0);
      EXPECT_EQ(s.at("kind").as_string(), "external");
      EXPECT_EQ(s.at("justification").as_string(), "tracked in #12");
    }
    EXPECT_TRUE(found);
    EXPECT_EQ(sarif.at("runs").at(0).at("invocations").at(0).at("exitCode").as_int64(), 0);

    r = run("--baseline baseline.json --format junit");
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_FALSE(Has(r.output, "<failure")) << r.output;
    EXPECT_TRUE(Has(r.output, "suppressed by the baseline:\n" + where_)) << r.output;

    r = run("--baseline baseline.json --format gitlab");
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_FALSE(Has(r.output, "header-created-at-invalid")) << r.output;
  }
}

TEST_F(Gate, SarifWithSuppressionsPassesTheOfficialValidators) {
  const fs::path validator = fs::absolute("tests/sarif/validate.sh");  // the official validators
  Baseline(kAccepted);
  std::string files;
  for (const auto& [tool, run] : Tools()) {
    EXPECT_EQ(run("--baseline baseline.json --format sarif -o " + tool + ".sarif").exit_code, 0);
    files += " " + ShellQuote(root() / (tool + ".sarif"));
  }
  const CommandResult v = RunCommand(ShellQuote(validator) + " --strict --require-multitool" + files + " 2>&1");
  EXPECT_EQ(v.exit_code, 0) << v.output;
  EXPECT_TRUE(Has(v.output, "3 file(s) valid, 0 file(s) invalid")) << v.output;
}

TEST_F(Gate, PathGlobThatDoesNotMatchSuppressesNothing) {
  Baseline(
      R"({"rule": "header-created-at-invalid", "path_glob": "*round-0001/*", "reason": "other round", "expires": "2099-12-31"})");
  for (const auto& [tool, run] : Tools()) {
    const CommandResult r = run("--baseline baseline.json");
    EXPECT_EQ(r.exit_code, 1) << tool << r.output;
    EXPECT_FALSE(Has(r.output, "suppressed by the baseline")) << tool << r.output;
  }
  // Without a path, an entry covers the rule everywhere.
  Baseline(R"({"rule": "header-created-at-invalid", "reason": "all rounds", "expires": "2099-12-31"})");
  for (const auto& [tool, run] : Tools()) EXPECT_EQ(run("--baseline baseline.json").exit_code, 0) << tool;
}

// Today and yesterday in UTC, as the tools judge expiry (from the clock: nothing overrides it).
std::string UtcDate(std::time_t at) {
  std::tm utc{};
  gmtime_r(&at, &utc);
  char text[16];
  std::strftime(text, sizeof text, "%Y-%m-%d", &utc);
  return text;
}

TEST_F(Gate, AnExpiredEntrySuppressesNothingAndIsReported) {
  const std::time_t now = std::time(nullptr);
  const std::string today = UtcDate(now);
  const std::string yesterday = UtcDate(now - std::time_t{24} * 3600);
  Baseline(R"({"rule": "header-created-at-invalid", "path_glob": "*round-0002/*", "reason": "was fine", "expires": ")" +
           yesterday + R"("})");
  for (const auto& [tool, run] : Tools()) {
    const CommandResult r = run("--baseline baseline.json");
    EXPECT_EQ(r.exit_code, 1) << tool << r.output;
    std::string expected =
        "./baseline.json: warning: Baseline entry 1 (rule 'header-created-at-invalid', path_glob '*round-0002/*') "
        "expired on ";
    expected.append(yesterday).append(" (today is ").append(today);
    expected += "): it suppresses nothing now. Its reason was: 'was fine'. [baseline-entry-expired ARTIFACT_INVALID]";
    EXPECT_TRUE(Has(r.output, expected)) << tool << r.output;
  }
  // The last day it names still suppresses; and no environment variable revives an expired entry.
  Baseline(R"({"rule": "header-created-at-invalid", "reason": "until today", "expires": ")" + today + R"("})");
  EXPECT_EQ(Audit("--baseline baseline.json history/round-0002").exit_code, 0);
  Baseline(R"({"rule": "header-created-at-invalid", "reason": "expired", "expires": ")" + yesterday + R"("})");
  EXPECT_EQ(Run("CKPT_TODAY=2000-01-01 " + std::string(CKPT_AUDIT_BIN), "--baseline baseline.json history/round-0002")
                .exit_code,
            1);
}

// A written path is matched literally: a baseline written for a round named 'r[12]'
// suppresses that round, not r1 and r2. Patterns go in path_glob, where a person writes them.
TEST_F(Gate, WrittenPathsMatchLiterallyAndGlobsHaveAFieldOfTheirOwn) {
  for (const char* name : {"r[12]", "r1", "r2"}) {
    fs::create_directories(root() / "rounds" / name);
    fs::copy(rounds_[2].dir, root() / "rounds" / name);
  }
  const CommandResult written =
      Audit("--write-baseline accepted.json --expires 2099-06-30 --reason 'reviewed' 'rounds/r[12]'");
  EXPECT_EQ(written.exit_code, 0) << written.output;  // judged with the baseline it wrote
  EXPECT_TRUE(Has(ReadText(root() / "accepted.json"), R"("path":"rounds/r[12]/header.json")"));
  EXPECT_EQ(Audit("--baseline accepted.json 'rounds/r[12]'").exit_code, 0);
  EXPECT_EQ(Audit("--baseline accepted.json rounds/r1").exit_code, 1);
  EXPECT_EQ(Audit("--baseline accepted.json rounds/r2").exit_code, 1);
  Baseline(
      R"({"rule": "header-created-at-invalid", "path_glob": "rounds/r[12]/*", "reason": "both", "expires": "2099-12-31"})");
  EXPECT_EQ(Audit("--baseline baseline.json rounds/r1 rounds/r2").exit_code, 0);
  Baseline(
      R"({"rule": "header-created-at-invalid", "path": "rounds/r1/header.json", "path_glob": "rounds/*", "reason": "x", "expires": "2099-12-31"})");
  EXPECT_EQ(Audit("--baseline baseline.json rounds/r1").exit_code, 2);
}

TEST_F(Gate, BaselinesThatCannotBeHonouredAreUsageErrors) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"suppressions": [{"rule": "hash-mismatch", "reason": "x", "expires": "2099-01-01"}]})",
       "entry 1 (rule 'hash-mismatch') names a security rule; security findings cannot be suppressed, only fixed"},
      {R"({"suppressions": [{"rule": "no-such-rule", "reason": "x", "expires": "2099-01-01"}]})",
       "entry 1 (rule 'no-such-rule') names an unknown rule"},
      {R"({"suppressions": [{"rule": "header-created-at-invalid", "expires": "2099-01-01"}]})",
       "suppression 1 has no reason (it is required) (line 1, column 19)"},
      {R"({"suppressions": [{"rule": "header-created-at-invalid", "reason": "x"}]})",
       "suppression 1 has no expires (it is required)"},
      {R"({"suppressions": [{"rule": "header-created-at-invalid", "reason": "x", "expires": "2099-02-30"}]})",
       "suppression 1: expires is '2099-02-30', not a date YYYY-MM-DD"},
      {R"({"suppressions": [], "extra": 1})", "unknown key 'extra' (line 1, column 22)"},
      {R"({"suppressions": [)", "unexpected end of input, expected a value (line 1, column 19)"},
      {R"({"suppressions": [], "suppressions": []})", "the key 'suppressions' appears twice in one object"},
  };
  for (const auto& [text, message] : cases) {
    WriteText(root() / "baseline.json", text);
    for (const auto& [tool, run] : Tools()) {
      const CommandResult r = run("--baseline baseline.json");
      EXPECT_EQ(r.exit_code, 2) << tool << text;
      EXPECT_TRUE(Has(r.output, std::string(tool).append(": --baseline 'baseline.json': ").append(message)))
          << tool << r.output;
    }
  }
}

TEST_F(Gate, WriteBaselineAcceptsTheNonSecurityFindingsOfTheRun) {
  const CommandResult written = Audit(
      "--write-baseline accepted.json --expires 2099-06-30 --reason 'reviewed in #7' --no-hash history/round-0002");
  // Issue 29 item 7: the run is judged with the baseline it wrote, so a refresh job passes
  // when all that remains is what the baseline accepts (and reports it as accepted).
  EXPECT_EQ(written.exit_code, 0) << written.output;
  EXPECT_TRUE(Has(written.output, "1 finding suppressed by the baseline:\n")) << written.output;
  const std::string text = ReadText(root() / "accepted.json");
  EXPECT_EQ(text,
            "{\n  \"suppressions\": [\n    {\"rule\":\"header-created-at-invalid\",\"path\":\"history/round-0002/"
            "header.json\",\"reason\":\"reviewed in #7\",\"expires\":\"2099-06-30\"}\n  ]\n}\n");
  // hash-not-verified (a security warning of --no-hash) is not accepted: it cannot be.
  EXPECT_FALSE(Has(text, "hash-not-verified"));
  EXPECT_EQ(Audit("--baseline accepted.json history/round-0002").exit_code, 0);
  EXPECT_EQ(Audit("--write-baseline x.json --expires 2099-06-30 history/round-0002").exit_code, 2);
  EXPECT_EQ(Audit("--write-baseline x.json --expires tomorrow --reason r history/round-0002").exit_code, 2);
  // Issue 29 item 7: what was left out is said, and a past expiry (a baseline accepting
  // nothing) is refused.
  EXPECT_TRUE(Has(written.output,
                  "ckpt-audit: --write-baseline left out 1 security finding: hash-not-verified (1). "
                  "A baseline never suppresses a security rule"))
      << written.output;
  const CommandResult past = Audit("--write-baseline x.json --expires 2020-01-01 --reason r history/round-0002");
  EXPECT_EQ(past.exit_code, 2);
  EXPECT_TRUE(Has(past.output, "--expires 2020-01-01 is in the past")) << past.output;
  EXPECT_FALSE(fs::exists(root() / "x.json"));
  // Near miss: a security error it cannot accept still fails the refresh, and says so.
  WriteText(root() / "evil.pkl", std::string("\x80\x02", 2) + "cposix\nsystem\nX" + std::string("\x04\0\0\0", 4) +
                                     "trueq" + std::string("\0\x85", 2) + "R.");
  const CommandResult security = Audit("--write-baseline y.json --expires 2099-06-30 --reason r evil.pkl");
  EXPECT_EQ(security.exit_code, 1) << security.output;
  EXPECT_TRUE(Has(security.output, "--write-baseline left out 2 security findings")) << security.output;
}

// Issue 29 item 4: baseline paths are relative to the baseline's root (the repository found
// by .git, else the baseline's folder, or --source-root), so one written from one directory
// suppresses the same finding however the input is spelled and from wherever it is audited.
TEST_F(Gate, BaselinesMatchWhateverTheSpellingOfThePath) {
  ASSERT_EQ(Audit("--write-baseline accepted.json --expires 2099-06-30 --reason r ./history/round-0002").exit_code, 0);
  EXPECT_TRUE(Has(ReadText(root() / "accepted.json"), R"("path":"history/round-0002/header.json")"));
  const std::string bin = CKPT_AUDIT_BIN;
  const std::string name = root().filename().string();
  auto from = [&](const fs::path& dir, const std::string& args) {
    return RunCommand("cd " + ShellQuote(dir) + " && " + bin + " " + args + " 2>&1");
  };
  const std::string absolute = ShellQuote(root() / "history/round-0002");
  EXPECT_EQ(Audit("--baseline accepted.json " + absolute).exit_code, 0);
  EXPECT_EQ(
      from(root().parent_path(), "--baseline " + name + "/accepted.json " + name + "/history/round-0002").exit_code, 0);
  EXPECT_EQ(from(root() / "history", "--baseline ../accepted.json ./round-0002/").exit_code, 0);
  // Near miss: another round with the same finding is not the accepted file.
  fs::copy(root() / "history/round-0002", root() / "other-0002", fs::copy_options::recursive);
  const CommandResult other = Audit("--baseline accepted.json other-0002");
  EXPECT_EQ(other.exit_code, 1) << other.output;

  // In a repository the root is the one holding .git, wherever the baseline lies in it.
  fs::create_directory(root() / ".git");
  fs::create_directory(root() / "ci");
  ASSERT_EQ(from(root() / "history", "--write-baseline ../ci/accepted.json --expires 2099-06-30 --reason r round-0002")
                .exit_code,
            0);
  EXPECT_TRUE(Has(ReadText(root() / "ci/accepted.json"), R"("path":"history/round-0002/header.json")"));
  EXPECT_EQ(Audit("--baseline ci/accepted.json history/round-0002").exit_code, 0);
  EXPECT_EQ(from(root() / "ci", "--baseline accepted.json " + absolute).exit_code, 0);
  // --source-root names the root instead: paths are then relative to it, written and matched.
  ASSERT_EQ(Audit("--source-root history --write-baseline ci/rooted.json --expires 2099-06-30 --reason r "
                  "history/round-0002")
                .exit_code,
            0);
  EXPECT_TRUE(Has(ReadText(root() / "ci/rooted.json"), R"("path":"round-0002/header.json")"));
  EXPECT_EQ(Audit("--source-root history --baseline ci/rooted.json history/round-0002").exit_code, 0);
  EXPECT_EQ(Audit("--baseline ci/rooted.json history/round-0002").exit_code, 1);  // relative to the repository
}

// ---- policy files

TEST_F(Gate, AFingerprintEntrySuppressesThatFindingHoweverTheInputIsSpelled) {
  fs::create_directories(root() / ".git");  // the repository root fingerprints are relative to
  const boost::json::value report = boost::json::parse(Audit("-f json history/round-0002").output);
  const boost::json::value& finding = report.at("artifacts").at(0).at("findings").at(0);
  ASSERT_EQ(finding.at("rule").as_string(), "header-created-at-invalid");
  const std::string fingerprint(finding.at("fingerprint").as_string());
  EXPECT_TRUE(fingerprint.starts_with("fp1:")) << fingerprint;
  // The same finding has the same fingerprint from a subfolder and absolutely.
  const CommandResult from_history =
      RunCommand("cd " + ShellQuote(root() / "history") + " && " + CKPT_AUDIT_BIN + " -f json round-0002");
  EXPECT_TRUE(Has(from_history.output, fingerprint)) << from_history.output;
  Baseline(R"({"rule": "header-created-at-invalid", "fingerprint": ")" + fingerprint +
           R"(", "reason": "r", "expires": "2099-12-31"})");
  EXPECT_EQ(Audit("--baseline baseline.json history/round-0002").exit_code, 0);
  EXPECT_EQ(Audit("--baseline baseline.json " + ShellQuote(root() / "history/round-0002")).exit_code, 0);
  EXPECT_EQ(RunCommand("cd " + ShellQuote(root() / "history") + " && " + CKPT_AUDIT_BIN +
                       " --baseline ../baseline.json round-0002")
                .exit_code,
            0);
  // Near miss: another finding's fingerprint suppresses nothing.
  Baseline(
      R"({"rule": "header-created-at-invalid", "fingerprint": "fp1:00000000000000000000000000000000", "reason": "r", "expires": "2099-12-31"})");
  const CommandResult other = Audit("--baseline baseline.json history/round-0002");
  EXPECT_EQ(other.exit_code, 1) << other.output;
  EXPECT_FALSE(Has(other.output, "suppressed by the baseline")) << other.output;
  Baseline(R"({"rule": "header-created-at-invalid", "fingerprint": "abc", "reason": "r", "expires": "2099-12-31"})");
  const CommandResult bad = Audit("--baseline baseline.json history/round-0002");
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_TRUE(Has(bad.output, "fingerprint is 'abc', not one a report prints (fp1: and 32 lowercase hex digits)"))
      << bad.output;
}

TEST_F(Gate, PolicyRaisesLowersAndTurnsOffRules) {
  // Lower a non-security error to a warning: the round passes, the finding says warning.
  WriteText(root() / "policy.json", R"({"severity": {"header-created-at-invalid": "warning"}})");
  for (const auto& [tool, run] : Tools()) {
    const CommandResult r = run("--policy policy.json");
    EXPECT_EQ(r.exit_code, 0) << tool << r.output;
    EXPECT_TRUE(Has(r.output, where_ + ": warning: created_at is 'yesterday'")) << tool << r.output;
  }
  // Turn it off: no finding at all.
  WriteText(root() / "policy.json", R"({"severity": {"header-created-at-invalid": "off"}})");
  for (const auto& [tool, run] : Tools()) {
    const CommandResult r = run("--policy policy.json");
    EXPECT_EQ(r.exit_code, 0) << tool << r.output;
    EXPECT_FALSE(Has(r.output, "header-created-at-invalid")) << tool << r.output;
  }
  // Raise a security warning (--no-hash leaves the hash unverified) to an error.
  WriteText(root() / "policy.json", R"({"severity": {"hash-not-verified": "error"}})");
  CommandResult r = Audit("--policy policy.json --no-hash history/round-0001");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(Has(r.output, ": error: ")) << r.output;
  EXPECT_TRUE(Has(r.output, "[hash-not-verified CHECKPOINT_INTEGRITY]")) << r.output;
  EXPECT_EQ(Audit("--no-hash history/round-0001").exit_code, 0);  // the near miss: a warning by default
  // fail_on from the file, unless the command line says otherwise.
  WriteText(root() / "policy.json", R"({"fail_on": "warning"})");
  EXPECT_EQ(Audit("--policy policy.json --no-hash history/round-0001").exit_code, 1);
  EXPECT_EQ(Audit("--policy policy.json --fail-on error --no-hash history/round-0001").exit_code, 0);
}

TEST_F(Gate, PoliciesThatWeakenSecurityOrDoNotParseAreUsageErrors) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"severity": {"hash-mismatch": "warning"}})",
       "hash-mismatch is a security rule; it can be raised, not lowered to warning"},
      {R"({"severity": {"pickle-global-unsafe": "off"}})",
       "pickle-global-unsafe is a security rule; it can be raised, not turned off"},
      {R"({"severity": {"no-such-rule": "error"}})", "severity names unknown rule 'no-such-rule'"},
      {R"({"severity": {"header-created-at-invalid": "fatal"}})",
       "the severity of header-created-at-invalid is 'fatal', not error, warning, note or off"},
      {R"({"fail_on": "sometimes"})", "fail_on is 'sometimes', not error, warning, note or none"},
      {R"({"allow_wmcp_change": "yes"})", "allow_wmcp_change is a string, not true or false (line 1, column 23)"},
      {R"({"colour": "red"})", "unknown key 'colour' (line 1, column 2)"},
      {R"({"fail_onn": "warning"})", "unknown key 'fail_onn' (did you mean \"fail_on\"?) (line 1, column 2)"},
      {R"({"fail-on": "warning", "fail_on": "note"})", "the key 'fail_on' sets fail_on a second time"},
      {R"([1])", "the file is an array, not a JSON object"},
  };
  for (const auto& [text, message] : cases) {
    WriteText(root() / "policy.json", text);
    for (const auto& [tool, run] : Tools()) {
      const CommandResult r = run("--policy policy.json");
      EXPECT_EQ(r.exit_code, 2) << tool << text;
      EXPECT_TRUE(Has(r.output, tool + ": --policy") && Has(r.output, message)) << tool << r.output;
    }
  }
}

TEST_F(Gate, PolicyKeysAcceptTheFlagSpellings) {
  // Near miss: fail_on as the file format spells it.
  WriteText(root() / "policy.json", R"({"fail_on": "note"})");
  EXPECT_TRUE(Has(Audit("--policy policy.json history/round-0001").output, "(fail-on note;"));
  WriteText(
      root() / "policy.json",
      R"({"fail-on": "warning", "expect-kind": ["lensemble"], "allow-group": ["encoder", "predictor", "adapter"]})");
  const CommandResult r = Audit("--policy policy.json -f json history/round-0001");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  const boost::json::value policy = boost::json::parse(r.output).at("policy");
  EXPECT_EQ(policy.at("fail_on").as_string(), "warning");
  EXPECT_EQ(policy.at("expected_kinds").at(0).as_string(), "lensemble");
  EXPECT_EQ(policy.at("allowed_groups").as_array().size(), 3u);
}

TEST_F(Gate, TheEffectivePolicyIsPrintedInJsonSarifAndSignedStatements) {
  WriteText(
      root() / "policy.json",
      R"({"severity": {"header-created-at-invalid": "warning"}, "allowed_groups": ["encoder", "predictor", "adapter"], "allow_wmcp_change": true})");
  auto policy_of = [](const boost::json::value& v) { return v.at("policy").as_object(); };
  const boost::json::object plain = policy_of(boost::json::parse(Audit("--format json history/round-0001").output));
  const boost::json::object with =
      policy_of(boost::json::parse(Audit("--policy policy.json --format json history/round-0001").output));
  EXPECT_EQ(with.at("severity").at("header-created-at-invalid").as_string(), "warning");
  EXPECT_EQ(with.at("allow_wmcp_change").as_bool(), true);
  EXPECT_EQ(with.at("policy_file").as_string(), "policy.json");
  EXPECT_EQ(with.at("allowed_groups").as_array().size(), 3u);
  EXPECT_EQ(plain.at("policy_file").kind(), boost::json::kind::null);
  // A lowered rule changes the fingerprint of the rule set in force; the count stays.
  EXPECT_NE(with.at("rules").at("fingerprint"), plain.at("rules").at("fingerprint"));
  EXPECT_EQ(with.at("rules").at("count"), plain.at("rules").at("count"));
  for (const auto& [tool, run] : Tools()) {
    EXPECT_TRUE(Has(run("--policy policy.json --format json").output, R"("header-created-at-invalid": "warning")"))
        << tool;
    run("--policy policy.json --format sarif -o p.sarif");
    const boost::json::value sarif = boost::json::parse(ReadText(root() / "p.sarif"));
    EXPECT_EQ(sarif.at("runs").at(0).at("properties").at("policy").at("rules").at("fingerprint"),
              with.at("rules").at("fingerprint"))
        << tool;
  }
}

// ---- CI formats against their schemas

TEST_F(Gate, JunitOfEveryToolValidatesAgainstTheJunitSchema) {
  if (std::system("xmllint --version >/dev/null 2>&1") != 0)
    CKPT_MISSING_PREREQUISITE() << "xmllint missing (libxml2-utils)";
  WriteText(root() / "junit.xsd", kJunitXsd);
  // A hostile name must stay text: markup characters and a control character in a round's path.
  fs::copy(rounds_[1].dir, root() / "history" / "<b>&'\"\x01", fs::copy_options::recursive);
  for (const auto& [tool, run] : Tools()) {
    const CommandResult r = run("--format junit -o " + tool + ".xml");
    EXPECT_EQ(r.exit_code, 1) << tool << r.output;
    const CommandResult v = RunCommand("xmllint --noout --schema " + ShellQuote(root() / "junit.xsd") + " " +
                                       ShellQuote(root() / (tool + ".xml")) + " 2>&1");
    EXPECT_EQ(v.exit_code, 0) << tool << v.output << ReadText(root() / (tool + ".xml"));
    const std::string xml = ReadText(root() / (tool + ".xml"));
    EXPECT_TRUE(Has(xml, "<failure type=\"error\" message=\"1 finding at or above error\">")) << xml;
    EXPECT_TRUE(Has(xml, "created_at is &apos;yesterday&apos;")) << xml;
  }
  const std::string audit =
      Audit("--format junit history/round-0001 history/round-0002 'history/<b>&'\"'\"'\"\x01'").output;
  EXPECT_TRUE(Has(audit, "tests=\"3\" failures=\"1\" errors=\"0\"")) << audit;
  EXPECT_TRUE(Has(audit, "<testcase name=\"history/&lt;b&gt;&amp;&apos;&quot;\\u0001\"")) << audit;
}

TEST_F(Gate, GitlabCodeQualityOfEveryToolValidatesAgainstItsSchema) {
  if (std::system("/usr/bin/python3 -c 'import jsonschema' >/dev/null 2>&1") != 0) {
    CKPT_MISSING_PREREQUISITE() << "python3-jsonschema missing (scripts/install-deps --test installs it)";
  }
  WriteText(root() / "codequality.schema.json", kGitlabSchema);
  WriteText(root() / "check.py", R"(
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
report = json.load(open(sys.argv[2]))
jsonschema.validate(report, schema)
fingerprints = [issue['fingerprint'] for issue in report]
assert len(fingerprints) == len(set(fingerprints)), 'fingerprints repeat'
print(len(report), 'issues')
)");
  for (const auto& [tool, run] : Tools()) {
    EXPECT_EQ(run("--format gitlab -o " + tool + ".json").exit_code, 1) << tool;
    const CommandResult v = RunCommand("/usr/bin/python3 " + ShellQuote(root() / "check.py") + " " +
                                       ShellQuote(root() / "codequality.schema.json") + " " +
                                       ShellQuote(root() / (tool + ".json")) + " 2>&1");
    EXPECT_EQ(v.exit_code, 0) << tool << v.output;
    const boost::json::value issues = boost::json::parse(ReadText(root() / (tool + ".json")));
    bool found = false;
    for (const boost::json::value& i : issues.as_array()) {
      if (i.at("check_name").as_string() != "header-created-at-invalid") continue;
      found = true;
      EXPECT_EQ(i.at("severity").as_string(), "major");
      EXPECT_EQ(i.at("location").at("path").as_string(), "history/round-0002/header.json");
      EXPECT_EQ(i.at("location").at("lines").at("begin").as_int64(), 1);
    }
    EXPECT_TRUE(found) << tool;
  }
}

// ---- many inputs

TEST_F(Gate, JobsKeepTheReportByteIdentical) {
  for (const char* format : {"text", "json", "sarif", "junit"}) {
    const std::string one = Audit(std::string("--jobs 1 --format ") + format + " history/*").output;
    const std::string two = Audit(std::string("--jobs 2 --format ") + format + " history/*").output;
    EXPECT_EQ(one, two) << format;
  }
}

TEST_F(Gate, InputsFromAFileOrStandardInput) {
  WriteText(root() / "inputs.txt", "history/round-0000\n\nhistory/round-0001\r\n");
  CommandResult r = Audit("--inputs-from inputs.txt");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Has(r.output, "2 artifacts: 2 passed, 0 failed")) << r.output;
  r = RunCommand("cd " + ShellQuote(root()) + " && printf 'history/round-0002\\n' | " + CKPT_AUDIT_BIN +
                 " --inputs-from - history/round-0000 2>&1");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(Has(r.output, "2 artifacts: 1 passed, 1 failed")) << r.output;
  EXPECT_EQ(Audit("--inputs-from missing.txt").exit_code, 2);
  // Issue 29 item 6: comments and blank (or blank-looking) lines are skipped; ./#name is a path.
  fs::copy(root() / "history/round-0000", root() / "history/#hash-named", fs::copy_options::recursive);
  WriteText(root() / "commented.txt",
            "# rounds gated nightly\n  \nhistory/round-0000\n  # history/round-0002 (known bad, #12)\n"
            "./history/#hash-named\n\t\n");
  r = Audit("--inputs-from commented.txt");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Has(r.output, "2 artifacts: 2 passed, 0 failed")) << r.output;
  fs::remove_all(root() / "history/#hash-named");
  // -f is --format; --no-color is --color never, and contradicts --color always.
  EXPECT_EQ(Audit("-f json history/round-0000").output, Audit("--format json history/round-0000").output);
  EXPECT_EQ(Audit("--no-color history/round-0002").output, Audit("--color never history/round-0002").output);
  EXPECT_EQ(Audit("--no-color --color always history/round-0000").exit_code, 2);
  // A NUL byte in a line: the line is refused, never its prefix audited.
  WriteText(root() / "nul.txt", std::string("history/round-0000\nhistory/round-0001\0/../round-0002\n", 53));
  r = Audit("--inputs-from nul.txt");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(
      Has(r.output, "--inputs-from 'nul.txt': line 2 holds a NUL byte, which no path can (nothing was audited)"))
      << r.output;
}

TEST_F(Gate, QuietPrintsOnlyWhatFails) {
  const CommandResult r = Audit("--quiet history/round-0000 history/round-0001 history/round-0002");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.output,
            where_ +
                ": error: created_at is 'yesterday', not an RFC 3339 date-time "
                "with offset Z, z or +00:00. [header-created-at-invalid ARTIFACT_INVALID]\n"
                "history/round-0002: FAIL (1 error, 0 warnings, 0 notes); kind lensemble; schema_version 1 "
                "(migrated to 2); content_hash " +
                rounds_[2].hash +
                " (recomputed, matches header.json)\n"
                "3 artifacts: 2 passed, 1 failed; 1 error, 0 warnings, 0 notes (fail-on error; ckpt-audit " CKPT_VERSION
                ")\n");
  // A passing input's warnings stay, one line each (its notes and its summary line do not).
  WriteText(root() / "policy.json", R"({"severity": {"header-created-at-invalid": "warning"}})");
  const CommandResult warned = Audit("--quiet --policy policy.json history/round-0001 history/round-0002");
  EXPECT_EQ(warned.exit_code, 0) << warned.output;
  EXPECT_EQ(warned.output, where_ +
                               ": warning: created_at is 'yesterday', not an RFC 3339 date-time "
                               "with offset Z, z or +00:00. [header-created-at-invalid ARTIFACT_INVALID]\n"
                               "2 artifacts: 2 passed, 0 failed; 0 errors, 1 warning, 0 notes (fail-on error; "
                               "ckpt-audit " CKPT_VERSION ")\n");
}

TEST_F(Gate, TheDefaultTextReportStartsWithFindingsAndVerboseAddsTheInventory) {
  const CommandResult r = Audit("history/round-0001 history/round-0002");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  // Findings first, then one line per input, then the summary.
  EXPECT_TRUE(r.output.starts_with(where_ + ": error: created_at is 'yesterday'")) << r.output;
  EXPECT_TRUE(
      Has(r.output, "\nhistory/round-0001: PASS; kind lensemble; schema_version 1 (migrated to 2); content_hash " +
                        rounds_[1].hash + " (recomputed, matches header.json)\nhistory/round-0002: FAIL"))
      << r.output;
  EXPECT_FALSE(Has(r.output, "weights.safetensors")) << r.output;
  for (const char* flag : {"--verbose", "-v", "--inventory"}) {
    const CommandResult v = Audit(std::string(flag) + " history/round-0001 history/round-0002");
    EXPECT_TRUE(v.output.starts_with("history/round-0001: PASS\n  kind lensemble\n")) << flag << v.output;
    EXPECT_TRUE(Has(v.output, "\n  files\n")) << flag << v.output;
    EXPECT_TRUE(Has(v.output, "    weights.safetensors  ")) << flag << v.output;
    EXPECT_TRUE(Has(v.output, "\n  " + where_ + ": error: created_at")) << flag << v.output;
  }
}

TEST_F(Gate, ProgressGoesToStandardErrorOnlyWhenAsked) {
  // Not a terminal: auto shows nothing; always shows the totals at the end, however short the
  // run (issue 29 item 7: a quick audit printed nothing), as a plain line with no escapes.
  CommandResult r =
      RunCommand("cd " + ShellQuote(root()) + " && " + CKPT_AUDIT_BIN + " --progress auto history/* 2>&1 >/dev/null");
  EXPECT_EQ(r.output, "");
  CommandResult always = RunCommand("cd " + ShellQuote(root()) + " && " + CKPT_AUDIT_BIN +
                                    " --progress always history/round-0000 history/round-0001 2>&1 >/dev/null");
  EXPECT_TRUE(always.output.starts_with("ckpt-audit: 2/2 inputs, ")) << always.output;
  EXPECT_TRUE(always.output.ends_with(" (done)\n")) << always.output;
  EXPECT_EQ(always.output.find('\r'), std::string::npos) << always.output;
  EXPECT_EQ(always.output.find('\033'), std::string::npos) << always.output;
  EXPECT_EQ(Audit("--progress sometimes history/round-0000").exit_code, 2);
}

}  // namespace
}  // namespace ckpt::testing
