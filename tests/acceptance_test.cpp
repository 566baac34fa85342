// Reviewed acceptances (an `accept` entry of the policy or baseline file): a trainer's pickle
// (transformers' TrainingArguments, numpy's RNG state) or a reviewed trust_remote_code file is
// accepted for the bytes someone reviewed and the globals and calls named, nothing more. A
// changed byte, a global or call not named, an expired entry or bytes not hashed fail again and
// say why; accepted findings stay visible in every report and in the signed statement.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>

#include "tests/support/artifact_builder.h"
#include "tests/support/built_tools.h"
#include "tests/support/pickle_builder.h"
#include "tests/support/prerequisite.h"
#include "tests/support/process.h"

namespace ckpt::testing {
namespace {

namespace fs = std::filesystem;

bool Has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

constexpr const char* kGlobal = "transformers.training_args.TrainingArguments";
constexpr const char* kCall = "transformers.training_args.TrainingArguments('out')";

// A pickle as transformers' Trainer writes training_args.bin: one import of its own class, called.
std::string TrainingArgsPickle(const std::string& argument = "out", const std::string& extra = "") {
  return pk::Proto(2) + pk::CallWithStr("transformers.training_args", "TrainingArguments", argument) + extra +
         pk::kStop;
}

class Acceptance : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(root() / "repo" / "ckpt");
    WriteText(root() / "repo" / "ckpt" / "training_args.bin", TrainingArgsPickle());
    sha_ = Sha256Of(root() / "repo" / "ckpt" / "training_args.bin");
  }
  [[nodiscard]] const fs::path& root() const { return dir_.path(); }
  static std::string Sha256Of(const fs::path& file) {
    const CommandResult run = RunCommand("sha256sum " + ShellQuote(file));
    EXPECT_EQ(run.exit_code, 0) << run.output;
    return run.output.substr(0, 64);
  }
  // A policy file in repo/ with one acceptance of ckpt/training_args.bin.
  void Policy(const std::string& sha256, const std::string& globals, const std::string& calls,
              const std::string& expires = "2099-12-31") const {
    WriteText(root() / "repo" / "policy.json", R"({"accept": [{"path": "ckpt/training_args.bin", "sha256": ")" +
                                                   sha256 + R"(", "globals": [)" + globals + R"(], "calls": [)" +
                                                   calls + R"(], "reason": "Trainer arguments, reviewed in #7", )" +
                                                   R"("expires": ")" + expires + R"("}]})");
  }
  void ReviewedPolicy() const { Policy(sha_, Quoted(kGlobal), Quoted(kCall)); }
  static std::string Quoted(const std::string& s) { return boost::json::serialize(boost::json::value(s)); }
  // Runs ckpt-audit from `from` (relative to the temporary folder).
  CommandResult Audit(const std::string& args, const std::string& from = "repo") const {
    return RunCommand("cd " + ShellQuote(root() / from) + " && " + CKPT_AUDIT_BIN + " " + args + " 2>&1");
  }
  TempDir dir_;
  std::string sha_;
};

TEST_F(Acceptance, NearMissWithoutAnAcceptanceTheTrainerPickleFails) {
  const CommandResult run = Audit("ckpt/training_args.bin");
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_TRUE(Has(run.output, "error: GLOBAL at byte 2 imports " + std::string(kGlobal))) << run.output;
  EXPECT_TRUE(Has(run.output, "[pickle-call-unsafe CHECKPOINT_INTEGRITY]")) << run.output;
  EXPECT_FALSE(Has(run.output, "accepted by")) << run.output;
}

