// Issue 8 item 6: names taken from the input (directory and file names, tensor names,
// declared hashes) cannot rewrite a report. Every writer of every tool gets names holding
// ANSI escapes, CR, LF, U+202E, a double quote and bytes that are not UTF-8; text, DOT and
// Mermaid show them escaped, JSON and SARIF stay valid UTF-8 JSON with the exact bytes
// recoverable (path_bytes).
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>

#include "lib/core/text.h"
#include "tests/support/artifact_builder.h"
#include "tests/support/built_tools.h"
#include "tests/support/history_builder.h"
#include "tests/support/process.h"

namespace ckpt::testing {
namespace {

namespace fs = std::filesystem;

// ESC [32m PASS, CR, LF, RIGHT-TO-LEFT OVERRIDE, a quote, a lone 0xFF byte.
const std::string kHostile = "x\x1b[32mPASS\r\nround 9 pass\xE2\x80\xAE\"q\xFF";

std::string Bin(const char* tool) { return (fs::path(CKPT_AUDIT_BIN).parent_path() / tool).string(); }

CommandResult Tool(const std::string& tool, const std::string& args) {
  return RunCommand(Bin(tool.c_str()) + " " + args + " 2>/dev/null");
}

// What a terminal or a browser must never receive from input.
void ExpectDisplaySafe(const std::string& text, const std::string& what) {
  EXPECT_EQ(FindInvalidUtf8(text), std::nullopt) << what;
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << what;
  EXPECT_EQ(text.find('\r'), std::string::npos) << what;
  EXPECT_EQ(text.find("\xE2\x80\xAE"), std::string::npos) << what;
  EXPECT_EQ(text.find("\nround 9 pass"), std::string::npos) << what << ": a forged line";
  EXPECT_EQ(text.find("\nPASS"), std::string::npos) << what << ": a forged line";
}

class ReportEscaping : public ::testing::Test {
 protected:
  void SetUp() override {
    // An artifact in a hostile directory name, holding a stray file with a hostile name.
    art_ = dir_.path() / ("art-" + kHostile);
    WriteFiles(ArtifactSpec::Clean().Build(), art_);
    std::ofstream(art_ / ("stray-" + kHostile)) << "x";
    // A history whose directories carry the hostile name; round 1 declares a hostile hash.
    rounds_ = WriteHistory(dir_.path() / "history", 2);
    fs::rename(rounds_[1].dir, dir_.path() / "history" / ("round-1-" + kHostile));
    rounds_[1].dir = dir_.path() / "history" / ("round-1-" + kHostile);
  }
  TempDir dir_;
  fs::path art_;
  std::vector<Round> rounds_;
};

TEST_F(ReportEscaping, TextDotAndMermaidShowNamesEscaped) {
  CommandResult audit = Tool("ckpt-audit", ShellQuote(art_));
  EXPECT_EQ(audit.exit_code, 1);
  ExpectDisplaySafe(audit.output, "ckpt-audit text");
  EXPECT_NE(audit.output.find("art-x\\u001b[32mPASS\\u000d\\u000around 9 pass\\u202e\"q\\xff: FAIL"), std::string::npos)
      << audit.output;
  for (const char* format : {"text", "dot", "mermaid"}) {
    CommandResult chain =
        Tool("ckpt-chain", std::string("--format ") + format + " " + ShellQuote(dir_.path() / "history"));
    ExpectDisplaySafe(chain.output, std::string("ckpt-chain ") + format);
  }
  CommandResult dot = Tool("ckpt-chain", "--format dot " + ShellQuote(dir_.path() / "history"));
  if (std::system("command -v dot >/dev/null 2>&1") == 0) {
    std::ofstream(dir_.path() / "h.dot") << dot.output;
    EXPECT_EQ(RunCommand("dot -Tsvg " + ShellQuote(dir_.path() / "h.dot") + " >/dev/null 2>&1").exit_code, 0)
        << "Graphviz must parse the DOT:\n"
        << dot.output;
  }
  CommandResult mermaid = Tool("ckpt-chain", "--format mermaid " + ShellQuote(dir_.path() / "history"));
  for (std::size_t at = mermaid.output.find("[\""); at != std::string::npos; at = mermaid.output.find("[\"", at + 1)) {
    const std::size_t close = mermaid.output.find("\"]", at + 2);
    ASSERT_NE(close, std::string::npos) << mermaid.output;
    EXPECT_EQ(mermaid.output.substr(at + 2, close - at - 2).find('"'), std::string::npos) << mermaid.output;
  }
}

TEST_F(ReportEscaping, DeclaredHashesAndTensorNamesAreEscaped) {
  // A declared hash is shown when the real one cannot be computed: make it hostile.
  Files files = ReadFiles(rounds_[1].dir);
  EditHeader(files, [](boost::json::object& h) {
    h["content_hash"] =
        "\x1b[32m"
        "aaaa\"];\n}\xE2\x80\xAE";
    h["tensor_manifest"].as_array().clear();
  });
  WriteFiles(files, rounds_[1].dir);
  for (const char* format : {"text", "dot", "mermaid"}) {
    CommandResult chain =
        Tool("ckpt-chain", std::string("--format ") + format + " " + ShellQuote(dir_.path() / "history"));
    ExpectDisplaySafe(chain.output, std::string("ckpt-chain with a hostile hash, ") + format);
  }
  // ckpt-diff: a tensor name with the hostile characters (UTF-8 ones: JSON carries it).
  ArtifactSpec a = ArtifactSpec::Clean();
  a.tensors.push_back({"encoder.\x1b[32mPASS\r\n\xE2\x80\xAE\"", "encoder", "float32", {1}, ""});
  Round ra = WriteRound(dir_.path() / "pair", "a", a);
  ArtifactSpec b = a;
  b.round_index = 1;
  b.parent_hash = ra.hash;
  b.tensors.back().data[0] ^= 1;
  WriteRound(dir_.path() / "pair", "b", b);
  const std::string pair = ShellQuote(dir_.path() / "pair" / "a") + " " + ShellQuote(dir_.path() / "pair" / "b");
  CommandResult diff = Tool("ckpt-diff", pair);
  ExpectDisplaySafe(diff.output, "ckpt-diff text");
  EXPECT_NE(diff.output.find("encoder.\\u001b[32mPASS\\u000d\\u000a\\u202e\""), std::string::npos) << diff.output;
}

TEST_F(ReportEscaping, JsonAndSarifStayValidWithExactBytes) {
  for (const std::string format : {"json", "sarif"}) {
    CommandResult audit = Tool("ckpt-audit", "--format " + format + " " + ShellQuote(art_));
    EXPECT_EQ(FindInvalidUtf8(audit.output), std::nullopt) << format;
    boost::system::error_code ec;
    boost::json::value report = boost::json::parse(audit.output, ec);
    ASSERT_FALSE(ec) << format << ":\n" << audit.output;
    if (format == "json") {
      auto& artifact = report.as_object()["artifacts"].as_array()[0].as_object();
      const std::string raw = art_.string();
      EXPECT_EQ(artifact["path_bytes"].as_string(),
                ToHex(std::span(reinterpret_cast<const std::uint8_t*>(raw.data()), raw.size())));
      EXPECT_EQ(std::string(artifact["path"].as_string()), ToValidUtf8(raw));
    }
    CommandResult chain = Tool("ckpt-chain", "--format " + format + " " + ShellQuote(dir_.path() / "history"));
    EXPECT_EQ(FindInvalidUtf8(chain.output), std::nullopt) << format;
    boost::json::parse(chain.output, ec);
    EXPECT_FALSE(ec) << "ckpt-chain " << format << ":\n" << chain.output;
  }
}

}  // namespace
}  // namespace ckpt::testing
