// ckpt-audit as a user runs it: options, exit codes (0 clean, 1 findings, 2 tool error),
// JSON that parses, -o, --list-rules, colour rules.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <boost/json.hpp>
#include <cstdio>
#include <fstream>
#include <map>

#include "rules/catalog.h"
#include "tests/support/artifact_builder.h"
#include "tests/support/built_tools.h"
#include "tests/support/model_folder_builder.h"
#include "tests/support/prerequisite.h"
#include "tests/support/process.h"

namespace ckpt::testing {
namespace {

struct CliRun {
  int exit_code = -1;
  std::string out;
  std::string err;
};

std::string ReadPipe(const std::string& cmd) { return RunCommand(cmd).output; }

CliRun Cli(const std::string& args, const std::string& env = "") {
  TempDir tmp;
  const std::string err_file = (tmp.path() / "stderr").string();
  const std::string cmd = env + (env.empty() ? "" : " ") + CKPT_AUDIT_BIN + " " + args + " 2>" + err_file;
  CommandResult result = RunCommand(cmd);
  CliRun run;
  run.exit_code = result.exit_code;
  run.out = std::move(result.output);
  std::ifstream in(err_file);
  run.err.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return run;
}

const std::string kClean = "fixtures/vectors/v1-single";

class CliTest : public ::testing::Test {
 protected:
  std::string Broken() {
    Files files = ArtifactSpec::Clean().Build();
    files["weights.safetensors"].back() ^= 1;  // hash mismatch
    WriteFiles(files, dir_.path() / "broken");
    return (dir_.path() / "broken").string();
  }
  std::string WarningOnly() {
    Files files = ArtifactSpec::Clean().Build();
    SafetensorsParts parts = SplitSafetensors(files["weights.safetensors"]);
    files["weights.safetensors"] = SafetensorsFile(" " + parts.header, parts.data);
    WriteFiles(files, dir_.path() / "warning");
    return (dir_.path() / "warning").string();
  }
  TempDir dir_;
};

TEST_F(CliTest, CleanArtifactExitsZero) {
  CliRun run = Cli(kClean);
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("PASS"), std::string::npos);
  EXPECT_NE(run.out.find("6cfc33b1d22878a421e587fe95100746ed8ee1ff5730d5c6a6e267aab5e9b31e"), std::string::npos);
  EXPECT_EQ(run.out.find("\033["), std::string::npos) << "no colour when stdout is not a terminal";
}

TEST_F(CliTest, FindingsExitOneAndNameRuleAndCode) {
  CliRun run = Cli(Broken());
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.out.find("[hash-mismatch CHECKPOINT_INTEGRITY]"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("header.json:1:"), std::string::npos) << "JSON findings give line and column: " << run.out;
}

TEST_F(CliTest, EachArtifactGetsItsOwnVerdict) {
  CliRun run = Cli("--format json " + kClean + " " + Broken());
  EXPECT_EQ(run.exit_code, 1);
  auto report = boost::json::parse(run.out).as_object();
  auto& artifacts = report["artifacts"].as_array();
  ASSERT_EQ(artifacts.size(), 2u);
  EXPECT_EQ(artifacts[0].as_object()["verdict"], "pass");
  EXPECT_EQ(artifacts[1].as_object()["verdict"], "fail");
  EXPECT_EQ(report["exit_code"], 1);
  EXPECT_EQ(report["report_schema_version"], 2);
}

TEST_F(CliTest, JsonFindingsCarryRuleCodeSeverityAndLocation) {
  CliRun run = Cli("--format json " + Broken());
  auto report = boost::json::parse(run.out).as_object();
  auto& artifact = report["artifacts"].as_array()[0].as_object();
  auto& finding = artifact["findings"].as_array()[0].as_object();
  EXPECT_EQ(finding["rule"], "hash-mismatch");
  EXPECT_EQ(finding["code"], "CHECKPOINT_INTEGRITY");
  EXPECT_EQ(finding["severity"], "error");
  EXPECT_EQ(finding["location"].as_object()["file"], "header.json");
  EXPECT_EQ(finding["location"].as_object()["json_pointer"], "/content_hash");
  EXPECT_TRUE(finding["location"].as_object().contains("line"));
  EXPECT_EQ(artifact["schema_version"].as_object()["as_written"], 1);
  EXPECT_EQ(artifact["schema_version"].as_object()["migrated"], 2);
  EXPECT_TRUE(artifact["content_hash"].as_object()["computed"].is_string());
  EXPECT_NE(artifact["content_hash"].as_object()["declared"], artifact["content_hash"].as_object()["computed"]);
}

TEST_F(CliTest, FailOnThreshold) {
  const std::string warning = WarningOnly();
  EXPECT_EQ(Cli(warning).exit_code, 0);
  EXPECT_EQ(Cli("--fail-on warning " + warning).exit_code, 1);
  EXPECT_EQ(Cli("--fail-on note " + warning).exit_code, 1);
  EXPECT_EQ(Cli("--fail-on none " + Broken()).exit_code, 0);
}

TEST_F(CliTest, NoHashChecksStructureOnly) {
  CliRun run = Cli("--no-hash --format json " + Broken());
  EXPECT_EQ(run.exit_code, 0) << run.out;
  auto report = boost::json::parse(run.out).as_object();
  auto& hash = report["artifacts"].as_array()[0].as_object()["content_hash"].as_object();
  EXPECT_TRUE(hash["computed"].is_null());
  EXPECT_EQ(hash["not_computed_reason"], "not recomputed (--no-hash)");
}

// Issue 8 item 3: --no-hash leaves a trace in every format, so switching to it cannot
// silently close open hash-mismatch alerts.
TEST_F(CliTest, NoHashIsAWarningInEveryFormat) {
  const std::string broken = Broken();
  CliRun text = Cli("--no-hash " + broken);
  EXPECT_EQ(text.exit_code, 0) << text.out;
  EXPECT_NE(text.out.find(": warning: Content hash not verified: --no-hash was given, so the tensor bytes were not "
                          "hashed and the declared '"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("[hash-not-verified CHECKPOINT_INTEGRITY]"), std::string::npos) << text.out;
  CliRun sarif = Cli("--no-hash --format sarif " + broken);
  auto run = boost::json::parse(sarif.out).as_object()["runs"].as_array()[0].as_object();
  ASSERT_EQ(run["results"].as_array().size(), 1u) << sarif.out;
  EXPECT_EQ(run["results"].as_array()[0].as_object()["ruleId"], "hash-not-verified");
  EXPECT_EQ(run["results"].as_array()[0].as_object()["level"], "warning");
  EXPECT_EQ(Cli("--no-hash --fail-on warning " + broken).exit_code, 1);
  // Near miss: with the hash computed there is no such warning.
  EXPECT_EQ(Cli(kClean).out.find("hash-not-verified"), std::string::npos);
}

// Issue 8 item 4: --fail-on none stops gating, not judging: FAIL stays FAIL, exit is 0.
TEST_F(CliTest, FailOnNoneKeepsTheVerdictAndSaysItIsNotGating) {
  ArtifactSpec spec = ArtifactSpec::Clean();
  spec.tensors.push_back({"encoder.action_head.w", "encoder", "float32", {2}, ""});
  WriteFiles(spec.Build(), dir_.path() / "head");
  const std::string path = (dir_.path() / "head").string();
  CliRun text = Cli("--fail-on none " + path);
  EXPECT_EQ(text.exit_code, 0) << text.out;
  EXPECT_NE(text.out.find(path + ": FAIL"), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find("PASS"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("(fail-on none: not gating, the exit status ignores findings; ckpt-audit "),
            std::string::npos)
      << text.out;
  auto json = boost::json::parse(Cli("--fail-on none --format json " + path).out).as_object();
  EXPECT_EQ(json["artifacts"].as_array()[0].as_object()["verdict"], "fail");
  EXPECT_EQ(json["gating"], false);
  EXPECT_EQ(json["exit_code"], 0);
  EXPECT_EQ(json["summary"].as_object()["failed"], 1);
  // Near miss: a clean artifact is PASS with --fail-on none too.
  EXPECT_NE(Cli("--fail-on none " + kClean).out.find(": PASS"), std::string::npos);
}

// Issue 8 item 7, as issue 51 item 1 refined it: a report may be written inside an audited
// folder when the audit would only list it (it is then left out of the audit); a path naming
// the input or a file the audit judges is refused before anything is written.
TEST_F(CliTest, AReportInsideAnInputIsLeftOutOfItsAuditAndAJudgedFileIsRefused) {
  WriteFiles(ArtifactSpec::Clean().Build(), dir_.path() / "art");
  const std::string art = (dir_.path() / "art").string();
  const std::string before = ReadFiles(art).at("header.json");
  const std::pair<std::string, std::string> refused[] = {
      {art + "/header.json",
       "names a file the audit of '" + art + "' judges (a Lensemble artifact's file is named so)"},
      {art + "/./weights.safetensors", "names a file the audit of '" + art + "' judges"},
      {art + "/notes.pkl",
       "names a file the audit of '" + art + "' judges (its extension names a format the audit reads)"},
      {art + "/sub/..", "is the audited input '" + art + "'"}};
  for (const auto& [out, why] : refused) {
    CliRun run = Cli("-o " + out + " " += art);
    EXPECT_EQ(run.exit_code, 2) << out;
    EXPECT_NE(run.err.find(std::string("-o '").append(out).append("' ").append(why)), std::string::npos) << run.err;
  }
  EXPECT_EQ(ReadFiles(art).at("header.json"), before);
  EXPECT_EQ(ReadFiles(art).size(), 2u) << "nothing was added to the artifact";
  // A report inside: written, listed as left out, and a second run with it present judges the
  // same files and gives the same verdict.
  const std::string report = art + "/audit.json";
  for (int run = 0; run < 2; ++run) {
    CliRun audited = Cli(std::string("-f json -o ")
                             .append(report)
                             .append(" --report sarif=")
                             .append(art)
                             .append("/audit.sarif ")
                             .append(art));
    ASSERT_EQ(audited.exit_code, 0) << audited.err;
    auto json = boost::json::parse(ReadFiles(art).at("audit.json")).as_object();
    const auto& artifact = json["artifacts"].as_array()[0].as_object();
    EXPECT_EQ(artifact.at("verdict"), "pass") << run;
    EXPECT_EQ(artifact.at("files").as_array().size(), 2u) << run;
    EXPECT_EQ(boost::json::serialize(artifact.at("excluded")),
              R"([{"name":"audit.json","why":"a report this run writes"},)"
              R"({"name":"audit.sarif","why":"a report this run writes"}])");
  }
  // A file the report would replace that is no report: refused by what it holds.
  const std::string pickle = art + "/old.json";
  std::ofstream(pickle, std::ios::binary) << std::string("\x80\x02}q\x00.", 6);
  CliRun run = Cli("-o " + pickle + " " + art);
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(
      run.err.find("-o '" + pickle + "' names a file the audit of '" + art + "' judges (it holds a Python pickle"),
      std::string::npos)
      << run.err;
  std::filesystem::remove(pickle);
  // Only this run's own reports are left out: another run judges the ones left behind.
  CliRun other = Cli(art);
  EXPECT_EQ(other.exit_code, 1);
  EXPECT_NE(other.out.find(art + "/audit.json: error: 'audit.json' is a file that the artifact layout does not allow"),
            std::string::npos)
      << other.out;
  std::filesystem::remove(art + "/audit.json");
  std::filesystem::remove(art + "/audit.sarif");
  // Near miss: beside the artifact is fine, and the report replaces the old file whole.
  const std::string beside = (dir_.path() / "art.report").string();
  std::ofstream(beside) << "old";
  EXPECT_EQ(Cli("-o " + beside + " " + art).exit_code, 0);
  std::ifstream in(beside);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text.rfind(art + ": PASS", 0), 0u) << text;
}

// Issue 51 item 1: a Hugging Face repository whose model is its root, audited as `.` with
// every report written at the root (as GitLab requires), passes on the second run as on the
// first; a configuration or code file name stays refused.
TEST_F(CliTest, ARepositoryRootModelIsAuditedWithItsReportsInside) {
  const std::filesystem::path repo = dir_.path() / "repo";
  std::filesystem::create_directories(repo);
  WriteText(repo / "model.safetensors",
            SafetensorsFile(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", std::string(8, '\0')));
  const std::string in_repo = "cd " + ShellQuote(repo) + " &&";
  WriteText(repo / "config.json", R"({"model_type": "llama"})");
  WriteText(repo / "README.md", "# a model\n");
  const std::string reports =
      "--report gitlab=gl-code-quality-report.json --report junit=ckpt-audit.junit.xml --report sarif=ckpt-audit.sarif";
  std::string first;
  for (int run = 0; run < 2; ++run) {
    CliRun audited = Cli("-f json -o audit.json " + reports + " .", in_repo);
    ASSERT_EQ(audited.exit_code, 0) << audited.err;
    auto json = boost::json::parse(ReadText(repo / "audit.json")).as_object();
    auto& artifact = json["artifacts"].as_array()[0].as_object();
    EXPECT_EQ(artifact["excluded"].as_array().size(), 4u);
    std::vector<std::string> files;
    for (const auto& f : artifact["files"].as_array()) files.emplace_back(f.as_object().at("name").as_string());
    std::sort(files.begin(), files.end());
    EXPECT_EQ(files, (std::vector<std::string>{"README.md", "config.json", "model.safetensors"})) << run;
    const std::string verdict =
        boost::json::serialize(artifact["findings"]) + std::string(artifact["verdict"].as_string());
    if (run == 0) first = verdict;
    EXPECT_EQ(verdict, first);
  }
  for (const char* judged : {"config.json", "tokenizer_config.json", "modeling_evil.py", "model.safetensors.index.json",
                             "pytorch_model.bin"}) {
    CliRun run = Cli(std::string("--report sarif=") + judged + " .", in_repo);
    EXPECT_EQ(run.exit_code, 2) << judged;
    EXPECT_NE(run.err.find("--report '" + std::string(judged) + "' names a file the audit of '.' judges"),
              std::string::npos)
        << run.err;
  }
}

// Issue 51 papercuts: an empty folder is located as itself (never "empty/."), in text and
// SARIF; a lone Git LFS pointer named as weights gets one error for its one cause; --help and
// the manual open with what the tool audits, not with one format.
TEST_F(CliTest, PapercutsOfLocationsDuplicatesAndTheFirstLine) {
  const std::string empty = (dir_.path() / "empty").string();
  std::filesystem::create_directories(empty);
  CliRun run = Cli(empty);
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.out.rfind(empty + ": error: The folder holds no weight file", 0), 0u) << run.out;
  auto sarif = boost::json::parse(Cli("-f sarif " + empty).out);
  const auto& uri = sarif.at("runs")
                        .at(0)
                        .at("results")
                        .at(0)
                        .at("locations")
                        .at(0)
                        .at("physicalLocation")
                        .at("artifactLocation")
                        .at("uri");
  EXPECT_EQ(uri.as_string().find("header.json"), std::string::npos) << uri;
  EXPECT_TRUE(uri.as_string().ends_with("empty")) << uri;

  const std::string lone = (dir_.path() / "lone.safetensors").string();
  WriteText(lone, "version https://git-lfs.github.com/spec/v1\noid sha256:" + std::string(64, 'a') + "\nsize 1234\n");
  run = Cli(lone);
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.out.find("[input-unrecognised CHECKPOINT_INTEGRITY]"), std::string::npos) << run.out;
  EXPECT_EQ(run.out.find("[input-name-mismatch"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("FAIL (1 error, 0 warnings, 0 notes)"), std::string::npos) << run.out;

  const std::string help = Cli("--help").out;
  const std::size_t description = help.find("\n\n") + 2;
  EXPECT_EQ(help.substr(description, 57), "Audits machine-learning checkpoints without running them:") << help;
  EXPECT_NE(Cli("--man-page")
                .out.find(".SH NAME\nckpt\\-audit \\- Audits machine\\-learning checkpoints without "
                          "running them"),
            std::string::npos);
}

// whatis and apropos show a man page's NAME line: each tool's is its one-sentence summary,
// whole (a clause cut at a ':' inside parentheses read "Audits checkpoints A and B (any
// input ckpt-audit reads"), and --help opens with the same sentence.
TEST_F(CliTest, EachToolsManPageNamesItInOneSentence) {
  const std::map<std::string, std::string> summaries = {
      {"ckpt-audit", "Audits machine-learning checkpoints without running them"},
      {"ckpt-diff", "Compares two checkpoints tensor by tensor after auditing both"},
      {"ckpt-chain", "Checks Lensemble rounds as one parent_hash history after auditing each"},
      {"ckpt-convert", "Converts pickle checkpoints to safetensors without unpickling them"}};
  for (const auto& [tool, summary] : summaries) {
    const std::string page = RunCommand(::ckpt::testing::BuiltTool(tool.c_str()) + " --man-page").output;
    // The NAME line with roff's escapes (\- for each hyphen) taken off.
    std::string line = page.substr(page.find(".SH NAME\n") + 9);
    line = line.substr(0, line.find('\n'));
    std::string plain;
    for (char c : line) {
      if (c != '\\') plain += c;
    }
    std::string name_line = tool;
    name_line.append(" - ").append(summary);
    EXPECT_EQ(plain, name_line) << page.substr(0, 300);
    const std::string help = RunCommand(::ckpt::testing::BuiltTool(tool.c_str()) + " --help").output;
    EXPECT_EQ(help.substr(help.find("\n\n") + 2, summary.size()), summary) << tool;
  }
}

// Issue 51 papercuts: "did you mean" for an option, an input kind and a rule id; a name far
// from every one gets none.
TEST_F(CliTest, TyposOfOptionsKindsAndRulesSuggestTheNearestName) {
  CliRun run = Cli("--fail-onn error " + kClean);
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("ckpt-audit: unrecognised option '--fail-onn'; did you mean '--fail-on'?"), std::string::npos)
      << run.err;
  run = Cli("--expect-kind safetensor " + kClean);
  EXPECT_NE(run.err.find("--expect-kind 'safetensor' is not an input kind; did you mean 'safetensors'?"),
            std::string::npos)
      << run.err;
  WriteText(dir_.path() / "policy.json", R"({"severity": {"pickle-global-unsafee": "error"}})");
  run = Cli("--policy " + (dir_.path() / "policy.json").string() + " " + kClean);
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("severity names unknown rule 'pickle-global-unsafee'; did you mean 'pickle-global-unsafe'?"),
            std::string::npos)
      << run.err;
  // Near miss: nothing close, nothing suggested.
  run = Cli("--zzzzzzzz " + kClean);
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.err.find("did you mean"), std::string::npos) << run.err;
}

