// npz-duplicate-member and the npz format module, on archives Debian's numpy writes: a clean
// savez archive passes with its arrays listed; the same archive with a member written twice
// (Python's zipfile appends one) is refused, and numpy.load is shown to take the later one.
#include <gtest/gtest.h>

#include <filesystem>

#include "engine/audit.h"
#include "tests/support/artifact_builder.h"
#include "tests/support/audit_helpers.h"
#include "tests/support/model_folder_builder.h"
#include "tests/support/prerequisite.h"
#include "tests/support/process.h"

namespace ckpt::testing {
namespace {

namespace fs = std::filesystem;

bool HaveNumpy() { return RunCommand("/usr/bin/python3 -c 'import numpy' 2>&1").exit_code == 0; }

CommandResult Python(const std::string& script) {
  return RunCommand("/usr/bin/python3 -c " + ShellQuote(script) + " 2>&1");
}

TEST(Rule_npz_duplicate_member, ASavezArchivePassesWithItsArraysListed) {
  if (!HaveNumpy()) CKPT_MISSING_PREREQUISITE() << "python3-numpy missing (scripts/install-deps --test installs it)";
  TempDir dir;
  const fs::path npz = dir.path() / "weights.npz";
  ASSERT_EQ(Python("import numpy as np; np.savez('" + npz.string() +
                   "', w=np.arange(6, dtype=np.float32).reshape(2, 3), b=np.zeros(4, dtype=np.int64))")
                .exit_code,
            0);
  const AuditResult result = AuditPath(npz.string(), AuditOptions{});
  EXPECT_EQ(InputKindName(result.artifact.kind), "npz");
  EXPECT_TRUE(result.findings.empty()) << Describe(result);
  ASSERT_EQ(result.artifact.weights.size(), 1U);
  const WeightFile& wf = result.artifact.weights.front();
  ASSERT_EQ(wf.tensors.size(), 2U);
  const StoredTensor* w = wf.FindTensor("w");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->dtype, "F32");
  EXPECT_EQ(w->shape, (std::vector<std::uint64_t>{2, 3}));
  EXPECT_EQ(w->data_length, 24U);
  ASSERT_NE(wf.FindTensor("b"), nullptr);
  EXPECT_EQ(wf.FindTensor("b")->dtype, "I64");
}

TEST(Rule_npz_duplicate_member, AMemberWrittenTwiceIsRefusedAndNumpyTakesTheLater) {
  if (!HaveNumpy()) CKPT_MISSING_PREREQUISITE() << "python3-numpy missing (scripts/install-deps --test installs it)";
  TempDir dir;
  const fs::path npz = dir.path() / "weights.npz";
  const CommandResult made = Python(
      "import io, warnings, zipfile, numpy as np\n"
      "np.savez('" +
      npz.string() +
      "', w=np.zeros(2, dtype=np.float32))\n"
      "later = io.BytesIO(); np.save(later, np.ones(3, dtype=np.float32))\n"
      "warnings.simplefilter('ignore')\n"
      "with zipfile.ZipFile('" +
      npz.string() +
      "', 'a') as z: z.writestr('w.npy', later.getvalue())\n"
      "print(np.load('" +
      npz.string() + "')['w'].shape)");
  ASSERT_EQ(made.exit_code, 0) << made.output;
  EXPECT_EQ(made.output, "(3,)\n");  // numpy.load takes the later entry
  const AuditResult result = AuditPath(npz.string(), AuditOptions{});
  EXPECT_EQ(InputKindName(result.artifact.kind), "npz");
  const auto found = FindingsOf(result, "npz-duplicate-member");
  ASSERT_EQ(found.size(), 1U) << Describe(result);
  EXPECT_NE(found[0]->message.find("Member 'w.npy' appears again at byte "), std::string::npos) << found[0]->message;
  EXPECT_NE(found[0]->message.find("numpy.load takes the last entry of a name, a reader of local headers the first."),
            std::string::npos);
  EXPECT_TRUE(HasFinding(result, "zip-structure", "appears twice in the central directory")) << Describe(result);
}

TEST(Rule_npz_object_array, ASavezCompressedArchivePassesWithItsArraysListed) {
  if (!HaveNumpy()) CKPT_MISSING_PREREQUISITE() << "python3-numpy missing (scripts/install-deps --test installs it)";
  TempDir dir;
  const fs::path npz = dir.path() / "weights.npz";
  ASSERT_EQ(Python("import numpy as np; np.savez_compressed('" + npz.string() +
                   "', w=np.arange(6, dtype=np.float32).reshape(2, 3), b=np.zeros(1000, dtype=np.int64))")
                .exit_code,
            0);
  const AuditResult result = AuditPath(npz.string(), AuditOptions{});
  EXPECT_EQ(InputKindName(result.artifact.kind), "npz");
  EXPECT_TRUE(result.findings.empty()) << Describe(result);
  ASSERT_EQ(result.artifact.weights.size(), 1U);
  const WeightFile& wf = result.artifact.weights.front();
  ASSERT_EQ(wf.tensors.size(), 2U);
  ASSERT_NE(wf.FindTensor("b"), nullptr);
  EXPECT_EQ(wf.FindTensor("b")->shape, (std::vector<std::uint64_t>{1000}));
  EXPECT_EQ(wf.FindTensor("w")->dtype, "F32");
}

TEST(Rule_npz_object_array, AnObjectMemberFailsWithItsPickleAnalysedAndNeverRuns) {
  if (!HaveNumpy()) CKPT_MISSING_PREREQUISITE() << "python3-numpy missing (scripts/install-deps --test installs it)";
  TempDir dir;
  const fs::path folder = dir.path() / "model";
  WriteFiles(ModelFolderSpec{}.Build(), folder);
  const fs::path npz = folder / "extra.npz";
  const fs::path marker = dir.path() / "payload-ran";
  const CommandResult made = Python(
      "import os, numpy as np\n"
      "class P:\n"
      "    def __reduce__(self): return (os.system, ('touch " +
      marker.string() +
      "',))\n"
      "np.savez_compressed('" +
      npz.string() + "', w=np.zeros(2, dtype=np.float32), o=np.array([P(), 1], dtype=object))\n");
  ASSERT_EQ(made.exit_code, 0) << made.output;
  for (const fs::path& input : {npz, folder}) {
    const AuditResult result = AuditPath(input.string(), AuditOptions{});
    EXPECT_TRUE(HasFinding(result, "npz-object-array", "The .npy array has dtype '|O': its data is a pickle"))
        << Describe(result);
    EXPECT_TRUE(HasFinding(result, "pickle-call-unsafe", "calls posix.system('touch ")) << Describe(result);
    // numpy's own reconstruction of the array is its policy, not a finding.
    EXPECT_FALSE(HasFinding(result, "pickle-global-unsafe", "numpy.core.multiarray._reconstruct")) << Describe(result);
    const auto found = FindingsOf(result, "npz-object-array");
    ASSERT_EQ(found.size(), 1U);
    EXPECT_EQ(found[0]->location.file, input == npz ? std::string("o.npy") : std::string("extra.npz/o.npy"));
  }
  EXPECT_FALSE(fs::exists(marker)) << "the payload ran";
}

}  // namespace
}  // namespace ckpt::testing
