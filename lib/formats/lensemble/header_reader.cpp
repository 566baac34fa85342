#include "lib/formats/lensemble/header_reader.h"

#include <algorithm>

#include "lib/core/text.h"
#include "lib/formats/json_file_reader.h"
#include "lib/formats/lensemble/header_schema.h"
#include "lib/model/diagnostic.h"

namespace ckpt {
namespace {

class Extractor {
 public:
  Extractor(Header& header, DiagnosticSink& sink) : h_(header), sink_(sink) {}

  void Run(const json::Value& root, std::uint64_t version) {
    h_.content_hash = String(root, "content_hash");
    h_.config_hash = String(root, "config_hash");
    h_.wmcp_version = String(root, "wmcp_version");
    h_.created_at = String(root, "created_at");
    if (version >= 2) h_.hash_algorithm = String(root, "hash_algorithm");
    if (auto v = root.Find("parent_hash")) {
      if (v->is(json::Type::kNull)) {
        h_.parent_hash_present = true;
      } else if (v->is(json::Type::kString)) {
        h_.parent_hash_present = true;
        h_.parent_hash = v->String();
      } else {
        WrongType("parent_hash", *v, "a string or null");
      }
    }
    if (auto v = root.Find("round_index")) {
      if (auto n = v->AsInteger()) {
        h_.round_index = n;
      } else {
        WrongType("round_index", *v, "a JSON integer (no fraction, exponent or sign)");
      }
    }
    h_.param_groups = StringArray(root, "param_groups", h_.param_group_offsets);
    h_.weight_files = StringArray(root, "weight_files", h_.weight_file_offsets);
    ReadManifest(root);
  }

 private:
  void WrongType(const std::string& pointer_suffix, const json::Value& value, std::string_view expected) {
    sink_.Report(
        Diag::kHeaderFieldType, h_.json.At(value.offset(), "/" + pointer_suffix),
        "Header field " + pointer_suffix + " is " + value.Describe() + "; it must be " + std::string(expected) + ".");
  }

  std::optional<std::string> String(const json::Value& root, const char* key) {
    auto v = root.Find(key);
    if (!v) return std::nullopt;
    if (!v->is(json::Type::kString)) {
      WrongType(key, *v, "a string");
      return std::nullopt;
    }
    return v->String();
  }

  std::optional<std::vector<std::string>> StringArray(const json::Value& root, const char* key,
                                                      std::vector<std::uint64_t>& offsets) {
    auto v = root.Find(key);
    if (!v) return std::nullopt;
    if (!v->is(json::Type::kArray)) {
      WrongType(key, *v, "an array of strings");
      return std::nullopt;
    }
    std::vector<std::string> out;
    bool ok = true;
    std::size_t i = 0;
    for (json::Value item : v->Items()) {
      if (!item.is(json::Type::kString)) {
        WrongType(std::string(key) + "/" + std::to_string(i++), item, "a string");
        ok = false;
        continue;
      }
      ++i;
      out.push_back(item.String());
      offsets.push_back(item.offset());
    }
    if (!ok) return std::nullopt;
    return out;
  }

  void ReadManifest(const json::Value& root) {
    auto v = root.Find("tensor_manifest");
    if (!v) return;
    if (!v->is(json::Type::kArray)) {
      WrongType("tensor_manifest", *v, "an array of {name, group, dtype, shape} objects");
      return;
    }
    std::vector<ManifestEntry> entries;
    entries.reserve(v->Size());  // no reallocation peak with 10^6 entries
    std::uint32_t i = 0;
    for (json::Value item : v->Items()) {
      const std::string pointer = "tensor_manifest/" + std::to_string(i);
      ManifestEntry entry;
      entry.offset = item.offset();
      entry.index = i++;
      entry.tape_index = item.tape_index();
      if (!item.is(json::Type::kObject)) {
        WrongType(pointer, item, "an object {name, group, dtype, shape}");
        entries.push_back(std::move(entry));
        continue;
      }
      // An entry's key set is judged by the header-manifest-entry-keys rule; here a key
      // missing or extra only leaves the entry incomplete (not hashed, not matched).
      bool ok = true;
      for (const json::Member& m : item.Members()) {
        if (m.key != "name" && m.key != "group" && m.key != "dtype" && m.key != "shape") ok = false;
      }
      for (const char* key : {"name", "group", "dtype", "shape"}) {
        auto field = item.Find(key);
        if (!field) {
          ok = false;
          continue;
        }
        if (std::string_view(key) == "shape") {
          if (!field->is(json::Type::kArray)) {
            WrongType(pointer + "/shape", *field, "an array of JSON integers");
            ok = false;
            continue;
          }
          std::size_t d = 0;
          for (json::Value item_dim : field->Items()) {
            auto dim = item_dim.AsInteger();
            if (!dim) {
              WrongType(pointer + "/shape/" + std::to_string(d++), item_dim,
                        "a JSON integer (no fraction, exponent or sign)");
              ok = false;
              continue;
            }
            ++d;
            entry.shape.push_back(*dim);
          }
          continue;
        }
        if (!field->is(json::Type::kString)) {
          WrongType(pointer + "/" + key, *field, "a string");
          ok = false;
          continue;
        }
        std::string_view k = key;
        (k == "name" ? entry.name : k == "group" ? entry.group : entry.dtype) = field->String();
      }
      entry.complete = ok;
      entries.push_back(std::move(entry));
    }
    h_.tensor_manifest = std::move(entries);
  }

  Header& h_;
  DiagnosticSink& sink_;
};

}  // namespace

IoResult<Header> ReadHeader(const RandomAccessFile& file, DiagnosticSink& sink) {
  Header header;
  header.json.name = "header.json";
  const JsonFileDiagnostics json_rules{Diag::kHeaderTooLarge,   Diag::kHeaderJsonTooDeep,  Diag::kHeaderNotUtf8,
                                       Diag::kHeaderJsonSyntax, Diag::kHeaderDuplicateKey, Diag::kHeaderNotObject};
  if (auto read = ReadJsonFile(file, json_rules, header.json, sink); !read) return read.error();
  if (!header.json.parsed) return header;
  const json::Value root = header.json.doc.root();

  // schema_version decides how everything else is read.
  auto version = root.Find("schema_version");
  if (!version) {
    sink.Report(Diag::kHeaderSchemaVersionMissing, header.json.At(header.json.doc.value_begin, ""),
                "header.json has no schema_version, so it cannot be interpreted.");
    return header;
  }
  auto version_number = version->AsInteger();
  if (!version_number || *version_number == 0) {
    sink.Report(Diag::kHeaderSchemaVersionInvalid, header.json.At(version->offset(), "/schema_version"),
                "schema_version is " +
                    (version->is(json::Type::kNumber) ? std::string(version->Raw()) : version->Describe()) +
                    "; it must be a JSON integer >= 1.");
    return header;
  }
  header.schema_version = *version_number;
  if (*version_number > kReaderMaxSchemaVersion) {
    sink.Report(Diag::kHeaderSchemaVersionTooNew, header.json.At(version->offset(), "/schema_version"),
                "header.json has schema_version " + std::to_string(*version_number) +
                    " (file_schema_version) but this reader supports at most " +
                    std::to_string(kReaderMaxSchemaVersion) + " (reader_max_version); nothing else was checked.");
    return header;
  }
  header.version_supported = true;

  // The key set of the version as written.
  // The key set of the version as written is judged by the header-missing-field and
  // header-unknown-field rules (Header::ForEachTopLevelKey).

  Extractor(header, sink).Run(root, *version_number);
  MigrateToLatest(header);
  return header;
}

}  // namespace ckpt
