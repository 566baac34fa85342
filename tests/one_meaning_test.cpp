// One meaning, or refuse (inputs.md 1a, formats.md section 14), where issue 46 found it broken:
// recognition that let a weak magic beat a valid safetensors header, polyglot checks that
// skipped kinds without a container, names never compared with contents inside a folder,
// shards audited without their model, weight-named junk listed as "other" files.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

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

AuditResult AuditFolderOf(const Files& files) { return AuditInput(files, InputForm::kFolder, "model"); }

// Issue 46: a weight-named file no reader recognises beside model.safetensors (an HTML error
// page, an empty file, an LZ4 joblib) is refused as it is when alone, naming it; it passed as
// an "other" file. A README beside the same weights stays quiet.
TEST(OneMeaning, WeightNamedJunkInAFolderIsRefusedAsItIsAlone) {
  Files files = ModelFolderSpec{}.Build();
  files["pytorch_model.bin"] = "<!DOCTYPE html>\n<html><body>502 Bad Gateway</body></html>\n";
  const AuditResult html = AuditFolderOf(files);
  const auto unrecognised = FindingsOf(html, "input-unrecognised");
  ASSERT_EQ(unrecognised.size(), 1U) << Describe(html);
  EXPECT_EQ(unrecognised[0]->location.file, "pytorch_model.bin");
  EXPECT_NE(unrecognised[0]->message.find("'pytorch_model.bin' is an HTML page"), std::string::npos)
      << unrecognised[0]->message;
  EXPECT_EQ(VerdictOf(html, Severity::kError), Verdict::kFail);
  files["pytorch_model.bin"] = "";
  const AuditResult empty = AuditFolderOf(files);
  EXPECT_TRUE(HasFinding(empty, "input-unrecognised", "'pytorch_model.bin' is ")) << Describe(empty);
  EXPECT_EQ(VerdictOf(empty, Severity::kError), Verdict::kFail);
  files.erase("pytorch_model.bin");
  files["model.joblib"] = std::string("\x04\x22\x4d\x18", 4) + std::string(40, '\x01');
  const AuditResult lz4 = AuditFolderOf(files);
  EXPECT_TRUE(HasFinding(lz4, "input-compressed", "'model.joblib' is an LZ4 frame, a compressed archive"))
      << Describe(lz4);
  files.erase("model.joblib");
  files["README.md"] = "<!DOCTYPE html> is how the page starts.\n";
  const AuditResult readme = AuditFolderOf(files);
  EXPECT_EQ(ErrorCount(readme), 0U) << Describe(readme);
}

// Issue 46: inside a folder, a name that claims one format over content of another is
// input-name-mismatch, as for a lone file; a .pkl holding a torch zip (fastai's export.pkl) is
// one of the contents its name allows.
TEST(OneMeaning, ANamesClaimIsComparedWithItsContentInsideAFolder) {
  Files files = ModelFolderSpec{}.Build();
  files["flax_model.msgpack"] = std::string("\x80\x02}q\x00.", 6);
  const AuditResult mismatch = AuditFolderOf(files);
  const auto found = FindingsOf(mismatch, "input-name-mismatch");
  ASSERT_EQ(found.size(), 1U) << Describe(mismatch);
  EXPECT_EQ(found[0]->location.file, "flax_model.msgpack");
  EXPECT_NE(found[0]->message.find("'flax_model.msgpack' is named as a Flax msgpack checkpoint but is a Python pickle"),
            std::string::npos)
      << found[0]->message;
  files.erase("flax_model.msgpack");
  files["export.pkl"] = std::string("\x80\x02}q\x00.", 6);
  EXPECT_TRUE(FindingsOf(AuditFolderOf(files), "input-name-mismatch").empty());
}

