// Issue 8 items 1 and 10: a verdict is bound to file identity, and open files stay bounded.
// A file rewritten in place, or replaced by a rename over its name, while it is being
// hashed never passes; any number of shards audits with a small descriptor limit.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <functional>

#include "engine/audit.h"
#include "engine/verdict.h"
#include "lib/io/directory_source.h"
#include "tests/support/artifact_builder.h"
#include "tests/support/audit_helpers.h"
#include "tests/support/fire_cases.h"

namespace ckpt::testing {
namespace {

// A real directory whose weight file runs `mutate` just before its `trigger`-th read, so
// a change "while the audit reads" happens deterministically (no race, no sleeps).
class MutatingSource final : public ArtifactSource {
 public:
  MutatingSource(std::unique_ptr<DirectorySource> inner, std::string target, int trigger, std::function<void()> mutate)
      : inner_(std::move(inner)), target_(std::move(target)), trigger_(trigger), mutate_(std::move(mutate)) {}

  [[nodiscard]] IoResult<std::vector<DirectoryEntry>> List() const override { return inner_->List(); }
  [[nodiscard]] IoResult<FileIdentity> Stat(const std::string& name) const override { return inner_->Stat(name); }
  [[nodiscard]] IoResult<std::unique_ptr<RandomAccessFile>> Open(const std::string& name) const override {
    auto file = inner_->Open(name);
    if (!file || name != target_) return file;
    return std::unique_ptr<RandomAccessFile>(new Wrapped(std::move(*file), *this));
  }

 private:
  class Wrapped final : public RandomAccessFile {
   public:
    Wrapped(std::unique_ptr<RandomAccessFile> inner, const MutatingSource& owner)
        : inner_(std::move(inner)), owner_(owner) {}
    [[nodiscard]] std::uint64_t size() const override { return inner_->size(); }
    [[nodiscard]] FileIdentity identity() const override { return inner_->identity(); }
    void Release() const override { inner_->Release(); }
    [[nodiscard]] IoResult<void> ReadAt(std::uint64_t offset, std::span<std::byte> out) const override {
      if (++owner_.reads_ == owner_.trigger_) owner_.mutate_();
      return inner_->ReadAt(offset, out);
    }

   private:
    std::unique_ptr<RandomAccessFile> inner_;
    const MutatingSource& owner_;
  };

