#include "lib/formats/hdf5/hdf5.h"

#include <array>
#include <memory>
#include <string_view>
#include <utility>

#include "lib/core/byte_reader.h"
#include "lib/core/text.h"
#include "lib/formats/format_table.h"
#include "lib/formats/hdf5/h5probe_client.h"
#include "lib/formats/keras_config/keras_config.h"
#include "lib/json/json_value.h"
#include "lib/model/dtype.h"

namespace ckpt {
namespace hdf5 {
namespace {

constexpr std::string_view kSignature("\x89HDF\r\n\x1a\n", 8);
constexpr std::size_t kMaxRank = 32;

// The filters libhdf5 applies itself (H5Zpublic.h); any other id is a plugin it would load.
std::string_view BuiltinFilterName(std::int64_t id) {
  switch (id) {
    case 1:
      return "deflate";
    case 2:
      return "shuffle";
    case 3:
      return "fletcher32";
    case 4:
      return "szip";
    case 5:
      return "nbit";
    case 6:
      return "scaleoffset";
    default:
      return {};
  }
}

bool IsListedToken(std::string_view token) {
  // C64 and C128: h5py's complex, a compound {r, i} of two floats (formats.md section 13).
  static constexpr std::array<std::string_view, 15> kTokens{"F16", "BF16", "F32", "F64", "I8",   "U8",  "I16", "U16",
                                                            "I32", "U32",  "I64", "U64", "BOOL", "C64", "C128"};
  for (std::string_view t : kTokens) {
    if (t == token) return true;
  }
  return token == "OTHER";
}

// "The file" as it reads inside a sentence ("... on the file").
std::string InSentence(const std::string& subject) {
  return subject.rfind("The ", 0) == 0 ? "the " + subject.substr(4) : subject;
}

// A malformed answer: the helper is ours, but its answer is checked as input all the same.
struct Malformed {
  std::string what;
};

// The dataset entry `entry` as a listed tensor; nullopt (with `malformed` set) when the entry
// does not have the fields the helper writes.
std::optional<StoredTensor> TensorOf(json::Value entry, Malformed& malformed) {
  auto path = entry.FindString("path");
  auto dtype = entry.FindString("dtype");
  if (!path || (!dtype && !entry.Find("unopened"))) {
    malformed.what = "a dataset entry without its path or dtype";
    return std::nullopt;
  }
  StoredTensor t;
  t.name = std::move(*path);
  t.dtype = dtype.value_or("OTHER");
  if (!IsListedToken(t.dtype)) {
    malformed.what = "a dataset dtype that is not a listed token";
    return std::nullopt;
  }
  if (auto shape = entry.Find("shape")) {
    if (!shape->is(json::Type::kArray) || shape->Size() > kMaxRank) {
      malformed.what = "a dataset shape that is not an array of at most 32 integers";
      return std::nullopt;
    }
    for (json::Value d : shape->Items()) {
      auto n = d.AsInteger();
      if (!n) {
        malformed.what = "a dataset dimension that is not an unsigned integer";
        return std::nullopt;
      }
      t.shape.push_back(*n);
    }
  }
  if (const DtypeInfo* info = FindSafetensorsDtype(t.dtype)) t.element = info->id;
  t.complete = true;  // listed, not located: the helper reads no dataset data
  return t;
}

class AnswerReader {
 public:
  AnswerReader(const FileReporter& report, std::uint64_t offset, std::string subject)
      : report_(report), offset_(offset), subject_(std::move(subject)) {}

  // Reports what the answer says; false when the answer is malformed (reported as such).
  bool Read(json::Value root, Hdf5Reading& out) {
    if (!root.is(json::Type::kObject) || !root.Find("version") || root.Find("version")->AsInteger() != 1) {
      return Fail("not a version 1 answer object");
    }
    const auto status = root.FindString("status");
    if (status == "invalid") {
      const std::string why = root.FindString("error").value_or("no reason given");
      report_(Diag::kHdf5Invalid, offset_,
              subject_ + " is refused by libhdf5: " + QuoteForMessage(why, 400) +
                  ". h5py and Keras cannot open it either, and nothing of it is listed.");
      return true;
    }
    if (status != "ok") return Fail("a status other than ok or invalid");
    if (!ReadAttributes(root, out) || !ReadLinks(root) || !ReadDatasets(root, out)) return false;
    if (auto budget = root.FindString("budget")) {
      report_(Diag::kHdf5BudgetExceeded, offset_,
              subject_ + " exceeds the reader's budget (" + QuoteForMessage(*budget, 120) +
                  "; the bounds are 1000000 objects, 64 levels and 100000000 bytes per attribute): the walk stopped "
                  "there and the file does not pass.");
    }
    if (auto walk_error = root.FindString("walk_error")) {
      report_(Diag::kHdf5Invalid, offset_,
              subject_ + " could not be walked by libhdf5: " + QuoteForMessage(*walk_error, 400) + ".");
    }
    out.read = true;
    return true;
  }