// Issue 8 item 8: output that cannot be written is exit 2, even for --help.
TEST_F(CliTest, UnwritableStandardOutputIsAToolError) {
  for (const char* args : {"--help", "--version", "--list-rules", "--list-rules --format json"}) {
    CliRun run = Cli(std::string(args) + " >/dev/full");
    EXPECT_EQ(run.exit_code, 2) << args;
    EXPECT_NE(run.err.find("ckpt-audit: "), std::string::npos) << args;
  }
  EXPECT_EQ(Cli(kClean + " >/dev/full").exit_code, 2);
}

// Issue 8 item 11: what is dropped is said in every format.
TEST_F(CliTest, DroppedFindingsAreCountedInEveryFormat) {
  Files files = ArtifactSpec::Clean().Build();
  EditHeader(files, [](boost::json::object& h) {
    for (int i = 0; i < 300; ++i) {
      h["tensor_manifest"].as_array().push_back({{"name", "predictor.z" + std::to_string(1000 + i)},
                                                 {"group", "predictor"},
                                                 {"dtype", "int8"},
                                                 {"shape", {1}}});
    }
  });
  WriteFiles(files, dir_.path() / "flood");
  const std::string path = (dir_.path() / "flood").string();
  CliRun text = Cli(path);
  EXPECT_NE(text.out.find("... and 200 more header-dtype-invalid findings in header.json, not shown"),
            std::string::npos)
      << text.out.substr(0, 2000);
  auto json = boost::json::parse(Cli("--format json " + path).out).as_object();
  bool counted = false;
  for (const auto& d : json["artifacts"].as_array()[0].as_object()["dropped_findings"].as_array()) {
    if (d.as_object().at("rule") == "header-dtype-invalid") counted = d.as_object().at("count") == 200;
  }
  EXPECT_TRUE(counted);
  const std::string sarif = Cli("--format sarif " + path).out;
  EXPECT_NE(sarif.find("200 more header-dtype-invalid findings in header.json"), std::string::npos);
  CliRun capped = Cli("--max-findings 3 --format json " + path);
  EXPECT_EQ(capped.exit_code, 1);
  EXPECT_EQ(
      boost::json::parse(capped.out).as_object()["artifacts"].as_array()[0].as_object()["findings"].as_array().size(),
      3u);
}

