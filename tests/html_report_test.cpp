// --format html for the three tools: one self-contained page (no script, nothing loaded from
// anywhere), the summary first, findings grouped by rule with explanation and remediation, the
// chain picture inline when Graphviz is there and the table when it is not; names holding
// markup, quotes, '&' and bidi controls come out escaped. tests/html/screenshots.sh renders
// the pages in headless Chromium (the browser test).
#include "reports/html_report.h"

#include <gtest/gtest.h>

#include <algorithm>
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

// Markup, both quotes, '&', RIGHT-TO-LEFT OVERRIDE and an escape character; no '/' (it names
// directories too).
const std::string kHostile = "x<script>alert(1)<&\"'\xE2\x80\xAE\x1b<img src=x onerror=alert(2)>";
const std::string kHostileEscaped =
    "x&lt;script&gt;alert(1)&lt;&amp;&quot;&apos;\\u202e\\u001b&lt;img src=x onerror=alert(2)&gt;";

std::string Bin(const char* tool) { return (fs::path(CKPT_AUDIT_BIN).parent_path() / tool).string(); }

CommandResult Html(const char* tool, const std::string& args, const std::string& env = "") {
  return RunCommand(env + Bin(tool) + " --format html " + args + " 2>/dev/null");
}

std::string Lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; });
  return text;
}

// What every page must be: one document, no script, nothing fetched, nothing raw from input.
void ExpectSelfContained(const std::string& page, const std::string& what) {
  EXPECT_EQ(page.rfind("<!DOCTYPE html>\n<html lang=\"en\">", 0), 0u) << what;
  EXPECT_NE(page.find("content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\""), std::string::npos)
      << what;
  EXPECT_EQ(page.substr(page.size() - 8), "</html>\n") << what;
  const std::string lower = Lower(page);
  for (const char* banned : {"<script", "<img", "<iframe", "<object", "<link rel=\"stylesheet", "src=\"http",
                             "href=\"http", "url(", "@import", "\xE2\x80\xAE", "\x1b"}) {
    EXPECT_EQ(lower.find(banned), std::string::npos) << what << " holds " << banned;
  }
}

class HtmlReport : public ::testing::Test {
 protected:
  void SetUp() override {
    // An artifact in a hostile directory, with a hostile stray file and a hostile tensor name.
    ArtifactSpec spec = ArtifactSpec::Clean();
    spec.tensors[3].name = "predictor." + kHostile;
    art_ = dir_.path() / ("art-" + kHostile);
    WriteFiles(spec.Build(), art_);
    std::ofstream(art_ / ("stray-" + kHostile)) << "x";
    // A diff pair whose changed tensor has the hostile name.
    ArtifactSpec a = ArtifactSpec::Clean();
    a.tensors[1].name = "encoder." + kHostile;
    Round ra = WriteRound(dir_.path() / "pair", "a", a);
    ArtifactSpec b = a;
    b.round_index = 1;
    b.parent_hash = ra.hash;
    b.tensors[1].data[0] = static_cast<char>(b.tensors[1].data[0] ^ 0x10);
    WriteRound(dir_.path() / "pair", "b", b);
    // A history with a hostile round directory and a gap.
    rounds_ = WriteHistory(dir_.path() / "history", 4);
    fs::remove_all(rounds_[2].dir);
    fs::rename(rounds_[1].dir, dir_.path() / "history" / ("round-1-" + kHostile));
  }
  TempDir dir_;
  fs::path art_;
  std::vector<Round> rounds_;
};

TEST(HtmlEscape, EscapesMarkupQuotesAmpersandsAndBidiControls) {
  EXPECT_EQ(reports::HtmlEscape(kHostile), kHostileEscaped);
  EXPECT_EQ(reports::HtmlEscape("plain name.w"), "plain name.w");
  EXPECT_EQ(reports::HtmlEscape("caf\xC3\xA9"), "caf\xC3\xA9") << "UTF-8 text stays as it is";
  EXPECT_EQ(reports::HtmlEscape("a\xFF"), "a\\xff") << "bytes that are not UTF-8 are shown as escapes";
}

TEST(HtmlEscape, InlineSvgRefusesWhatAPageMustNotRun) {
  const std::string svg = "<svg width=\"10pt\"><g><text>round 1</text></g></svg>";
  EXPECT_EQ(reports::InlineSvg("<?xml version=\"1.0\"?>\n<!DOCTYPE svg>\n" + svg + "\n"), svg);
  EXPECT_EQ(reports::InlineSvg("no picture"), std::nullopt);
  for (const char* bad : {"<svg><script>x</script></svg>", "<svg><foreignObject></foreignObject></svg>",
                          "<svg><g onclick=\"x\"></g></svg>", "<svg><a xlink:href=\"javascript:x\"></a></svg>",
                          "<svg><g ONLOAD=x></g></svg>", "<svg><use href=\"#a\"/></svg>"}) {
    EXPECT_EQ(reports::InlineSvg(bad), std::nullopt) << bad;
  }
  // Near misses: text and attribute values are not markup; an in-document link is fine.
  EXPECT_TRUE(reports::InlineSvg("<svg><text>round one only=1</text></svg>").has_value());
  EXPECT_TRUE(reports::InlineSvg("<svg><a xlink:title=\"x&lt;img src=x onerror=alert(2)&gt;\"><text>n</text></a></svg>")
                  .has_value());
  EXPECT_TRUE(reports::InlineSvg("<svg><a href=\"#n1\"><text>n</text></a></svg>").has_value());
}

