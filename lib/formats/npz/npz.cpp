#include "lib/formats/npz/npz.h"

#include <map>
#include <memory>
#include <optional>
#include <string_view>

#include "lib/core/byte_reader.h"
#include "lib/core/checked_math.h"
#include "lib/formats/format_table.h"
#include "lib/formats/torch/torch_checkpoint.h"
#include "lib/formats/zip/zip_reader.h"

namespace ckpt {
namespace {

// A member's bytes inside the archive, read in place: offsets count from the member's start.
class MemberBytes final : public RandomAccessFile {
 public:
  MemberBytes(const RandomAccessFile& archive, std::uint64_t offset, std::uint64_t size)
      : archive_(archive), offset_(offset), size_(size) {}
  [[nodiscard]] std::uint64_t size() const override { return size_; }
  [[nodiscard]] IoResult<void> ReadAt(std::uint64_t offset, std::span<std::byte> out) const override {
    if (offset > size_ || out.size() > size_ - offset) {
      return boost::system::error_code(EINVAL, boost::system::generic_category());
    }
    return archive_.ReadAt(offset_ + offset, out);
  }
  [[nodiscard]] FileIdentity identity() const override { return archive_.identity(); }

 private:
  const RandomAccessFile& archive_;
  std::uint64_t offset_;
  std::uint64_t size_;
};

bool IsRootNpyName(std::string_view name) {
  return name.size() > 4 && name.ends_with(".npy") && name.find('/') == std::string_view::npos;
}

std::optional<std::string> SniffNpz(const FileHead& head) {
  if (head.file == nullptr || !StartsWith(head.bytes, std::string_view("PK\x03\x04", 4))) return std::nullopt;
  DiagnosticList ignored;  // the reader reports the structure
  auto dir = ReadZipDirectory(*head.file, "", ignored);
  if (!dir || !dir->found || dir->members.empty()) return std::nullopt;
  for (const ZipMember& m : dir->members) {
    if (!IsRootNpyName(m.name)) return std::nullopt;
  }
  return "a NumPy .npz archive";
}

// The tensor `member` (one .npy array, read as a file of its own) as a tensor of the archive:
// named by the member without `.npy`, its offsets counted from the archive's start.
StoredTensor InArchive(StoredTensor t, const ZipMember& member) {
  t.name = member.name.substr(0, member.name.size() - 4);
  t.entry_offset += member.data_offset;
  if (t.data_length > 0 || t.end > 0) {
    t.data_offset += member.data_offset;
    t.begin += member.data_offset;
    t.end += member.data_offset;
  }
  return t;
}

IoResult<WeightFile> ReadNpz(std::string name, std::unique_ptr<RandomAccessFile> file, DiagnosticSink& sink) {
  WeightFile wf;
  wf.name = std::move(name);
  wf.size = file->size();
  wf.header_read = true;
  auto facts = std::make_shared<npz::NpzFacts>();
  auto dir = ReadZipDirectory(*file, wf.name, sink);
  if (!dir) return dir.error();
  bool valid = dir->found;
  std::map<std::string, std::uint64_t> first_at;
  for (const ZipMember& m : dir->members) {
    if (auto [it, inserted] = first_at.emplace(m.name, m.central_offset); !inserted) {
      facts->duplicates.push_back({m.name, m.central_offset, it->second});
      valid = false;
      continue;
    }
    // A member not located, or compressed (savez_compressed: inflating it is the formats
    // issue's; the zip reader reports it), lists no tensor.
    if (!m.located || m.method != 0 || !IsRootNpyName(m.name)) {
      valid = false;
      continue;
    }
    const MemberBytes bytes(*file, m.data_offset, m.size);
    WeightFile array;
    array.name = wf.name.empty() ? m.name : wf.name + "/" + m.name;
    array.pickle.emplace();  // an object array's pickle is analysed into it
    auto read = ReadNpy(std::move(array), bytes, sink);
    if (!read) return read.error();
    if (!read->valid || read->tensors.size() != 1) {
      valid = false;
      continue;
    }
    wf.tensors.push_back(InArchive(std::move(read->tensors.front()), m));
  }
  wf.valid = valid;
  wf.format_facts = std::move(facts);
  wf.BuildNameIndex();
  wf.file = std::move(file);
  return wf;
}

// In a model folder an .npz stays an archive whose members are not inspected (formats.md
// section 11 reads them).
void NpzInInventory(std::span<const std::byte> /*head*/, const std::string& /*description*/, InventoryItem& item) {
  item.kind = InventoryClass::kArchive;
  item.description = "a zip archive";
}

}  // namespace

const InputFormat formats::kNpzFormat{
    .kind = InputKind::kNpz,
    .sniff = &SniffNpz,
    .opening = InputOpening::kSingleFile,
    .layout = &kSingleFileLayout,
    .read = &ReadNpz,
    .inventory = &NpzInInventory,
    .container = PolyglotContainer::kZip,
    .pickle_family = false,
    .refusal = nullptr,
};

}  // namespace ckpt
