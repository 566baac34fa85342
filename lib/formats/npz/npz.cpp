#include "lib/formats/npz/npz.h"

#include <array>
#include <map>
#include <memory>
#include <optional>
#include <string_view>

#include "lib/core/byte_reader.h"
#include "lib/core/checked_math.h"
#include "lib/core/text.h"
#include "lib/formats/format_table.h"
#include "lib/formats/torch/torch_checkpoint.h"
#include "lib/formats/zip/zip_inflate.h"
#include "lib/formats/zip/zip_reader.h"
#include "lib/io/window_file.h"

namespace ckpt {
namespace {

bool IsRootNpyName(std::string_view name) {
  return name.size() > 4 && name.ends_with(".npy") && name.find('/') == std::string_view::npos;
}

bool IsDirectoryEntry(std::string_view name) { return name.ends_with("/"); }

// Recognition (formats.md section 1 row 11): at least one root *.npy member, and nothing but
// .npy members and folder entries, so a misplaced member (npz-member-unexpected) still reads
// as the archive numpy.savez would have written.
std::optional<std::string> SniffNpz(const FileHead& head) {
  if (head.file == nullptr || !StartsWith(head.bytes, std::string_view("PK\x03\x04", 4))) return std::nullopt;
  auto dir = SniffZipDirectory(*head.file);
  if (dir == nullptr || dir->members.empty()) return std::nullopt;
  bool any_root = false;
  for (const ZipMember& m : dir->members) {
    any_root |= IsRootNpyName(m.name);
    if (!m.name.ends_with(".npy") && !IsDirectoryEntry(m.name)) return std::nullopt;
  }
  if (!any_root) return std::nullopt;
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

// In a model folder an .npz is weights, analysed (formats.md section 11).
void NpzInInventory(std::span<const std::byte> /*head*/, const std::string& /*description*/, InventoryItem& item) {
  item.kind = InventoryClass::kAnalysedWeights;
  item.description = "a NumPy .npz archive";
}

}  // namespace

IoResult<WeightFile> npz::ReadNpz(std::string name, std::unique_ptr<RandomAccessFile> file, DiagnosticSink& sink) {
  WeightFile wf;
  wf.name = std::move(name);
  wf.size = file->size();
  wf.header_read = true;
  auto facts = std::make_shared<npz::NpzFacts>();
  const FileReporter report(wf.name, sink);
  auto dir = ReadZipDirectory(*file, wf.name, sink, ZipMethods::kStoredOrDeflate);
  if (!dir) return dir.error();
  bool valid = dir->found;
  std::map<std::string, std::uint64_t> first_at;
  for (const ZipMember& m : dir->members) {
    if (auto [it, inserted] = first_at.emplace(m.name, m.central_offset); !inserted) {
      facts->duplicates.push_back({m.name, m.central_offset, it->second});
      valid = false;
      continue;
    }
    if (!IsRootNpyName(m.name)) {
      report(
          Diag::kNpzMemberUnexpected, m.central_offset,
          "Member " + QuoteForMessage(m.name) +
              (IsDirectoryEntry(m.name) ? std::string(" is a folder entry")
                                        : std::string(" is not a .npy array at the archive's root")) +
              ": numpy.savez writes only root NAME.npy members, and np.load would list it under a key no writer gave.");
      valid = false;
      continue;
    }
    // A member not located, or compressed by another method (reported by the zip reader).
    if (!m.located || (m.method != 0 && m.method != 8)) {
      valid = false;
      continue;
    }
    const WindowFile stored(*file, m.data_offset, m.compressed_size);
    std::unique_ptr<RandomAccessFile> inflated;
    if (m.method == 8) {
      auto opened = InflateZipMember(stored, m, report);
      if (!opened) return opened.error();
      if (*opened == nullptr) {
        valid = false;
        continue;
      }
      inflated = std::move(*opened);
    }
    WeightFile array;
    array.name = wf.name.empty() ? m.name : wf.name + "/" + m.name;
    array.pickle.emplace();  // an object array's pickle is analysed into it
    auto read = ReadNpy(std::move(array), inflated ? *inflated : static_cast<const RandomAccessFile&>(stored), sink,
                        /*in_npz=*/true);
    if (!read) return read.error();
    if (!read->valid || read->tensors.size() != 1) {
      valid = false;
      continue;
    }
    StoredTensor t = std::move(read->tensors.front());
    if (inflated) {  // its bytes are not in the file as stored: listed, not located
      t.data_offset = t.data_length = t.begin = t.end = 0;
    }
    wf.tensors.push_back(InArchive(std::move(t), m));
  }
  wf.valid = valid;
  wf.format_facts = std::move(facts);
  wf.BuildNameIndex();
  wf.file = std::move(file);
  return wf;
}

constexpr std::array<NameSuffix, 1> kNpzNames{{
    {".npz", NamedLoader::kNumpy, "a NumPy .npz archive"},
}};

const InputFormat formats::kNpzFormat{
    .kind = InputKind::kNpz,
    .sniff = &SniffNpz,
    .read = &npz::ReadNpz,
    .inventory = &NpzInInventory,
    .container = PolyglotContainer::kZip,
    .names = kNpzNames,
};

}  // namespace ckpt
