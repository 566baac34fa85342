// Keras v3 `.keras` zips (formats.md section 5): what keras/src/saving/saving_lib.py writes,
// recognised by its root members in the central directory. config.json goes through the
// Keras config analyser, metadata.json is checked and its keras_version shown, the weights
// (model.weights.h5 through the isolated HDF5 reader, model.weights.npz as an .npz) are listed,
// and anything but assets/ is an unexpected member, sniffed for what it is. Members are read in
// place, or inflated (bounded) when Keras deflated them; nothing is extracted.
#include <array>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "lib/core/byte_reader.h"
#include "lib/core/text.h"
#include "lib/formats/format_table.h"
#include "lib/formats/hdf5/hdf5.h"
#include "lib/formats/input_classifier.h"
#include "lib/formats/keras_config/keras_config.h"
#include "lib/formats/npz/npz.h"
#include "lib/formats/zip/zip_inflate.h"
#include "lib/formats/zip/zip_reader.h"
#include "lib/io/window_file.h"

namespace ckpt {
namespace {

constexpr std::string_view kConfig = "config.json";
constexpr std::string_view kMetadata = "metadata.json";
constexpr std::string_view kWeightsH5 = "model.weights.h5";
constexpr std::string_view kWeightsNpz = "model.weights.npz";
constexpr std::uint64_t kMaxMetadataBytes = 1'000'000;

// Recognition (formats.md section 1 row 12): config.json or metadata.json at the root, with at
// least one other member Keras writes there.
std::optional<std::string> SniffKeras(const FileHead& head) {
  if (head.file == nullptr || !StartsWith(head.bytes, std::string_view("PK\x03\x04", 4))) return std::nullopt;
  auto dir = SniffZipDirectory(*head.file);
  if (dir == nullptr) return std::nullopt;
  std::set<std::string_view> roots;
  for (const ZipMember& m : dir->members) {
    if (m.name == kConfig || m.name == kMetadata || m.name == kWeightsH5 || m.name == kWeightsNpz) roots.insert(m.name);
  }
  if (roots.size() < 2 || (roots.count(kConfig) == 0 && roots.count(kMetadata) == 0)) return std::nullopt;
  return "a Keras v3 .keras archive";
}

bool IsAsset(std::string_view name) { return name.starts_with("assets/"); }

class KerasReader {
 public:
  KerasReader(WeightFile& wf, const RandomAccessFile& file, DiagnosticSink& sink)
      : wf_(wf), file_(file), sink_(sink), report_(wf.name, sink) {}

  IoResult<void> Read(keras::KerasFacts& facts) {
    auto dir = ReadZipDirectory(file_, wf_.name, sink_, ZipMethods::kStoredOrDeflate);
    if (!dir) return dir.error();
    bool valid = dir->found;
    std::set<std::string> seen;
    bool has_config = false;
    for (const ZipMember& m : dir->members) {
      if (!seen.insert(m.name).second) {
        report_(Diag::kKerasMemberUnexpected, m.central_offset,
                "Member " + QuoteForMessage(m.name) +
                    " is given twice: Keras' zipfile reads the last entry, other readers the first.");
        valid = false;
        continue;
      }
      if (m.name.ends_with("/") && (IsAsset(m.name) || m.name == "assets/")) continue;
      if (!m.located || (m.method != 0 && m.method != 8)) {
        valid = false;  // reported by the zip reader
        continue;
      }
      auto opened = Open(m);
      if (!opened) return opened.error();
      if (*opened == nullptr) {
        valid = false;
        continue;
      }
      const RandomAccessFile& bytes = **opened;
      const bool stored = m.method == 0;
      if (m.name == kConfig) {
        has_config = true;
        if (auto r = ReadConfig(bytes, m, stored); !r) return r.error();
      } else if (m.name == kMetadata) {
        if (auto r = ReadMetadataMember(bytes, m, stored, facts); !r) return r.error();
      } else if (m.name == kWeightsH5) {
        auto reading = hdf5::ReadHdf5Image(bytes, report_, m.data_offset, "Member " + QuoteForMessage(m.name));
        if (!reading) return reading.error();
        valid &= reading->read;
        for (StoredTensor& t : reading->tensors) wf_.tensors.push_back(std::move(t));
      } else if (m.name == kWeightsNpz) {
        auto weights =
            npz::ReadNpz(wf_.name + "/" + m.name, std::make_unique<WindowFile>(bytes, 0, bytes.size()), sink_);
        if (!weights) return weights.error();
        valid &= weights->valid;
        for (StoredTensor& t : weights->tensors) {
          if (stored) {
            t.entry_offset += m.data_offset;
            if (t.data_length > 0 || t.end > 0) {
              t.data_offset += m.data_offset;
              t.begin += m.data_offset;
              t.end += m.data_offset;
            }
          } else {
            t.data_offset = t.data_length = t.begin = t.end = 0;
          }
          wf_.tensors.push_back(std::move(t));
        }
      } else if (!IsAsset(m.name)) {
        auto sniffed = ClassifyFile(bytes);
        if (!sniffed) return sniffed.error();
        report_(Diag::kKerasMemberUnexpected, m.header_offset,
                "Member " + QuoteForMessage(m.name) + " (" +
                    (sniffed->description.empty() ? std::string(InputKindName(sniffed->kind)) : sniffed->description) +
                    ") is not one Keras writes (metadata.json, config.json, model.weights.h5 or .npz, assets/): it "
                    "is not part of the model as Keras reads it.");
        valid = false;
      }
    }
    if (!has_config && dir->found) {
      report_(Diag::kKerasConfigInvalid, 0, "The archive has no config.json: Keras cannot rebuild the model from it.");
    }
    wf_.valid = valid;
    return {};
  }