TEST_F(HtmlReport, AuditPageSummaryFirstThenFindingsByRule) {
  CommandResult r = Html("ckpt-audit", ShellQuote(art_) + " " + ShellQuote(rounds_[0].dir));
  EXPECT_EQ(r.exit_code, 1);
  ExpectSelfContained(r.output, "ckpt-audit");
  const std::size_t summary = r.output.find(
      "<div class=\"summary\"><span class=\"verdict fail\">fail</span> 1 of 2 "
      "inputs passed (exit status 1)</div>");
  const std::size_t by_rule = r.output.find("<h2>Findings by rule</h2>");
  ASSERT_NE(summary, std::string::npos) << r.output;
  ASSERT_NE(by_rule, std::string::npos);
  EXPECT_LT(summary, by_rule) << "the summary comes first";
  EXPECT_NE(r.output.find("<code>layout-stray-entry</code> CHECKPOINT_INTEGRITY &mdash; Entry that the artifact "
                          "layout does not allow (1)</summary>"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("<p class=\"remedy\"><b>Remediation:</b> Remove the entry from the published artifact"),
            std::string::npos);
  EXPECT_NE(r.output.find("art-" + kHostileEscaped), std::string::npos) << "the directory name, escaped";
  EXPECT_NE(r.output.find("stray-" + kHostileEscaped), std::string::npos) << "the file name, escaped";
}

TEST_F(HtmlReport, DiffPageHasTheSummaryRollupBarsAndEscapedTensorNames) {
  const std::string pair = (dir_.path() / "pair").string();
  CommandResult r = Html("ckpt-diff", "--max-rel-l2 encoder=0 " + pair + "/a " + pair + "/b");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  ExpectSelfContained(r.output, "ckpt-diff");
  EXPECT_NE(r.output.find("6 tensors: 1 changed, 5 unchanged<br>whole model: l2 "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("<h2>By group</h2>"), std::string::npos);
  EXPECT_NE(r.output.find("<span class=\"bar\"><span style=\"width:100.0%\"></span></span>"), std::string::npos)
      << "the group that moved most has a full bar";
  EXPECT_NE(r.output.find("<code>encoder." + kHostileEscaped + "</code>"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("<code>diff-rel-l2-exceeded</code>"), std::string::npos);
  EXPECT_LT(r.output.find("<div class=\"summary\">"), r.output.find("<h2>Findings by rule</h2>"));
}

TEST_F(HtmlReport, ChainPageDrawsThePictureWithGraphvizAndTheTableWithout) {
  const std::string history = ShellQuote(dir_.path() / "history");
  CommandResult without = Html("ckpt-chain", history, "PATH=/nonexistent ");
  EXPECT_EQ(without.exit_code, 1);
  ExpectSelfContained(without.output, "ckpt-chain without dot");
  EXPECT_EQ(without.output.find("<svg"), std::string::npos) << "no Graphviz: the table alone";
  EXPECT_NE(without.output.find("<h2>Rounds</h2>"), std::string::npos);
  EXPECT_NE(without.output.find("round-1-" + kHostileEscaped), std::string::npos);
  EXPECT_NE(without.output.find("3 artifacts in the history (3 found): 2 passed, 1 failed; rounds 0-3 (1 missing)"),
            std::string::npos)
      << without.output;
  EXPECT_NE(without.output.find("<code>chain-gap</code>"), std::string::npos);
  if (std::system("command -v dot >/dev/null 2>&1") != 0) CKPT_MISSING_PREREQUISITE() << "Graphviz dot not installed";
  CommandResult with = Html("ckpt-chain", history);
  ExpectSelfContained(with.output, "ckpt-chain with dot");
  const std::size_t picture = with.output.find("<div class=\"picture\">\n<svg");
  ASSERT_NE(picture, std::string::npos) << with.output;
  EXPECT_LT(picture, with.output.find("<h2>Rounds</h2>")) << "the picture comes before the table";
  EXPECT_NE(with.output.find(">round 2</text>", picture), std::string::npos) << "the missing round's box";
  EXPECT_NE(with.output.find(">missing</text>", picture), std::string::npos);
}

}  // namespace
}  // namespace ckpt::testing