  bool Fail(std::string_view what) {
    report_(Diag::kHdf5ReaderFailed, offset_,
            "The isolated HDF5 reader gave a malformed answer for " + InSentence(subject_) + " (" + std::string(what) +
                "): it is not read and does not pass.");
    return false;
  }

 private:
  bool ReadAttributes(json::Value root, Hdf5Reading& out) {
    auto attributes = root.Find("attributes");
    if (!attributes) return true;
    if (!attributes->is(json::Type::kObject)) return Fail("attributes that are not an object");
    for (const json::Member& m : attributes->Members()) {
      if (!m.value.is(json::Type::kString)) return Fail("an attribute value that is not a string");
      if (m.key == "model_config") out.model_config = m.value.String();
      if (m.key == "training_config") out.training_config = m.value.String();
      if (m.key == "keras_version") out.keras_version = m.value.String();
    }
    if (auto issues = root.Find("attribute_issues")) {
      if (!issues->is(json::Type::kArray)) return Fail("attribute issues that are not an array");
      for (json::Value issue : issues->Items()) {
        const auto name = issue.FindString("name");
        const auto why = issue.FindString("issue");
        if (!name || !why) return Fail("an attribute issue without its name or reason");
        const bool budget = why->rfind("budget: ", 0) == 0;
        if (budget) {
          report_(Diag::kHdf5BudgetExceeded, offset_,
                  subject_ + "'s root attribute " + QuoteForMessage(*name) + " is " +
                      QuoteForMessage(why->substr(8), 120) + ": it is not read.");
        } else if (*name == "model_config" || *name == "training_config") {
          // Keras reads these as JSON text: anything else is a config it cannot load.
          report_(Diag::kKerasConfigInvalid, offset_,
                  subject_ + "'s root attribute " + QuoteForMessage(*name) + " " + QuoteForMessage(*why, 80) +
                      ": Keras reads it as the model's JSON config.");
        }
      }
    }
    return true;
  }

  bool ReadLinks(json::Value root) {
    auto links = root.Find("links");
    if (!links || !links->is(json::Type::kArray)) return Fail("no links array");
    for (json::Value link : links->Items()) {
      const auto path = link.FindString("path");
      const auto type = link.FindString("type");
      if (!path || !type) return Fail("a link without its path or type");
      if (*type == "soft") continue;  // a name for an object of this file
      if (*type == "external") {
        const std::string file = link.FindString("file").value_or("?");
        const std::string object = link.FindString("object").value_or("?");
        report_(Diag::kHdf5ExternalLink, offset_,
                subject_ + " links " + QuoteForMessage(*path) + " to object " + QuoteForMessage(object) +
                    " of another file, " + QuoteForMessage(file) +
                    ": h5py and Keras would open that file when the link is read. It is never traversed.");
      } else if (*type == "user") {
        report_(Diag::kHdf5ExternalLink, offset_,
                subject_ + " holds a user-defined link " + QuoteForMessage(*path) +
                    ": resolving it runs a link class the file's reader must supply. It is never traversed.");
      } else {
        return Fail("a link type other than soft, external or user");
      }
    }
    return true;
  }

  bool ReadDatasets(json::Value root, Hdf5Reading& out) {
    auto datasets = root.Find("datasets");
    if (!datasets || !datasets->is(json::Type::kArray)) return Fail("no datasets array");
    for (json::Value entry : datasets->Items()) {
      Malformed malformed;
      auto tensor = TensorOf(entry, malformed);
      if (!tensor) return Fail(malformed.what);
      const std::string shown = QuoteForMessage(tensor->name);
      const std::string layout = entry.FindString("layout").value_or("");
      if (layout == "virtual") {
        report_(Diag::kHdf5VirtualDataset, offset_,
                subject_ + "'s dataset " + shown +
                    " is a virtual dataset: its elements are mapped from other files, which h5py opens when it is "
                    "read.");
      }
      if (auto external = entry.Find("external_files")) {
        const std::uint64_t count = external->AsInteger().value_or(0);
        report_(Diag::kHdf5ExternalStorage, offset_,
                subject_ + "'s dataset " + shown + " keeps its data in " + std::to_string(count) +
                    " external file(s), named by path: reading it opens files outside the one audited.");
      }
      if (auto filters = entry.Find("filters")) {
        if (!filters->is(json::Type::kArray)) return Fail("filters that are not an array");
        for (json::Value filter : filters->Items()) {
          auto id_value = filter.Find("id");
          const auto id = id_value ? id_value->AsInteger() : std::nullopt;
          if (!id) return Fail("a filter without its id");
          if (!BuiltinFilterName(static_cast<std::int64_t>(*id)).empty()) continue;
          const std::string name = filter.FindString("name").value_or("");
          report_(Diag::kHdf5FilterUnsupported, offset_,
                  subject_ + "'s dataset " + shown + " is filtered by filter " + std::to_string(*id) +
                      (name.empty() ? std::string() : " (" + QuoteForMessage(name, 60) + ")") +
                      ", not one libhdf5 has built in (deflate, shuffle, fletcher32, szip, nbit, scaleoffset): "
                      "reading it loads a filter plugin, native code from HDF5_PLUGIN_PATH.");
        }
      }
      if (entry.Find("unopened")) {
        report_(Diag::kHdf5Invalid, offset_, subject_ + "'s dataset " + shown + " cannot be opened by libhdf5.");
      }
      out.tensors.push_back(std::move(*tensor));
    }
    return true;
  }

