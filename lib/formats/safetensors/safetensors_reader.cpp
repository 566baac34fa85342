#include "lib/formats/safetensors/safetensors_reader.h"

#include <algorithm>
#include <array>
#include <set>
#include <vector>

#include "lib/core/byte_reader.h"
#include "lib/core/checked_math.h"
#include "lib/core/text.h"
#include "lib/core/text_buffer.h"
#include "lib/formats/format_table.h"
#include "lib/formats/input_classifier.h"
#include "lib/formats/layout.h"
#include "lib/formats/weight_formats.h"
#include "lib/json/strict_parser.h"
#include "lib/metadata/import_targets.h"
#include "lib/model/diagnostic.h"
#include "lib/model/dtype.h"

namespace ckpt {
namespace {

constexpr std::uint64_t kPrefixLength = 8;
/// How far the reader moves before it gives back the header pages behind it (one system call
/// per step; a 100 MB header makes about a hundred).
constexpr std::uint64_t kReleaseStep = std::uint64_t{1} << 20;

bool IsJsonWhitespace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

class Reader {
 public:
  Reader(WeightFile& out, DiagnosticSink& sink) : wf_(out), sink_(sink) {}

  IoResult<void> Run() {
    std::array<std::byte, kSniffLength> head{};
    std::size_t head_length = static_cast<std::size_t>(std::min<std::uint64_t>(wf_.size, head.size()));
    if (auto read = wf_.file->ReadAt(0, std::span(head).first(head_length)); !read) return read.error();
    head_ = std::span<const std::byte>(head).first(head_length);

    if (wf_.size == 0) {
      ReportContainerFailure(Diag::kSafetensorsHeaderTooSmall, "the file is empty", 0);
      return {};
    }
    if (wf_.size < kPrefixLength) {
      ReportContainerFailure(Diag::kSafetensorsHeaderTooSmall,
                             "the file is " + Plural(wf_.size, "byte") + " long, shorter than the 8-byte header length",
                             0);
      return {};
    }
    ByteReader prefix(head_);
    const std::uint64_t n = *prefix.ReadU64LE();
    if (n > kMaxSafetensorsHeaderLength) {
      ReportContainerFailure(Diag::kSafetensorsHeaderTooLarge,
                             "the header length is " + std::to_string(n) + " bytes, above the limit of 100000000", 0);
      return {};
    }
    if (n < 2) {
      ReportContainerFailure(Diag::kSafetensorsHeaderTooSmall,
                             "the header length is " + Plural(n, "byte") + "; a JSON object needs at least 2", 0);
      return {};
    }
    if (n > wf_.size - kPrefixLength) {
      ReportContainerFailure(Diag::kSafetensorsHeaderPastEnd,
                             "the header length is " + std::to_string(n) + " bytes but only " +
                                 std::to_string(wf_.size - kPrefixLength) + " bytes follow the length prefix",
                             0);
      return {};
    }
    wf_.data_start = kPrefixLength + n;
    TextBuffer header = TextBuffer::Uninitialised(static_cast<std::size_t>(n));
    if (auto read =
            wf_.file->ReadAt(kPrefixLength, std::as_writable_bytes(std::span<char>(header.data(), header.size())));
        !read) {
      return read.error();
    }
    if (auto deep = json::FindExcessiveNesting(header.view())) {
      ReportContainerFailure(
          Diag::kSafetensorsHeaderTooDeep,
          "the header nests arrays and objects deeper than " + std::to_string(json::kMaxNestingDepth) + " levels",
          kPrefixLength + *deep);
      return {};
    }
    if (auto bad = FindInvalidUtf8(header.view())) {
      ReportContainerFailure(Diag::kSafetensorsHeaderNotUtf8,
                             "the header holds invalid UTF-8 at header byte " + std::to_string(*bad),
                             kPrefixLength + *bad);
      return {};
    }
    json::Document doc(std::move(header));
    if (auto error = json::Parse(doc)) {
      ReportContainerFailure(Diag::kSafetensorsHeaderJson, "the header is not valid JSON: " + error->message,
                             kPrefixLength + error->offset);
      return {};
    }
    if (!doc.root().is(json::Type::kObject)) {
      ReportContainerFailure(
          Diag::kSafetensorsHeaderJson,
          std::string("the header is ") + std::string(json::TypeName(doc.root().type())) + ", not a JSON object",
          kPrefixLength + doc.value_begin);
      return {};
    }
    wf_.header_read = true;
    CheckWhitespace(doc.text(), doc);
    ReportDuplicates(doc);
    for (const json::DuplicateKey& dup : doc.duplicates) {
      if (dup.object_pointer.empty()) repeated_keys_.push_back(dup.second_offset);
    }
    std::sort(repeated_keys_.begin(), repeated_keys_.end());
    wf_.tensors.reserve(doc.root().Size());  // no reallocation peak with 10^6 tensors
    // Members are read once, in order, and what a tensor keeps is copied: the header's text
    // and tape behind the reader are given back as it goes, so a header of 10^6 tensors never
    // holds its text, its tape and every tensor at once.
    std::uint64_t released_to = 0;
    for (const json::Member& member : doc.root().Members()) {
      ReadMember(member);
      if (member.key_offset - released_to >= kReleaseStep) {
        doc.ReleaseBefore(member.value.tape_index() - 1, member.key_offset);
        released_to = member.key_offset;
      }
    }
    DropRepeatedNames();
    wf_.BuildNameIndex();
    CheckOffsets();
    wf_.valid = !structure_broken_;
    return {};
  }