TEST_F(Acceptance, TheReviewedBytesAndGlobalsPassAndStayListed) {
  ReviewedPolicy();
  const CommandResult run = Audit("--policy policy.json ckpt/training_args.bin");
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_TRUE(
      Has(run.output, "2 findings accepted by reviewed acceptance 1 of policy.json for the bytes with SHA-256 " + sha_ +
                          ", until 2099-12-31: Trainer arguments, reviewed in #7:\n"))
      << run.output;
  EXPECT_TRUE(Has(run.output, "ckpt/training_args.bin@2: error: GLOBAL at byte 2 imports " + std::string(kGlobal)))
      << run.output;
  EXPECT_FALSE(Has(run.output, "baseline-acceptance-void")) << run.output;
  // --quiet says that findings were accepted, in one line.
  const CommandResult quiet = Audit("--quiet --policy policy.json ckpt/training_args.bin");
  EXPECT_EQ(quiet.exit_code, 0) << quiet.output;
  EXPECT_TRUE(Has(quiet.output,
                  "ckpt/training_args.bin: 2 findings accepted by a reviewed acceptance (listed without "
                  "--quiet)\n"))
      << quiet.output;
  // The same acceptance, the file spelled from the parent folder and absolutely.
  EXPECT_EQ(Audit("--policy repo/policy.json repo/ckpt/training_args.bin", ".").exit_code, 0);
  EXPECT_EQ(Audit("--policy policy.json " + ShellQuote(root() / "repo/ckpt/training_args.bin")).exit_code, 0);
  // In a baseline file too.
  fs::rename(root() / "repo" / "policy.json", root() / "repo" / "baseline.json");
  EXPECT_EQ(Audit("--baseline baseline.json ckpt/training_args.bin").exit_code, 0);
}

TEST_F(Acceptance, AChangedByteFailsAgainAndSaysWhy) {
  ReviewedPolicy();
  WriteText(root() / "repo" / "ckpt" / "training_args.bin", TrainingArgsPickle("ouT"));
  const std::string now = Sha256Of(root() / "repo" / "ckpt" / "training_args.bin");
  Policy(sha_, Quoted(kGlobal), Quoted("transformers.training_args.TrainingArguments('ouT')"));
  const CommandResult run = Audit("--policy policy.json ckpt/training_args.bin");
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_TRUE(Has(run.output,
                  "ckpt/training_args.bin: warning: Reviewed acceptance 1 (path 'ckpt/training_args.bin', "
                  "sha256 " +
                      sha_.substr(0, 12) +
                      "...) of 'policy.json' does not hold for "
                      "'ckpt/training_args.bin': the file's SHA-256 is " +
                      now + ", not the reviewed " + sha_ +
                      " (its bytes changed). The findings it would accept count. "
                      "[baseline-acceptance-void CHECKPOINT_INTEGRITY]"))
      << run.output;
  EXPECT_TRUE(Has(run.output, "error: GLOBAL at byte 2 imports")) << run.output;
}

TEST_F(Acceptance, AGlobalOrCallTheEntryDoesNotNameFailsAgain) {
  // The same bytes, reviewed for another call's arguments.
  Policy(sha_, Quoted(kGlobal), Quoted("transformers.training_args.TrainingArguments('elsewhere')"));
  CommandResult run = Audit("--policy policy.json ckpt/training_args.bin");
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_TRUE(Has(run.output,
                  "does not hold for 'ckpt/training_args.bin': it calls "
                  "'transformers.training_args.TrainingArguments(\\'out\\')', which the entry's calls do "
                  "not list. The findings it would accept count."))
      << run.output;
  EXPECT_TRUE(Has(run.output, "1 finding accepted by reviewed acceptance 1")) << run.output;  // the import itself
  // A file that imports one global more than the entry names.
  WriteText(
      root() / "repo" / "ckpt" / "training_args.bin",
      TrainingArgsPickle("out", pk::kPop + pk::CallWithStr("transformers.trainer_utils", "IntervalStrategy", "no")));
  Policy(Sha256Of(root() / "repo" / "ckpt" / "training_args.bin"), Quoted(kGlobal), Quoted(kCall));
  run = Audit("--policy policy.json ckpt/training_args.bin");
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_TRUE(Has(run.output,
                  "it imports 'transformers.trainer_utils.IntervalStrategy', which the entry's globals do "
                  "not list; and it calls 'transformers.trainer_utils.IntervalStrategy(\\'no\\')', which "
                  "the entry's calls do not list."))
      << run.output;
  EXPECT_TRUE(Has(run.output, "error: GLOBAL at byte")) << run.output;
}