 private:
  // The member's bytes as a file: a window of the archive, or inflated (nullptr: reported).
  IoResult<std::unique_ptr<RandomAccessFile>> Open(const ZipMember& m) {
    auto window = std::make_unique<WindowFile>(file_, m.data_offset, m.compressed_size);
    if (m.method == 0) return std::unique_ptr<RandomAccessFile>(std::move(window));
    auto inflated = InflateZipMember(*window, m, report_);
    if (!inflated || *inflated == nullptr) return inflated;
    windows_.push_back(std::move(window));  // the inflated file reads through it
    return inflated;
  }

  IoResult<void> ReadConfig(const RandomAccessFile& bytes, const ZipMember& m, bool stored) {
    const keras::ConfigSite site{"config.json", stored ? m.data_offset : m.header_offset, stored};
    if (bytes.size() > keras::kMaxConfigBytes) {
      report_(
          Diag::kKerasConfigInvalid, site.offset,
          "config.json is " + std::to_string(bytes.size()) + " bytes, past the bound of 100000000: it is not read.");
      return {};
    }
    auto text = ReadAll(bytes);
    if (!text) return text.error();
    keras::AnalyseConfig(std::move(*text), site, keras::ConfigDialect::kKerasZip, report_);
    return {};
  }

  IoResult<void> ReadMetadataMember(const RandomAccessFile& bytes, const ZipMember& m, bool stored,
                                    keras::KerasFacts& facts) {
    const keras::ConfigSite site{"metadata.json", stored ? m.data_offset : m.header_offset, stored};
    if (bytes.size() > kMaxMetadataBytes) {
      report_(
          Diag::kKerasMetadataInvalid, site.offset,
          "metadata.json is " + std::to_string(bytes.size()) + " bytes, past the bound of 1000000: it is not read.");
      return {};
    }
    auto text = ReadAll(bytes);
    if (!text) return text.error();
    if (auto version = keras::ReadMetadata(std::move(*text), site, report_)) facts.keras_version = *version;
    return {};
  }

  WeightFile& wf_;
  const RandomAccessFile& file_;
  DiagnosticSink& sink_;
  FileReporter report_;
  std::vector<std::unique_ptr<RandomAccessFile>> windows_;
};

IoResult<WeightFile> ReadKeras(std::string name, std::unique_ptr<RandomAccessFile> file, DiagnosticSink& sink) {
  WeightFile wf;
  wf.name = std::move(name);
  wf.size = file->size();
  wf.header_read = true;
  auto facts = std::make_shared<keras::KerasFacts>();
  if (auto read = KerasReader(wf, *file, sink).Read(*facts); !read) return read.error();
  wf.format_facts = std::move(facts);
  wf.BuildNameIndex();
  wf.file = std::move(file);
  return wf;
}

void KerasInInventory(std::span<const std::byte> /*head*/, const std::string& /*description*/, InventoryItem& item) {
  item.kind = InventoryClass::kAnalysedWeights;
  item.description = "a Keras v3 .keras archive";
}

}  // namespace

constexpr std::array<NameSuffix, 1> kKerasNames{{
    {".keras", std::nullopt, "a Keras v3 archive"},
}};

const InputFormat formats::kKerasFormat{
    .kind = InputKind::kKeras,
    .sniff = &SniffKeras,
    .read = &ReadKeras,
    .inventory = &KerasInInventory,
    .container = PolyglotContainer::kZip,
    .names = kKerasNames,
};

}  // namespace ckpt