// Issue 29 item 7: a Git LFS pointer where weights should be says to run git lfs pull, in a
// model folder (not only "no weight file") and as a lone file; a near miss: a real config
// file named like weights' neighbours stays quiet. The JUnit failure message counts only
// what fails the case.
TEST_F(CliTest, GitLfsPointersSayGitLfsPull) {
  const std::string pointer = "version https://git-lfs.github.com/spec/v1\noid sha256:abc\nsize 123\n";
  const std::filesystem::path model = dir_.path() / "hf-model";
  std::filesystem::create_directories(model);
  WriteText(model / "pytorch_model.bin", pointer);
  WriteText(model / "config.json", "{}");
  WriteText(model / "README.md", pointer);  // not a weight name: only listed
  CliRun run = Cli(model.string());
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.out.find("/pytorch_model.bin@0: error: 'pytorch_model.bin' is a Git LFS pointer (the weights were "
                         "never downloaded); fetch the weights with git lfs pull (in GitHub Actions: "
                         "actions/checkout with lfs: true), then audit again. "
                         "[weights-format-git-lfs-pointer CHECKPOINT_INTEGRITY]"),
            std::string::npos)
      << run.out;
  EXPECT_EQ(run.out.find("'README.md' is a Git LFS pointer"), std::string::npos) << run.out;
  CliRun lone = Cli((model / "pytorch_model.bin").string());
  EXPECT_NE(lone.out.find("'pytorch_model.bin' is a Git LFS pointer (the weights were never downloaded): fetch the "
                          "weights with git lfs pull (in GitHub Actions: actions/checkout with lfs: true), then audit "
                          "again. [input-unrecognised CHECKPOINT_INTEGRITY]"),
            std::string::npos)
      << lone.out;

  // Two errors, one of them turned into a note by a policy: the message counts one failure.
  WriteText(dir_.path() / "policy.json", R"({"severity": {"input-no-weights": "note"}})");
  CliRun junit = Cli("--format junit --policy " + (dir_.path() / "policy.json").string() + " " + model.string());
  EXPECT_NE(junit.out.find("<failure type=\"error\" message=\"1 finding at or above error\">"), std::string::npos)
      << junit.out;
  EXPECT_NE(junit.out.find("input-no-weights"), std::string::npos) << junit.out;  // still listed
}

