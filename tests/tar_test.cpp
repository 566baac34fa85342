// Tar artifacts (inputs.md section 2) as real writers make them: the four golden vectors
// tarred by GNU tar, bsdtar (libarchive-tools) and Python's tarfile, in every format and
// naming form, pass with their listed hashes; every truncation point of a valid tar fails
// without a crash; a changed byte inside a member is caught by the content hash; tars are
// found by ckpt-chain and compared by ckpt-diff exactly as directories are.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "engine/audit.h"
#include "engine/chain_run.h"
#include "engine/diff_run.h"
#include "lib/formats/polyglot.h"
#include "lib/io/directory_source.h"
#include "tests/support/artifact_builder.h"
#include "tests/support/audit_helpers.h"
#include "tests/support/fire_cases.h"
#include "tests/support/golden_vectors.h"
#include "tests/support/process.h"
#include "tests/support/tar_builder.h"

namespace ckpt::testing {
namespace {

namespace fs = std::filesystem;

// One way of writing a tar of directory DIR (whose parent is PARENT and name NAME) to OUT.
struct Writer {
  const char* label;
  const char* command;  // with {dir}, {parent}, {name}, {out}
};
constexpr Writer kWriters[] = {
    {"GNU tar -C dir .", "tar -cf {out} -C {dir} ."},
    {"GNU tar top folder", "tar -cf {out} -C {parent} {name}"},
    {"GNU tar bare names", "cd {dir} && tar -cf {out} *"},
    {"GNU tar --format=pax", "tar --format=pax -cf {out} -C {dir} ."},
    {"GNU tar --format=ustar", "tar --format=ustar -cf {out} -C {parent} {name}"},
    {"GNU tar --format=oldgnu", "tar --format=oldgnu -cf {out} -C {dir} ."},
    {"bsdtar -C dir .", "bsdtar -cf {out} -C {dir} ."},
    {"bsdtar top folder", "bsdtar -cf {out} -C {parent} {name}"},
    {"bsdtar --format pax", "bsdtar --format pax -cf {out} -C {dir} ."},
    {"bsdtar --format ustar", "bsdtar --format ustar -cf {out} -C {parent} {name}"},
    {"bsdtar --format gnutar", "bsdtar --format gnutar -cf {out} -C {dir} ."},
    {"tarfile USTAR top folder",
     "python3 -c \"import tarfile;t=tarfile.open('{out}','w',format=tarfile.USTAR_FORMAT);"
     "t.add('{dir}',arcname='{name}');t.close()\""},
    {"tarfile GNU bare",
     "python3 -c \"import os,tarfile;t=tarfile.open('{out}','w',format=tarfile.GNU_FORMAT);"
     "[t.add(os.path.join('{dir}',f),arcname=f) for f in sorted(os.listdir('{dir}'))];t.close()\""},
    {"tarfile PAX ./",
     "python3 -c \"import tarfile;t=tarfile.open('{out}','w',format=tarfile.PAX_FORMAT);"
     "t.add('{dir}',arcname='.');t.close()\""},
};

std::string Fill(std::string text, const std::map<std::string, std::string>& values) {
  for (const auto& [key, value] : values) {
    for (std::size_t at; (at = text.find("{" + key + "}")) != std::string::npos;) {
      text.replace(at, key.size() + 2, value);
    }
  }
  return text;
}

TEST(TarArtifacts, GoldenVectorsTarredByRealWritersPassWithTheirHashes) {
  TempDir tmp;
  for (const GoldenVector& v : kGoldenVectors) {
    const fs::path dir = fs::absolute(fs::path("fixtures/vectors") / v.name);
    for (const Writer& w : kWriters) {
      const fs::path out = tmp.path() / (std::string(v.name) + ".tar");
      fs::remove(out);
      const std::string command = Fill(
          w.command,
          {{"dir", dir.string()}, {"parent", dir.parent_path().string()}, {"name", v.name}, {"out", out.string()}});
      ASSERT_EQ(RunCommand(command + " 2>&1").exit_code, 0) << command;
      const AuditResult result = AuditPath(out.string(), AuditOptions{});
      SCOPED_TRACE(std::string(v.name) + " by " + w.label);
      EXPECT_EQ(result.artifact.kind, InputKind::kLensembleTar);
      EXPECT_TRUE(result.findings.empty()) << Describe(result);
      EXPECT_TRUE(result.tool_errors.empty()) << Describe(result);
      ASSERT_TRUE(result.artifact.computed_hash.has_value());
      EXPECT_EQ(*result.artifact.computed_hash, v.hash);
    }
  }
}

TEST(TarArtifacts, EveryTruncationPointFailsWithATarFinding) {
  TarSpec spec = TarOfFiles(ReadFiles("fixtures/vectors/v1-sharded"), "./");
  spec.record = 0;  // the archive ends with its two zero blocks: every shorter cut is truncated
  const std::string tar = BuildTar(spec);
  TempDir tmp;
  const fs::path path = tmp.path() / "cut.tar";
  std::size_t cut_points = 0;
  for (std::size_t length = 0; length < tar.size(); ++length) {
    std::ofstream(path, std::ios::binary | std::ios::trunc).write(tar.data(), static_cast<std::streamsize>(length));
    const AuditResult result = AuditPath(path.string(), AuditOptions{});
    ++cut_points;
    bool failed = false;
    bool tar_rule = false;
    for (const Finding& f : result.findings) {
      failed |= f.severity() == Severity::kError;
      tar_rule |= std::string_view(f.rule->id).starts_with("tar-");
    }
    EXPECT_TRUE(failed) << "cut at " << length << " passed:\n" << Describe(result);
    // Once the tar magic and version are in (bytes 257-264), the cut is the tar's finding.
    if (length >= 265) {
      EXPECT_TRUE(tar_rule) << "cut at " << length << " has no tar finding:\n" << Describe(result);
    }
  }
  EXPECT_EQ(cut_points, tar.size());
  // Cut inside GNU tar's record padding (after the end marker) is still a whole tar.
  const std::string padded = BuildTar(TarOfFiles(ReadFiles("fixtures/vectors/v1-sharded"), "./"));
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(padded.data(), static_cast<std::streamsize>(tar.size() + 700));
  const AuditResult whole = AuditPath(path.string(), AuditOptions{});
  EXPECT_TRUE(whole.findings.empty()) << Describe(whole);
}

TEST(TarArtifacts, AChangedByteInsideAMemberIsAHashMismatch) {
  const Files files = ReadFiles("fixtures/vectors/v1-single");
  TarSpec spec = TarOfFiles(files);
  for (TarMemberSpec& m : spec.members) {
    if (m.name == "weights.safetensors") m.data.back() ^= 0x01;  // the last tensor byte
  }
  const AuditResult result = AuditInput({{"round.tar", BuildTar(spec)}}, InputForm::kFile, "");
  EXPECT_EQ(FindingsOf(result, "hash-mismatch").size(), 1U) << Describe(result);
}

TEST(TarArtifacts, MembersAreReadInPlaceOncePerByte) {
  TempDir tmp;
  ArtifactSpec spec = ArtifactSpec::Uniform(4, 1 << 20);
  const std::string tar = BuildTar(TarOfFiles(spec.Build(), "round-0001/"));
  const fs::path path = tmp.path() / "round.tar";
  std::ofstream(path, std::ios::binary).write(tar.data(), static_cast<std::streamsize>(tar.size()));
  const std::uint64_t opens = DirectorySource::FileOpenCount();
  const std::uint64_t bytes = DirectorySource::BytesRead();
  const AuditResult result = AuditPath(path.string(), AuditOptions{});
  EXPECT_TRUE(result.findings.empty()) << Describe(result);
  EXPECT_EQ(DirectorySource::FileOpenCount() - opens, 1U) << "the tar is opened once";
  // Tensor bytes are read once; headers and the safetensors header a little more.
  // Plus, for the polyglot check, the tar's and the weight file's heads and searched tails.
  EXPECT_LT(DirectorySource::BytesRead() - bytes,
            static_cast<std::uint64_t>(tar.size()) + std::uint64_t{64} * 1024 + 2 * (1024 + kZipSearchWindow));
  EXPECT_GE(DirectorySource::BytesRead() - bytes, 4U << 20);
}

// A pax size applies to the member proper, never to a GNU long-name record between them:
// GNU tar, bsdtar and tarfile take the 'L' record's size from its own header. The audit
// must hash the bytes they extract.
TEST(TarArtifacts, APaxSizeBeforeALongNameRecordIsTheMembersSize) {
  TempDir tmp;
  const Files files = Clean();
  TarSpec spec = TarOfFiles(files);
  for (TarMemberSpec& m : spec.members) {
    if (m.name != "weights.safetensors") continue;
    m.gnu_long_name = true;
    m.pax_records = {{"size", std::to_string(m.data.size())}};
    m.header_size = 0;
  }
  const fs::path path = tmp.path() / "round.tar";
  WriteText(path, BuildTar(spec));
  const AuditResult result = AuditPath(path.string(), AuditOptions{});
  EXPECT_TRUE(result.findings.empty()) << Describe(result);
  ASSERT_TRUE(result.artifact.computed_hash.has_value()) << Describe(result);
  EXPECT_EQ(*result.artifact.computed_hash, AuditFiles(files).artifact.computed_hash.value_or("none"));
  for (const char* extract : {"tar -xOf {tar} weights.safetensors", "bsdtar -xOf {tar} weights.safetensors",
                              "/usr/bin/python3 -c \"import sys,tarfile;sys.stdout.buffer.write("
                              "tarfile.open(sys.argv[1]).extractfile('weights.safetensors').read())\" {tar}"}) {
    const CommandResult out = RunCommand(Fill(extract, {{"tar", ShellQuote(path)}}));
    ASSERT_EQ(out.exit_code, 0) << extract;
    EXPECT_TRUE(out.output == files.at("weights.safetensors")) << extract << " extracts other bytes";
  }
}

// tarfile joins a GNU header's non-empty prefix field to the name: refused, never read as
// GNU tar reads it.
TEST(TarArtifacts, AGnuHeaderWithAPrefixFieldIsRefused) {
  TempDir tmp;
  TarSpec spec = TarOfFiles(Clean());
  spec.gnu_magic = true;
  for (TarMemberSpec& m : spec.members) {
    if (m.name == "weights.safetensors") m.prefix_field = "../../escaped";
  }
  const fs::path path = tmp.path() / "round.tar";
  WriteText(path, BuildTar(spec));
  const CommandResult listed = RunCommand(
      "/usr/bin/python3 -c \"import sys,tarfile;print(tarfile.open(sys.argv[1]).getnames())\" " + ShellQuote(path));
  EXPECT_NE(listed.output.find("../../escaped/weights.safetensors"), std::string::npos) << listed.output;
  const AuditResult result = AuditPath(path.string(), AuditOptions{});
  ASSERT_EQ(FindingsOf(result, "tar-name-conflict").size(), 1U) << Describe(result);
  EXPECT_EQ(FindingsOf(result, "tar-name-conflict")[0]->message,
            "member 'weights.safetensors' has a GNU header whose POSIX prefix field holds '../../escaped': GNU tar "
            "names it 'weights.safetensors', Python's tarfile '../../escaped/weights.safetensors'.");
}

// Duplicate names are found with one hash of names: 20,000 copies of one member are as
// quick to judge as 20,000 distinct members (the test would take minutes if quadratic).
TEST(TarArtifacts, ManyDuplicateNamesAreJudgedInLinearTime) {
  TarSpec spec = TarOfFiles(Clean());
  for (int i = 0; i < 20000; ++i) spec.members.push_back(Member("header.json", "{}"));
  const AuditResult result = AuditInput({{"round.tar", BuildTar(spec)}}, InputForm::kFile, "");
  EXPECT_FALSE(FindingsOf(result, "tar-duplicate-member").empty()) << Describe(result);
}

TEST(TarArtifacts, ChainFindsTarsAndDiffComparesThem) {
  TempDir tmp;
  const fs::path history = tmp.path() / "history";
  fs::create_directories(history);
  ArtifactSpec round0 = ArtifactSpec::Clean();
  ArtifactSpec round1 = ArtifactSpec::Clean();
  round1.round_index = 1;
  round1.parent_hash = round0.ContentHash();
  round1.tensors[0].data.clear();
  round1.FillData();
  round1.tensors[0].data[0] ^= 0x10;
  for (const auto& [name, spec] : {std::pair{"round-0000.tar", &round0}, std::pair{"r1.bin", &round1}}) {
    const std::string tar = BuildTar(TarOfFiles(spec->Build(), "./"));
    std::ofstream(history / name, std::ios::binary).write(tar.data(), static_cast<std::streamsize>(tar.size()));
  }
  std::ofstream(history / "notes.txt") << "not an artifact";
  const ChainRun run = RunChain({history.string()}, ChainRunOptions{});
  ASSERT_EQ(run.graph.nodes.size(), 2U) << "both tars found by content (one is named r1.bin)";
  EXPECT_TRUE(run.findings.empty());
  EXPECT_EQ(run.history.size(), 2U);

  DiffOptions options;
  options.require_child = true;
  const DiffRun diff = RunDiff((history / "round-0000.tar").string(), (history / "r1.bin").string(), options);
  EXPECT_TRUE(diff.link.is_child());
  EXPECT_TRUE(diff.findings.empty());
  std::size_t changed = 0;
  for (const TensorDiff& t : diff.tensors) changed += t.status == TensorStatus::kChanged ? 1U : 0U;
  EXPECT_EQ(changed, 1U);
}

}  // namespace
}  // namespace ckpt::testing
