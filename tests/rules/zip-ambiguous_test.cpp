// zip-ambiguous: zips that miniz (torch.load), zipfile and unzip would read differently are
// refused with the exact reason; a zip with an ordinary comment stays quiet.
#include <gtest/gtest.h>

#include <cstring>

#include "tests/support/audit_helpers.h"
#include "tests/support/pickle_builder.h"

namespace ckpt::testing {
namespace {

using namespace pk;

std::uint64_t Le(const std::string& bytes, std::size_t at, std::size_t n) {
  std::uint64_t v = 0;
  for (std::size_t i = n; i-- > 0;) v = (v << 8) | static_cast<unsigned char>(bytes[at + i]);
  return v;
}

void PutLe(std::string& bytes, std::size_t at, std::uint64_t v, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i, v >>= 8) bytes[at + i] = static_cast<char>(v & 0xFF);
}

std::string LeBytes(std::uint64_t v, std::size_t n) {
  std::string out(n, '\0');
  PutLe(out, 0, v, n);
  return out;
}

// A one-tensor torch zip; its end record is its last 22 bytes (BuildZip writes no comment).
std::string Zip() { return OneTensorZip(); }
std::size_t EndOf(const std::string& zip) { return zip.size() - 22; }

// `zip` with `comment` as its archive comment (the length recorded as `recorded`, default its size).
std::string WithComment(std::string zip, const std::string& comment, std::optional<std::size_t> recorded = {}) {
  PutLe(zip, EndOf(zip) + 20, recorded.value_or(comment.size()), 2);
  return zip + comment;
}

AuditResult AuditZip(const std::string& bytes) { return AuditInput({{"model.pt", bytes}}, InputForm::kFile, ""); }

std::string Only(const AuditResult& result, std::string_view rule) {
  const auto found = FindingsOf(result, rule);
  return found.size() == 1 ? found[0]->message : "(" + std::to_string(found.size()) + " findings)\n" + Describe(result);
}

TEST(Rule_zip_ambiguous, ASecondEndRecordInTheCommentIsRefused) {
  const std::string zip = Zip();
  const std::string inner = zip.substr(EndOf(zip));  // a second end record pointing at the same directory
  const AuditResult result = AuditZip(WithComment(zip, inner));
  EXPECT_EQ(Only(result, "zip-ambiguous"),
            "The zip has a second end-of-central-directory record at byte " + std::to_string(EndOf(zip)) +
                " that points at a directory, besides the end record at byte " + std::to_string(zip.size()) +
                ": readers that search differently list different members.");
}

TEST(Rule_zip_ambiguous, ALastEndRecordWhoseCommentDoesNotReachTheEndIsRefused) {
  // miniz and zipfile take the last signature; the audit used to skip it for the one whose
  // comment reaches the end.
  const std::string zip = Zip();
  std::string inner = zip.substr(EndOf(zip));
  PutLe(inner, 20, 5, 2);  // claims a 5-byte comment; 3 bytes follow
  const std::string file = WithComment(zip, inner + "abc");
  const AuditResult result = AuditZip(file);
  EXPECT_EQ(Only(result, "zip-ambiguous"),
            "The zip has a second end-of-central-directory record at byte " + std::to_string(zip.size()) +
                ", after the one at byte " + std::to_string(EndOf(zip)) +
                " whose comment reaches the end: miniz (torch.load), zipfile and unzip read the last one.");
}

TEST(Rule_zip_ambiguous, EntriesBeyondTheRecordedCountAreRefused) {
  std::string zip = Zip();
  const std::uint64_t count = Le(zip, EndOf(zip) + 10, 2);
  PutLe(zip, EndOf(zip) + 8, count - 1, 2);
  PutLe(zip, EndOf(zip) + 10, count - 1, 2);
  const std::uint64_t cd_size = Le(zip, EndOf(zip) + 12, 4);
  const std::uint64_t cd_start = EndOf(zip) - cd_size;
  const AuditResult result = AuditZip(zip);
  // The entry past the count is found, and so is the local record only it claimed.
  EXPECT_TRUE(HasFinding(result, "zip-ambiguous",
                         "The zip's central directory holds entries beyond the " + std::to_string(count - 1) +
                             " its end record counts, from byte "))
      << Describe(result);
  EXPECT_TRUE(
      HasFinding(result, "zip-ambiguous", ", between the last member and the central directory, belong to no entry."));
  for (const Finding* f : FindingsOf(result, "zip-ambiguous")) {
    if (f->message.starts_with("The zip's central directory")) {
      EXPECT_GT(f->location.byte_offset.value_or(0), cd_start);
    }
  }
}

TEST(Rule_zip_ambiguous, BytesNoEntryClaimsAreRefused) {
  const std::string zip = Zip();
  const std::uint64_t cd_size = Le(zip, EndOf(zip) + 12, 4);
  const std::uint64_t cd_start = EndOf(zip) - cd_size;
  const std::string junk = "PK\x03\x04 a local record no entry lists";
  std::string file = zip.substr(0, cd_start) + junk + zip.substr(cd_start);
  PutLe(file, file.size() - 22 + 16, cd_start + junk.size(), 4);
  const AuditResult result = AuditZip(file);
  EXPECT_EQ(Only(result, "zip-ambiguous"),
            std::to_string(junk.size()) + " bytes at byte " + std::to_string(cd_start) +
                ", between the last member and the central directory, belong to no entry.");
}

TEST(Rule_zip_ambiguous, NamesEqualButForCaseAreRefused) {
  auto entries = TorchZipEntries(OneTensorPickle(), {{"0", OneTensorRecord()}});
  ZipEntry shadow;
  shadow.name = "archive/DATA.PKL";
  shadow.data = SystemPickle("touch /tmp/x");
  entries.push_back(shadow);
  const AuditResult result = AuditZip(BuildZip(entries));
  EXPECT_TRUE(HasFinding(result, "zip-ambiguous", "Member 'archive/DATA.PKL' and member 'archive/data.pkl' (at byte "))
      << Describe(result);
  EXPECT_TRUE(HasFinding(result, "zip-ambiguous",
                         ") differ only in case: miniz (torch.load) finds records without case, zipfile and unzip "
                         "with it."));
}

// A zip64 locator right before an end record that carries a full 65,535-byte comment lies
// outside the 65,557-byte tail: miniz follows it all the same, and so does the audit.
TEST(Rule_zip_ambiguous, AZip64LocatorOutsideTheTailIsFollowed) {
  const std::string zip = Zip();
  const std::size_t end = EndOf(zip);
  const std::uint64_t entries = Le(zip, end + 10, 2);
  const std::uint64_t cd_size = Le(zip, end + 12, 4);
  const std::uint64_t cd_offset = Le(zip, end + 16, 4);
  auto with_zip64 = [&](std::uint64_t zip64_entries) {
    std::string record = LeBytes(0x06064b50, 4) + LeBytes(44, 8) + LeBytes(45, 2) + LeBytes(45, 2) + LeBytes(0, 4) +
                         LeBytes(0, 4) + LeBytes(zip64_entries, 8) + LeBytes(zip64_entries, 8) + LeBytes(cd_size, 8) +
                         LeBytes(cd_offset, 8);
    const std::string locator = LeBytes(0x07064b50, 4) + LeBytes(0, 4) + LeBytes(end, 8) + LeBytes(1, 4);
    std::string out = zip.substr(0, end) + record + locator + zip.substr(end);
    return WithComment(out, std::string(0xFFFF, 'c'));
  };
  const AuditResult agreeing = AuditZip(with_zip64(entries));
  EXPECT_TRUE(FindingsOf(agreeing, "zip-structure").empty()) << Describe(agreeing);
  EXPECT_TRUE(FindingsOf(agreeing, "zip-header-mismatch").empty()) << Describe(agreeing);
  EXPECT_TRUE(FindingsOf(agreeing, "zip-ambiguous").empty()) << Describe(agreeing);
  const AuditResult disagreeing = AuditZip(with_zip64(entries + 1));
  EXPECT_TRUE(HasFinding(disagreeing, "zip-header-mismatch",
                         "The zip's end record and its zip64 end record disagree on the central directory (entries " +
                             std::to_string(entries) + " vs " + std::to_string(entries + 1)))
      << Describe(disagreeing);
}

// In a model folder a zip whose records torch finds without case is a torch checkpoint,
// analysed (its pickle's call named), never an archive whose members were not inspected.
TEST(Rule_zip_ambiguous, InAModelFolderAZipWithAnUpperCaseDataPklIsACheckpoint) {
  std::vector<ZipEntry> entries;
  ZipEntry readme;  // first: the member the inventory's first look sees
  readme.name = "archive/README.txt";
  readme.data = "notes\n";
  entries.push_back(readme);
  ZipEntry pickle;
  pickle.name = "archive/DATA.PKL";
  pickle.data = SystemPickle("touch /tmp/x");
  entries.push_back(pickle);
  const AuditResult result =
      AuditInput({{"config.json", "{}"}, {"weights.bin", BuildZip(entries)}}, InputForm::kFolder, "model");
  EXPECT_TRUE(FindingsOf(result, "model-archive").empty()) << Describe(result);
  EXPECT_TRUE(HasFinding(result, "pickle-call-unsafe", "posix.system")) << Describe(result);
}

TEST(Rule_zip_ambiguous, NearMissAZipWithAnOrdinaryCommentStaysQuiet) {
  const AuditResult result = AuditZip(WithComment(Zip(), "saved by a tool that writes comments"));
  EXPECT_TRUE(FindingsOf(result, "zip-ambiguous").empty()) << Describe(result);
  EXPECT_EQ(ErrorCount(result), 0U) << Describe(result);
}

}  // namespace
}  // namespace ckpt::testing