// Issue 29 item 7: the README's pre-commit recipes (run as written, from the README) audit the
// folder of each staged weight file, so a changed shard is judged with its index and siblings.
TEST_F(CliTest, PreCommitRecipesAuditTheFoldersOfChangedFiles) {
  if (RunCommand("git --version >/dev/null 2>&1").exit_code != 0) CKPT_MISSING_PREREQUISITE() << "git missing";
  const std::string readme = ReadText(std::filesystem::path(CKPT_SOURCE_DIR) / "README.md");
  const std::size_t hook_at = readme.find("or as a plain `.git/hooks/pre-commit`:");
  ASSERT_NE(hook_at, std::string::npos);
  const std::size_t body = readme.find("#!/bin/sh\n", hook_at);
  const std::string hook = readme.substr(body, readme.find("```", body) - body);
  const std::size_t entry_at = readme.find("        entry: ", readme.rfind("id: ckpt-audit", hook_at));
  ASSERT_NE(entry_at, std::string::npos);
  const std::string entry = readme.substr(entry_at + 15, readme.find('\n', entry_at) - entry_at - 15);

  const std::filesystem::path repo = dir_.path() / "repo";
  ModelFolderSpec sharded;
  sharded.shards = 2;
  WriteFiles(sharded.Build(), repo / "models" / "sharded");
  WriteText(repo / "hook.sh", hook);  // no baseline yet: the recipes work without one (issue 51)
  const std::string in_repo = "cd " + ShellQuote(repo) +
                              " && PATH=" + ShellQuote(std::filesystem::path(CKPT_AUDIT_BIN).parent_path()) + ":$PATH ";
  ASSERT_EQ(RunCommand(in_repo + "git init -q . && git add -A 2>&1").exit_code, 0);
  const CommandResult plain = RunCommand(in_repo + "sh hook.sh 2>&1");
  EXPECT_EQ(plain.exit_code, 0) << plain.output;
  EXPECT_NE(plain.output.find("1 artifact: 1 passed"), std::string::npos) << plain.output;  // the folder, once
  // pre-commit splits `entry` as a shell would and appends the staged files.
  const CommandResult framework = RunCommand(
      in_repo +
      "/usr/bin/python3 -c 'import shlex, subprocess, sys; "
      "sys.exit(subprocess.call(shlex.split(sys.argv[1]) + sys.argv[2:]))' " +
      ShellQuote(entry) +
      " models/sharded/model-00001-of-00002.safetensors models/sharded/model-00002-of-00002.safetensors 2>&1");
  EXPECT_EQ(framework.exit_code, 0) << entry << "\n" << framework.output;
  EXPECT_NE(framework.output.find("1 artifact: 1 passed"), std::string::npos) << framework.output;
  // A broken shard still fails the hook (xargs turns ckpt-audit's 1 into 123: any non-zero
  // status stops the commit).
  WriteText(repo / "models/sharded/model-00002-of-00002.safetensors", "not safetensors");
  ASSERT_EQ(RunCommand(in_repo + "git add -A").exit_code, 0);
  const CommandResult broken = RunCommand(in_repo + "sh hook.sh 2>&1");
  EXPECT_NE(broken.exit_code, 0);
  EXPECT_NE(broken.output.find("model-00002-of-00002.safetensors"), std::string::npos) << broken.output;
}