 private:
  // The file's name in messages ("the file" for a file input, whose name is the input path).
  [[nodiscard]] std::string Shown() const { return wf_.name.empty() ? std::string("the file") : wf_.name; }

  Location At(std::uint64_t file_offset, std::optional<std::string> pointer = std::nullopt,
              std::optional<std::string> tensor = std::nullopt) const {
    Location loc;
    loc.file = wf_.name;
    loc.byte_offset = file_offset;
    loc.json_pointer = std::move(pointer);
    loc.tensor = std::move(tensor);
    return loc;
  }

  // Every diagnostic the reader reports means the structure does not hold, so no byte of
  // this file is located for hashing or diffing. (What is valid but not wanted, such as a
  // dtype artifacts do not allow or non-canonical whitespace, is recorded as a fact for
  // post-read rules instead.) Never decided from a rule's severity.
  void Report(Diag kind, Location loc, std::string message) {
    structure_broken_ = true;
    sink_.Report(kind, std::move(loc), std::move(message));
  }

  // What to do about a file of another format where safetensors was expected.
  static std::string RemedyFor(std::string_view format) {
    if (format == "git-lfs-pointer") {
      return "; " + std::string(kGitLfsPointerRemedy) + ".";
    }
    if (format == "html" || format == "empty") return "; download the file again, then audit again.";
    return "; safetensors only: re-export with safetensors.";
  }

  // A failure of the container itself: say what the file looks like instead, if we can tell.
  void ReportContainerFailure(Diag rule, const std::string& reason, std::uint64_t offset) {
    if (const std::optional<Recognised> other = RecogniseRefusedFormat(head_, wf_.size)) {
      // The reason is left out: bytes of another format read as a safetensors length
      // give nonsense ("a header of 2336927755350992246 bytes") that only confuses.
      Report(other->refused, At(0),
             Shown() + " is " + other->description +
                 (ClaimsSafetensors(wf_.name) && other->name != "git-lfs-pointer" && other->name != "html" &&
                          other->name != "empty"
                      ? ", although its name says safetensors"
                      : ", not safetensors") +
                 RemedyFor(other->name));
      return;
    }
    Report(rule, At(offset), Shown() + " is not valid safetensors: " + reason + ".");
  }

  void CheckWhitespace(std::string_view header, const json::Document& doc) {
    bool leading = doc.value_begin > 0;
    bool odd_padding = false;
    for (std::size_t i = static_cast<std::size_t>(doc.value_end); i < header.size(); ++i) {
      if (IsJsonWhitespace(header[i]) && header[i] != ' ') odd_padding = true;
    }
    // Valid either way: recorded for the safetensors-noncanonical-whitespace rule.
    wf_.leading_whitespace = leading;
    wf_.odd_padding = odd_padding;
  }

