#include "tests/support/fire_cases.h"

#include <boost/json.hpp>

#include "tests/support/gguf_builder.h"
#include "tests/support/hdf5_builder.h"
#include "tests/support/model_folder_builder.h"
#include "tests/support/msgpack_builder.h"
#include "tests/support/onnx_builder.h"
#include "tests/support/pickle_builder.h"
#include "tests/support/tar_builder.h"

namespace ckpt::testing {

Files Clean() { return ArtifactSpec::Clean().Build(); }

Files Sharded() {
  ArtifactSpec spec = ArtifactSpec::Clean();
  spec.shards = 3;
  return spec.Build();
}

Files FromSpec(const std::function<void(ArtifactSpec&)>& change) {
  ArtifactSpec spec = ArtifactSpec::Clean();
  change(spec);
  return spec.Build();
}

void PrintTo(const FireCase& fc, std::ostream* os) { *os << fc.rule << " (" << fc.variant << ")"; }

namespace {

const std::string kShard0 = "weights-00000-of-00003.safetensors";
const std::string kShard1 = "weights-00001-of-00003.safetensors";
const std::string kShard2 = "weights-00002-of-00003.safetensors";

template <class Edit>
Files CleanWithHeader(Edit edit) {
  Files f = Clean();
  EditHeader(f, edit);
  return f;
}

Files CleanWithWeights(const std::string& header_json, const std::string& data) {
  Files f = Clean();
  f["weights.safetensors"] = SafetensorsFile(header_json, data);
  return f;
}

template <class Edit>
Files ShardedWithIndex(Edit edit) {
  Files f = Sharded();
  boost::json::value index = boost::json::parse(f.at("weights.index.json"));
  edit(index.as_object());
  f["weights.index.json"] = boost::json::serialize(index);
  return f;
}

boost::json::object& ManifestEntry(boost::json::object& header, std::size_t i) {
  return header["tensor_manifest"].as_array()[i].as_object();
}

// Replaces the first occurrence of `from` in `text`.
std::string Replace(std::string text, const std::string& from, const std::string& to) {
  auto pos = text.find(from);
  if (pos == std::string::npos) throw std::logic_error("fixture text not found: " + from);
  return text.replace(pos, from.size(), to);
}

const std::string kF32One = R"("dtype":"F32","shape":[1],"data_offsets":[0,4])";

// The clean artifact as a tar (bare names), changed by `edit`; one file input "round.tar".
Files CleanTar(const std::function<void(TarSpec&)>& edit) {
  TarSpec spec = TarOfFiles(Clean());
  edit(spec);
  return {{"round.tar", BuildTar(spec)}};
}

// A base-256 size field (first byte 0x80) holding `value`.
std::string Base256(std::uint64_t value) {
  std::string field(12, '\0');
  field[0] = static_cast<char>(0x80);
  for (int i = 11; i >= 4; --i, value >>= 8) field[static_cast<std::size_t>(i)] = static_cast<char>(value & 0xFF);
  return field;
}

// A model folder with `shards` shards, changed by `edit` (files by path in the folder).
Files Model(std::size_t shards, const std::function<void(Files&)>& edit) {
  ModelFolderSpec spec;
  spec.shards = shards;
  Files files = spec.Build();
  edit(files);
  return files;
}

// The weight_map of a sharded model's index, edited.
void EditIndex(Files& files, const std::function<void(boost::json::object&)>& edit) {
  boost::json::value index = boost::json::parse(files.at("model.safetensors.index.json"));
  edit(index.as_object());
  files["model.safetensors.index.json"] = boost::json::serialize(index);
}

const std::string kShardA = "model-00001-of-00002.safetensors";
const std::string kShardB = "model-00002-of-00002.safetensors";

}  // namespace

std::vector<FireCase> AllFireCases() {
  std::vector<FireCase> c;
  auto add = [&](std::string rule, std::string code, std::string variant, std::function<Files()> make,
                 AuditOptions policy = {}, Entries entries = {}) {
    c.push_back(
        {std::move(rule), std::move(code), std::move(variant), std::move(make), std::move(policy), std::move(entries)});
  };
  const std::string CI = "CHECKPOINT_INTEGRITY", AI = "ARTIFACT_INVALID", RV = "RESIDENCY_VIOLATION";

  // layout
  c.push_back({"layout-file-changed",
               CI,
               "weights replaced after opening",
               [] { return Clean(); },
               {},
               {},
               {"weights.safetensors"}});
  c.push_back({"layout-file-changed",
               CI,
               "header.json replaced after reading",
               [] { return Clean(); },
               {},
               {},
               {"header.json"}});
  add("layout-header-missing", AI, "absent", [] {
    Files f = Clean();
    f.erase("header.json");
    return f;
  });
  add("layout-header-missing", AI, "a directory",
      [] {
        Files f = Clean();
        f.erase("header.json");
        return f;
      },
      {}, {{"header.json", EntryKind::kDirectory}});
  add("layout-stray-entry", CI, "pickle file", [] {
    Files f = Clean();
    f["optimizer.pt"] = std::string("\x80\x02}q\x00.", 6);
    return f;
  });
  add("layout-stray-entry", CI, "hidden file", [] {
    Files f = Clean();
    f[".DS_Store"] = "x";
    return f;
  });
  add("layout-stray-entry", CI, "sub-folder", Clean, {}, {{"extra", EntryKind::kDirectory}});
  add("layout-stray-entry", CI, "fifo", Clean, {}, {{"pipe", EntryKind::kOther}});
  add("layout-symlink", CI, "link", Clean, {}, {{"evil", EntryKind::kSymlink}});
  add("layout-symlink", CI, "link as weights",
      [] {
        Files f = Clean();
        f.erase("weights.safetensors");
        return f;
      },
      {}, {{"weights.safetensors", EntryKind::kSymlink}});
  add("layout-mixed", CI, "both", [] {
    Files f = Sharded();
    f["weights.safetensors"] = Clean().at("weights.safetensors");
    return f;
  });
  add("layout-no-weights", CI, "none", [] {
    Files f = Clean();
    f.erase("weights.safetensors");
    return f;
  });
  add("layout-shard-numbering", CI, "missing shard", [] {
    Files f = Sharded();
    f.erase(kShard1);
    return f;
  });
  add("layout-shard-numbering", CI, "one of one", [] {
    Files f = Clean();
    f["weights-00000-of-00001.safetensors"] = f.at("weights.safetensors");
    f.erase("weights.safetensors");
    return f;
  });
  add("layout-index-missing", CI, "no index", [] {
    Files f = Sharded();
    f.erase("weights.index.json");
    return f;
  });

  // header reading
  add("header-too-large", AI, "100 MB + 1", [] {
    Files f = Clean();
    f["header.json"] = std::string(100'000'001, ' ');  // NOLINT(bugprone-string-constructor): one byte over the bound
    return f;
  });
  add("header-not-utf8", AI, "0xff", [] {
    Files f = Clean();
    f["header.json"] = "{\"a\":\"\xff\"}";
    return f;
  });
  add("header-json-syntax", AI, "truncated", [] {
    Files f = Clean();
    f["header.json"] = f["header.json"].substr(0, 40);
    return f;
  });
  add("header-json-too-deep", AI, "128 levels", [] {
    Files f = Clean();
    f["header.json"] = "{\"x\":" + std::string(127, '[') + std::string(127, ']') + "}";
    return f;
  });
  add("header-json-syntax", AI, "trailing comma", [] {
    Files f = Clean();
    f["header.json"] = "{\"schema_version\":1,}";
    return f;
  });
  add("header-duplicate-key", AI, "wmcp twice", [] {
    Files f = Clean();
    f["header.json"] = Replace(f["header.json"], "{", "{\"wmcp_version\":\"evil\",");
    return f;
  });
  add("header-not-object", AI, "array", [] {
    Files f = Clean();
    f["header.json"] = "[1]";
    return f;
  });
  add("header-schema-version-missing", AI, "erased",
      [] { return CleanWithHeader([](auto& h) { h.erase("schema_version"); }); });
  add("header-schema-version-invalid", AI, "1.0", [] {
    Files f = Clean();
    f["header.json"] = Replace(f["header.json"], "\"schema_version\":1", "\"schema_version\":1.0");
    return f;
  });
  add("header-schema-version-invalid", AI, "zero",
      [] { return CleanWithHeader([](auto& h) { h["schema_version"] = 0; }); });
  add("header-schema-version-invalid", AI, "string",
      [] { return CleanWithHeader([](auto& h) { h["schema_version"] = "1"; }); });
  add("header-schema-version-too-new", "SCHEMA_VERSION_MISMATCH", "3",
      [] { return CleanWithHeader([](auto& h) { h["schema_version"] = 3; }); });
  add("header-missing-field", AI, "created_at", [] { return CleanWithHeader([](auto& h) { h.erase("created_at"); }); });
  add("header-missing-field", AI, "v2 without hash_algorithm",
      [] { return CleanWithHeader([](auto& h) { h["schema_version"] = 2; }); });
  add("header-unknown-field", AI, "hash_algorithm in v1",
      [] { return CleanWithHeader([](auto& h) { h["hash_algorithm"] = "sha256"; }); });
  add("header-field-type", AI, "round_index string",
      [] { return CleanWithHeader([](auto& h) { h["round_index"] = "0"; }); });
  add("header-field-type", AI, "round_index -0", [] {
    Files f = Clean();
    f["header.json"] = Replace(f["header.json"], "\"round_index\":0", "\"round_index\":-0");
    return f;
  });
  add("header-field-type", AI, "shape 1e0", [] {
    Files f = Clean();
    f["header.json"] = Replace(f["header.json"], "\"shape\":[3]", "\"shape\":[3e0]");
    return f;
  });
  add("header-field-type", AI, "parent_hash number",
      [] { return CleanWithHeader([](auto& h) { h["parent_hash"] = 5; }); });
  add("header-manifest-entry-keys", AI, "extra key",
      [] { return CleanWithHeader([](auto& h) { ManifestEntry(h, 0)["offset"] = 0; }); });
  add("header-manifest-entry-keys", AI, "missing dtype",
      [] { return CleanWithHeader([](auto& h) { ManifestEntry(h, 0).erase("dtype"); }); });

  // header domain
  add("header-hash-format", AI, "uppercase config_hash",
      [] { return CleanWithHeader([](auto& h) { h["config_hash"] = std::string(64, 'A'); }); });
  add("header-hash-format", AI, "short parent", [] {
    return FromSpec([](ArtifactSpec& s) {
      s.round_index = 1;
      s.parent_hash = "abc";
    });
  });
  add("header-parent-round-mismatch", AI, "round 1 without parent",
      [] { return FromSpec([](ArtifactSpec& s) { s.round_index = 1; }); });
  add("header-parent-round-mismatch", AI, "genesis with parent",
      [] { return FromSpec([](ArtifactSpec& s) { s.parent_hash = std::string(64, 'a'); }); });
  add("header-wmcp-version-empty", AI, "empty", [] { return FromSpec([](ArtifactSpec& s) { s.wmcp_version = ""; }); });
  add("header-param-groups-invalid", AI, "repeated", [] {
    return FromSpec([](ArtifactSpec& s) { s.param_groups = {"encoder", "predictor", "encoder"}; });
  });
  add("header-param-groups-invalid", AI, "empty",
      [] { return CleanWithHeader([](auto& h) { h["param_groups"] = boost::json::array(); }); });
  add("header-manifest-empty", AI, "empty",
      [] { return CleanWithHeader([](auto& h) { h["tensor_manifest"] = boost::json::array(); }); });
  add("header-manifest-order", AI, "swapped",
      [] { return CleanWithHeader([](auto& h) { std::swap(ManifestEntry(h, 0), ManifestEntry(h, 1)); }); });
  add("header-manifest-order", AI, "duplicate",
      [] { return CleanWithHeader([](auto& h) { ManifestEntry(h, 1) = ManifestEntry(h, 0); }); });
  add("header-tensor-name-invalid", AI, "control character", [] {
    return FromSpec([](ArtifactSpec& s) {
      s.tensors[0].name =
          "encoder.a\x01"
          "b";
    });
  });
  add("header-tensor-name-invalid", AI, "C1 control", [] {
    return FromSpec([](ArtifactSpec& s) {
      s.tensors[0].name =
          "encoder.a\xC2\x85"
          "b";
    });
  });
  add("header-tensor-group-prefix", AI, "wrong group", [] {
    return FromSpec([](ArtifactSpec& s) { s.tensors.push_back({"encoder.extra", "predictor", "float32", {1}, ""}); });
  });
  add("header-tensor-group-undeclared", AI, "predictor undeclared",
      [] { return FromSpec([](ArtifactSpec& s) { s.param_groups = {"encoder"}; }); });
  add("header-dtype-invalid", AI, "float64",
      [] { return CleanWithHeader([](auto& h) { ManifestEntry(h, 1)["dtype"] = "float64"; }); });
  add("header-dtype-invalid", AI, "safetensors token",
      [] { return CleanWithHeader([](auto& h) { ManifestEntry(h, 1)["dtype"] = "F32"; }); });
  add("header-tensor-size-overflow", AI, "2^62 x 8", [] {
    return CleanWithHeader([](auto& h) {
      ManifestEntry(h, 1)["shape"] = boost::json::array{std::uint64_t{1} << 62, 8};
    });
  });
  add("header-weight-files-invalid", AI, "other name",
      [] { return CleanWithHeader([](auto& h) { h["weight_files"] = boost::json::array{"model.safetensors"}; }); });
  add("header-weight-files-invalid", AI, "shards out of order", [] {
    Files f = Sharded();
    EditHeader(f, [](auto& h) { std::swap(h["weight_files"].as_array()[0], h["weight_files"].as_array()[1]); });
    return f;
  });
  add("header-created-at-invalid", AI, "Feb 30",
      [] { return FromSpec([](ArtifactSpec& s) { s.created_at = "2026-02-30T00:00:00Z"; }); });
  add("header-created-at-invalid", AI, "local offset",
      [] { return FromSpec([](ArtifactSpec& s) { s.created_at = "2026-06-02T00:00:00+02:00"; }); });
  add("header-hash-algorithm-unsupported", AI, "blake3", [] {
    Files f = FromSpec([](ArtifactSpec& s) { s.schema_version = 2; });
    EditHeader(f, [](auto& h) { h["hash_algorithm"] = "blake3"; });
    return f;
  });

  // safetensors structure
  add("safetensors-header-too-small", CI, "4 bytes", [] {
    Files f = Clean();
    f["weights.safetensors"] = "abcd";
    return f;
  });
  add("safetensors-header-too-small", CI, "N = 1", [] { return CleanWithWeights("{", ""); });
  add("safetensors-header-too-large", CI, "2^63", [] {
    Files f = Clean();
    f["weights.safetensors"] = std::string("\0\0\0\0\0\0\0\x80{}", 10);
    return f;
  });
  add("safetensors-header-past-end", CI, "N = 100", [] {
    Files f = Clean();
    f["weights.safetensors"] = std::string("\x64\0\0\0\0\0\0\0{\"a\":1}", 15);
    return f;
  });
  add("safetensors-header-not-utf8", CI, "0xff key", [] { return CleanWithWeights("{\"\xff\":1}", ""); });
  add("safetensors-header-json", CI, "syntax", [] { return CleanWithWeights("{\"a\":}", ""); });
  add("safetensors-header-json", CI, "array", [] { return CleanWithWeights("[]", ""); });
  add("safetensors-header-too-deep", CI, "128 levels",
      [] { return CleanWithWeights(std::string(128, '[') + std::string(128, ']'), ""); });
  add("safetensors-metadata-invalid", CI, "null", [] { return CleanWithWeights("{\"__metadata__\":null}", ""); });
  add("safetensors-metadata-invalid", CI, "number value",
      [] { return CleanWithWeights("{\"__metadata__\":{\"a\":1}}", ""); });
  add("safetensors-metadata-duplicate-key", CI, "a twice",
      [] { return CleanWithWeights("{\"__metadata__\":{\"a\":\"1\",\"a\":\"2\"}}", ""); });
  add("safetensors-duplicate-tensor", CI, "identical twice",
      [] { return CleanWithWeights("{\"x\":{" + kF32One + "},\"x\":{" + kF32One + "}}", std::string(4, '\0')); });
  add("safetensors-duplicate-tensor", CI, "escaped spelling",
      [] { return CleanWithWeights("{\"x\":{" + kF32One + "},\"\\u0078\":{" + kF32One + "}}", std::string(4, '\0')); });
  add("safetensors-tensor-entry-invalid", CI, "unknown key",
      [] { return CleanWithWeights("{\"x\":{" + kF32One + ",\"extra\":1}}", std::string(4, '\0')); });
  add("safetensors-tensor-entry-invalid", CI, "float offset", [] {
    return CleanWithWeights(R"({"x":{"dtype":"F32","shape":[1],"data_offsets":[0,4.0]}})", std::string(4, '\0'));
  });
  add("safetensors-tensor-entry-invalid", CI, "negative dim", [] {
    return CleanWithWeights(R"({"x":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})", std::string(4, '\0'));
  });
  add("safetensors-tensor-name-invalid", CI, "empty",
      [] { return CleanWithWeights("{\"\":{" + kF32One + "}}", std::string(4, '\0')); });
  add("safetensors-tensor-name-invalid", CI, "newline",
      [] { return CleanWithWeights("{\"a\\nb\":{" + kF32One + "}}", std::string(4, '\0')); });
  add("safetensors-tensor-name-invalid", CI, "__metadata__ tensor",
      [] { return CleanWithWeights("{\"__metadata__\":{" + kF32One + "}}", std::string(4, '\0')); });
  add("safetensors-dtype-unknown", CI, "F128", [] {
    return CleanWithWeights(R"({"x":{"dtype":"F128","shape":[1],"data_offsets":[0,16]}})", std::string(16, '\0'));
  });
  add("safetensors-dtype-not-allowed", CI, "I32", [] {
    return CleanWithWeights(R"({"x":{"dtype":"I32","shape":[1],"data_offsets":[0,4]}})", std::string(4, '\0'));
  });
  add("safetensors-size-overflow", CI, "2^40 x 2^40", [] {
    return CleanWithWeights(R"({"x":{"dtype":"F32","shape":[1099511627776,1099511627776],"data_offsets":[0,4]}})",
                            std::string(4, '\0'));
  });
  add("safetensors-size-overflow", CI, "bits overflow", [] {
    return CleanWithWeights(R"({"x":{"dtype":"F64","shape":[2305843009213693952],"data_offsets":[0,4]}})",
                            std::string(4, '\0'));
  });
  add("safetensors-size-misaligned", CI, "F4 x 3", [] {
    return CleanWithWeights(R"({"x":{"dtype":"F4","shape":[3],"data_offsets":[0,1]}})", std::string(1, '\0'));
  });
  add("safetensors-size-mismatch", CI, "4 bytes for 2 floats", [] {
    return CleanWithWeights(R"({"x":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}})", std::string(4, '\0'));
  });
  add("safetensors-size-mismatch", CI, "end before begin", [] {
    return CleanWithWeights(R"({"x":{"dtype":"F32","shape":[0],"data_offsets":[4,0]}})", std::string(4, '\0'));
  });
  add("safetensors-offsets-not-contiguous", CI, "hole", [] {
    return CleanWithWeights(
        R"({"x":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"y":{"dtype":"F32","shape":[1],"data_offsets":[8,12]}})",
        std::string(12, '\0'));
  });
  add("safetensors-offsets-not-contiguous", CI, "overlap", [] {
    return CleanWithWeights(
        R"({"x":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"y":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
        std::string(8, '\0'));
  });
  add("safetensors-offsets-not-contiguous", CI, "first not at 0", [] {
    return CleanWithWeights(R"({"x":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", std::string(8, '\0'));
  });
  add("safetensors-buffer-size", CI, "trailing bytes", [] {
    Files f = Clean();
    f["weights.safetensors"] += "junk";
    return f;
  });
  add("safetensors-buffer-size", CI, "truncated", [] {
    Files f = Clean();
    f["weights.safetensors"].pop_back();
    return f;
  });
  add("safetensors-noncanonical-whitespace", CI, "leading newline", [] {
    Files f = Clean();
    auto parts = SplitSafetensors(f["weights.safetensors"]);
    f["weights.safetensors"] = SafetensorsFile("\n" + parts.header, parts.data);
    return f;
  });
  add("safetensors-noncanonical-whitespace", CI, "tab padding", [] {
    Files f = Clean();
    auto parts = SplitSafetensors(f["weights.safetensors"]);
    f["weights.safetensors"] = SafetensorsFile(parts.header + "\t", parts.data);
    return f;
  });

  // content sniffing
  auto weights_as = [](const std::string& bytes) {
    return [bytes] {
      Files f = Clean();
      f["weights.safetensors"] = bytes;
      return f;
    };
  };
  add("weights-file-empty", CI, "empty", weights_as(""));
  add("weights-format-pickle", CI, "protocol 4", weights_as(std::string("\x80\x04\x95\x05\0\0\0\0\0\0\0}\x94.", 14)));
  add("weights-format-pickle", CI, "protocol 2 short", weights_as("\x80\x02."));
  add("weights-format-zip", CI, "torch.save", weights_as(std::string("PK\x03\x04\x14\0\0\0\0\0archive/data.pkl", 26)));
  add("weights-format-numpy", CI, "npy", weights_as(std::string("\x93NUMPY\x01\0v\0{'descr': '<f4'}", 26)));
  add("weights-format-gguf", CI, "gguf v3", weights_as(std::string("GGUF\x03\0\0\0\0\0\0\0\0\0\0\0", 16)));
  add("weights-format-git-lfs-pointer", CI, "pointer",
      weights_as("version https://git-lfs.github.com/spec/v1\noid sha256:" + std::string(64, 'a') + "\nsize 456\n"));
  add("weights-format-html", CI, "doctype", weights_as("<!DOCTYPE html><html><body>403 Forbidden</body></html>"));
  add("weights-format-html", CI, "leading whitespace", weights_as("\n  <HTML><body>login</body></HTML>"));

  // manifest against weights
  add("manifest-tensor-missing", CI, "dropped from weights", [] {
    ArtifactSpec spec = ArtifactSpec::Clean();
    Files f = spec.Build();
    spec.tensors.pop_back();
    f["weights.safetensors"] = spec.Build().at("weights.safetensors");
    return f;
  });
  add("manifest-tensor-unlisted", CI, "extra in weights", [] {
    ArtifactSpec spec = ArtifactSpec::Clean();
    Files f = spec.Build();
    spec.tensors.push_back({"encoder.smuggled", "encoder", "float32", {2}, ""});
    f["weights.safetensors"] = spec.Build().at("weights.safetensors");
    return f;
  });
  add("manifest-dtype-mismatch", CI, "float16 vs bfloat16",
      [] { return CleanWithHeader([](auto& h) { ManifestEntry(h, 0)["dtype"] = "bfloat16"; }); });
  add("manifest-shape-mismatch", CI, "[2,3] vs [3,2]", [] {
    return CleanWithHeader([](auto& h) { ManifestEntry(h, 1)["shape"] = boost::json::array{3, 2}; });
  });
  add("weights-tensor-in-two-files", CI, "copy in shard 1", [] {
    Files f = Sharded();
    auto parts = SplitSafetensors(f[kShard0]);
    boost::json::object h0 = boost::json::parse(parts.header).as_object();
    auto parts1 = SplitSafetensors(f[kShard1]);
    boost::json::object h1 = boost::json::parse(parts1.header).as_object();
    std::uint64_t end = parts1.data.size();
    boost::json::object entry = h0["encoder.blocks.0.bias"].as_object();
    auto& offs = entry["data_offsets"].as_array();
    std::uint64_t len = offs[1].to_number<std::uint64_t>() - offs[0].to_number<std::uint64_t>();
    std::string bytes = parts.data.substr(offs[0].to_number<std::size_t>(), len);
    entry["data_offsets"] = boost::json::array{end, end + len};
    h1["encoder.blocks.0.bias"] = entry;
    f[kShard1] = SafetensorsFile(boost::json::serialize(h1), parts1.data + bytes);
    return f;
  });
  add("weights-metadata-content-hash", CI, "other hash", [] {
    return FromSpec([](ArtifactSpec& s) { s.metadata.push_back({"content_hash", std::string(64, 'e')}); });
  });
  add("weights-metadata-schema-version", CI, "2 vs 1", [] {
    return FromSpec([](ArtifactSpec& s) { s.metadata.push_back({"schema_version", "2"}); });
  });
  add("weights-files-mismatch", CI, "header says single", [] {
    Files f = Sharded();
    EditHeader(f, [](auto& h) { h["weight_files"] = boost::json::array{"weights.safetensors"}; });
    return f;
  });

  // shard index
  add("index-too-large", CI, "100 MB + 1", [] {
    Files f = Sharded();
    f["weights.index.json"] = std::string(100'000'001, ' ');  // NOLINT(bugprone-string-constructor): one byte over
    return f;
  });
  add("index-json-invalid", CI, "syntax", [] {
    Files f = Sharded();
    f["weights.index.json"] = "{\"metadata\":";
    return f;
  });
  add("index-json-too-deep", CI, "128 levels", [] {
    Files f = Sharded();
    f["weights.index.json"] = std::string(128, '{');
    return f;
  });
  add("index-json-invalid", CI, "not object", [] {
    Files f = Sharded();
    f["weights.index.json"] = "null";
    return f;
  });
  add("index-duplicate-key", CI, "tensor mapped twice", [] {
    Files f = Sharded();
    f["weights.index.json"] = Replace(f["weights.index.json"], "\"weight_map\":{",
                                      "\"weight_map\":{\"predictor.head.scale\":\"" + kShard0 + "\",");
    return f;
  });
  add("index-structure", CI, "no metadata", [] { return ShardedWithIndex([](auto& i) { i.erase("metadata"); }); });
  add("index-structure", CI, "extra key", [] { return ShardedWithIndex([](auto& i) { i["format"] = "pt"; }); });
  add("index-structure", CI, "total_size float",
      [] { return ShardedWithIndex([](auto& i) { i["metadata"].as_object()["total_size"] = 52.0; }); });
  add("index-files-mismatch", CI, "unknown shard", [] {
    return ShardedWithIndex(
        [](auto& i) { i["weight_map"].as_object()["predictor.head.scale"] = "weights-00003-of-00003.safetensors"; });
  });
  add("index-wrong-shard", CI, "shard 2 instead of 0",
      [] { return ShardedWithIndex([](auto& i) { i["weight_map"].as_object()["encoder.blocks.0.bias"] = kShard2; }); });
  add("index-tensor-unmapped", CI, "key removed",
      [] { return ShardedWithIndex([](auto& i) { i["weight_map"].as_object().erase("encoder.blocks.0.bias"); }); });
  add("index-total-size", CI, "off by one", [] {
    return ShardedWithIndex([](auto& i) {
      auto& t = i["metadata"].as_object()["total_size"];
      t = boost::json::value_to<std::uint64_t>(t) + 1;
    });
  });

  // paths
  add("path-escape", CI, "dot-dot in weight_files", [] {
    return CleanWithHeader([](auto& h) { h["weight_files"] = boost::json::array{"../weights.safetensors"}; });
  });
  add("path-escape", CI, "absolute in weight_map", [] {
    return ShardedWithIndex([](auto& i) { i["weight_map"].as_object()["encoder.blocks.0.bias"] = "/etc/passwd"; });
  });
  add("path-escape", CI, "backslash", [] {
    return CleanWithHeader([](auto& h) { h["weight_files"] = boost::json::array{"sub\\weights.safetensors"}; });
  });
  add("path-escape", CI, "drive prefix",
      [] { return CleanWithHeader([](auto& h) { h["weight_files"] = boost::json::array{"C:weights.safetensors"}; }); });

  // residency
  add("residency-group-not-shared", RV, "gripper group", [] {
    return FromSpec([](ArtifactSpec& s) {
      s.param_groups.push_back("gripper");
      s.tensors.push_back({"gripper.w", "gripper", "float32", {2}, ""});
    });
  });
  add("residency-action-head", RV, "action_head component", [] {
    return FromSpec([](ArtifactSpec& s) {
      s.tensors.push_back({"predictor.action_head.w", "predictor", "float32", {2}, ""});
    });
  });
  add("residency-action-head", RV, "mixed case act_head", [] {
    return FromSpec([](ArtifactSpec& s) { s.tensors.push_back({"encoder.Act_Head", "encoder", "float16", {1}, ""}); });
  });
  add("residency-action-head", RV, "only in weights", [] {
    ArtifactSpec spec = ArtifactSpec::Clean();
    Files f = spec.Build();
    spec.tensors.push_back({"predictor.action_heads.0", "predictor", "float32", {1}, ""});
    f["weights.safetensors"] = spec.Build().at("weights.safetensors");
    return f;
  });
  {
    AuditOptions widened;
    widened.extra_allowed_groups = {"gripper"};
    add(
        "residency-policy-widened", RV, "--allow-group gripper, used",
        [] {
          return FromSpec([](ArtifactSpec& s) {
            s.param_groups.push_back("gripper");
            s.tensors.push_back({"gripper.w", "gripper", "float32", {2}, ""});
          });
        },
        widened);
  }

  // hash
  add("hash-mismatch", CI, "flipped data byte", [] {
    Files f = Clean();
    f["weights.safetensors"].back() ^= 0x01;
    return f;
  });
  add("hash-mismatch", CI, "declared hash edited",
      [] { return CleanWithHeader([](auto& h) { h["content_hash"] = std::string(64, '0'); }); });
  {
    AuditOptions pinned;
    pinned.expected_hash = std::string(64, 'b');
    add("hash-unexpected", CI, "pinned other hash", Clean, pinned);
  }
  {
    AuditOptions structure_only;
    structure_only.compute_hash = false;
    add(
        "hash-not-verified", CI, "--no-hash on a tampered artifact",
        [] { return CleanWithHeader([](auto& h) { h["content_hash"] = std::string(64, '0'); }); }, structure_only);
  }
  // tar artifacts (inputs.md section 2) and input recognition (section 1)
  auto tar_case = [&](std::string rule, std::string variant, const std::function<void(TarSpec&)>& edit) {
    FireCase fc{std::move(rule), CI, std::move(variant), [edit] { return CleanTar(edit); }};
    fc.form = InputForm::kFile;
    c.push_back(std::move(fc));
  };
  tar_case("tar-checksum-invalid", "one bit off", [](TarSpec& t) { t.members[1].break_checksum = true; });
  tar_case("tar-header-invalid", "size field not octal",
           [](TarSpec& t) { t.members[1].raw_size_field = std::string("0000000001x\0", 12); });
  tar_case("tar-header-invalid", "negative base-256 size",
           [](TarSpec& t) { t.members[1].raw_size_field = std::string(12, static_cast<char>(0xFF)); });
  tar_case("tar-member-past-end", "octal size past the end",
           [](TarSpec& t) { t.members.back().header_size = 1 << 30; });
  tar_case("tar-member-past-end", "base-256 size past the end",
           [](TarSpec& t) { t.members.back().raw_size_field = Base256(1ULL << 40); });
  tar_case("tar-end-marker-missing", "cut after the last member", [](TarSpec& t) {
    t.end_blocks = 0;
    t.record = 0;
  });
  tar_case("tar-end-marker-missing", "one zero block", [](TarSpec& t) {
    t.end_blocks = 1;
    t.record = 0;
  });
  tar_case("tar-data-after-end", "bytes after the padding", [](TarSpec& t) { t.trailing = "appended payload"; });
  tar_case("tar-symlink-member", "link to /etc/passwd", [](TarSpec& t) {
    TarMemberSpec link = Member("weights.link", "", '2');
    link.linkname = "/etc/passwd";
    t.members.push_back(link);
  });
  tar_case("tar-hardlink-member", "hard link", [](TarSpec& t) {
    TarMemberSpec link = Member("copy.json", "", '1');
    link.linkname = "header.json";
    t.members.push_back(link);
  });
  tar_case("tar-device-member", "character device", [](TarSpec& t) { t.members.push_back(Member("null", "", '3')); });
  tar_case("tar-fifo-member", "FIFO", [](TarSpec& t) { t.members.push_back(Member("pipe", "", '6')); });
  tar_case("tar-sparse-member", "GNU type S", [](TarSpec& t) { t.members.push_back(Member("holes.bin", "", 'S')); });
  tar_case("tar-sparse-member", "pax GNU.sparse records", [](TarSpec& t) {
    TarMemberSpec m = Member("holes.bin", "abc");
    m.pax_records = {{"GNU.sparse.major", "1"}, {"GNU.sparse.minor", "0"}};
    t.members.push_back(m);
  });
  tar_case("tar-member-type-unsupported", "volume label",
           [](TarSpec& t) { t.members.insert(t.members.begin(), Member("LABEL", "", 'V')); });
  tar_case("tar-global-header", "global path record", [](TarSpec& t) { t.global_records = {{"path", "evil.json"}}; });
  tar_case("tar-extension-repeated", "two pax headers", [](TarSpec& t) {
    t.members[1].pax_path = true;
    t.members[1].duplicate_pax = true;
  });
  tar_case("tar-extension-repeated", "pax path and GNU long name disagree", [](TarSpec& t) {
    TarMemberSpec& m = t.members[1];
    m.gnu_long_name = true;
    m.pax_records = {{"path", "weights.index.json"}};
  });
  tar_case("tar-name-conflict", "ustar name names another file", [](TarSpec& t) {
    t.members[1].pax_path = true;
    t.members[1].ustar_name = "header.json";
  });
  tar_case("tar-name-conflict", "GNU header with a POSIX prefix (tarfile joins it)", [](TarSpec& t) {
    t.gnu_magic = true;
    t.members[1].prefix_field = "../../escaped";
  });
  tar_case("tar-size-conflict", "pax size differs", [](TarSpec& t) {
    t.members[1].pax_records = {{"size", std::to_string(t.members[1].data.size() - 1)}};
  });
  tar_case("tar-duplicate-member", "header.json twice", [](TarSpec& t) { t.members.push_back(t.members[0]); });
  tar_case("tar-path-escape", "parent component",
           [](TarSpec& t) { t.members.push_back(Member("../escape.json", "{}")); });
  tar_case("tar-path-escape", "absolute name", [](TarSpec& t) { t.members.push_back(Member("/etc/cron.d/x", "x")); });
  tar_case("tar-member-layout", "file in a sub-folder",
           [](TarSpec& t) { t.members.push_back(Member("extra/notes.txt", "x")); });
  tar_case("tar-member-layout", "mixed ./ and bare names",
           [](TarSpec& t) { t.members[1].name = "./" + t.members[1].name; });
  {
    FireCase fc{"input-compressed", CI, "gzip", [] {
                  return Files{{"round.tar.gz", std::string("\x1f\x8b\x08\x00rest", 8)}};
                }};
    fc.form = InputForm::kFile;
    c.push_back(std::move(fc));
  }
  {
    FireCase fc{"input-unrecognised", CI, "plain text", [] { return Files{{"model.bin", "hello, world\n"}}; }};
    fc.form = InputForm::kFile;
    c.push_back(std::move(fc));
  }

  // model folders (inputs.md section 4)
  auto model_case = [&](std::string rule, std::string variant, const std::function<Files()>& make) {
    FireCase fc{std::move(rule), CI, std::move(variant), make};
    fc.form = InputForm::kFolder;
    fc.input_name = "model";
    c.push_back(std::move(fc));
  };
  model_case("input-no-weights", "configuration and a model card only", [] {
    return Files{{"config.json", R"({"model_type": "bert"})"}, {"README.md", "# a model card\n"}};
  });
  auto cache_case = [&](std::string rule, std::string variant, const std::function<Files()>& make) {
    FireCase fc{std::move(rule), CI, std::move(variant), make};
    fc.form = InputForm::kFolder;
    fc.input_name = kSnapshot;
    c.push_back(std::move(fc));
  };
  model_case("model-index-invalid", "weight_map is a list", [] {
    return Model(2, [](Files& f) { EditIndex(f, [](auto& i) { i["weight_map"] = boost::json::array(); }); });
  });
  model_case("model-index-invalid", "duplicate key", [] {
    return Model(2, [](Files& f) {
      f["model.safetensors.index.json"] =
          Replace(f.at("model.safetensors.index.json"), "{\"metadata\"", "{\"weight_map\":{},\"metadata\"");
    });
  });
  model_case("model-index-unknown-key", "extra top-level key",
             [] { return Model(2, [](Files& f) { EditIndex(f, [](auto& i) { i["extra"] = 1; }); }); });
  model_case("model-index-path-escape", "shard path with ..", [] {
    return Model(2, [](Files& f) {
      EditIndex(f, [](auto& i) { i["weight_map"].as_object()["predictor.head.weight"] = "../other/" + kShardB; });
    });
  });
  model_case("model-shard-missing", "second shard absent", [] { return Model(2, [](Files& f) { f.erase(kShardB); }); });
  model_case("model-index-wrong-shard", "tensor mapped to the other shard", [] {
    return Model(2, [](Files& f) {
      EditIndex(f, [](auto& i) { i["weight_map"].as_object()["encoder.blocks.0.weight"] = kShardB; });
    });
  });
  model_case("model-tensor-unmapped", "one tensor left out of weight_map", [] {
    return Model(
        2, [](Files& f) { EditIndex(f, [](auto& i) { i["weight_map"].as_object().erase("predictor.head.weight"); }); });
  });
  model_case("model-tensor-in-two-shards", "shard copied over the other",
             [] { return Model(2, [](Files& f) { f[kShardB] = f.at(kShardA); }); });
  model_case("model-shard-name", "shards named by hand", [] {
    return Model(2, [](Files& f) {
      f["part-a.safetensors"] = f.at(kShardA);
      f["part-b.safetensors"] = f.at(kShardB);
      f.erase(kShardA);
      f.erase(kShardB);
      EditIndex(f, [](auto& i) {
        for (auto& [tensor, file] : i["weight_map"].as_object()) {
          file = file.as_string() == kShardA ? "part-a.safetensors" : "part-b.safetensors";
        }
      });
    });
  });
  model_case("model-unreferenced-weights", "a stray safetensors file beside the index", [] {
    return Model(2, [](Files& f) { f["extra.safetensors"] = ModelFolderSpec{}.Build().at("model.safetensors"); });
  });
  model_case("model-total-size", "mlx-style: the shard file sizes", [] {
    return Model(2, [](Files& f) {
      const std::uint64_t files = f.at(kShardA).size() + f.at(kShardB).size();
      EditIndex(f, [&](auto& i) { i["metadata"].as_object()["total_size"] = files; });
    });
  });
  model_case("model-total-size", "some other number", [] {
    return Model(2, [](Files& f) { EditIndex(f, [](auto& i) { i["metadata"].as_object()["total_size"] = 7; }); });
  });
  model_case("model-symlink", "link outside a cache",
             [] { return Model(1, [](Files& f) { f["tokenizer.json"] = SymlinkTo("/etc/hostname"); }); });
  {
    FireCase fc{"model-special-file", CI, "FIFO beside the weights", [] { return Model(1, [](Files&) {}); }};
    fc.form = InputForm::kFolder;
    fc.input_name = "model";
    fc.entries = {{"pipe", EntryKind::kOther}};
    c.push_back(std::move(fc));
  }
  model_case("model-executable", "ELF binary", [] {
    return Model(1, [](Files& f) {
      f["bin/helper"] = std::string(
          "\x7f"
          "ELF\x02\x01\x01\0\0\0\0\0\0\0\0\0",
          16);
    });
  });
  model_case("model-archive", "zip of documents", [] {
    return Model(1, [](Files& f) {
      f["extras.zip"] = std::string("PK\x03\x04\x14\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\x0a\0\0\0readme.txt", 40);
    });
  });
  model_case("model-remote-code", "Python file",
             [] { return Model(1, [](Files& f) { f["modeling_custom.py"] = "import os\n"; }); });
  model_case("model-remote-code", "auto_map in config.json", [] {
    return Model(1, [](Files& f) { f["config.json"] = R"({"auto_map": {"AutoModel": "modeling_custom.Model"}})"; });
  });
  model_case("model-config-invalid", "config.json cut short",
             [] { return Model(1, [](Files& f) { f["config.json"] = "{\"model_type\": "; }); });
  model_case("weights-format-pickle", "pickle named model.safetensors",
             [] { return Model(1, [](Files& f) { f["model.safetensors"] = std::string("\x80\x02}q\x00.", 6); }); });
  cache_case("model-path-escape", "cache link leaving the repository", [] {
    Files cache = HubCache(ModelFolderSpec{}.Build());
    cache["evil.json"] = SymlinkTo("../../../../outside.json");
    return cache;
  });
  cache_case("model-blob-digest", "tampered LFS blob", [] {
    Files cache = HubCache(ModelFolderSpec{}.Build());
    std::string& blob = cache.at(BlobOf(cache, "model.safetensors"));
    blob.back() = static_cast<char>(blob.back() ^ 0x01);
    return cache;
  });
  cache_case("model-blob-digest", "tampered git blob", [] {
    Files cache = HubCache(ModelFolderSpec{}.Build());
    cache.at(BlobOf(cache, "config.json")) = R"({"model_type": "other", "hidden_size": 4})";
    return cache;
  });

  // pickle-based files (inputs.md section 6): each a file input built opcode by opcode.
  auto pickle_case = [&c, &CI](std::string rule, std::string variant, std::string name,
                               const std::function<std::string()>& make) {
    FireCase fc{std::move(rule), CI, std::move(variant), [name, make] { return Files{{name, make()}}; }};
    fc.form = InputForm::kFile;
    c.push_back(std::move(fc));
  };
  using namespace pk;  // NOLINT(google-build-using-namespace): the opcode vocabulary
  const std::string touch = "touch /tmp/ckpt-audit-sentinel";
  pickle_case("pickle-global-unsafe", "GLOBAL posix system", "a.pkl", [touch] { return SystemPickle(touch); });
  pickle_case("pickle-call-unsafe", "REDUCE posix.system", "a.pkl", [touch] { return SystemPickle(touch); });
  pickle_case("pickle-nested-loader", "torch.load", "a.pkl",
              [] { return Proto(2) + CallWithStr("torch", "load", "inner.pt") + kStop; });
  pickle_case("pickle-scanner-import", "picklescan", "a.pkl",
              [] { return Proto(2) + Global("picklescan.scanner", "scan_pickle_bytes") + kStop; });
  pickle_case("pickle-argument-invalid", "OrderedDict of a string", "a.pkl",
              [] { return Proto(2) + Global("collections", "OrderedDict") + Str("cmd") + kTuple1 + kReduce + kStop; });
  pickle_case("pickle-build-unsafe", "BUILD on a dict", "a.pkl",
              [] { return Proto(2) + kEmptyDict + kEmptyDict + Str("x") + Int(1) + kSetItem + kBuild + kStop; });
  pickle_case("pickle-stream-malformed", "truncated before STOP", "a.pkl",
              [] { return Proto(2) + kEmptyDict + Str("x"); });
  pickle_case("pickle-extension-code", "EXT1", "a.pkl", [] { return Proto(2) + std::string("\x82\x07.", 3); });
  pickle_case("pickle-budget-exceeded", "2^62 length prefix", "a.pkl",
              [] { return Proto(4) + "\x8d" + std::string("\x00\x00\x00\x00\x00\x00\x00\x40", 8) + kStop; });
  pickle_case("pickle-trailing-data", "junk after STOP", "a.pkl",
              [] { return Proto(2) + kNone + kStop + "\xfe junk"; });
  pickle_case("pickle-tensor-invalid", "quantized rebuild", "a.pkl",
              [] { return Proto(2) + Global("torch._utils", "_rebuild_qtensor") + kEmptyTuple + kReduce + kStop; });
  pickle_case("pickle-storage-mismatch", "record of the wrong size", "model.pt", [] {
    return TorchZip(OneTensorPickle(), {{"0", std::string(20, '\x01')}});
  });
  pickle_case("pickle-tensor-name", "two paths, one name", "model.pt", [] {
    // {'a.b': tensor0, 'a': {'b': tensor1}}: both are named a.b.
    const std::string pid =
        kMark + Str("storage") + Global("torch", "FloatStorage") + Str("0") + Str("cpu") + Int(6) + kTuple + kBinPersId;
    const std::string tensor = Global("torch._utils", "_rebuild_tensor_v2") + kMark + pid + Int(0) + kMark + Int(6) +
                               kTuple + kMark + Int(1) + kTuple + kNewFalse + Global("collections", "OrderedDict") +
                               kEmptyTuple + kReduce + kTuple + kReduce;
    const std::string data = Proto(2) + kEmptyDict + Str("a.b") + tensor + kSetItem + Str("a") + kEmptyDict + Str("b") +
                             tensor + kSetItem + kSetItem + kStop;
    return TorchZip(data, {{"0", OneTensorRecord()}});
  });
  pickle_case("pickle-dtype-unsupported", "complex128 storage", "model.pt", [] {
    return TorchZip(StateDictPickle({{"w", "ComplexDoubleStorage", "0", 1, 0, {1}, {}}}),
                    {{"0", std::string(16, '\0')}});
  });
  pickle_case("pickle-format-note", "clean torch zip", "model.pt", [] { return OneTensorZip(); });
  pickle_case("zip-structure", "bytes before the archive", "model.pt", [] {
    return BuildZip(TorchZipEntries(OneTensorPickle(), {{"0", OneTensorRecord()}}), "prefix");
  });
  pickle_case("zip-header-mismatch", "local name differs", "model.pt", [] {
    auto entries = TorchZipEntries(OneTensorPickle(), {{"0", OneTensorRecord()}});
    entries[0].local_name = "archive/data.pkx";
    return BuildZip(entries);
  });
  pickle_case("zip-crc-mismatch", "data.pkl CRC-32", "model.pt", [] {
    auto entries = TorchZipEntries(OneTensorPickle(), {{"0", OneTensorRecord()}});
    entries[0].crc = 7;
    return BuildZip(entries);
  });
  pickle_case("zip-member-unexpected", "unreferenced record", "model.pt", [] {
    return TorchZip(OneTensorPickle(), {{"0", OneTensorRecord()}, {"1", "spare"}});
  });
  pickle_case("zip-member-compressed", "deflate method", "model.pt", [] {
    auto entries = TorchZipEntries(OneTensorPickle(), {{"0", OneTensorRecord()}});
    entries[3].method = 8;
    return BuildZip(entries);
  });
  pickle_case("torch-legacy-layout", "bytes after the last storage", "model.bin",
              [] { return OneTensorLegacy() + "tail"; });
  pickle_case("numpy-header-invalid", "data shorter than the shape", "a.npy", [] {
    return Npy("<f4", {3, 4}).substr(0, 100);
  });
  pickle_case("numpy-object-array", "object dtype", "a.npy", [touch] {
    std::string npy = Npy("|O", {}, 0);
    return npy + SystemPickle(touch);
  });
  pickle_case("input-name-mismatch", "pickle named safetensors", "model.safetensors",
              [] { return Proto(2) + kEmptyDict + kStop; });
  {
    FireCase fc{"input-kind-unexpected", CI, "a pickle where safetensors are expected", [] {
                  return Files{{"state.pkl", Proto(2) + kEmptyDict + kStop}};
                }};
    fc.form = InputForm::kFile;
    fc.policy.expected_kinds = {InputKind::kSafetensors, InputKind::kLensemble};
    c.push_back(std::move(fc));
  }
  pickle_case("input-polyglot", "safetensors whose tensor bytes end in a zip", "model.safetensors", [] {
    const std::string zip = OneTensorZip();
    return SafetensorsFile(R"({"w":{"dtype":"U8","shape":[)" + std::to_string(zip.size()) + R"(],"data_offsets":[0,)" +
                               std::to_string(zip.size()) + "]}}",
                           zip);
  });
  pickle_case("zip-ambiguous", "names equal but for case", "model.pt", [] {
    auto entries = TorchZipEntries(OneTensorPickle(), {{"0", OneTensorRecord()}});
    ZipEntry shadow;
    shadow.name = "archive/DATA.PKL";
    shadow.data = SystemPickle("touch /tmp/x");
    entries.push_back(shadow);
    return BuildZip(entries);
  });
  pickle_case("pickle-frame-invalid", "GLOBAL straddling a FRAME boundary", "a.pkl", [touch] {
    return Proto(4) + std::string("\x95\x03\0\0\0\0\0\0\0", 9) + CallWithStr("posix", "system", touch) + kStop;
  });

  // GGUF files (inputs.md section 5): each a file input written by the test GGUF writer.
  auto gguf_case = [&c, &CI](std::string rule, std::string variant, const std::function<gg::Spec()>& edit,
                             const std::string& trailing = "") {
    FireCase fc{std::move(rule), CI, std::move(variant), [edit, trailing] {
                  return Files{{"model.gguf", gg::Build(edit()) + trailing}};
                }};
    fc.form = InputForm::kFile;
    c.push_back(std::move(fc));
  };
  gguf_case("gguf-header-invalid", "version 1", [] {
    gg::Spec s = gg::Several();
    s.version = 1;
    return s;
  });
  gguf_case("gguf-header-invalid", "byte-swapped version", [] {
    gg::Spec s = gg::Several();
    s.version = 0x03000000;
    return s;
  });
  gguf_case("gguf-length-invalid", "2^60 tensors", [] {
    gg::Spec s = gg::Several();
    s.tensor_count = std::uint64_t{1} << 60;
    return s;
  });
  gguf_case("gguf-length-invalid", "a 2^62-byte string", [] {
    gg::Spec s = gg::Several();
    s.kvs.push_back({"general.name", 8, std::string("\x00\x00\x00\x00\x00\x00\x00\x40", 8)});
    return s;
  });
  gguf_case("gguf-string-invalid", "key with NUL", [] {
    gg::Spec s = gg::Several();
    s.kvs.push_back(gg::U32(std::string("a\0b", 3), 1));
    return s;
  });
  gguf_case("gguf-duplicate-key", "general.architecture twice", [] {
    gg::Spec s = gg::Several();
    s.kvs.push_back(gg::Str("general.architecture", "evil"));
    return s;
  });
  gguf_case("gguf-value-type-invalid", "bool of 2", [] {
    gg::Spec s = gg::Several();
    s.kvs.push_back(gg::Bool("general.other", 2));
    return s;
  });
  gguf_case("gguf-nested-array", "array of arrays", [] {
    gg::Spec s = gg::Several();
    s.kvs.push_back(gg::NestedArray("general.nested"));
    return s;
  });
  gguf_case("gguf-alignment-invalid", "alignment 48", [] {
    gg::Spec s = gg::Several();
    s.kvs.insert(s.kvs.begin(), gg::U32("general.alignment", 48));
    return s;
  });
  gguf_case("gguf-tensor-name-invalid", "64-byte name", [] {
    gg::Spec s = gg::Several();
    s.tensors[0].name = std::string(64, 'n');
    return s;
  });
  gguf_case("gguf-duplicate-tensor", "two token_embd.weight", [] {
    gg::Spec s = gg::Several();
    s.tensors[1].name = s.tensors[0].name;
    return s;
  });
  gguf_case("gguf-type-unknown", "removed Q4_2", [] {
    gg::Spec s = gg::Several();
    s.tensors[0].type = 4;
    s.tensors[0].data_bytes = 512;
    return s;
  });
  gguf_case("gguf-rank-invalid", "rank 5", [] {
    gg::Spec s = gg::Several();
    s.tensors[0].dims = {2, 2, 2, 2, 2};
    return s;
  });
  gguf_case("gguf-shape-invalid", "Q8_0 row of 40", [] {
    gg::Spec s = gg::Several();
    s.tensors[3].dims = {40, 2};
    s.tensors[3].data_bytes = 68;
    return s;
  });
  gguf_case("gguf-offset-invalid", "overlapping tensors", [] {
    gg::Spec s = gg::Several();
    s.tensors[1].offset = 0;
    return s;
  });
  gguf_case("gguf-data-past-end", "last tensor cut", [] {
    gg::Spec s = gg::Several();
    s.tensors.back().data_bytes = 16;  // written short; its dims say 480 bytes
    return s;
  });
  gguf_case(
      "gguf-trailing-data", "bytes appended", [] { return gg::Several(); }, "PAYLOAD");
  gguf_case("gguf-chat-template", "template reaching __globals__", [] {
    gg::Spec s = gg::Several();
    s.kvs[3] = gg::Str("tokenizer.chat_template", "{{ cycler.__init__.__globals__.os.popen('id').read() }}");
    return s;
  });

  auto split_case = [&c, &CI](std::string rule, std::string variant,
                              const std::function<void(std::vector<std::pair<std::string, std::string>>&)>& edit) {
    FireCase fc{std::move(rule), CI, std::move(variant), [edit] {
                  auto parts = gg::SplitSet("model", 3);
                  edit(parts);
                  Files f;
                  for (auto& [name, bytes] : parts) f[name] = bytes;
                  return f;
                }};
    fc.form = InputForm::kFolder;
    fc.input_name = "model";
    c.push_back(std::move(fc));
  };
  split_case("gguf-split-incomplete", "part 2 of 3 missing",
             [](std::vector<std::pair<std::string, std::string>>& p) { p.erase(p.begin() + 1); });
  split_case("gguf-split-inconsistent", "a tensor in two parts",
             [](std::vector<std::pair<std::string, std::string>>& p) {
               // Part 3 again, renamed as part 2: its tensors are then in two parts, and the count is off.
               p[1].second = p[2].second;
             });

  // NumPy .npz (formats.md section 2): each a file input, a zip of .npy members.
  {
    FireCase fc{"npz-duplicate-member", CI, "w.npy twice", [] {
                  return Files{{"weights.npz", pk::NpzOf({{"w.npy", pk::Npy("<f4", {2})},
                                                          {"b.npy", pk::Npy("<i8", {1}, 8)},
                                                          {"w.npy", pk::Npy("<f4", {3})}})}};
                }};
    fc.form = InputForm::kFile;
    c.push_back(std::move(fc));
  }

  pickle_case("npz-object-array", "object member", "weights.npz", [touch] {
    return NpzOf({{"w.npy", Npy("<f4", {2})}, {"o.npy", Npy("|O", {}, 0) + SystemPickle(touch)}});
  });
  pickle_case("npz-member-size", "4 bytes short", "weights.npz", [] {
    const std::string w = Npy("<f4", {3});
    return NpzOf({{"w.npy", w.substr(0, w.size() - 4)}});
  });
  pickle_case("npz-member-unexpected", "member in a folder", "weights.npz", [] {
    return NpzOf({{"w.npy", Npy("<f4", {2})}, {"sub/b.npy", Npy("<f4", {1})}});
  });

  // TorchScript and torch.export archives (formats.md section 4): programs, never weights.
  pickle_case("torchscript-code", "torch.jit.save layout", "traced.pt", [] {
    return ZipOf({{"ts/data.pkl", OneTensorPickle()},
                  {"ts/code/__torch__.py", "def forward(self, x):\n    return x\n"},
                  {"ts/constants.pkl", Proto(2) + kEmptyTuple + kStop},
                  {"ts/version", "3\n"}});
  });
  pickle_case("torchscript-export", "pt2 archive_format", "model.pt2", [] {
    return ZipOf({{"model/archive_format", "pt2"},
                  {"model/archive_version", "0"},
                  {"model/models/model.json", "{}"},
                  {"model/data/weights/weight_0", std::string(16, '\0')}});
  });
  pickle_case("torchscript-native-code", "AOTInductor shared object", "model.pt2", [] {
    return ZipOf({{"model/archive_format", "pt2"},
                  {"model/models/model.json", "{}"},
                  {"model/data/aotinductor/model/model.so", std::string("\x7f"
                                                                        "ELF\x02\x01\x01",
                                                                        7) +
                                                                std::string(57, '\0')}});
  });

  // joblib files (formats.md section 3): a dict of wrapped arrays as joblib.dump writes it.
  const auto joblib_arrays = [](std::optional<std::string> padding = std::nullopt) {
    return JoblibPickle({{"w", "f4", {2, 3}, std::string(24, '\0'), std::move(padding)}});
  };
  pickle_case("joblib-array-invalid", "padding not 0xff", "model.joblib",
              [joblib_arrays] { return joblib_arrays(std::string(16, '\0')); });
  pickle_case("joblib-compression-invalid", "zlib stream cut short", "model.joblib", [joblib_arrays] {
    const std::string z = ZlibOf(joblib_arrays());
    return z.substr(0, z.size() - 6);
  });
  pickle_case("joblib-decompression-bomb", "135 MB of bz2 from 158 bytes", "model.joblib", [] {
    static const std::string bomb = [] {
      const std::string zeros(45'000'000, '\0');  // NOLINT(bugprone-string-constructor): the bomb's payload
      return Bz2Of("\x80\x02" + zeros) + Bz2Of(zeros) + Bz2Of(zeros);
    }();
    return bomb;
  });
  pickle_case("joblib-estimator", "a LogisticRegression", "model.joblib", [] {
    // joblib.dump of {"w": array, "model": estimator}: the wrapper's global makes it joblib.
    const std::string estimator = Global("sklearn.linear_model._logistic", "LogisticRegression") + kEmptyTuple +
                                  "\x81" + kEmptyDict + kMark + Str("C") + Int(1) + Str("_sklearn_version") +
                                  Str("1.2.1") + kSetItems + kBuild;
    return JoblibPickle({{"w", "f4", {1}, std::string(4, '\0'), std::nullopt}}, Str("model") + estimator);
  });

  // Flax msgpack checkpoints (formats.md section 8), as flax.serialization.to_bytes writes them.
  {
    using mp::Map, mp::Str;
    const std::string w = Str("w") + mp::ZerosF32({3});
    pickle_case("msgpack-array-invalid", "4 bytes short", "flax_model.msgpack",
                [] { return Map(1) + Str("w") + mp::Ndarray({3}, "float32", std::string(8, '\0')); });
    pickle_case("msgpack-budget-exceeded", "a 1 MiB + 1 key", "flax_model.msgpack",
                [] { return Map(1) + Str(std::string((1U << 20U) + 1, 'k')) + mp::kNil; });
    pickle_case("msgpack-depth-exceeded", "200 nested lists", "flax_model.msgpack", [] {
      std::string nested;
      for (int i = 0; i < 200; ++i) nested += mp::Array(1);
      return Map(1) + Str("a") + nested + mp::kNil;
    });
    pickle_case("msgpack-duplicate-key", "key w twice", "flax_model.msgpack", [w] { return Map(2) + w + w; });
    pickle_case("msgpack-ext-type", "a timestamp (ext -1)", "flax_model.msgpack",
                [] { return Map(1) + Str("t") + mp::Ext(-1, std::string(4, '\0')); });
    pickle_case("msgpack-invalid", "an int map key", "flax_model.msgpack",
                [w] { return Map(2) + w + mp::Uint(1) + mp::kNil; });
    pickle_case("msgpack-trailing-data", "junk after the map", "flax_model.msgpack",
                [w] { return Map(1) + w + "junk"; });
  }

  // NeMo archives (formats.md section 9): a tar as SaveRestoreConnector writes it (arcname ".").
  {
    const std::string ckpt = BuildZip(TorchZipEntries(OneTensorPickle(), {{"0", OneTensorRecord()}}));
    const auto nemo = [ckpt](const std::string& config) {
      return BuildTar(TarOfFiles({{"model_config.yaml", config}, {"model_weights.ckpt", ckpt}}, "./"));
    };
    pickle_case("nemo-config-invalid", "an alias", "model.nemo",
                [nemo] { return nemo("base: &b {n: 1}\nencoder: *b\n"); });
    pickle_case("nemo-target-unsafe", "os.system", "model.nemo", [nemo] {
      return nemo("target: nemo.collections.asr.models.EncDecCTCModel\nx:\n  _target_: os.system\n");
    });
    pickle_case("nemo-weights-missing", "no model_weights.ckpt", "model.nemo", [] {
      return BuildTar(
          TarOfFiles({{"model_config.yaml", "target: nemo.collections.asr.models.EncDecCTCModel\n"}}, "./"));
    });
  }

  // ONNX models (formats.md section 7), written field by field.
  {
    using ox::Model, ox::Graph, ox::Node;
    const std::string w = ox::FloatInitializer("w", 2, std::string(8, '\0'));
    pickle_case("onnx-budget-exceeded", "10^6 + 1 nodes", "model.onnx", [] {
      static const std::string many = [] {
        std::string nodes;
        for (int i = 0; i < 1'000'001; ++i) nodes += std::string("\x0a\x00", 2);
        return Model(Graph(nodes));
      }();
      return many;
    });
    pickle_case("onnx-custom-domain", "com.example imported", "model.onnx",
                [w] { return Model(ox::Opset("", 17) + ox::Opset("com.example", 1) + Graph(w)); });
    pickle_case("onnx-external-data-escape", "absolute location", "model.onnx",
                [] { return Model(Graph(ox::ExternalInitializer("w", 2, "/etc/passwd"))); });
    pickle_case("onnx-external-data-unread", "data beside the model", "model.onnx",
                [] { return Model(Graph(ox::ExternalInitializer("w", 2, "weights.bin"))); });
    pickle_case("onnx-invalid", "no graph", "model.onnx", [] { return Model(ox::Bytes(2, "exporter")); });
    pickle_case("onnx-python-op", "ai.onnx.contrib PyOp", "model.onnx",
                [w] { return Model(ox::Opset("", 17) + Graph(w + Node("PyOp", "ai.onnx.contrib", "w", "y"))); });
    pickle_case("onnx-tensor-invalid", "raw_data 4 bytes short", "model.onnx",
                [] { return Model(Graph(ox::FloatInitializer("w", 2, std::string(4, '\0')))); });
    pickle_case("onnx-unknown-field", "field 99 after the graph", "model.onnx",
                [w] { return Model(Graph(w) + ox::Int(99, 1)); });
  }

  // Keras (formats.md section 5): .keras zips as saving_lib writes them, config.json walked.
  {
    using h5b::KerasArchive, h5b::KerasSequentialConfig;
    const auto keras_case = [&pickle_case](std::string rule, std::string variant, const std::string& layer) {
      pickle_case(std::move(rule), std::move(variant), "model.keras",
                  [layer] { return KerasArchive(KerasSequentialConfig(layer)); });
    };
    keras_case("keras-module-unsafe", "os.system as a function (CVE-2025-1550)",
               R"({"module": "os", "class_name": "function", "config": "system", "registered_name": "function"})");
    keras_case("keras-module-unsafe", "exec as a function of builtins",
               R"({"module": "builtins", "class_name": "function", "config": "exec", "registered_name": "function"})");
    keras_case(
        "keras-function-unsafe", "keras.utils.get_file (CVE-2025-8747)",
        R"({"module": "keras.utils", "class_name": "function", "config": "get_file", "registered_name": "get_file"})");
    keras_case(
        "keras-lambda", "Lambda layer with marshalled bytecode",
        R"({"module": "keras.layers", "class_name": "Lambda", "config": {"name": "lambda", "function": {"class_name": "__lambda__", "config": {"value": ["4wEAAAAAAAAA", null, null]}}}, "registered_name": null})");
    keras_case(
        "keras-code-layer", "TFSMLayer (CVE-2026-1462)",
        R"({"module": "keras.layers", "class_name": "TFSMLayer", "config": {"name": "tfsm", "filepath": "/tmp/saved_model", "call_endpoint": "serve"}, "registered_name": null})");
    keras_case(
        "keras-class-unknown", "an internal helper as a class",
        R"({"module": "keras.src.saving.saving_lib", "class_name": "H5IOStore", "config": {}, "registered_name": null})");
    pickle_case("keras-custom-object", "Keras 2 model.h5 with an unknown layer", "model.h5", [] {
      return h5b::Keras2Model(
          R"({"class_name": "Sequential", "config": {"name": "sequential", "layers": [{"class_name": "MyLayer", "config": {"name": "mine"}}]}})");
    });
    pickle_case("keras-config-invalid", "class_name given twice", "model.keras", [] {
      return KerasArchive(
          R"({"module": "keras", "class_name": "Sequential", "class_name": "Functional", "config": {}})");
    });
    pickle_case("keras-metadata-invalid", "metadata.json not JSON", "model.keras",
                [] { return KerasArchive(KerasSequentialConfig(), {}, false, "keras_version=3.6.0"); });
    pickle_case("keras-member-unexpected", "a pickle beside the model", "model.keras", [] {
      return KerasArchive(KerasSequentialConfig(), {{"payload.pkl", std::string("\x80\x04K\x01.", 5)}});
    });
    keras_case(
        "keras-library-module", "a keras_hub backbone",
        R"({"module": "keras_hub.src.models.gemma.gemma_backbone", "class_name": "GemmaBackbone", "config": {"name": "gemma"}, "registered_name": "keras_hub>GemmaBackbone"})");
  }

  // HDF5 (formats.md section 6): files libhdf5 writes, read by the isolated helper.
  {
    using h5b::FileBuilder;
    FireCase crashed{"hdf5-reader-failed", CI, "the helper dies of SIGSEGV", [] {
                       return Files{{"model.h5", std::string("\x89HDF\r\n\x1a\ncrash", 13)}};
                     }};
    crashed.form = InputForm::kFile;
    crashed.environment = {{"CKPT_H5PROBE", CKPT_H5PROBE_FAKE}};
    c.push_back(std::move(crashed));
    pickle_case("hdf5-invalid", "truncated to half", "model.h5", [] {
      const std::string image = h5b::KerasWeights();
      return image.substr(0, image.size() / 2);
    });
    pickle_case("hdf5-external-link", "a link into /etc/passwd", "model.h5",
                [] { return FileBuilder().Dataset("w", "F32", {2}).ExternalLink("ext", "/etc/passwd", "/x").Image(); });
    pickle_case("hdf5-external-storage", "data in weights.raw", "model.h5",
                [] { return FileBuilder().ExternalStorageDataset("w", "weights.raw").Image(); });
    pickle_case("hdf5-virtual-dataset", "mapped from other.h5", "model.h5",
                [] { return FileBuilder().VirtualDataset("v", "other.h5", "/data").Image(); });
    pickle_case("hdf5-filter-unsupported", "blosc plugin 32001", "model.h5",
                [] { return FileBuilder().FilteredDataset("w", 32001).Image(); });
    pickle_case("hdf5-budget-exceeded", "groups 65 deep", "model.h5", [] {
      std::string path = "g";
      for (int i = 1; i < 65; ++i) path += "/g";
      return FileBuilder().Group(path).Image();
    });
  }

  // ONNX external data inside a model folder (formats.md section 7): resolved against the folder.
  {
    const auto model = [] { return ox::Model(ox::Graph(ox::ExternalInitializer("w", 2, "weights.bin"))); };
    model_case("onnx-external-data-missing", "weights.bin absent", [model] {
      return Files{{"model.onnx", model()}, {"README.md", "# a model\n"}};
    });
    model_case("onnx-external-data-range", "weights.bin 4 bytes short", [model] {
      return Files{{"model.onnx", model()}, {"weights.bin", std::string(4, '\0')}};
    });
  }

  {
    // The first of two shards given alone, the index naming it beside it (the Action's old
    // `paths: models/**/*.safetensors`): which folder to audit is the finding.
    FireCase fc{"input-shard-alone", CI, "a shard given alone beside its index", [] {
                  ModelFolderSpec spec;
                  spec.shards = 2;
                  spec.config = false;
                  return spec.Build();
                }};
    fc.form = InputForm::kFile;
    c.push_back(std::move(fc));
  }

  {
    FireCase fc{"input-hard-link", CI, "a shard hard-linked from outside the folder", [] {
                  ModelFolderSpec spec;
                  spec.shards = 2;
                  return spec.Build();
                }};
    fc.form = InputForm::kFolder;
    fc.entries = {{"model-00002-of-00002.safetensors", EntryKind::kRegular}};
    c.push_back(std::move(fc));
  }

  return c;
}

}  // namespace ckpt::testing
