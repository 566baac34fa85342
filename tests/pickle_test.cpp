// A pickle whose payload would create a file, placed at the weight path, is refused
// with CHECKPOINT_INTEGRITY naming it a pickle, and the file is never created. Where a
// python3 exists, the test first proves the payload is real by unpickling it in a
// scratch folder.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "engine/audit.h"
#include "tests/support/artifact_builder.h"
#include "tests/support/audit_helpers.h"
#include "tests/support/built_tools.h"
#include "tests/support/prerequisite.h"

namespace ckpt::testing {
namespace {

// Protocol 2: GLOBAL posix.system, BINUNICODE command, TUPLE1, REDUCE, STOP.
std::string PicklePayload(const std::string& command) {
  std::string out =
      "\x80\x02"
      "cposix\nsystem\n"
      "X";
  std::uint32_t n = static_cast<std::uint32_t>(command.size());
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>(n >> (8 * i)));
  return out + command +
         "\x85"
         "R.";
}

std::filesystem::path Artifact(const TempDir& root, const std::string& marker) {
  Files files = ArtifactSpec::Clean().Build();
  files["weights.safetensors"] = PicklePayload("touch " + marker);
  WriteFiles(files, root.path() / "artifact");
  return root.path() / "artifact";
}

TEST(PickleRefusal, PayloadIsRealWhenAPythonIsThere) {
  if (std::system("command -v python3 >/dev/null 2>&1") != 0) CKPT_MISSING_PREREQUISITE() << "python3 not installed";
  TempDir root;
  const std::string marker = (root.path() / "created-by-python").string();
  std::filesystem::path dir = Artifact(root, marker);
  const std::string cmd = "python3 -c \"import pickle; pickle.load(open('" + (dir / "weights.safetensors").string() +
                          "', 'rb'))\" >/dev/null 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  EXPECT_TRUE(std::filesystem::exists(marker)) << "the payload did not run under a real unpickler";
}

TEST(PickleRefusal, RefusedAndNeverExecuted) {
  TempDir root;
  const std::string marker = (root.path() / "pwned").string();
  AuditResult result = AuditPath(Artifact(root, marker).string(), AuditOptions{});
  auto hits = FindingsOf(result, "weights-format-pickle");
  ASSERT_EQ(hits.size(), 1u) << Describe(result);
  EXPECT_EQ(CodeName(hits[0]->rule->code), "CHECKPOINT_INTEGRITY");
  EXPECT_NE(hits[0]->message.find("Python pickle (protocol 2)"), std::string::npos) << hits[0]->message;
  EXPECT_NE(hits[0]->message.find("re-export with safetensors"), std::string::npos) << hits[0]->message;
  EXPECT_FALSE(std::filesystem::exists(marker)) << "the pickle payload ran";
}

TEST(PickleRefusal, CommandLineRefusesWithExitOne) {
  TempDir root;
  const std::string marker = (root.path() / "pwned-cli").string();
  const std::string out = (root.path() / "report.json").string();
  const std::string cmd =
      std::string(CKPT_AUDIT_BIN) + " --format json -o " + out + " " + Artifact(root, marker).string();
  int status = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 1);
  std::ifstream in(out);
  std::string report((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(report.find("\"rule\": \"weights-format-pickle\""), std::string::npos) << report;
  EXPECT_FALSE(std::filesystem::exists(marker)) << "the pickle payload ran";
}

TEST(PickleRefusal, ValidSafetensorsStartingLikeAPickleIsAccepted) {
  // N = 640 makes the first two bytes 0x80 0x02, the pickle protocol-2 header.
  ArtifactSpec spec = ArtifactSpec::Clean();
  Files files = spec.Build();
  SafetensorsParts parts = SplitSafetensors(files["weights.safetensors"]);
  ASSERT_LT(parts.header.size(), 640u);
  parts.header.append(640 - parts.header.size(), ' ');
  files["weights.safetensors"] = SafetensorsFile(parts.header, parts.data);
  ASSERT_EQ(static_cast<unsigned char>(files["weights.safetensors"][0]), 0x80);
  ASSERT_EQ(files["weights.safetensors"][1], 0x02);
  AuditResult result = AuditFiles(files);
  EXPECT_TRUE(result.findings.empty()) << Describe(result);
}

}  // namespace
}  // namespace ckpt::testing