  void ReportDuplicates(const json::Document& doc) {
    for (const json::DuplicateKey& dup : doc.duplicates) {
      Location loc =
          At(kPrefixLength + dup.second_offset, dup.object_pointer + "/" + json::EscapePointerToken(dup.key));
      if (dup.object_pointer.empty()) {
        if (dup.key == "__metadata__") {
          Report(Diag::kSafetensorsMetadataInvalid, loc, Shown() + " declares __metadata__ twice.");
        } else {
          loc.tensor = dup.key;
          Report(Diag::kSafetensorsDuplicateTensor, loc,
                 "Tensor " + QuoteForMessage(dup.key) + " is declared twice in " + Shown() + " (first at byte " +
                     std::to_string(kPrefixLength + dup.first_offset) + ").");
        }
      } else if (dup.object_pointer == "/__metadata__") {
        Report(Diag::kSafetensorsMetadataDuplicateKey, loc,
               "__metadata__ key " + QuoteForMessage(dup.key) + " appears twice in " + Shown() + ".");
      } else {
        Report(Diag::kSafetensorsTensorEntryInvalid, loc,
               "Key " + QuoteForMessage(dup.key) + " appears twice in the entry at " + dup.object_pointer + " of " +
                   Shown() + ".");
      }
    }
    if (doc.duplicates_dropped > 0) {
      Report(Diag::kSafetensorsDuplicateTensor, At(kPrefixLength + doc.value_begin),
             Shown() + " repeats " + std::to_string(doc.duplicates_dropped) + " more keys than the " +
                 std::to_string(json::Document::kMaxRecordedDuplicates) + " reported one by one.");
    }
  }

  // A repeated name keeps its first entry: a later one found by the parser but not recorded
  // (past its cap) is dropped here, so the model never holds one name twice.
  void DropRepeatedNames() {
    wf_.BuildNameIndex();
    std::vector<bool> drop(wf_.tensors.size(), false);
    bool any = false;
    for (std::size_t i = 1; i < wf_.by_name.size(); ++i) {
      if (wf_.tensors[wf_.by_name[i]].name == wf_.tensors[wf_.by_name[i - 1]].name) {
        drop[wf_.by_name[i]] = true;
        any = true;
      }
    }
    if (!any) return;
    std::size_t kept = 0;
    for (std::size_t i = 0; i < wf_.tensors.size(); ++i) {
      if (!drop[i]) wf_.tensors[kept++] = std::move(wf_.tensors[i]);
    }
    wf_.tensors.resize(kept);
  }

  void ReadMetadata(const json::Member& member) {
    const std::string pointer = "/__metadata__";
    if (wf_.has_metadata) return;  // the duplicate was reported already
    wf_.has_metadata = true;
    const json::Value& value = member.value;
    if (!value.is(json::Type::kObject)) {
      Report(Diag::kSafetensorsMetadataInvalid, At(kPrefixLength + value.offset(), pointer),
             "__metadata__ in " + Shown() + " is " + std::string(json::TypeName(value.type())) +
                 ", not a map of strings to strings.");
      return;
    }
    if (value.Find("dtype") && value.Find("shape") && value.Find("data_offsets")) {
      Report(Diag::kSafetensorsTensorNameInvalid, At(kPrefixLength + member.key_offset, pointer),
             Shown() + " declares a tensor named __metadata__, a name reserved for the metadata map.");
      return;
    }
    for (const json::Member& entry : value.Members()) {
      if (!entry.value.is(json::Type::kString)) {
        Report(Diag::kSafetensorsMetadataInvalid,
               At(kPrefixLength + entry.value.offset(), pointer + "/" + json::EscapePointerToken(entry.key)),
               "__metadata__ value " + QuoteForMessage(entry.key) + " in " + Shown() + " is " +
                   std::string(json::TypeName(entry.value.type())) + ", not a string.");
        continue;
      }
      wf_.metadata.emplace_back(entry.key, entry.value.String());
      ReportMetadataTargets(entry, wf_.metadata.back().second, pointer + "/" + json::EscapePointerToken(entry.key));
    }
  }

  // A metadata value holding a configuration (code-in-metadata.md section 1): FlexTok, uni2TS
  // and NeMo-style loaders instantiate a Hydra config kept there.
  void ReportMetadataTargets(const json::Member& entry, std::string_view value, const std::string& pointer) {
    const std::string holder = "The __metadata__ value " + QuoteForMessage(entry.key) + " of " + Shown();
    const YamlConfig config = FindTargetsInString(value);
    RecordTargets(config.targets, wf_.name, entry.key, wf_.embedded_code);
    for (std::string& problem : EmbeddedConfigProblems(holder, config)) {
      Report(Diag::kConfigTargetUnsafe, At(kPrefixLength + entry.value.offset(), pointer), std::move(problem));
    }
  }