  std::unique_ptr<DirectorySource> inner_;
  std::string target_;
  int trigger_;
  std::function<void()> mutate_;
  mutable int reads_ = 0;
};

AuditResult AuditWhileMutating(const std::filesystem::path& dir, int trigger, std::function<void()> mutate) {
  auto source = DirectorySource::OpenDirectory(dir.string());
  EXPECT_TRUE(source.has_value());
  MutatingSource mutating(std::move(*source), "weights.safetensors", trigger, std::move(mutate));
  return AuditArtifact(dir.string(), mutating, AuditOptions{});
}

// Reads 1 and 2 are the safetensors header; read 3 is the first tensor byte being hashed.
constexpr int kFirstHashRead = 3;

TEST(FileIdentity, RewrittenInPlaceWhileHashedFails) {
  TempDir dir;
  WriteFiles(Clean(), dir.path());
  const auto weights = dir.path() / "weights.safetensors";
  // Back-date the file so the rewrite's new mtime differs whatever the clock's granularity.
  std::filesystem::last_write_time(weights, std::filesystem::last_write_time(weights) - std::chrono::hours(1));
  AuditResult result = AuditWhileMutating(dir.path(), kFirstHashRead, [&] {
    std::fstream f(weights, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(-1, std::ios::end);
    f.put('\x7f');  // same inode, same size: only the times tell
  });
  auto hits = FindingsOf(result, "layout-file-changed");
  ASSERT_EQ(hits.size(), 1u) << Describe(result);
  EXPECT_EQ(hits[0]->message.rfind("'weights.safetensors' changed while being audited: its modification time", 0), 0u)
      << hits[0]->message;
  EXPECT_NE(hits[0]->message.find("changed (rewritten in place); the verdict cannot stand for its bytes."),
            std::string::npos)
      << hits[0]->message;
  EXPECT_EQ(CodeName(hits[0]->rule->code), "CHECKPOINT_INTEGRITY");
  EXPECT_EQ(VerdictOf(result, Severity::kError), Verdict::kFail);
  EXPECT_TRUE(result.tool_errors.empty()) << Describe(result);
}

TEST(FileIdentity, ReplacedByRenameWhileHashedFails) {
  TempDir dir;
  Files files = Clean();
  WriteFiles(files, dir.path());
  const auto weights = dir.path() / "weights.safetensors";
  AuditResult result = AuditWhileMutating(dir.path(), kFirstHashRead, [&] {
    // The same bytes under a new inode: only identity can tell.
    std::ofstream(dir.path() / "replacement", std::ios::binary) << files.at("weights.safetensors");
    ASSERT_EQ(std::rename((dir.path() / "replacement").c_str(), weights.c_str()), 0);
  });
  auto hits = FindingsOf(result, "layout-file-changed");
  ASSERT_EQ(hits.size(), 1u) << Describe(result);
  EXPECT_NE(hits[0]->message.find("its name now points to another file (replaced, e.g. by mv)"), std::string::npos)
      << hits[0]->message;
  EXPECT_EQ(VerdictOf(result, Severity::kError), Verdict::kFail);
  EXPECT_TRUE(result.tool_errors.empty()) << Describe(result);
}

TEST(FileIdentity, ShrunkWhileHashedFailsWithoutToolError) {
  TempDir dir;
  WriteFiles(Clean(), dir.path());
  const auto weights = dir.path() / "weights.safetensors";
  AuditResult result = AuditWhileMutating(dir.path(), kFirstHashRead, [&] {
    std::filesystem::resize_file(weights, std::filesystem::file_size(weights) - 8);
  });
  ASSERT_EQ(FindingsOf(result, "layout-file-changed").size(), 1u) << Describe(result);
  EXPECT_FALSE(result.artifact.computed_hash.has_value());
  EXPECT_TRUE(result.tool_errors.empty()) << Describe(result);
}

// Near miss: the same audit with an unrelated file touched in the directory stays clean.
TEST(FileIdentity, UnchangedFilesPassAndIdentitiesAreRecorded) {
  TempDir dir;
  WriteFiles(Clean(), dir.path());
  AuditResult result = AuditWhileMutating(dir.path(), kFirstHashRead, [&] {
    std::ofstream(dir.path() / ".." / (dir.path().filename().string() + "-sibling")) << "x";
  });
  std::filesystem::remove(dir.path() / ".." / (dir.path().filename().string() + "-sibling"));
  EXPECT_TRUE(FindingsOf(result, "layout-file-changed").empty()) << Describe(result);
  EXPECT_EQ(VerdictOf(result, Severity::kError), Verdict::kPass) << Describe(result);
  ASSERT_EQ(result.artifact.files.size(), 2u);
  for (const AdmittedFile& f : result.artifact.files) {
    EXPECT_NE(f.identity.inode, 0u) << f.name;
    EXPECT_EQ(f.identity.size, std::filesystem::file_size(dir.path() / f.name)) << f.name;
    EXPECT_FALSE(f.change.has_value()) << f.name;
  }
}

// Item 10: 2,000 shards under a descriptor limit of 64 (the usual 1,024 failed before).
TEST(FileIdentity, ManyShardsAuditWithFewDescriptors) {
  TempDir dir;
  ArtifactSpec spec = ArtifactSpec::Uniform(2000, 4);
  spec.shards = 2000;
  WriteFiles(spec.Build(), dir.path());
  struct rlimit old {};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &old), 0);
  struct rlimit low = old;
  low.rlim_cur = 64;
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &low), 0);
  AuditResult result = AuditPath(dir.path().string(), AuditOptions{});
  ::setrlimit(RLIMIT_NOFILE, &old);
  EXPECT_TRUE(result.tool_errors.empty()) << Describe(result);
  EXPECT_TRUE(result.findings.empty()) << Describe(result);
  ASSERT_TRUE(result.artifact.computed_hash.has_value());
  EXPECT_EQ(*result.artifact.computed_hash, spec.ContentHash());
}

}  // namespace
}  // namespace ckpt::testing
