// input-polyglot: a file with a second complete container where a loader looks is refused,
// naming both readings; a stray signature without a directory stays quiet.
#include <gtest/gtest.h>

#include "tests/support/artifact_builder.h"
#include "tests/support/audit_helpers.h"
#include "tests/support/pickle_builder.h"
#include "tests/support/process.h"

namespace ckpt::testing {
namespace {

const std::string kOneF32 = R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})";

// A safetensors file whose one U8 tensor holds `data`.
std::string SafetensorsHolding(const std::string& data) {
  return SafetensorsFile(R"({"w":{"dtype":"U8","shape":[)" + std::to_string(data.size()) + R"(],"data_offsets":[0,)" +
                             std::to_string(data.size()) + "]}}",
                         data);
}

// A valid safetensors file whose length field is "PK\x03\x04\0\0\0\0" (67,324,752): its
// header is padded with spaces to that length, and a zip follows the tensor bytes.
std::string ZipMagicSafetensors() {
  const std::uint64_t length = 0x04034b50;
  std::string header = kOneF32;
  header.resize(length, ' ');
  return std::string("PK\x03\x04\0\0\0\0", 8) + header + std::string(4, '\0') + pk::OneTensorZip();
}

TEST(Rule_input_polyglot, ASafetensorsFileThatStartsAsAZipIsRefused) {
  const std::string file = ZipMagicSafetensors();
  const AuditResult single = AuditInput({{"model.safetensors", file}}, InputForm::kFile, "");
  ASSERT_EQ(FindingsOf(single, "input-polyglot").size(), 1U) << Describe(single);
  EXPECT_EQ(FindingsOf(single, "input-polyglot")[0]->message,
            "The file is a safetensors file that starts with a zip local header (PK\\x03\\x04): torch.load and "
            "numpy.load read it as a zip archive, not as a safetensors file.");
  // The same bytes as pytorch_model.bin in a model folder: transformers torch.loads them.
  const AuditResult folder = AuditInput({{"config.json", "{}"}, {"pytorch_model.bin", file}}, InputForm::kFolder, "m");
  ASSERT_EQ(FindingsOf(folder, "input-polyglot").size(), 1U) << Describe(folder);
  EXPECT_EQ(FindingsOf(folder, "input-polyglot")[0]->message,
            "'pytorch_model.bin' is a safetensors file that starts with a zip local header (PK\\x03\\x04): "
            "torch.load and numpy.load read it as a zip archive, not as a safetensors file.");
}

TEST(Rule_input_polyglot, ASafetensorsFileEndingInACompleteZipIsRefused) {
  TempDir tmp;
  const std::string zip = pk::OneTensorZip();
  const std::string file = SafetensorsHolding(zip);
  WriteText(tmp.path() / "model.safetensors", file);
  // zipfile lists the zip's members from the end of the file.
  const CommandResult listed = RunCommand(
      "/usr/bin/python3 -c \"import sys,zipfile;print(zipfile.ZipFile(sys.argv[1])"
      ".namelist())\" " +
      ShellQuote(tmp.path() / "model.safetensors"));
  ASSERT_NE(listed.output.find("archive/data.pkl"), std::string::npos) << listed.output;
  const AuditResult result = AuditInput({{"model.safetensors", file}}, InputForm::kFile, "");
  ASSERT_EQ(FindingsOf(result, "input-polyglot").size(), 1U) << Describe(result);
  EXPECT_EQ(FindingsOf(result, "input-polyglot")[0]->message,
            "The file is a safetensors file and also a zip archive: an end record at byte " +
                std::to_string(file.size() - 22) + " points at a central directory, which zipfile and miniz list.");
  // Inside a Lensemble artifact or a model folder alike.
  const AuditResult folder = AuditInput({{"model.safetensors", file}}, InputForm::kFolder, "m");
  EXPECT_EQ(FindingsOf(folder, "input-polyglot").size(), 1U) << Describe(folder);
}

TEST(Rule_input_polyglot, APickleEndingInAZipIsRefused) {
  const std::string file = pk::Proto(2) + pk::kEmptyDict + pk::kStop + pk::OneTensorZip();
  const AuditResult result = AuditInput({{"state.pkl", file}}, InputForm::kFile, "");
  EXPECT_TRUE(HasFinding(result, "input-polyglot", "The file is a pickle and also a zip archive: an end record at"))
      << Describe(result);
}

TEST(Rule_input_polyglot, NearMissStraySignaturesWithoutADirectoryStayQuiet) {
  // An end-record signature and a local header signature among the tensor bytes, with no
  // central directory behind them: random tensor bytes can hold them.
  std::string data(4096, '\x5a');
  const std::string end_signature("PK\x05\x06\x00\x00\x00\x00\x01\x00\x01\x00\x2e\x00\x00\x00\x10\x00\x00\x00\x00\x00",
                                  22);
  data.replace(data.size() - 40, end_signature.size(), end_signature);
  data.replace(100, 4, std::string("PK\x03\x04", 4));
  const AuditResult result = AuditInput({{"model.safetensors", SafetensorsHolding(data)}}, InputForm::kFile, "");
  EXPECT_TRUE(FindingsOf(result, "input-polyglot").empty()) << Describe(result);
  EXPECT_EQ(ErrorCount(result), 0U) << Describe(result);
  // A real torch zip in a model folder is one container, read by the loader its name selects.
  const AuditResult zip =
      AuditInput({{"config.json", "{}"}, {"pytorch_model.bin", pk::OneTensorZip()}}, InputForm::kFolder, "m");
  EXPECT_TRUE(FindingsOf(zip, "input-polyglot").empty()) << Describe(zip);
}

}  // namespace
}  // namespace ckpt::testing
