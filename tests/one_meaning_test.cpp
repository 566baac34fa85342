// One meaning, or refuse (inputs.md 1a, formats.md section 14), where issue 46 found it broken:
// recognition that let a weak magic beat a valid safetensors header, polyglot checks that
// skipped kinds without a container, names never compared with contents inside a folder,
// shards audited without their model, weight-named junk listed as "other" files.
#include <gtest/gtest.h>

#include <filesystem>

#include "engine/audit.h"
#include "engine/verdict.h"
#include "tests/support/artifact_builder.h"
#include "tests/support/audit_helpers.h"
#include "tests/support/model_folder_builder.h"
#include "tests/support/process.h"

namespace ckpt::testing {
namespace {

namespace fs = std::filesystem;

// A valid one-tensor safetensors file whose header is padded with spaces to `header_length`
// bytes, so that the length's first bytes spell what the test wants.
std::string SafetensorsWithHeaderLength(std::uint64_t header_length) {
  std::string header = R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
  header.resize(static_cast<std::size_t>(header_length), ' ');
  return SafetensorsFile(header, std::string(8, '\x01'));
}

AuditResult AuditOneFile(const std::string& name, const std::string& bytes) {
  return AuditInput({{name, bytes}}, InputForm::kFile, name);
}

// A header length whose first bytes are 1f 8b (gzip's magic; about 1 length in 65,536), 1f 8b
// 08 (gzip's whole signature) or 42 5a 68 ("BZh") is a safetensors file when its header
// parses: it passes with its tensor. A real gzip or bzip2 stream stays compressed.
TEST(OneMeaning, ASafetensorsHeaderLengthSpellingAMagicIsStillSafetensors) {
  for (const std::uint64_t length : {std::uint64_t{0x8b1f}, std::uint64_t{0x088b1f}, std::uint64_t{0x685a42}}) {
    const AuditResult result = AuditOneFile("model.safetensors", SafetensorsWithHeaderLength(length));
    EXPECT_EQ(InputKindName(result.artifact.kind), "safetensors") << length;
    EXPECT_EQ(ErrorCount(result), 0U) << length << Describe(result);
    ASSERT_EQ(result.artifact.weights.size(), 1U);
    EXPECT_EQ(result.artifact.weights.front().tensors.size(), 1U);
  }
  std::string gz = {'\x1f', '\x8b', '\x08', '\0', '\0', '\0', '\0', '\0', '\0', '\x03'};
  gz += std::string(20, '\x01');
  const AuditResult compressed = AuditOneFile("model.bin", gz);
  EXPECT_EQ(InputKindName(compressed.artifact.kind), "compressed") << Describe(compressed);
  std::string bz = "BZh9";
  bz += std::string("\x31\x41\x59\x26\x53\x59", 6) + std::string(30, '\x02');
  EXPECT_EQ(InputKindName(AuditOneFile("model.bin", bz).artifact.kind), "compressed");
}

}  // namespace
}  // namespace ckpt::testing