  void ReadMember(const json::Member& member) {
    if (member.key == "__metadata__") {
      ReadMetadata(member);
      return;
    }
    if (std::binary_search(repeated_keys_.begin(), repeated_keys_.end(), member.key_offset)) {
      return;  // a repeated name, reported already; the first entry stands
    }
    StoredTensor tensor;
    tensor.name = member.key;
    tensor.entry_offset = kPrefixLength + member.key_offset;
    const std::string pointer = "/" + json::EscapePointerToken(member.key);
    Location loc = At(tensor.entry_offset, pointer, member.key);
    auto label_text = [&] { return "Tensor " + QuoteForMessage(member.key) + " in " + Shown(); };  // only for findings

    // An empty name or one with a control character is judged by the
    // safetensors-tensor-name-invalid rule over the names recorded here.
    const json::Value& entry = member.value;
    if (!entry.is(json::Type::kObject)) {
      Report(Diag::kSafetensorsTensorEntryInvalid, loc,
             label_text() + " is " + std::string(json::TypeName(entry.type())) + ", not {dtype, shape, data_offsets}.");
      wf_.tensors.push_back(std::move(tensor));
      return;
    }
    bool ok = true;
    for (const json::Member& field : entry.Members()) {
      if (field.key != "dtype" && field.key != "shape" && field.key != "data_offsets") {
        Report(Diag::kSafetensorsTensorEntryInvalid, loc,
               label_text() + " has unknown key " + QuoteForMessage(field.key) + ".");
        ok = false;
      }
    }
    const std::optional<json::Value> dtype = entry.Find("dtype");
    const std::optional<json::Value> shape = entry.Find("shape");
    const std::optional<json::Value> offsets = entry.Find("data_offsets");
    for (auto [value, key] :
         {std::pair{&dtype, "dtype"}, std::pair{&shape, "shape"}, std::pair{&offsets, "data_offsets"}}) {
      if (!value->has_value()) {
        Report(Diag::kSafetensorsTensorEntryInvalid, loc, label_text() + " has no " + key + ".");
        ok = false;
      }
    }
    if (dtype && !dtype->is(json::Type::kString)) {
      Report(Diag::kSafetensorsTensorEntryInvalid, loc, label_text() + " has a dtype that is not a string.");
      ok = false;
    } else if (dtype) {
      tensor.dtype = dtype->String();
    }
    if (shape && !ReadIntegers(*shape, tensor.shape)) {
      Report(Diag::kSafetensorsTensorEntryInvalid, loc,
             label_text() + " has a shape that is not an array of non-negative JSON integers.");
      ok = false;
    }
    std::vector<std::uint64_t> begin_end;
    if (offsets && (!ReadIntegers(*offsets, begin_end) || begin_end.size() != 2)) {
      Report(Diag::kSafetensorsTensorEntryInvalid, loc,
             label_text() + " has data_offsets that are not two non-negative JSON integers.");
      ok = false;
    }
    if (!ok) {
      wf_.tensors.push_back(std::move(tensor));
      return;
    }
    tensor.begin = begin_end[0];
    tensor.end = begin_end[1];
    const DtypeInfo* info = FindSafetensorsDtype(tensor.dtype);
    if (info == nullptr) {
      Report(Diag::kSafetensorsDtypeUnknown, loc,
             label_text() + " has dtype " + QuoteForMessage(tensor.dtype) + ", which safetensors does not define.");
      wf_.tensors.push_back(std::move(tensor));
      return;
    }
    TensorSize size = SafetensorsByteSize(tensor.shape, *info);
    if (size.error == SizeError::kOverflow) {
      Report(Diag::kSafetensorsSizeOverflow, loc, label_text() + " has a shape whose size overflows 64 bits.");
    } else if (size.error == SizeError::kMisaligned) {
      Report(Diag::kSafetensorsSizeMisaligned, loc,
             label_text() + " (" + tensor.dtype + ") has a size in bits that is not a multiple of 8.");
    } else if (tensor.end < tensor.begin) {
      Report(Diag::kSafetensorsSizeMismatch, loc,
             label_text() + " has data_offsets [" + std::to_string(tensor.begin) + ", " + std::to_string(tensor.end) +
                 "] that end before they begin.");
    } else if (tensor.end - tensor.begin != size.bytes) {
      Report(Diag::kSafetensorsSizeMismatch, loc,
             label_text() + " spans " + std::to_string(tensor.end - tensor.begin) +
                 " bytes but its dtype and shape need " + std::to_string(size.bytes) + ".");
    } else {
      tensor.complete = true;
      tensor.element = info->id;
      // Checked: begin is whatever the header says until CheckOffsets proves the layout; a
      // file that fails it is never read for its bytes.
      tensor.data_offset = CheckedAdd(wf_.data_start, tensor.begin).value_or(UINT64_MAX);
      tensor.data_length = tensor.end - tensor.begin;
    }
    wf_.tensors.push_back(std::move(tensor));
  }