// Issue 8 item 15: a file of another format is named for what it is, without the
// nonsense length its bytes give when read as a safetensors prefix.
TEST_F(CliTest, SniffedFormatsSayNoNonsenseLength) {
  Files files = ArtifactSpec::Clean().Build();
  files["weights.safetensors"] = "version https://git-lfs.github.com/spec/v1\noid sha256:abc\nsize 123\n";
  WriteFiles(files, dir_.path() / "lfs");
  CliRun run = Cli((dir_.path() / "lfs").string());
  EXPECT_NE(run.out.find("/weights.safetensors@0: error: weights.safetensors is a Git LFS pointer (the weights were "
                         "never downloaded), not safetensors; fetch the weights with git lfs pull (in GitHub Actions: "
                         "actions/checkout with lfs: true), then audit again. "
                         "[weights-format-git-lfs-pointer CHECKPOINT_INTEGRITY]"),
            std::string::npos)
      << run.out;
  EXPECT_EQ(run.out.find("header length"), std::string::npos) << run.out;
}

TEST_F(CliTest, ListRulesAsSarif) {
  CliRun run = Cli("--list-rules --format sarif");
  EXPECT_EQ(run.exit_code, 0);
  auto sarif = boost::json::parse(run.out).as_object();
  auto& driver = sarif["runs"].as_array()[0].as_object()["tool"].as_object()["driver"].as_object();
  EXPECT_EQ(driver["rules"].as_array().size(), rules::AllRules().size());
  EXPECT_TRUE(sarif["runs"].as_array()[0].as_object()["results"].as_array().empty());
}