// Issue 46: the README's CI example audited each shard alone, so a model with a shard missing
// passed. A shard given alone beside the index naming it is an error saying which folder to
// audit; audited as a folder, the missing shard is found. A lone model.safetensors with no
// index beside it stays quiet.
TEST(OneMeaning, AShardGivenAloneSaysWhichFolderToAudit) {
  TempDir dir;
  ModelFolderSpec spec;
  spec.shards = 2;
  Files files = spec.Build();
  files.erase("model-00002-of-00002.safetensors");
  WriteFiles(files, dir.path() / "llama");
  const AuditResult alone = AuditPath((dir.path() / "llama" / "model-00001-of-00002.safetensors").string(), {});
  const auto found = FindingsOf(alone, "input-shard-alone");
  ASSERT_EQ(found.size(), 1U) << Describe(alone);
  EXPECT_NE(found[0]->message.find("'model-00001-of-00002.safetensors' is a shard of the model in '" +
                                   (dir.path() / "llama").string() + "' ('model.safetensors.index.json' maps"),
            std::string::npos)
      << found[0]->message;
  EXPECT_NE(found[0]->message.find("Audit the folder '" + (dir.path() / "llama").string() + "' instead."),
            std::string::npos)
      << found[0]->message;
  EXPECT_EQ(VerdictOf(alone, Severity::kError), Verdict::kFail);
  EXPECT_EQ(VerdictOf(AuditPath((dir.path() / "llama").string(), {}), Severity::kError), Verdict::kFail);
  WriteFiles(ModelFolderSpec{}.Build(), dir.path() / "small");
  const AuditResult single = AuditPath((dir.path() / "small" / "model.safetensors").string(), {});
  EXPECT_TRUE(FindingsOf(single, "input-shard-alone").empty()) << Describe(single);
  EXPECT_EQ(ErrorCount(single), 0U) << Describe(single);
}

// Issue 50: a folder's listing and its indexes are read once for all the files of it given alone
// (10,000 files of one folder took 10^8 stats), and kept only while they are what was read. Here
// the folder has settled (its times older than the 100 ms a kept listing needs) when the first file is audited; an
// index then written into it, and later rewritten in place to map another file, is seen by the next audits.
TEST(OneMeaning, AFolderKeptForFilesGivenAloneIsReadAgainWhenItChanges) {
  TempDir dir;
  ModelFolderSpec spec;
  spec.shards = 3;
  Files files = spec.Build();
  const std::string index = files.at("model.safetensors.index.json");
  files.erase("model.safetensors.index.json");
  WriteFiles(files, dir.path() / "m");
  auto alone = [&](const std::string& name) { return AuditPath((dir.path() / "m" / name).string(), {}); };
  std::this_thread::sleep_for(std::chrono::milliseconds(250));
  const AuditResult before = alone("model-00001-of-00003.safetensors");
  EXPECT_TRUE(FindingsOf(before, "input-shard-alone").empty()) << Describe(before);
  EXPECT_TRUE(FindingsOf(alone("model-00001-of-00003.safetensors"), "input-shard-alone").empty());
  WriteFiles({{"model.safetensors.index.json", index}}, dir.path() / "m");
  const AuditResult after = alone("model-00002-of-00003.safetensors");
  ASSERT_EQ(FindingsOf(after, "input-shard-alone").size(), 1U) << Describe(after);
  // The index rewritten in place (same inode, same size) to map the first shard's tensors to
  // the third: the first is then no shard of the model.
  std::string remapped = index;
  for (std::size_t at = remapped.find("model-00001-of-00003"); at != std::string::npos;
       at = remapped.find("model-00001-of-00003", at)) {
    remapped.replace(at, 20, "model-00003-of-00003");
  }
  ASSERT_NE(remapped, index);
  std::this_thread::sleep_for(std::chrono::milliseconds(250));
  EXPECT_EQ(FindingsOf(alone("model-00001-of-00003.safetensors"), "input-shard-alone").size(), 1U);
  {
    std::fstream rewrite(dir.path() / "m" / "model.safetensors.index.json",
                         std::ios::in | std::ios::out | std::ios::binary);
    rewrite.write(remapped.data(), static_cast<std::streamsize>(remapped.size()));
  }
  const AuditResult rewritten = alone("model-00001-of-00003.safetensors");
  EXPECT_TRUE(FindingsOf(rewritten, "input-shard-alone").empty()) << Describe(rewritten);
  EXPECT_EQ(FindingsOf(alone("model-00003-of-00003.safetensors"), "input-shard-alone").size(), 1U);
}

}  // namespace
}  // namespace ckpt::testing