  static bool ReadIntegers(const json::Value& value, std::vector<std::uint64_t>& out) {
    if (!value.is(json::Type::kArray)) return false;
    out.clear();
    for (json::Value item : value.Items()) {
      auto n = item.AsInteger();
      if (!n) return false;
      out.push_back(*n);
    }
    return true;
  }

  // Reference rule: sorted by (begin, end), offsets are contiguous from 0 and the buffer
  // ends at end of file. Entries that failed earlier checks take no part.
  void CheckOffsets() {
    std::vector<const StoredTensor*> ordered;
    bool all_complete = true;
    for (const StoredTensor& t : wf_.tensors) {
      if (t.complete) {
        ordered.push_back(&t);
      } else {
        all_complete = false;
      }
    }
    std::stable_sort(ordered.begin(), ordered.end(), [](const StoredTensor* a, const StoredTensor* b) {
      return std::pair(a->begin, a->end) < std::pair(b->begin, b->end);
    });
    std::uint64_t expected = 0;
    for (const StoredTensor* t : ordered) {
      if (t->begin != expected) {
        const bool hole = t->begin > expected;
        Report(Diag::kSafetensorsOffsetsNotContiguous, wf_.TensorLocation(*t),
               "Tensor " + QuoteForMessage(t->name) + " in " + Shown() + " starts at data offset " +
                   std::to_string(t->begin) + " but the previous tensor ends at " + std::to_string(expected) +
                   (hole ? ": a hole of " + Plural(t->begin - expected, "byte") + "."
                         : ": an overlap of " + Plural(expected - t->begin, "byte") + "."));
      }
      expected = std::max(expected, t->end);
    }
    if (!all_complete) return;  // the buffer size is meaningless when an entry could not be read
    auto buffer_end = CheckedAdd(wf_.data_start, expected);
    if (!buffer_end || *buffer_end != wf_.size) {
      Location loc = At(buffer_end ? std::min(*buffer_end, wf_.size) : wf_.size);
      if (buffer_end && *buffer_end < wf_.size) {
        Report(Diag::kSafetensorsBufferSize, loc,
               Shown() + " has " + Plural(wf_.size - *buffer_end, "byte") + " after the end of the last tensor.");
      } else {
        Report(Diag::kSafetensorsBufferSize, loc,
               Shown() + " is truncated: its tensors need a data buffer of " + std::to_string(expected) +
                   " bytes but only " + std::to_string(wf_.size - wf_.data_start) + " follow the header.");
      }
    }
  }

  WeightFile& wf_;
  DiagnosticSink& sink_;
  std::span<const std::byte> head_;
  std::vector<std::uint64_t> repeated_keys_;
  bool structure_broken_ = false;  // offsets of repeated top-level keys (second and later)
};

}  // namespace

IoResult<WeightFile> ReadSafetensors(std::string name, std::unique_ptr<RandomAccessFile> file, DiagnosticSink& sink) {
  WeightFile wf;
  wf.name = std::move(name);
  wf.size = file->size();
  wf.file = std::move(file);
  Reader reader(wf, sink);
  if (auto result = reader.Run(); !result) return result.error();
  return wf;
}

namespace {

std::optional<std::string> SniffSafetensors(const FileHead& head) {
  if (!LooksLikeSafetensors(head.bytes, head.size)) return std::nullopt;
  return "a safetensors file";
}

}  // namespace

constexpr std::array<NameSuffix, 1> kSafetensorsNames{{
    {".safetensors", NamedLoader::kSafetensors, "safetensors"},
}};

const InputFormat formats::kSafetensorsFormat{
    .kind = InputKind::kSafetensors,
    .sniff = &SniffSafetensors,
    .layout = &kSafetensorsFileLayout,
    .read = &ReadSafetensors,
    .container = PolyglotContainer::kSafetensors,
    .names = kSafetensorsNames,
};

}  // namespace ckpt