TEST_F(CliTest, ExpectHash) {
  EXPECT_EQ(Cli("--expect-hash 6CFC33B1D22878A421E587FE95100746ED8EE1FF5730D5C6A6E267AAB5E9B31E " + kClean).exit_code,
            0);
  CliRun run = Cli("--expect-hash " + std::string(64, 'a') + " " + kClean);
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.out.find("[hash-unexpected CHECKPOINT_INTEGRITY]"), std::string::npos) << run.out;
}

TEST_F(CliTest, OutputFile) {
  const std::string file = (dir_.path() / "report.json").string();
  CliRun run = Cli("--format json -o " + file + " " + kClean);
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_TRUE(run.out.empty());
  std::ifstream in(file);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(boost::json::parse(text).as_object()["summary"].as_object()["passed"], 1);
}

TEST_F(CliTest, AllowGroupIsReportedNeverSilent) {
  Files files = ArtifactSpec::Clean().Build();
  ArtifactSpec spec = ArtifactSpec::Clean();
  spec.param_groups.push_back("gripper");
  spec.tensors.push_back({"gripper.w", "gripper", "float32", {2}, ""});
  WriteFiles(spec.Build(), dir_.path() / "gripper");
  const std::string path = (dir_.path() / "gripper").string();
  CliRun refused = Cli(path);
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_NE(refused.out.find("[residency-group-not-shared RESIDENCY_VIOLATION]"), std::string::npos);
  CliRun widened = Cli("--allow-group gripper " + path);
  EXPECT_EQ(widened.exit_code, 0) << widened.out;
  EXPECT_NE(widened.out.find("[residency-policy-widened RESIDENCY_VIOLATION]"), std::string::npos) << widened.out;
  EXPECT_EQ(Cli("--fail-on note --allow-group gripper " + path).exit_code, 1);
  // Issue 8 item 13: artifacts that do not use the widened group get no note.
  CliRun others = Cli("--fail-on note --allow-group gripper " + path + " " + kClean);
  EXPECT_EQ(others.exit_code, 1);
  EXPECT_NE(others.out.find(kClean + ": PASS"), std::string::npos) << others.out;
  EXPECT_EQ(others.out.find("residency-policy-widened", others.out.find(kClean + ": PASS")), std::string::npos)
      << others.out;
}

