// .ckpt-audit.json: found from the working directory up to the repository root (and no higher),
// or named by CKPT_AUDIT_CONFIG or --config; ignored with --no-config; the command line wins;
// every report says which file set defaults; a typo is a usage error that says "did you mean".
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>

#include "tests/support/artifact_builder.h"
#include "tests/support/built_tools.h"
#include "tests/support/history_builder.h"
#include "tests/support/process.h"

namespace ckpt::testing {
namespace {

namespace fs = std::filesystem;

bool Has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

class ConfigFile : public ::testing::Test {
 protected:
  void SetUp() override {
    // outer/repo is a repository (its .git a folder) holding two rounds, one with a
    // non-security error (created_at) that the repository's policy lowers to a warning.
    repo_ = dir_.path() / "outer" / "repo";
    rounds_ = WriteHistory(repo_ / "rounds", 3);
    fs::create_directories(repo_ / ".git");
    fs::create_directories(repo_ / "deep" / "er");
    fs::create_directories(repo_ / "ci");
    boost::json::value header = boost::json::parse(ReadText(rounds_[2].dir / "header.json"));
    header.as_object()["created_at"] = "yesterday";
    WriteText(rounds_[2].dir / "header.json", boost::json::serialize(header));
    WriteText(repo_ / "ci" / "policy.json", R"({"severity": {"header-created-at-invalid": "warning"}})");
  }
  // ckpt-audit run from `from` (under the temporary folder), without CKPT_AUDIT_CONFIG unless given.
  CommandResult Audit(const fs::path& from, const std::string& args, const std::string& env = "") const {
    return RunCommand("cd " + ShellQuote(from) + " && env -u CKPT_AUDIT_CONFIG " + env + " " + CKPT_AUDIT_BIN + " " +
                      args + " 2>&1");
  }
  [[nodiscard]] std::string Round2From(const fs::path& from) const {
    return ShellQuote(fs::relative(rounds_[2].dir, from));
  }
  TempDir dir_;
  fs::path repo_;
  std::vector<Round> rounds_;
};

TEST_F(ConfigFile, NearMissWithoutAConfigurationTheErrorFails) {
  const CommandResult run = Audit(repo_, Round2From(repo_));
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_TRUE(Has(run.output, "error: created_at is 'yesterday'")) << run.output;
  EXPECT_FALSE(Has(run.output, "; config ")) << run.output;
}

TEST_F(ConfigFile, FoundFromASubfolderUpToTheRepositoryRootAndSaidInEveryReport) {
  WriteText(repo_ / ".ckpt-audit.json", R"({"policy": "ci/policy.json", "ckpt-audit": {"quiet": true}})");
  const fs::path deep = repo_ / "deep" / "er";
  CommandResult run = Audit(deep, Round2From(deep));
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_TRUE(Has(run.output, "warning: created_at is 'yesterday'")) << run.output;
  EXPECT_TRUE(Has(run.output, "(fail-on error; ckpt-audit " CKPT_VERSION "; config ../../.ckpt-audit.json)\n"))
      << run.output;
  // JSON and SARIF carry it in the policy object, JUnit as a property.
  run = Audit(deep, "-f json " + Round2From(deep));
  EXPECT_EQ(boost::json::parse(run.output).at("policy").at("config_file").as_string(), "../../.ckpt-audit.json");
  EXPECT_EQ(boost::json::parse(run.output).at("policy").at("policy_file").as_string(), "../../ci/policy.json");
  run = Audit(deep, "-f sarif " + Round2From(deep));
  EXPECT_EQ(boost::json::parse(run.output).at("runs").at(0).at("properties").at("policy").at("config_file").as_string(),
            "../../.ckpt-audit.json");
  run = Audit(deep, "-f junit " + Round2From(deep));
  EXPECT_TRUE(Has(run.output, "<property name=\"config_file\" value=\"../../.ckpt-audit.json\"/>")) << run.output;
  // --no-config reads none; the command line wins over the file.
  run = Audit(deep, "--no-config " + Round2From(deep));
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_FALSE(Has(run.output, "; config ")) << run.output;
  run = Audit(deep, "--fail-on warning " + Round2From(deep));
  EXPECT_EQ(run.exit_code, 1) << run.output;
}

TEST_F(ConfigFile, NoFileAboveTheRepositoryRootIsRead) {
  WriteText(dir_.path() / "outer" / ".ckpt-audit.json", R"({"fail-on": "none"})");
  CommandResult run = Audit(repo_, Round2From(repo_));
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_FALSE(Has(run.output, "; config ")) << run.output;
  // Outside any repository only the working directory is looked in.
  fs::remove_all(repo_ / ".git");
  run = Audit(repo_, Round2From(repo_));
  EXPECT_EQ(run.exit_code, 1) << run.output;
  run = Audit(dir_.path() / "outer", Round2From(dir_.path() / "outer"));
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_TRUE(Has(run.output, "fail-on none")) << run.output;
}

TEST_F(ConfigFile, NamedByTheEnvironmentOrTheCommandLine) {
  WriteText(dir_.path() / "gate.json", R"({"fail_on": "none"})");
  const std::string named = ShellQuote(dir_.path() / "gate.json");
  CommandResult run = Audit(repo_, Round2From(repo_), "CKPT_AUDIT_CONFIG=" + named);
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_TRUE(Has(run.output, "; config " + (dir_.path() / "gate.json").string() + ")")) << run.output;
  run = Audit(repo_, "--config " + named + " " + Round2From(repo_));
  EXPECT_EQ(run.exit_code, 0) << run.output;
  run = Audit(repo_, Round2From(repo_), "CKPT_AUDIT_CONFIG=/nonexistent/gate.json");
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_TRUE(Has(run.output, "CKPT_AUDIT_CONFIG names '/nonexistent/gate.json', which is not a readable file"))
      << run.output;
  run = Audit(repo_, "--config " + named + " --no-config " + Round2From(repo_));
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_TRUE(Has(run.output, "--config and --no-config contradict")) << run.output;
}

TEST_F(ConfigFile, KeysThatCannotBeHonouredAreUsageErrors) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"fail-onn": "warning"})", "unknown key 'fail-onn' (did you mean \"fail-on\"?) (line 1, column 2)"},
      {R"({"polcy": "p.json"})", "unknown key 'polcy' (did you mean \"policy\"?)"},
      {R"({"no-hash": true})",
       "unknown key 'no-hash' at the top level: it is ckpt-audit's own option, so put it under \"ckpt-audit\""},
      {R"({"ckpt-audit": {"quiet": "yes"}})", "quiet is a string, not true or false (it is a flag)"},
      {R"({"output": "report.txt"})", "'output' cannot be set in a configuration file (give it on the command line)"},
      {R"({"fail-on": ["error"]})", "fail-on is an array, but the option takes one value"},
      {R"({"fail-on": "error", "fail-on": "note"})", "the key 'fail-on' appears twice in one object"},
      {R"(["fail-on"])", "the file is an array, not a JSON object"},
  };
  for (const auto& [text, message] : cases) {
    WriteText(repo_ / ".ckpt-audit.json", text);
    const CommandResult run = Audit(repo_, Round2From(repo_));
    EXPECT_EQ(run.exit_code, 2) << text << "\n" << run.output;
    EXPECT_TRUE(Has(run.output, "ckpt-audit: config '.ckpt-audit.json': " + message)) << text << "\n" << run.output;
  }
  // Another tool's section is that tool's: ckpt-audit leaves it alone.
  WriteText(repo_ / ".ckpt-audit.json",
            R"({"ckpt-diff": {"max-rel-l2": "0.5"}, "ckpt-audit": {"expect-kind": ["lensemble"]}})");
  EXPECT_EQ(Audit(repo_, Round2From(repo_)).exit_code, 1);
}

}  // namespace
}  // namespace ckpt::testing