  const FileReporter& report_;
  std::uint64_t offset_;
  std::string subject_;
};

}  // namespace

std::optional<std::uint64_t> FindHdf5Signature(const RandomAccessFile& file) {
  std::array<std::byte, 8> probe{};
  // Remotely each offset would be a request: only byte 0 is looked at (README, "Not yet supported").
  const std::uint64_t last = file.ReadsAreRequests() ? 0 : file.size();
  for (std::uint64_t at = 0; at <= last && file.size() - at >= probe.size();
       at = at == 0 ? 512 : (at > last / 2 ? last + 1 : at * 2)) {
    if (auto read = file.ReadAt(at, probe); !read) return std::nullopt;
    if (StartsWith(probe, kSignature)) return at;
  }
  return std::nullopt;
}

IoResult<Hdf5Reading> ReadHdf5Image(const RandomAccessFile& bytes, const FileReporter& report, std::uint64_t offset,
                                    const std::string& subject) {
  Hdf5Reading reading;
  auto outcome = RunProbe(bytes);
  if (!outcome) return outcome.error();
  if (!outcome->answer) {
    report(Diag::kHdf5ReaderFailed, offset,
           "The isolated HDF5 reader (ckpt-h5probe) " + outcome->failure + " on " + InSentence(subject) +
               ": it is not read and does not pass.");
    return reading;
  }
  ReadProbeAnswer(outcome->answer->root(), report, offset, subject, reading);
  return reading;
}

void ReadProbeAnswer(json::Value root, const FileReporter& report, std::uint64_t offset, const std::string& subject,
                     Hdf5Reading& out) {
  AnswerReader(report, offset, subject).Read(root, out);
}

}  // namespace hdf5

namespace {

std::optional<std::string> SniffHdf5(const FileHead& head) {
  if (StartsWith(head.bytes, hdf5::kSignature)) return "an HDF5 file";
  if (head.file == nullptr) return std::nullopt;
  if (auto at = hdf5::FindHdf5Signature(*head.file))
    return "an HDF5 file (after a user block of " + std::to_string(*at) + " bytes)";
  return std::nullopt;
}

IoResult<WeightFile> ReadHdf5(std::string name, std::unique_ptr<RandomAccessFile> file, DiagnosticSink& sink) {
  WeightFile wf;
  wf.name = std::move(name);
  wf.size = file->size();
  wf.header_read = true;
  const FileReporter report(wf.name, sink);
  auto reading = hdf5::ReadHdf5Image(*file, report, 0, "The file");
  if (!reading) return reading.error();
  auto facts = std::make_shared<keras::KerasFacts>();
  if (reading->keras_version) facts->keras_version = *reading->keras_version;
  for (auto [config, attribute] :
       {std::pair{&reading->model_config, "model_config"}, std::pair{&reading->training_config, "training_config"}}) {
    if (!config->has_value()) continue;
    const keras::ConfigSite site{"the root attribute " + std::string(attribute), 0, false};
    keras::AnalyseConfig(std::move(**config), site, keras::ConfigDialect::kHdf5, report);
  }
  wf.tensors = std::move(reading->tensors);
  wf.valid = reading->read;
  wf.format_facts = std::move(facts);
  wf.BuildNameIndex();
  wf.file = std::move(file);
  return wf;
}

void Hdf5InInventory(std::span<const std::byte> /*head*/, const std::string& /*description*/, InventoryItem& item) {
  item.kind = InventoryClass::kAnalysedWeights;
  item.description = "an HDF5 file";
}

}  // namespace

constexpr std::array<NameSuffix, 2> kHdf5Names{{
    {".h5", NamedLoader::kHdf5, "an HDF5 file"},
    {".hdf5", NamedLoader::kHdf5, "an HDF5 file"},
}};

const InputFormat formats::kHdf5Format{
    .kind = InputKind::kHdf5,
    .sniff = &SniffHdf5,
    .read = &ReadHdf5,
    .inventory = &Hdf5InInventory,
    .container = PolyglotContainer::kHdf5,
    .names = kHdf5Names,
};

}  // namespace ckpt