// Issue 8 item 13: --expect-hash names its artifact when several are audited.
TEST_F(CliTest, ExpectHashIsPerArtifact) {
  const std::string hash = "6cfc33b1d22878a421e587fe95100746ed8ee1ff5730d5c6a6e267aab5e9b31e";
  const std::string other = "fixtures/vectors/v2-single";
  CliRun bare = Cli("--expect-hash " + hash + " " + kClean + " " + other);
  EXPECT_EQ(bare.exit_code, 2);
  EXPECT_NE(bare.err.find("--expect-hash PATH=HEX"), std::string::npos) << bare.err;
  CliRun scoped = Cli("--expect-hash " + kClean + "=" + hash + " " + kClean + " " + other);
  EXPECT_EQ(scoped.exit_code, 0) << scoped.out;
  CliRun wrong = Cli("--expect-hash " + other + "=" + hash + " " + kClean + " " + other);
  EXPECT_EQ(wrong.exit_code, 1) << wrong.out;
  EXPECT_NE(wrong.out.find("[hash-unexpected CHECKPOINT_INTEGRITY]"), std::string::npos) << wrong.out;
  EXPECT_EQ(wrong.out.find(kClean + ": FAIL"), std::string::npos) << "the pin applies to its artifact only";
  EXPECT_EQ(Cli("--expect-hash /elsewhere=" + hash + " " + kClean + " " + other).exit_code, 2);
}