TEST_F(Acceptance, AnExpiredEntryOrBytesNotHashedAcceptNothing) {
  Policy(sha_, Quoted(kGlobal), Quoted(kCall), "2000-01-01");
  CommandResult run = Audit("--policy policy.json ckpt/training_args.bin");
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_TRUE(Has(run.output, "warning: Reviewed acceptance 1 (path 'ckpt/training_args.bin', sha256 " +
                                  sha_.substr(0, 12) + "...) expired on 2000-01-01 (today is "))
      << run.output;
  EXPECT_TRUE(Has(run.output,
                  "it accepts nothing now. Its reason was: 'Trainer arguments, reviewed in #7'. "
                  "[baseline-entry-expired ARTIFACT_INVALID]"))
      << run.output;
  ReviewedPolicy();
  run = Audit("--policy policy.json --no-hash ckpt/training_args.bin");
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_TRUE(Has(run.output,
                  "the file's SHA-256 was not computed (--no-hash, or a file not read whole), so its bytes "
                  "cannot be compared with the reviewed " +
                      sha_))
      << run.output;
}

// Issue 51 item 3: an entry written with the path the report's location.file gives (relative
// to the model folder) holds as one written relative to the policy's root (location.path);
// an entry that names no audited file (with the nearest file that has findings, when the path
// looks like a typo of it), or a file without a finding it could accept, is a warning naming
// it, and the JSON report says which entries matched.
TEST_F(Acceptance, AnEntryCopiedFromTheReportMatchesAndOneThatMatchesNothingSaysSo) {
  WriteText(root() / "repo" / "ckpt" / "model.safetensors",
            SafetensorsFile(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", std::string(8, '\0')));
  WriteText(root() / "repo" / "ckpt" / "config.json", R"({"model_type": "llama"})");
  const CommandResult report = Audit("-f json ckpt");
  ASSERT_EQ(report.exit_code, 1) << report.output;
  const boost::json::value json = boost::json::parse(report.output);
  const boost::json::object& finding = json.at("artifacts").at(0).at("findings").at(0).as_object();
  EXPECT_EQ(finding.at("location").at("file"), "training_args.bin");
  EXPECT_EQ(finding.at("path"), "ckpt/training_args.bin");
  const std::string entry = R"(, "sha256": ")" + sha_ + R"(", "globals": [)" + Quoted(kGlobal) + R"(], "calls": [)" +
                            Quoted(kCall) + R"(], "reason": "r", "expires": "2099-12-31"})";
  WriteText(root() / "repo" / "policy.json", R"({"accept": [{"path": "training_args.bin")" + entry +
                                                 R"(, {"path": "checkpoint-500/training_args.bin")" + entry +
                                                 R"(, {"path": "ckpt/config.json")" + entry +
                                                 R"(, {"path": "elsewhere/optimizer.pt")" + entry + "]}");
  const CommandResult run = Audit("--policy policy.json ckpt");
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_TRUE(Has(run.output, "2 findings accepted by reviewed acceptance 1 of policy.json")) << run.output;
  EXPECT_TRUE(Has(run.output,
                  "./policy.json: warning: Reviewed acceptance 2 (path 'checkpoint-500/training_args.bin', "
                  "sha256 " +
                      sha_.substr(0, 12) +
                      "...) of 'policy.json' names no file this run audited: its path is read relative to " + "'" +
                      fs::canonical(root() / "repo").string() +
                      "' or to the audited input (a finding's location.path or location.file in the JSON "
                      "report), so it accepts nothing; did you mean 'ckpt/training_args.bin'? "
                      "[baseline-acceptance-unmatched CHECKPOINT_INTEGRITY]"))
      << run.output;
  // A path like no file with findings gets no suggestion.
  EXPECT_TRUE(Has(run.output, "Reviewed acceptance 4 (path 'elsewhere/optimizer.pt', sha256 " + sha_.substr(0, 12) +
                                  "...) of 'policy.json' names no file this run audited"))
      << run.output;
  EXPECT_TRUE(Has(run.output, "so it accepts nothing. [baseline-acceptance-unmatched")) << run.output;
  EXPECT_TRUE(
      Has(run.output, "./policy.json: warning: Reviewed acceptance 3 (path 'ckpt/config.json', sha256 " +
                          sha_.substr(0, 12) +
                          "...) of 'policy.json' names 'ckpt/config.json', which has no finding the entry could "
                          "accept: it accepts nothing in this run. [baseline-acceptance-unmatched"))
      << run.output;
  EXPECT_FALSE(Has(run.output, "Reviewed acceptance 1 (path 'training_args.bin'")) << run.output;  // the near miss
  const boost::json::value judged = boost::json::parse(Audit("-f json --policy policy.json ckpt").output);
  const boost::json::array& listed = judged.at("policy").at("acceptances").as_array();
  ASSERT_EQ(listed.size(), 4u);
  EXPECT_EQ(listed[0].at("matched"), true);
  EXPECT_EQ(listed[0].at("accepted"), 2);
  EXPECT_EQ(listed[1].at("matched"), false);
  EXPECT_EQ(listed[2].at("accepted"), 0);
}

// Issue 51 item 3: --write-acceptances writes one entry per file holding security findings,
// bound to its bytes and naming its globals and calls; the run is judged with it, and so is the
// next run given the file. Without the file's digest (--no-hash) nothing is written for it.
TEST_F(Acceptance, WriteAcceptancesBindsTheRunsSecurityFindingsToTheirBytes) {
  const CommandResult write =
      Audit("--write-acceptances accepted.json --reason 'reviewed in #9' --expires 2099-12-31 ckpt/training_args.bin");
  EXPECT_EQ(write.exit_code, 0) << write.output;
  EXPECT_TRUE(Has(write.output, "ckpt-audit: wrote 1 acceptance covering 2 security findings to accepted.json"))
      << write.output;
  EXPECT_EQ(ReadText(root() / "repo" / "accepted.json"),
            "{\n  \"accept\": [\n    {\"path\":\"ckpt/training_args.bin\",\"sha256\":\"" + sha_ + "\",\"globals\":[\"" +
                kGlobal + "\"],\"calls\":[\"" + kCall +
                "\"],\"rules\":[],\"reason\":\"reviewed in #9\",\"expires\":\"2099-12-31\"}\n  ]\n}\n");
  const CommandResult again = Audit("--baseline accepted.json ckpt/training_args.bin");
  EXPECT_EQ(again.exit_code, 0) << again.output;
  EXPECT_TRUE(Has(again.output, "2 findings accepted by reviewed acceptance 1 of accepted.json")) << again.output;
  // Near miss: bytes not hashed cannot be bound, so nothing is written and the run fails.
  const CommandResult unhashed = Audit(
      "--no-hash --write-acceptances none.json --reason 'reviewed in #9' --expires 2099-12-31 ckpt/training_args.bin");
  EXPECT_EQ(unhashed.exit_code, 1) << unhashed.output;
  EXPECT_TRUE(Has(unhashed.output,
                  "ckpt-audit: --write-acceptances left out 2 security findings: its file's SHA-256 was not computed "
                  "from the audit's reads"))
      << unhashed.output;
  EXPECT_EQ(ReadText(root() / "repo" / "none.json"), "{\n  \"accept\": []\n}\n");
}

// Issue 51 papercut: the HTML page lists accepted findings after those that count, folded
// under a grey "accepted" mark, never under a red error header.
TEST_F(Acceptance, TheHtmlPageShowsAcceptedFindingsAsAccepted) {
  ReviewedPolicy();
  const CommandResult page = Audit("-f html --policy policy.json ckpt/training_args.bin");
  EXPECT_EQ(page.exit_code, 0) << page.output;
  EXPECT_EQ(page.output.find("<span class=\"sev sev-error\">"), std::string::npos) << page.output;
  EXPECT_NE(page.output.find("<details class=\"rule\">\n<summary><span class=\"sev sev-accepted\">accepted</span> "
                             "<code>pickle-global-unsafe</code>"),
            std::string::npos)
      << page.output;
  EXPECT_NE(page.output.find("(1 error)</summary>"), std::string::npos) << page.output;
  // Near miss: without the acceptance they are errors, open, under the red mark.
  const CommandResult failing = Audit("-f html ckpt/training_args.bin");
  EXPECT_NE(failing.output.find("<details class=\"rule\" open>\n<summary><span class=\"sev sev-error\">error</span> "
                                "<code>pickle-call-unsafe</code>"),
            std::string::npos)
      << failing.output;
}

TEST_F(Acceptance, EntriesThatCannotBeHonouredAreUsageErrors) {
  const std::string ok = R"("path": "ckpt/training_args.bin", "reason": "r", "expires": "2099-12-31")";
  const std::string sha = R"("sha256": ")" + sha_ + R"(")";
  const std::string globals = R"("globals": ["a.b"])";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {ok + ", " + globals, "acceptance 1 has no sha256"},
      {ok + R"(, "sha256": "ABC", )" + globals, "sha256 is 'ABC', not 64 lowercase hex digits"},
      {ok + ", " + sha, "acceptance 1 accepts nothing: list the globals, calls or rules reviewed in the file"},
      {ok + ", " + sha + R"(, "rules": ["pickle-global-unsafe"])",
       "lists the rule pickle-global-unsafe: a pickle's findings are accepted by the globals and calls they name"},
      {ok + ", " + sha + R"(, "rules": ["no-such-rule"])", "names the unknown rule 'no-such-rule'"},
      {R"("path": "ckpt/*.bin", "reason": "r", "expires": "2099-12-31", )" + sha + ", " + globals,
       "gives a pattern as its path: an acceptance names one file, by its path and SHA-256"},
      {ok + ", " + sha + ", " + globals + R"(, "global": "x")", "acceptance 1 has the unknown key 'global'"},
  };
  for (const auto& [entry, message] : cases) {
    WriteText(root() / "repo" / "policy.json", R"({"accept": [{)" + entry + "}]}");
    const CommandResult run = Audit("--policy policy.json ckpt/training_args.bin");
    EXPECT_EQ(run.exit_code, 2) << entry << "\n" << run.output;
    EXPECT_TRUE(Has(run.output, message)) << entry << "\n" << run.output;
  }
}

TEST_F(Acceptance, AcceptedFindingsAreInEveryReportAndTheSignedStatement) {
  ReviewedPolicy();
  const std::string input = " ckpt/training_args.bin";
  const boost::json::value json = boost::json::parse(Audit("--policy policy.json -f json" + input).output);
  const boost::json::object& artifact = json.at("artifacts").at(0).as_object();
  EXPECT_EQ(artifact.at("verdict").as_string(), "pass");
  std::size_t accepted = 0;
  for (const boost::json::value& f : artifact.at("findings").as_array()) {
    if (!f.as_object().contains("suppressed")) continue;
    ++accepted;
    const boost::json::object& s = f.at("suppressed").as_object();
    EXPECT_EQ(s.at("by").as_string(), "acceptance");
    EXPECT_EQ(s.at("sha256").as_string(), sha_);
    EXPECT_EQ(s.at("source").as_string(), "policy.json");
    EXPECT_EQ(f.at("location").at("global").as_string(), kGlobal);
  }
  EXPECT_EQ(accepted, 2u);
  EXPECT_EQ(json.at("policy").at("acceptances").at(0).at("sha256").as_string(), sha_);

  const boost::json::value sarif = boost::json::parse(Audit("--policy policy.json -f sarif" + input).output);
  std::size_t suppressed = 0;
  for (const boost::json::value& r : sarif.at("runs").at(0).at("results").as_array()) {
    if (!r.as_object().contains("suppressions")) continue;
    ++suppressed;
    const boost::json::object& s = r.at("suppressions").at(0).as_object();
    EXPECT_EQ(s.at("status").as_string(), "accepted");
    EXPECT_EQ(s.at("properties").at("by").as_string(), "acceptance");
    EXPECT_EQ(s.at("properties").at("sha256").as_string(), sha_);
  }
  EXPECT_EQ(suppressed, 2u);
  // And it still passes the SARIF validators the other reports pass.
  const fs::path validator = fs::absolute("tests/sarif/validate.sh");
  ASSERT_EQ(Audit("--policy policy.json -f sarif -o accepted.sarif" + input).exit_code, 0);
  const CommandResult valid = RunCommand(ShellQuote(validator) + " --strict --require-multitool " +
                                         ShellQuote(root() / "repo" / "accepted.sarif") + " 2>&1");
  EXPECT_EQ(valid.exit_code, 0) << valid.output;
  EXPECT_TRUE(Has(valid.output, "1 file(s) valid, 0 file(s) invalid")) << valid.output;

  const std::string why = "reviewed acceptance 1 of policy.json for the bytes with SHA-256 " + sha_;
  const std::string junit = Audit("--policy policy.json -f junit" + input).output;
  EXPECT_TRUE(Has(junit, "\naccepted by a reviewed acceptance:\n")) << junit;
  EXPECT_TRUE(Has(junit, "[pickle-global-unsafe CHECKPOINT_INTEGRITY] (" + why)) << junit;
  const boost::json::value gitlab = boost::json::parse(Audit("--policy policy.json -f gitlab" + input).output);
  std::size_t listed = 0;
  for (const boost::json::value& issue : gitlab.as_array()) {
    if (issue.at("check_name").as_string() != "pickle-global-unsafe") continue;
    ++listed;
    EXPECT_EQ(issue.at("severity").as_string(), "info");
    EXPECT_TRUE(Has(std::string(issue.at("description").as_string()), why));
  }
  EXPECT_EQ(listed, 1u);
  const std::string html = Audit("--policy policy.json -f html" + input).output;
  EXPECT_TRUE(Has(html, "class=\"suppressed\"")) << html;
  EXPECT_TRUE(Has(html, why)) << html;

  // The signed statement lists the accepted findings with the bytes and global they hold for.
  if (std::system("openssl version >/dev/null 2>&1") != 0) CKPT_MISSING_PREREQUISITE() << "openssl is missing";
  const fs::path key = root() / "signer.pem";
  ASSERT_EQ(
      RunCommand("openssl genpkey -algorithm ed25519 -out " + ShellQuote(key) + " && chmod 600 " + ShellQuote(key))
          .exit_code,
      0);
  const CommandResult signed_run = Audit("--policy policy.json --attest " + ShellQuote(key) + " --attestation-out " +
                                         ShellQuote(root() / "s.dsse.json") + input);
  ASSERT_EQ(signed_run.exit_code, 0) << signed_run.output;
  const CommandResult payload = RunCommand(
      "/usr/bin/python3 -c 'import base64,json,sys; print(base64.b64decode(json.load(open(sys.argv[1]))"
      "[\"payload\"]).decode())' " +
      ShellQuote(root() / "s.dsse.json"));
  ASSERT_EQ(payload.exit_code, 0) << payload.output;
  const boost::json::value statement = boost::json::parse(payload.output);
  const boost::json::object& predicate = statement.at("predicate").as_object();
  EXPECT_EQ(predicate.at("verdict").as_string(), "pass");
  std::size_t signed_accepted = 0;
  for (const boost::json::value& f : predicate.at("findings").as_array()) {
    if (!f.as_object().contains("suppressed")) continue;
    ++signed_accepted;
    EXPECT_EQ(f.at("suppressed").at("by").as_string(), "acceptance");
    EXPECT_EQ(f.at("suppressed").at("sha256").as_string(), sha_);
    EXPECT_EQ(f.at("suppressed").at("global").as_string(), kGlobal);
  }
  EXPECT_EQ(signed_accepted, 2u);
  EXPECT_EQ(predicate.at("policy").at("acceptances").at(0).at("path").as_string(), "ckpt/training_args.bin");
}

TEST_F(Acceptance, ReviewedRemoteCodeIsAcceptedForItsDigestOnly) {
  const fs::path model = root() / "repo" / "model";
  fs::create_directories(model);
  WriteText(model / "config.json", R"({"model_type": "x"})");
  WriteText(model / "modeling_x.py", "import torch\n");
  WriteText(model / "model.safetensors",
            SafetensorsFile(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", std::string(4, '\0')));
  const std::string sha = Sha256Of(model / "modeling_x.py");
  WriteText(root() / "repo" / "policy.json",
            R"({"fail_on": "warning", "accept": [{"path": "model/modeling_x.py", "sha256": ")" + sha +
                R"(", "rules": ["model-remote-code"], "reason": "reviewed", "expires": "2099-12-31"}]})");
  // Near miss: without the policy's acceptance, --fail-on warning fails on the remote code.
  CommandResult run = Audit("--fail-on warning model");
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_TRUE(Has(run.output, "[model-remote-code CHECKPOINT_INTEGRITY]")) << run.output;
  run = Audit("--policy policy.json model");
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_TRUE(Has(run.output, "1 finding accepted by reviewed acceptance 1 of policy.json")) << run.output;
  WriteText(model / "modeling_x.py", "import os; os.system('id')\n");
  run = Audit("--policy policy.json model");
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_TRUE(Has(run.output, "does not hold for 'model/modeling_x.py': the file's SHA-256 is ")) << run.output;
}

}  // namespace
}  // namespace ckpt::testing
