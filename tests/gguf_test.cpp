// GGUF files (inputs.md section 5), written by the test GGUF writer (tests/support/gguf_builder):
// valid files of several types, alignments and ranks pass with their tensors listed as
// stored; every truncation is a finding; hostile counts end before any allocation; split
// sets are checked whole, from the first part or a folder.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>

#include "engine/audit.h"
#include "engine/diff_run.h"
#include "lib/formats/gguf/gguf_reader.h"
#include "reports/sarif_report.h"
#include "reports/text_report.h"
#include "tests/support/audit_helpers.h"
#include "tests/support/gguf_builder.h"

namespace ckpt::testing {
namespace {

AuditResult AuditGguf(const std::string& bytes, const std::string& name = "model.gguf") {
  return AuditInput({{name, bytes}}, InputForm::kFile, "");
}

TEST(Gguf, ValidFilesPassWithTheirTensorsAsStored) {
  for (std::uint64_t alignment : {32U, 64U}) {
    for (std::uint32_t version : {2U, 3U}) {
      gg::Spec spec = gg::Several();
      spec.alignment = alignment;
      spec.version = version;
      const AuditResult r = AuditGguf(gg::Build(spec));
      EXPECT_EQ(r.artifact.kind, InputKind::kGguf);
      EXPECT_TRUE(r.findings.empty()) << Describe(r);
      ASSERT_EQ(r.artifact.weights.size(), 1U);
      const WeightFile& wf = r.artifact.weights[0];
      ASSERT_TRUE(wf.gguf.has_value());
      EXPECT_EQ(wf.gguf->alignment, alignment);
      EXPECT_EQ(wf.gguf->version, version);
      EXPECT_TRUE(wf.gguf->layout_valid);
      ASSERT_EQ(wf.tensors.size(), spec.tensors.size());
      for (std::size_t i = 0; i < spec.tensors.size(); ++i) {
        EXPECT_EQ(wf.tensors[i].name, spec.tensors[i].name);
        EXPECT_EQ(wf.tensors[i].shape, spec.tensors[i].dims);
        EXPECT_EQ(wf.tensors[i].data_length, gg::TensorBytes(spec.tensors[i]));
        EXPECT_EQ(wf.tensors[i].data_offset % alignment, 0U);
      }
      EXPECT_EQ(wf.tensors[2].dtype, "BF16");
      EXPECT_EQ(wf.tensors[3].dtype, "Q8_0");
      EXPECT_EQ(wf.tensors[4].dtype, "Q4_0");
      EXPECT_EQ(wf.tensors[5].dtype, "I32");
      EXPECT_EQ(wf.tensors[6].shape, (std::vector<std::uint64_t>{2, 3, 4, 5}));
      EXPECT_TRUE(std::any_of(wf.gguf->metadata.begin(), wf.gguf->metadata.end(),
                              [](const GgufFacts::Entry& e) { return e.key == "tokenizer.chat_template"; }));
      EXPECT_EQ(r.artifact.files.at(0).sha256.has_value(), true);
    }
  }
  // No tensors at all: the key/values alone, with or without padding.
  gg::Spec empty;
  empty.kvs = {gg::Str("general.architecture", "llama")};
  const std::string bytes = gg::Build(empty);
  EXPECT_TRUE(AuditGguf(bytes).findings.empty()) << Describe(AuditGguf(bytes));
  EXPECT_TRUE(AuditGguf(bytes + std::string(3, '\0')).findings.empty());
  EXPECT_TRUE(HasFinding(AuditGguf(bytes + "x"), "gguf-trailing-data", "follow the key/values"));
}

TEST(Gguf, EveryTypeOfGgmlsTableIsKnownAndRemovedOnesAreRefused) {
  for (const GgmlType& type : GgmlTypes()) {
    gg::Spec spec;
    spec.tensors = {{"t", {type.block_size * 2}, type.id, {}, {}}};
    const AuditResult r = AuditGguf(gg::Build(spec));
    EXPECT_TRUE(r.findings.empty()) << type.name << "\n" << Describe(r);
    EXPECT_EQ(r.artifact.weights.at(0).tensors.at(0).dtype, type.name);
  }
  for (std::uint32_t removed : {4U, 5U, 31U, 32U, 33U, 36U, 37U, 38U, 43U, 1000U}) {
    gg::Spec spec;
    spec.tensors = {{"t", {32}, removed, {}, std::uint64_t{64}}};
    EXPECT_FALSE(FindingsOf(AuditGguf(gg::Build(spec)), "gguf-type-unknown").empty()) << removed;
  }
}

TEST(Gguf, EveryTruncationIsAFinding) {
  const std::string whole = gg::Build(gg::Several());
  for (std::size_t n = 0; n < whole.size(); ++n) {
    const AuditResult r = AuditGguf(whole.substr(0, n));
    EXPECT_GT(ErrorCount(r), 0U) << "cut at " << n << "\n" << Describe(r);
    EXPECT_TRUE(r.tool_errors.empty()) << n;
  }
}

// perf_test bounds these runs' time and memory.
TEST(Gguf, HostileCountsEndBeforeAnyAllocation) {
  gg::Spec keys = gg::Several();
  keys.kv_count = std::uint64_t{1} << 60;
  EXPECT_TRUE(HasFinding(AuditGguf(gg::Build(keys)), "gguf-length-invalid", "1152921504606846976 key/values"));
  gg::Spec tensors = gg::Several();
  tensors.tensor_count = std::uint64_t{1} << 60;
  EXPECT_TRUE(HasFinding(AuditGguf(gg::Build(tensors)), "gguf-length-invalid", "1152921504606846976 tensors"));
  gg::Spec string = gg::Several();
  string.kvs.push_back({"general.name", 8, std::string("\x00\x00\x00\x00\x00\x00\x00\x40", 8)});
  EXPECT_TRUE(HasFinding(AuditGguf(gg::Build(string)), "gguf-length-invalid", "4611686018427387904 bytes"));
  gg::Spec array = gg::Several();
  array.kvs.push_back(
      {"general.tags", 9, std::string("\x08\x00\x00\x00", 4) + std::string("\x00\x00\x00\x00\x00\x00\x00\x20", 8)});
  EXPECT_TRUE(HasFinding(AuditGguf(gg::Build(array)), "gguf-length-invalid", "2305843009213693952 elements of string"));
  gg::Spec dims = gg::Several();
  dims.tensors[0].dims = {std::uint64_t{1} << 62, 4};
  dims.tensors[0].data_bytes = 64;
  EXPECT_TRUE(HasFinding(AuditGguf(gg::Build(dims)), "gguf-shape-invalid", "past 2^63"));
}

TEST(Gguf, ASplitSetIsCheckedWholeFromItsFirstPartOrItsFolder) {
  TempDir dir;
  Files parts;
  for (auto& [name, bytes] : gg::SplitSet("model", 3)) parts[name] = bytes;
  WriteFiles(parts, dir.path());
  const AuditResult whole = AuditPath((dir.path() / "model-00001-of-00003.gguf").string(), AuditOptions{});
  EXPECT_EQ(whole.artifact.kind, InputKind::kGguf);
  EXPECT_TRUE(whole.findings.empty()) << Describe(whole);
  EXPECT_EQ(whole.artifact.weights.size(), 3U);
  std::size_t tensors = 0;
  for (const WeightFile& wf : whole.artifact.weights) tensors += wf.tensors.size();
  EXPECT_EQ(tensors, gg::Several().tensors.size());
  std::filesystem::remove(dir.path() / "model-00003-of-00003.gguf");
  const AuditResult missing = AuditPath((dir.path() / "model-00001-of-00003.gguf").string(), AuditOptions{});
  EXPECT_TRUE(HasFinding(missing, "gguf-split-incomplete", "'model-00003-of-00003.gguf' of the split set is missing"));
  EXPECT_TRUE(HasFinding(missing, "gguf-split-inconsistent", "split.tensors.count is 7, but the parts hold 5 tensors"));
  // A finding about a part names it in the first part's folder, never "part/part".
  std::size_t located = 0;
  for (const Finding& f : missing.findings) {
    if (f.location.file.empty()) continue;
    ++located;
    EXPECT_EQ(f.location.artifact, dir.path().string()) << f.message;
    EXPECT_TRUE(f.location.file.starts_with("model-0000")) << f.location.file;
  }
  EXPECT_GT(located, 0U) << Describe(missing);
  // Every report joins a part's name to the first part's folder (issue 46: SARIF artifacts[]
  // and the HTML page still said "part/part"); digests are recorded to be listed.
  AuditOptions digests;
  digests.digest_files = true;
  const AuditResult listed = AuditPath((dir.path() / "model-00001-of-00003.gguf").string(), digests);
  reports::SarifOptions sarif_options;
  sarif_options.source_root = dir.path();
  std::ostringstream sarif;
  reports::WriteSarif(sarif, reports::SarifFromAudit(std::span(&listed, 1), Severity::kError), sarif_options,
                      reports::ReportContext{});
  EXPECT_EQ(sarif.str().find(".gguf/model-"), std::string::npos) << sarif.str();
  EXPECT_NE(sarif.str().find(R"("uri": "model-00002-of-00003.gguf")"), std::string::npos) << sarif.str();
  for (const Finding& f : listed.findings) {
    EXPECT_EQ(reports::FormatLocation(listed.artifact.path, f.location).find(".gguf/"), std::string::npos);
  }
  const AuditResult folder = AuditPath(dir.path().string(), AuditOptions{});
  EXPECT_TRUE(HasFinding(folder, "gguf-split-incomplete", "is missing"));
}

// A summarised array prints nothing of what it leaves out, the brackets of nested arrays
// included: 200,000 nested arrays render as the first 4 and "...".
TEST(Gguf, ASummarisedNestedArrayPrintsNoBracketsOfWhatItLeavesOut) {
  auto le = [](std::uint64_t v, int n) {
    std::string out;
    for (int i = 0; i < n; ++i, v >>= 8) out += static_cast<char>(v & 0xFF);
    return out;
  };
  std::string value = le(9, 4) + le(200000, 8);
  for (int i = 0; i < 200000; ++i) value += le(0, 4) + le(1, 8) + "\x07";
  gg::Spec s = gg::Several();
  s.kvs.push_back({"test.nested", 9, value});
  const AuditResult result = AuditGguf(gg::Build(s));
  const WeightFile& wf = result.artifact.weights.at(0);
  ASSERT_TRUE(wf.gguf.has_value());
  bool found = false;
  for (const GgufFacts::Entry& e : wf.gguf->metadata) {
    if (e.key != "test.nested") continue;
    found = true;
    EXPECT_EQ(e.value, "[[7], [7], [7], [7], ...]");
    EXPECT_EQ(e.type, "array<array>[200000]");
  }
  EXPECT_TRUE(found);
}

TEST(Gguf, DiffComparesTensorByTensorStatisticsForFloatsBytesForTheRest) {
  TempDir dir;
  const std::string a = gg::Build(gg::Several());
  std::string b = a;
  const AuditResult layout = AuditGguf(a);
  const auto& tensors = layout.artifact.weights.at(0).tensors;
  b[tensors[0].data_offset + 5] ^= 0x01;  // token_embd.weight, F32
  b[tensors[3].data_offset + 9] ^= 0x01;  // blk.0.q8.weight, Q8_0
  WriteFiles({{"a.gguf", a}, {"b.gguf", b}}, dir.path());
  for (bool hash : {true, false}) {
    DiffOptions options;
    options.policy.compute_hash = hash;
    options.max_rel_l2 = {{"*", 1.0}};
    const DiffRun run = RunDiff((dir.path() / "a.gguf").string(), (dir.path() / "b.gguf").string(), options);
    std::map<std::string, const TensorDiff*> by_name;
    for (const TensorDiff& t : run.tensors) by_name[t.name] = &t;
    ASSERT_EQ(by_name.size(), tensors.size());
    EXPECT_EQ(by_name.at("token_embd.weight")->status, TensorStatus::kChanged) << hash;
    EXPECT_TRUE(by_name.at("token_embd.weight")->stats.has_value());
    EXPECT_EQ(by_name.at("blk.0.q8.weight")->status, TensorStatus::kChanged) << hash;
    EXPECT_FALSE(by_name.at("blk.0.q8.weight")->stats.has_value());
    EXPECT_EQ(by_name.at("blk.0.q4.weight")->status, TensorStatus::kUnchanged) << hash;
    EXPECT_EQ(by_name.at("pos.ids")->status, TensorStatus::kUnchanged) << hash;
    // A change that has no statistics exceeds every rel_l2 threshold.
    bool gated = false;
    for (const Finding& f : run.findings) {
      gated |= f.rule->id == "diff-rel-l2-exceeded" &&
               f.message.find("'blk.0.q8.weight' (Q8_0) changed") != std::string::npos;
    }
    EXPECT_TRUE(gated) << hash;
  }
}

TEST(Gguf, ChatTemplatesAreParsedAsJinja) {
  auto with = [](const std::string& text) {
    gg::Spec s = gg::Several();
    s.kvs[3] = gg::Str("tokenizer.chat_template", text);
    return AuditGguf(gg::Build(s));
  };
  // What the old literal matcher missed (issue 49): names folded from pieces.
  for (const std::string& text :
       {std::string("{{ cycler['%c%c'|format(95,95) ~ 'init__'] }}"), std::string("{{ x[['__cla', 'ss__']|join] }}"),
        std::string("{% set p = 'po' %}{{ x.os[p ~ 'pen']('id') }}"),
        std::string("{{ x | attr('\\x5f\\x5fglobals\\x5f\\x5f') }}"),
        std::string("{{ x|attr('__tini__'|reverse) }}")}) {
    EXPECT_EQ(FindingsOf(with(text), "template-unsafe").size(), 1U) << text << "\n" << Describe(with(text));
  }
  {
    const AuditResult found = with("{{ x.__init__ }}");
    ASSERT_EQ(FindingsOf(found, "template-unsafe").size(), 1U) << Describe(found);
    EXPECT_EQ(FindingsOf(found, "template-unsafe")[0]->message,
              "The chat template 'tokenizer.chat_template' (line 1, column 6 of the template) reads the attribute "
              "'__init__', a name starting with '_': rendering it without Jinja's sandbox runs code.");
    EXPECT_EQ(FindingsOf(found, "template-unsafe")[0]->rule->severity, Severity::kError);
  }
  // Named templates are read too: the same injection under tokenizer.chat_template.tool_use.
  {
    gg::Spec s = gg::Several();
    s.kvs.push_back(gg::Str("tokenizer.chat_template.tool_use", "{{ cycler.__init__.__globals__.os.popen('id') }}"));
    const AuditResult named = AuditGguf(gg::Build(s));
    ASSERT_FALSE(FindingsOf(named, "template-unsafe").empty()) << Describe(named);
    EXPECT_TRUE(FindingsOf(named, "template-unsafe")[0]->message.starts_with(
        "The chat template 'tokenizer.chat_template.tool_use' (line 1, column 11 of the template)"));
  }
  // Near misses: words in text and comments, dunders in data, plain filters; a broken template is
  // template-invalid (a warning), not a hazard.
  EXPECT_TRUE(FindingsOf(with("{# import os #}{{ m['content'] | trim }}{{ '__' }}{{ 'evaluation' }}{{ '_x_' }}"),
                         "template-unsafe")
                  .empty());
  const AuditResult broken = with("{% for m in messages %}");
  ASSERT_EQ(FindingsOf(broken, "template-invalid").size(), 1U) << Describe(broken);
  EXPECT_EQ(FindingsOf(broken, "template-invalid")[0]->rule->severity, Severity::kWarning);
}

}  // namespace
}  // namespace ckpt::testing
