// The weight-format seam (issue 9, acceptance 2): every format is one table entry; the
// recognised-but-not-accepted ones each name a diagnostic that maps to a catalog rule with a
// fire case, and recognition only labels bytes.
#include "lib/formats/weight_formats.h"

#include <gtest/gtest.h>

#include <set>

#include "rules/reader_rules.h"
#include "tests/support/fire_cases.h"

namespace ckpt::testing {
namespace {

std::span<const std::byte> Bytes(std::string_view text) { return std::as_bytes(std::span(text.data(), text.size())); }

TEST(WeightFormats, TableEntriesAreCompleteAndRulesHaveFireCases) {
  std::set<std::string> fired;
  for (const FireCase& fc : AllFireCases()) fired.insert(fc.rule);
  std::set<std::string_view> names;
  std::size_t accepted = 0;
  for (const WeightFormat& format : WeightFormats()) {
    EXPECT_TRUE(names.insert(format.name).second) << "duplicate format " << format.name;
    if (format.read != nullptr) {
      ++accepted;
      continue;
    }
    ASSERT_NE(format.recognise, nullptr) << format.name << ": a refused format must be recognisable";
    ASSERT_NE(format.refused, Diag::kCount) << format.name;
    const RuleInfo& rule = rules::RuleForDiagnostic(format.refused);
    EXPECT_TRUE(fired.count(std::string(rule.id))) << format.name << " -> " << rule.id << " has no fire case";
  }
  EXPECT_EQ(accepted, 1u);
  EXPECT_EQ(AcceptedWeightFormat().name, "safetensors");
}

TEST(WeightFormats, RecognitionNamesEachRefusedKind) {
  struct Case {
    std::string bytes;
    std::string_view format;
    std::string description;
  };
  const std::vector<Case> cases = {
      {"", "empty", "an empty file"},
      {std::string("\x80\x04\x95", 3), "pickle", "a Python pickle (protocol 4)"},
      {std::string("PK\x03\x04rest", 8), "torch-zip", "a zip archive (torch.save format)"},
      {std::string("\x93NUMPY\x01\x00", 8), "numpy", "a NumPy .npy array"},
      {std::string("GGUF\x03\x00\x00\x00", 8), "gguf", "a GGUF model file"},
      {"version https://git-lfs.github.com/spec/v1\n", "git-lfs-pointer",
       "a Git LFS pointer (the weights were never downloaded)"},
      {"  <!DOCTYPE html><html>", "html", "an HTML page"},
  };
  for (const Case& c : cases) {
    auto got = RecogniseRefusedFormat(Bytes(c.bytes), c.bytes.size());
    ASSERT_TRUE(got.has_value()) << c.format;
    EXPECT_EQ(got->name, c.format);
    EXPECT_EQ(got->description, c.description);
  }
  // Near misses: pickle protocol 1, "GGU", plain JSON.
  for (const std::string& bytes : {std::string("\x80\x01", 2), std::string("GGU"), std::string("{\"a\":1}")}) {
    EXPECT_FALSE(RecogniseRefusedFormat(Bytes(bytes), bytes.size()).has_value()) << bytes;
  }
}

}  // namespace
}  // namespace ckpt::testing
