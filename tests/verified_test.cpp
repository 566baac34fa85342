// Verify, then load (verify-then-load.md section 5), from C++: what OpenVerified holds is what
// the audit judged, whatever happens to the path afterwards; what fails holds nothing. The
// Python module's tests (tests/python) repeat these through ckpt_audit with torch and numpy.
#include "engine/verified.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>

#include "lib/hashing/sha256.h"
#include "lib/io/directory_source.h"
#include "tests/support/artifact_builder.h"
#include "tests/support/gguf_builder.h"

namespace ckpt {
namespace {

namespace fs = std::filesystem;
using testing::ArtifactSpec;
using testing::TempDir;

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

void WriteFile(const fs::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

std::string Text(std::span<const std::byte> bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

std::string HexOf(const std::string& bytes) {
  Sha256 sha;
  sha.Update(bytes);
  return sha.FinalHex();
}

bool HasRule(const AuditResult& r, std::string_view id) {
  return std::ranges::any_of(r.findings, [id](const Finding& f) { return f.rule->id == id; });
}

// A Lensemble artifact of `count` tensors of `bytes_each`, optionally sharded.
fs::path MakeArtifact(const fs::path& dir, std::size_t count, std::uint64_t bytes_each, std::uint32_t shards = 0) {
  ArtifactSpec spec = ArtifactSpec::Uniform(count, bytes_each);
  spec.shards = shards;
  fs::path root = dir / "round";
  testing::WriteFiles(spec.Build(), root);
  return root;
}

TEST(VerifiedOpen, HeldBytesOutliveEveryChangeToThePath) {
  TempDir dir;
  const fs::path root = MakeArtifact(dir.path(), 8, 4096);
  const std::string original = ReadFile(root / "weights.safetensors");
  auto vc = OpenVerified(root.string(), {});
  ASSERT_TRUE(vc->holds()) << (vc->tool_errors().empty() ? "" : vc->tool_errors().front());
  EXPECT_EQ(vc->verdict(), Verdict::kPass);
  ASSERT_EQ(vc->tensors().size(), 8U);
  // Rewritten in place, truncated, then renamed over: the held bytes stay the audited ones.
  std::string flipped = original;
  flipped[flipped.size() - 1] ^= 0x55;
  WriteFile(root / "weights.safetensors", flipped);
  auto buffer = vc->Buffer("weights.safetensors");
  ASSERT_TRUE(buffer) << buffer.message;
  EXPECT_EQ(Text((*buffer.value)->bytes()), original);
  fs::resize_file(root / "weights.safetensors", 10);
  WriteFile(dir.path() / "other", "other bytes");
  fs::rename(dir.path() / "other", root / "weights.safetensors");
  fs::rename(root, dir.path() / "moved");
  EXPECT_EQ(Text((*vc->Buffer("weights.safetensors").value)->bytes()), original);
  // Each tensor's view is its bytes in the held file.
  auto tensor = vc->Tensor(vc->tensors()[3].name);
  ASSERT_TRUE(tensor) << tensor.message;
  EXPECT_EQ(tensor.value->dtype, "F32");
  EXPECT_EQ(original.substr(tensor.value->offset, tensor.value->length).size(), 4096U);
  // The descriptor a loader gets is the sealed copy: no write, no growth, no shrinking.
  auto fd_path = vc->FdPath("weights.safetensors");
  ASSERT_TRUE(fd_path) << fd_path.message;
  EXPECT_EQ(ReadFile(*fd_path.value), original);
  const int seals = ::fcntl(std::stoi(fd_path.value->substr(fd_path.value->rfind('/') + 1)), F_GET_SEALS);
  EXPECT_EQ(seals & (F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL),
            F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);
  const int writer = ::open(fd_path.value->c_str(), O_WRONLY);
  EXPECT_EQ(::pwrite(writer, "x", 1, 0), -1);
  EXPECT_EQ(errno, EPERM);
  ::close(writer);
  // Each held file's SHA-256 is of the held bytes.
  for (const HeldFileInfo& f : vc->Files()) {
    if (f.name == "weights.safetensors") {
      EXPECT_EQ(f.sha256, HexOf(original));
    }
  }
  ASSERT_TRUE(vc->header());
  EXPECT_EQ(vc->header()->at("schema_version").to_number<std::uint64_t>(), 2U);
  EXPECT_EQ(vc->header()->at("hash_algorithm").as_string(), "sha256");
}

TEST(VerifiedOpen, ATamperedArtifactOrAWrongPinHoldsNothing) {
  TempDir dir;
  const fs::path root = MakeArtifact(dir.path(), 4, 64);
  std::string bytes = ReadFile(root / "weights.safetensors");
  VerifyOptions wrong_pin;
  wrong_pin.audit.expected_hash = std::string(64, 'a');
  auto pinned = OpenVerified(root.string(), wrong_pin);
  EXPECT_EQ(pinned->verdict(), Verdict::kFail);
  EXPECT_FALSE(pinned->holds());
  EXPECT_TRUE(HasRule(pinned->result(), "hash-unexpected"));
  auto refused = pinned->FdPath("weights.safetensors");
  EXPECT_FALSE(refused);
  EXPECT_EQ(refused.error, AccessError::kNotHeld);

  bytes[bytes.size() - 3] ^= 0x01;
  WriteFile(root / "weights.safetensors", bytes);
  auto tampered = OpenVerified(root.string(), {});
  EXPECT_EQ(tampered->verdict(), Verdict::kFail);
  EXPECT_FALSE(tampered->holds());
  EXPECT_TRUE(HasRule(tampered->result(), "hash-mismatch"));
  EXPECT_TRUE(tampered->tensors().empty());
}

TEST(VerifiedOpen, HoldFdRefusesAChangedFileAtTheNextAccess) {
  TempDir dir;
  const fs::path root = MakeArtifact(dir.path(), 4, 64);
  const std::string original = ReadFile(root / "weights.safetensors");
  VerifyOptions fd;
  fd.hold = HoldMode::kFd;
  auto renamed = OpenVerified(root.string(), fd);
  ASSERT_TRUE(renamed->holds());
  auto before = renamed->Buffer("weights.safetensors");
  ASSERT_TRUE(before) << before.message;
  EXPECT_EQ(Text((*before.value)->bytes()), original);
  // Renamed over: the kept descriptor's file lost its name, which changes its status-change
  // time (fstat cannot tell that from a rewrite whose modification time was put back): refused.
  WriteFile(dir.path() / "other", original + "x");
  fs::rename(dir.path() / "other", root / "weights.safetensors");
  EXPECT_EQ(renamed->Buffer("weights.safetensors").error, AccessError::kChanged);

  WriteFile(root / "weights.safetensors", original);
  auto rewritten = OpenVerified(root.string(), fd);
  ASSERT_TRUE(rewritten->holds());
  std::string flipped = original;
  flipped[flipped.size() - 1] ^= 0x55;
  WriteFile(root / "weights.safetensors", flipped);
  for (const auto& refused :
       {rewritten->Buffer("weights.safetensors").error, rewritten->FdPath("weights.safetensors").error}) {
    EXPECT_EQ(refused, AccessError::kChanged);
  }
  EXPECT_NE(rewritten->FdPath("weights.safetensors").message.find("changed after the audit"), std::string::npos);
}

TEST(VerifiedOpen, LazyReadsOnlyWhatIsAskedAndChecksItsDigest) {
  TempDir dir;
  const fs::path root = MakeArtifact(dir.path(), 4, std::uint64_t{1} << 20, 2);  // two shards of 2 MiB
  const std::string first_name = "weights-00000-of-00002.safetensors";
  const std::string second_name = "weights-00001-of-00002.safetensors";
  const std::string first = ReadFile(root / first_name);
  const std::string second = ReadFile(root / second_name);
  VerifyOptions lazy;
  lazy.hold = HoldMode::kLazy;
  lazy.expected_files = {{first_name, HexOf(first)}, {second_name, HexOf(std::string("not the shard"))}};
  const std::uint64_t before = DirectorySource::BytesRead();
  auto vc = OpenVerified(root.string(), lazy);
  ASSERT_TRUE(vc->holds()) << (vc->tool_errors().empty() ? "" : vc->tool_errors().front());
  const std::uint64_t at_open = DirectorySource::BytesRead() - before;
  EXPECT_LT(at_open, std::uint64_t{256} << 10);  // header.json, the index, each shard's first 64 KiB
  auto held = vc->Buffer(first_name);
  ASSERT_TRUE(held) << held.message;
  EXPECT_EQ(Text((*held.value)->bytes()), first);
  const std::uint64_t for_first = DirectorySource::BytesRead() - before - at_open;
  EXPECT_LE(for_first, first.size());  // what the structure audit held is not read again
  EXPECT_GT(for_first, first.size() - (std::uint64_t{128} << 10));
  std::cout << "lazy: " << at_open << " bytes read at open, " << for_first << " for the first shard of " << first.size()
            << ", none of the second\n";
  auto refused = vc->Buffer(second_name);
  EXPECT_EQ(refused.error, AccessError::kDigestMismatch);
  EXPECT_NE(refused.message.find("sha256:" + HexOf(second)), std::string::npos) << refused.message;
  EXPECT_NE(refused.message.find("sha256:" + HexOf(std::string("not the shard"))), std::string::npos);
  EXPECT_EQ(vc->FdPath(second_name).error, AccessError::kDigestMismatch);  // and at every later access

  VerifyOptions no_digests;
  no_digests.hold = HoldMode::kLazy;
  auto refused_open = OpenVerified(root.string(), no_digests);
  EXPECT_FALSE(refused_open->holds());
  ASSERT_EQ(refused_open->tool_errors().size(), 1U);
  EXPECT_NE(refused_open->tool_errors()[0].find("expected_files"), std::string::npos);
}

TEST(VerifiedOpen, AHoldPastItsBoundIsRefusedBeforeReading) {
  TempDir dir;
  const fs::path root = MakeArtifact(dir.path(), 4, std::uint64_t{1} << 20);
  VerifyOptions small;
  small.max_hold_bytes = std::uint64_t{1} << 20;
  const std::uint64_t before = DirectorySource::BytesRead();
  auto vc = OpenVerified(root.string(), small);
  EXPECT_EQ(DirectorySource::BytesRead() - before, 0U);
  EXPECT_EQ(vc->verdict(), Verdict::kError);
  ASSERT_EQ(vc->tool_errors().size(), 1U);
  EXPECT_NE(vc->tool_errors()[0].find("more than max_hold_bytes (1048576): nothing was read"), std::string::npos)
      << vc->tool_errors()[0];
}

// A writer flipping a weight byte back and forth while the audit runs: the audit fails, or
// what it holds is exactly the artifact as written (the hash passed over the held bytes).
TEST(VerifiedOpen, AWriterDuringTheAuditNeverGetsOtherBytesHeld) {
  TempDir dir;
  const fs::path root = MakeArtifact(dir.path(), 16, std::uint64_t{256} << 10);
  const fs::path weights = root / "weights.safetensors";
  const std::string original = ReadFile(weights);
  int passes = 0;
  for (int round = 0; round < 6; ++round) {
    std::atomic<bool> stop{false};
    std::thread writer([&] {
      const int fd = ::open(weights.c_str(), O_WRONLY);
      char byte = original[original.size() / 2];
      for (int i = 0; !stop.load(); ++i) {
        const char value = static_cast<char>(i % 2 == 0 ? byte ^ 0x20 : byte);
        (void)::pwrite(fd, &value, 1, static_cast<off_t>(original.size() / 2));
      }
      (void)::pwrite(fd, &byte, 1, static_cast<off_t>(original.size() / 2));
      ::close(fd);
    });
    auto vc = OpenVerified(root.string(), {});
    stop = true;
    writer.join();
    if (vc->holds()) {
      ++passes;
      EXPECT_EQ(Text((*vc->Buffer("weights.safetensors").value)->bytes()), original);
    } else {
      EXPECT_TRUE(HasRule(vc->result(), "layout-file-changed") || HasRule(vc->result(), "hash-mismatch"));
    }
  }
  std::cout << passes << " of 6 audits passed while a writer ran\n";
}

TEST(VerifiedOpen, AccessAfterCloseIsRefusedAndReadersMayRunAtOnce) {
  TempDir dir;
  const fs::path root = MakeArtifact(dir.path(), 32, 1024);
  const std::string original = ReadFile(root / "weights.safetensors");
  auto vc = OpenVerified(root.string(), {});
  ASSERT_TRUE(vc->holds());
  std::vector<std::thread> readers;
  readers.reserve(8);
  std::atomic<int> wrong{0};
  for (int t = 0; t < 8; ++t) {
    readers.emplace_back([&] {
      for (int i = 0; i < 200; ++i) {
        const TensorView& view = vc->tensors()[static_cast<std::size_t>(i) % vc->tensors().size()];
        auto tensor = vc->Tensor(view.name);
        auto buffer = vc->Buffer(view.file);
        if (!tensor || !buffer ||
            Text((*buffer.value)->bytes().subspan(tensor.value->offset, tensor.value->length)) !=
                original.substr(tensor.value->offset, tensor.value->length)) {
          ++wrong;
        }
      }
    });
  }
  for (std::thread& t : readers) t.join();
  EXPECT_EQ(wrong.load(), 0);
  auto kept = vc->Buffer("weights.safetensors");
  vc->Close();
  EXPECT_EQ(vc->Buffer("weights.safetensors").error, AccessError::kClosed);
  EXPECT_EQ(vc->Tensor(vc->tensors()[0].name).error, AccessError::kClosed);
  EXPECT_EQ(vc->FdPath("weights.safetensors").error, AccessError::kClosed);
  EXPECT_EQ(Text((*kept.value)->bytes()), original);  // a mapping taken before close lives while held
}

// Raw tensor views for every kind whose tensors sit as raw bytes: a GGUF file's F32 tensor is a
// view; its quantised Q4_0 tensor is not (its bytes need ggml's dequantisation).
TEST(VerifiedOpen, AGgufFilesUnquantisedTensorsAreViews) {
  TempDir dir;
  testing::gg::Spec spec;
  spec.kvs = {testing::gg::Str("general.architecture", "llama")};
  spec.tensors = {{"token_embd.weight", {4, 2}, 0, std::nullopt, std::nullopt},
                  {"blk.0.attn_q.weight", {32, 2}, 2, std::nullopt, std::nullopt}};
  const std::string bytes = testing::gg::Build(spec);
  WriteFile(dir.path() / "model.gguf", bytes);
  auto vc = OpenVerified((dir.path() / "model.gguf").string(), {});
  ASSERT_TRUE(vc->holds()) << (vc->tool_errors().empty() ? "" : vc->tool_errors().front());
  auto view = vc->Tensor("token_embd.weight");
  ASSERT_TRUE(view) << view.message;
  EXPECT_EQ(view.value->file, "model.gguf");
  EXPECT_EQ(view.value->dtype, "F32");
  EXPECT_EQ(view.value->length, 32U);
  EXPECT_EQ(view.value->offset + view.value->length <= bytes.size(), true);
  auto quantised = vc->Tensor("blk.0.attn_q.weight");
  EXPECT_EQ(quantised.error, AccessError::kNoRawView);
  EXPECT_EQ(quantised.message,
            "tensor 'blk.0.attn_q.weight' of 'model.gguf' is not stored as raw bytes: open the file with its loader "
            "at fd_path('model.gguf')");
}

}  // namespace
}  // namespace ckpt