TEST_F(CliTest, ToolErrorsExitTwo) {
  CliRun missing = Cli("/nonexistent/artifact");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("No such file or directory"), std::string::npos) << missing.err;
  EXPECT_EQ(Cli(kClean + " /nonexistent/artifact").exit_code, 2);
  EXPECT_EQ(Cli("").exit_code, 2) << "nothing to audit";
  EXPECT_EQ(Cli("--format xml " + kClean).exit_code, 2);
  EXPECT_EQ(Cli("--fail-on sometimes " + kClean).exit_code, 2);
  EXPECT_EQ(Cli("--expect-hash abc " + kClean).exit_code, 2);
  EXPECT_EQ(Cli("--no-hash --expect-hash " + std::string(64, 'a') + " " + kClean).exit_code, 2);
  EXPECT_EQ(Cli("--bogus " + kClean).exit_code, 2);
  CliRun bad_output = Cli("-o /nonexistent/dir/report.txt " + kClean);
  EXPECT_EQ(bad_output.exit_code, 2);
  EXPECT_NE(bad_output.err.find("ckpt-audit: "), std::string::npos);
}

TEST_F(CliTest, HelpAndVersion) {
  CliRun help = Cli("--help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("Exit status:"), std::string::npos);
  EXPECT_NE(help.out.find("--expect-hash"), std::string::npos);
  CliRun version = Cli("--version");
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_EQ(version.out, std::string("ckpt-audit ") + CKPT_VERSION + "\n");
}

TEST_F(CliTest, ListRulesJsonHasTheWholeCatalog) {
  CliRun run = Cli("--list-rules --format json");
  EXPECT_EQ(run.exit_code, 0);
  auto list = boost::json::parse(run.out).as_object()["rules"].as_array();
  ASSERT_EQ(list.size(), rules::AllRules().size());
  for (const auto& item : list) {
    const auto& rule = item.as_object();
    for (const char* key : {"id", "name", "code", "severity", "title", "explanation", "remediation", "source"}) {
      ASSERT_TRUE(rule.contains(key)) << key;
    }
    EXPECT_FALSE(rule.at("explanation").as_string().empty());
  }
  CliRun text = Cli("--list-rules");
  EXPECT_NE(text.out.find("residency-action-head"), std::string::npos);
}

TEST_F(CliTest, ColourOnlyOnATerminalAndNeverWithNoColor) {
  if (std::system("command -v script >/dev/null 2>&1") != 0) CKPT_MISSING_PREREQUISITE() << "script(1) not installed";
  const std::string tty = "script -qec '" + std::string(CKPT_AUDIT_BIN) + " " + kClean + "' /dev/null";
  EXPECT_NE(ReadPipe(tty).find("\033[32m"), std::string::npos) << "PASS is green on a terminal";
  EXPECT_EQ(ReadPipe("NO_COLOR=1 " + tty).find("\033["), std::string::npos) << "NO_COLOR disables colour";
  // Issue 8 item 15: only a non-empty NO_COLOR counts (no-color.org); --color overrides.
  EXPECT_NE(ReadPipe("NO_COLOR= " + tty).find("\033[32m"), std::string::npos) << "empty NO_COLOR is unset";
  const std::string never = "script -qec '" + std::string(CKPT_AUDIT_BIN) + " --color never " + kClean + "' /dev/null";
  EXPECT_EQ(ReadPipe(never).find("\033["), std::string::npos);
  EXPECT_NE(Cli("--color always " + kClean).out.find("\033[32mPASS"), std::string::npos);
  EXPECT_EQ(Cli("--color sometimes " + kClean).exit_code, 2);
}

}  // namespace
}  // namespace ckpt::testing
