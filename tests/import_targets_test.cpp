// The import-target finder (lib/metadata/import_targets.h, code-in-metadata.md section 1) on
// JSON and YAML: every target at any depth with its key path and position, Hydra 0.x's `class`
// only where it is Hydra's, and the strict YAML reading's refusals.
#include "lib/metadata/import_targets.h"

#include <gtest/gtest.h>

#include <string>

#include "lib/json/strict_parser.h"

namespace ckpt::testing {
namespace {

std::vector<ImportTarget> JsonTargets(const std::string& text, ClassKey class_key = ClassKey::kBesideHydraKeys) {
  json::Document doc{std::string(text)};
  EXPECT_FALSE(json::Parse(doc)) << text;
  return FindJsonTargets(doc, class_key);
}

TEST(ImportTargets, TheAllowlistAdmitsNemoAndTorchClassesOnly) {
  for (const char* allowed :
       {"nemo.collections.asr.models.EncDecCTCModel", "nemo.core.classes.ModelPT", "torch.nn.ReLU", "torch.optim.AdamW",
        "torch.optim.lr_scheduler.StepLR", "torch.utils.data.DataLoader"}) {
    EXPECT_TRUE(IsAllowedTarget(allowed)) << allowed;
  }
  for (const char* refused : {"os.system", "subprocess.Popen", "builtins.eval", "torch.nn.functional.relu",
                              "torch.load", "torch.nn.Module.__init__", "nemo.collections.asr.helper_function",
                              "nemo.collections.", "nemo.core..X", "torch.nn.ReLU.", "nemo_evil.collections.X", ""}) {
    EXPECT_FALSE(IsAllowedTarget(refused)) << refused;
  }
}

TEST(ImportTargets, JsonTargetsAtAnyDepthWithTheirKeyPathsAndPositions) {
  const auto found = JsonTargets(
      "{\"model\": {\"layers\": [{\"_target_\": \"os.system\"}, {\"target\": \"torch.nn.ReLU\"}]},\n"
      " \"a/b~c\": {\"cls\": 5}}");
  ASSERT_EQ(found.size(), 3U);
  EXPECT_EQ(found[0].key_path, "/model/layers/0/_target_");
  EXPECT_EQ(found[0].value, "os.system");
  EXPECT_FALSE(found[0].allowed);
  EXPECT_EQ(found[0].line, 1U);
  EXPECT_EQ(found[0].column, 36U);  // the value's opening quote
  EXPECT_EQ(found[1].key_path, "/model/layers/1/target");
  EXPECT_TRUE(found[1].allowed);
  EXPECT_EQ(found[2].key_path, "/a~1b~0c/cls");
  EXPECT_FALSE(found[2].is_string);
  EXPECT_FALSE(found[2].allowed);
  EXPECT_EQ(found[2].line, 2U);
}

TEST(ImportTargets, AJsonClassKeyCountsOnlyBesideHydrasKeys) {
  EXPECT_TRUE(JsonTargets(R"({"class": "ImageProcessor", "size": 3})").empty());
  for (const char* companion : {"params", "_partial_", "_args_"}) {
    const auto found = JsonTargets(std::string(R"({"class": "subprocess.Popen", ")") + companion + R"(": {}})");
    ASSERT_EQ(found.size(), 1U) << companion;
    EXPECT_EQ(found[0].value, "subprocess.Popen");
  }
  EXPECT_EQ(JsonTargets(R"({"class": "x"})", ClassKey::kAnywhere).size(), 1U);
}

TEST(ImportTargets, ADeepJsonDocumentIsWalkedWithoutRecursion) {
  std::string text;
  for (int i = 0; i < 120; ++i) text += "[";
  text += R"({"_target_": "os.system"})";
  for (int i = 0; i < 120; ++i) text += "]";
  const auto found = JsonTargets(text);
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(found[0].key_path.size(), std::size_t{120} * 2 + std::string("/_target_").size());
}

TEST(ImportTargets, YamlTargetsInMappingsAndSequences) {
  const YamlConfig config = ReadYamlConfig(
      "model:\n"
      "  layers:\n"
      "    - _target_: torch.nn.ReLU\n"
      "    - cls: os.system\n"
      "      params: {command: id}\n"
      "  loss:\n"
      "    class: builtins.eval\n"
      "    target: null\n");
  EXPECT_FALSE(config.refused);
  EXPECT_TRUE(config.mapping_root);
  ASSERT_EQ(config.targets.size(), 4U);
  EXPECT_EQ(config.targets[0].key_path, "/model/layers/0/_target_");
  EXPECT_TRUE(config.targets[0].allowed);
  EXPECT_EQ(config.targets[1].key_path, "/model/layers/1/cls");
  EXPECT_EQ(config.targets[1].value, "os.system");
  EXPECT_EQ(config.targets[1].line, 4U);
  EXPECT_EQ(config.targets[2].key_path, "/model/loss/class");
  EXPECT_EQ(config.targets[3].key_path, "/model/loss/target");
  EXPECT_FALSE(config.targets[3].is_string);
}

TEST(ImportTargets, YamlARefusalSaysWhyAndWhereAndKeepsWhatCameBefore) {
  struct Case {
    const char* text;
    const char* why;
    std::uint64_t line;
  };
  for (const Case& c : {
           Case{"a: &x 1\nb: *x\n", "anchor", 1},
           Case{"a: !!python/object/apply:os.system [id]\n", "tag", 1},
           Case{"a: 1\na: 2\n", "repeats the key", 2},
           Case{"a: 1\n---\nb: 2\n", "more than one YAML document", 2},
           Case{"? [a]\n: 1\n", "mapping or list as a key", 1},
           Case{"_target_: os.system\nx: [1,\n", "not valid YAML", 3},
       }) {
    const YamlConfig config = ReadYamlConfig(c.text);
    ASSERT_TRUE(config.refused) << c.text;
    EXPECT_NE(config.refused->why.find(c.why), std::string::npos) << c.text << ": " << config.refused->why;
    EXPECT_EQ(config.refused->line, c.line) << c.text;
  }
  EXPECT_EQ(ReadYamlConfig("_target_: os.system\nx: [1,\n").targets.size(), 1U);
  std::string deep;
  for (std::size_t i = 0; i < kMaxYamlConfigDepth + 1; ++i) deep += "[";
  const YamlConfig too_deep = ReadYamlConfig(deep);
  ASSERT_TRUE(too_deep.refused);
  EXPECT_NE(too_deep.refused->why.find("nests deeper than 64 levels"), std::string::npos);
}

}  // namespace
}  // namespace ckpt::testing
