#include "tests/support/near_misses.h"

#include <boost/json.hpp>

#include "tests/support/fire_cases.h"
#include "tests/support/gguf_builder.h"
#include "tests/support/hdf5_builder.h"
#include "tests/support/model_folder_builder.h"
#include "tests/support/msgpack_builder.h"
#include "tests/support/onnx_builder.h"
#include "tests/support/pickle_builder.h"
#include "tests/support/tar_builder.h"

namespace ckpt::testing {
namespace {

std::string LengthPrefix(std::uint64_t n) {
  std::string out(8, '\0');
  for (std::size_t i = 0; i < 8; ++i) out[i] = static_cast<char>((n >> (8 * i)) & 0xFF);
  return out;
}

// Clean() with one weight file replaced by a raw safetensors header and data.
Files CleanWithRawWeights(const std::string& header, const std::string& data) {
  Files f = Clean();
  f["weights.safetensors"] = SafetensorsFile(header, data);
  return f;
}

// The clean weight file rewritten with its header text changed by `edit` (same data).
template <class Edit>
Files CleanWeightsHeader(Edit edit) {
  Files f = Clean();
  SafetensorsParts parts = SplitSafetensors(f.at("weights.safetensors"));
  edit(parts.header);
  f["weights.safetensors"] = SafetensorsFile(parts.header, parts.data);
  return f;
}

Files WithStray(const std::string& name, const std::string& bytes) {
  Files f = Clean();
  f[name] = bytes;
  return f;
}

Files Round1() {
  return FromSpec([](ArtifactSpec& s) {
    s.round_index = 1;
    s.parent_hash = std::string(64, 'a');
  });
}

}  // namespace

std::vector<NearMiss> AllNearMisses() {
  std::vector<NearMiss> n;
  auto add = [&](std::string rule, std::string variant, std::function<Files()> make, bool clean = true,
                 AuditOptions policy = {}) {
    n.push_back({std::move(rule), std::move(variant), std::move(make), clean, std::move(policy)});
  };

  // hash
  add("hash-mismatch", "other bytes, hash rewritten to match",
      [] { return FromSpec([](ArtifactSpec& s) { s.tensors[1].data[0] ^= 1; }); });
  add(
      "hash-not-verified", "tampered, but hashed",
      [] {
        Files f = Clean();
        f["weights.safetensors"].back() ^= 1;
        return f;
      },
      false);
  {
    AuditOptions pinned;
    pinned.expected_hash = ArtifactSpec::Clean().ContentHash();
    add("hash-unexpected", "--expect-hash of the right hash", Clean, true, pinned);
  }

  // header
  add("header-created-at-invalid", "fraction and +00:00",
      [] { return FromSpec([](ArtifactSpec& s) { s.created_at = "2026-06-02T23:59:60.123456+00:00"; }); });
  add("header-created-at-invalid", "lower-case z",
      [] { return FromSpec([](ArtifactSpec& s) { s.created_at = "2026-06-02t00:00:00z"; }); });
  add("header-dtype-invalid", "every allowed dtype", Clean);
  add("header-duplicate-key", "the same keys in sibling objects", Clean);
  add("header-field-type", "round 1 with a parent hash", Round1);
  add("header-hash-algorithm-unsupported", "schema 2 with sha256",
      [] { return FromSpec([](ArtifactSpec& s) { s.schema_version = 2; }); });
  add("header-hash-format", "a 64-digit lower-case parent hash", Round1);
  add("header-json-syntax", "CRLF, tabs and escaped strings", [] {
    Files f = Clean();
    std::string& h = f["header.json"];
    h = "\r\n\t" + h + "\r\n\t ";
    const std::size_t at = h.find("wmcp-1.0");
    h.replace(at, 8, "wmcp\\u002d1.0");  // the same string, escaped
    return f;
  });
  add(
      "header-json-too-deep", "126 levels under an extra key",
      [] {
        Files f = Clean();
        std::string& h = f["header.json"];
        h.insert(h.rfind('}'), ",\"x\":" + std::string(126, '[') + std::string(126, ']'));
        return f;
      },
      false);
  add("header-manifest-empty", "one scalar tensor", [] {
    return FromSpec([](ArtifactSpec& s) { s.tensors = {{"encoder.s", "encoder", "float32", {}, ""}}; });
  });
  add("header-manifest-entry-keys", "keys in another order", [] {
    Files f = Clean();
    EditHeader(f, [](boost::json::object& h) {
      for (auto& item : h["tensor_manifest"].as_array()) {
        boost::json::object& e = item.as_object();
        boost::json::object reordered{
            {"shape", e["shape"]}, {"dtype", e["dtype"]}, {"group", e["group"]}, {"name", e["name"]}};
        e = std::move(reordered);
      }
    });
    return f;
  });
  add("header-manifest-order", "byte order: upper case and ASCII before non-ASCII", [] {
    return FromSpec([](ArtifactSpec& s) {
      s.tensors = {{"encoder.Zeta", "encoder", "float32", {1}, ""},
                   {"encoder.alpha", "encoder", "float32", {1}, ""},
                   {"encoder.\xC3\xA9", "encoder", "float32", {1}, ""}};
    });
  });
  add("header-missing-field", "schema 1 has no hash_algorithm", Clean);
  add("header-not-object", "an object with every field", Clean);
  add("header-not-utf8", "a four-byte character in wmcp_version",
      [] { return FromSpec([](ArtifactSpec& s) { s.wmcp_version = "wmcp-\xF0\x9F\x98\x80"; }); });
  add("header-param-groups-invalid", "the groups in another order", [] {
    return FromSpec([](ArtifactSpec& s) { s.param_groups = {"predictor", "encoder"}; });
  });
  add("header-parent-round-mismatch", "round 1 with a parent", Round1);
  add("header-schema-version-invalid", "schema 2",
      [] { return FromSpec([](ArtifactSpec& s) { s.schema_version = 2; }); });
  add("header-schema-version-missing", "present", Clean);
  add("header-schema-version-too-new", "the reader's maximum, 2",
      [] { return FromSpec([](ArtifactSpec& s) { s.schema_version = 2; }); });
  add("header-tensor-group-prefix", "the group name again later in the name", [] {
    return FromSpec([](ArtifactSpec& s) {
      s.tensors.push_back({"predictor.encoder.w", "predictor", "float32", {1}, ""});
    });
  });
  add("header-tensor-group-undeclared", "a declared group with no tensors", [] {
    return FromSpec([](ArtifactSpec& s) { s.tensors = {{"encoder.w", "encoder", "float32", {2}, ""}}; });
  });
  add("header-tensor-name-invalid", "spaces and non-ASCII, no control character", [] {
    return FromSpec([](ArtifactSpec& s) {
      s.tensors.push_back({"encoder.a b \xE2\x9C\x93", "encoder", "float32", {1}, ""});
    });
  });
  add(
      "header-tensor-size-overflow", "2^58 float32 elements: 2^60 bytes",
      [] {
        Files f = Clean();
        EditHeader(f, [](boost::json::object& h) {
          h["tensor_manifest"].as_array()[1].as_object()["shape"] = boost::json::array{std::uint64_t{1} << 58};
        });
        return f;
      },
      false);
  add("header-too-large", "exactly 100,000,000 bytes", [] {
    Files f = Clean();
    std::string& h = f["header.json"];
    h.append(100'000'000 - h.size(), ' ');
    return f;
  });
  add("header-unknown-field", "hash_algorithm in schema 2",
      [] { return FromSpec([](ArtifactSpec& s) { s.schema_version = 2; }); });
  add("header-weight-files-invalid", "shards in order", Sharded);
  add("header-wmcp-version-empty", "a single space",
      [] { return FromSpec([](ArtifactSpec& s) { s.wmcp_version = " "; }); });

  // index
  add("index-duplicate-key", "many tensors mapped to one shard", Sharded);
  add("index-files-mismatch", "every shard mapped", Sharded);
  add("index-json-invalid", "escaped tensor names", [] {
    Files f = Sharded();
    std::string& index = f["weights.index.json"];
    const std::size_t at = index.find("n\xC3\xA9t");
    index.replace(at, 4, "n\\u00e9t");
    return f;
  });
  add("index-json-too-deep", "126 levels of free metadata", [] {
    Files f = Sharded();
    std::string& index = f["weights.index.json"];
    index.insert(index.find("\"metadata\":{") + 12, "\"free\":" + std::string(125, '[') + std::string(125, ']') + ",");
    return f;
  });
  add("index-structure", "extra metadata keys", [] {
    Files f = Sharded();
    std::string& index = f["weights.index.json"];
    index.insert(index.find("\"metadata\":{") + 12, "\"format\":\"pt\",");
    return f;
  });
  add("index-tensor-unmapped", "every tensor mapped", Sharded);
  add("index-too-large", "an ordinary index", Sharded);
  add("index-total-size", "an empty tensor counts 0 bytes", Sharded);
  add("index-wrong-shard", "every mapping right", Sharded);

  // layout
  add("layout-file-changed", "nothing changes", Clean);
  add("layout-header-missing", "present", Clean);
  add("layout-index-missing", "sharded with its index", Sharded);
  add("layout-mixed", "sharded only", Sharded);
  add("layout-no-weights", "one weight file", Clean);
  add("layout-shard-numbering", "two shards, the fewest allowed",
      [] { return FromSpec([](ArtifactSpec& s) { s.shards = 2; }); });
  add("layout-stray-entry", "exactly the layout's files", Sharded);
  add("layout-symlink", "no link", Clean);

  // manifest
  add("manifest-dtype-mismatch", "each dtype stored as declared", Clean);
  add("manifest-shape-mismatch", "a scalar and an empty tensor", Clean);
  add("manifest-tensor-missing", "every tensor stored", Clean);
  add("manifest-tensor-unlisted", "every stored tensor listed", Sharded);

  // path
  add("path-escape", "shard names with dots but no '..'",
      [] { return FromSpec([](ArtifactSpec& s) { s.shards = 2; }); });

  // residency
  add("residency-action-head", "look-alike words that are not action heads", [] {
    return FromSpec([](ArtifactSpec& s) {
      s.tensors.push_back({"encoder.action_header.w", "encoder", "float32", {1}, ""});
      s.tensors.push_back({"encoder.transaction_head.w", "encoder", "float32", {1}, ""});
    });
  });
  add("residency-group-not-shared", "only shared groups", Clean);
  {
    AuditOptions widened;
    widened.extra_allowed_groups = {"gripper"};
    add("residency-policy-widened", "--allow-group of a group the artifact does not use", Clean, true, widened);
  }

  // safetensors
  add("safetensors-buffer-size", "an empty tensor at the end of the buffer", Clean);
  add("safetensors-dtype-not-allowed", "F32, BF16 and F16", Clean);
  add("safetensors-dtype-unknown", "known dtypes", Clean);
  add("safetensors-duplicate-tensor", "names that differ only in case", [] {
    return FromSpec([](ArtifactSpec& s) {
      s.tensors.push_back({"encoder.A", "encoder", "float32", {1}, ""});
      s.tensors.push_back({"encoder.a", "encoder", "float32", {1}, ""});
    });
  });
  add("safetensors-header-json", "escaped names in the header",
      [] { return CleanWeightsHeader([](std::string& h) { h.replace(h.find("n\xC3\xA9t"), 4, "n\\u00e9t"); }); });
  add("safetensors-header-not-utf8", "non-ASCII names", Clean);
  add("safetensors-header-past-end", "the header ends exactly at the end of the file", [] {
    return FromSpec([](ArtifactSpec& s) { s.tensors = {{"encoder.e", "encoder", "float32", {0}, ""}}; });
  });
  add("safetensors-header-too-deep", "the usual three levels", Clean);
  add("safetensors-header-too-large", "a megabyte of canonical padding",
      [] { return CleanWeightsHeader([](std::string& h) { h.append(1'000'000, ' '); }); });
  add(
      "safetensors-header-too-small", "the smallest header, {}",
      [] {
        Files f = Clean();
        f["weights.safetensors"] = LengthPrefix(2) + "{}";
        return f;
      },
      false);
  add("safetensors-metadata-duplicate-key", "keys that differ only in case", [] {
    return FromSpec([](ArtifactSpec& s) { s.metadata = {{"Format", "pt"}, {"format", "pt"}}; });
  });
  add("safetensors-metadata-invalid", "an empty metadata map",
      [] { return FromSpec([](ArtifactSpec& s) { s.metadata.clear(); }); });
  add("safetensors-noncanonical-whitespace", "trailing spaces only",
      [] { return CleanWeightsHeader([](std::string& h) { h.append(7, ' '); }); });
  add("safetensors-offsets-not-contiguous", "data in another order than the names", [] {
    ArtifactSpec spec = ArtifactSpec::Clean();
    Files f = spec.Build();
    std::vector<const TensorSpec*> reversed;
    for (auto it = spec.tensors.rbegin(); it != spec.tensors.rend(); ++it) reversed.push_back(&*it);
    f["weights.safetensors"] = SafetensorsFor(reversed, spec.metadata);
    return f;
  });
  add(
      "safetensors-size-misaligned", "F4 with a whole number of bytes",
      [] {
        return CleanWithRawWeights(R"({"encoder.q":{"dtype":"F4","shape":[2],"data_offsets":[0,1]}})",
                                   std::string(1, '\0'));
      },
      false);
  add("safetensors-size-mismatch", "sizes that match", Clean);
  add(
      "safetensors-size-overflow", "2^58 F32 elements: 2^63 bits",
      [] {
        return CleanWithRawWeights(
            R"({"encoder.big":{"dtype":"F32","shape":[288230376151711744],"data_offsets":[0,1152921504606846976]}})",
            "");
      },
      false);
  add("safetensors-tensor-entry-invalid", "entry keys in another order", [] {
    return CleanWeightsHeader([](std::string& h) {
      boost::json::object header = boost::json::parse(h).as_object();
      boost::json::object out;
      for (auto& [key, value] : header) {
        if (key == "__metadata__") {
          out[key] = value;
          continue;
        }
        boost::json::object& e = value.as_object();
        out[key] =
            boost::json::object{{"data_offsets", e["data_offsets"]}, {"shape", e["shape"]}, {"dtype", e["dtype"]}};
      }
      h = boost::json::serialize(out);
    });
  });
  add("safetensors-tensor-name-invalid", "spaces and non-ASCII, no control character", [] {
    return FromSpec([](ArtifactSpec& s) {
      s.tensors.push_back({"encoder.a b \xE2\x9C\x93", "encoder", "float32", {1}, ""});
    });
  });

  // weights
  add(
      "weights-file-empty", "an empty stray file is a stray entry, not empty weights",
      [] { return WithStray("notes.txt", ""); }, false);
  add("weights-files-mismatch", "every listed file present", Sharded);
  add(
      "weights-format-gguf", "a GGUF file beside the weights", [] { return WithStray("model.gguf", "GGUF\x03"); },
      false);
  add(
      "weights-format-git-lfs-pointer", "an LFS pointer beside the weights",
      [] { return WithStray("big.bin", "version https://git-lfs.github.com/spec/v1\n"); }, false);
  add(
      "weights-format-html", "an HTML page beside the weights", [] { return WithStray("index.html", "<html></html>"); },
      false);
  add(
      "weights-format-numpy", "a .npy file beside the weights", [] { return WithStray("a.npy", "\x93NUMPY"); }, false);
  add("weights-format-pickle", "valid safetensors whose length prefix reads as a pickle (N = 640)", [] {
    Files f = Clean();
    SafetensorsParts parts = SplitSafetensors(f.at("weights.safetensors"));
    parts.header.append(640 - parts.header.size(), ' ');  // N = 640 = 0x0280: the file starts 80 02
    f["weights.safetensors"] = SafetensorsFile(parts.header, parts.data);
    return f;
  });
  add(
      "weights-format-zip", "a zip beside the weights",
      [] { return WithStray("model.zip", std::string("PK\x03\x04", 4)); }, false);
  add("weights-metadata-content-hash", "metadata naming the right hash", [] {
    ArtifactSpec spec = ArtifactSpec::Clean();
    spec.metadata.push_back({"content_hash", spec.ContentHash()});
    return spec.Build();
  });
  add("weights-metadata-schema-version", "metadata naming the schema as written", [] {
    return FromSpec([](ArtifactSpec& s) { s.metadata.push_back({"schema_version", "1"}); });
  });
  add("weights-tensor-in-two-files", "each tensor in one shard", Sharded);
  // tar artifacts and input recognition: each a clean input
  auto tar_near = [&](std::string rule, std::string variant, const std::function<void(TarSpec&)>& edit,
                      const std::string& prefix = "") {
    NearMiss m{std::move(rule), std::move(variant), [edit, prefix] {
                 TarSpec spec = TarOfFiles(Clean(), prefix);
                 edit(spec);
                 return Files{{"round.tar", BuildTar(spec)}};
               }};
    m.form = InputForm::kFile;
    n.push_back(std::move(m));
  };
  tar_near("tar-checksum-invalid", "old Sun tar's signed checksum", [](TarSpec& t) {
    t.members[0].uname = "us\xC3\xA9r";
    t.members[0].signed_checksum = true;
  });
  tar_near("tar-header-invalid", "space-padded octal size", [](TarSpec& t) {
    std::string digits = std::to_string(0);
    std::uint64_t size = t.members[1].data.size();
    std::string octal;
    do {
      octal.insert(octal.begin(), static_cast<char>('0' + (size & 7)));
      size >>= 3;
    } while (size);
    t.members[1].raw_size_field = std::string(11 - octal.size(), ' ') + octal + " ";
  });
  tar_near("tar-member-past-end", "base-256 size that fits", [](TarSpec& t) {
    std::string field(12, '\0');
    field[0] = static_cast<char>(0x80);
    std::uint64_t size = t.members.back().data.size();
    for (int i = 11; i >= 4; --i, size >>= 8) field[static_cast<std::size_t>(i)] = static_cast<char>(size & 0xFF);
    t.members.back().raw_size_field = field;
  });
  tar_near("tar-end-marker-missing", "two zero blocks, no record padding", [](TarSpec& t) { t.record = 0; });
  tar_near("tar-data-after-end", "zeros past the record padding",
           [](TarSpec& t) { t.trailing = std::string(3000, '\0'); });
  for (const char* rule : {"tar-symlink-member", "tar-hardlink-member", "tar-device-member", "tar-fifo-member",
                           "tar-sparse-member", "tar-member-type-unsupported"}) {
    tar_near(
        rule, "GNU tar -C dir . (a './' directory member)", [](TarSpec&) {}, "./");
  }
  tar_near("tar-global-header", "global comment and mtime", [](TarSpec& t) {
    t.global_records = {{"comment", "round 3"}, {"mtime", "1767225600"}};
  });
  tar_near("tar-extension-repeated", "pax path and GNU long name agree", [](TarSpec& t) {
    t.members[1].pax_path = true;
    t.members[1].gnu_long_name = true;
  });
  tar_near("tar-name-conflict", "long top folder: ustar name is the first 100 bytes", [](TarSpec& t) {
    const std::string top = std::string(120, 'r') + "/";
    for (TarMemberSpec& m : t.members) {
      m.name = top + m.name;
      m.pax_path = true;
    }
  });
  tar_near("tar-name-conflict", "non-ASCII top folder: ustar name with '?' (Python tarfile)", [](TarSpec& t) {
    const std::string top = "r\xC3\xB6und/";
    for (TarMemberSpec& m : t.members) {
      m.name = top + m.name;
      m.pax_path = true;
      m.ustar_name = "r?und/" + m.name.substr(top.size());
    }
  });
  tar_near("tar-name-conflict", "GNU headers, NUL prefix fields, a GNU long name", [](TarSpec& t) {
    t.gnu_magic = true;
    t.members[1].gnu_long_name = true;
  });
  tar_near("tar-size-conflict", "a GNU long name after a pax size (the size is the member's)", [](TarSpec& t) {
    t.members[1].gnu_long_name = true;
    t.members[1].pax_records = {{"size", std::to_string(t.members[1].data.size())}};
  });
  tar_near("tar-size-conflict", "pax size with a zero header size", [](TarSpec& t) {
    t.members[1].pax_records = {{"size", std::to_string(t.members[1].data.size())}};
    t.members[1].header_size = 0;
  });
  tar_near(
      "tar-duplicate-member", "top folder and its directory member", [](TarSpec&) {}, "round-0003/");
  tar_near(
      "tar-path-escape", "dots inside a name", [](TarSpec&) {}, "round..0003/");
  tar_near(
      "tar-member-layout", "./ top folder", [](TarSpec&) {}, "./round-0003/");
  tar_near(
      "input-compressed", "a tar whose first bytes spell a bzip2 magic", [](TarSpec&) {}, "BZh9-round/");
  {
    NearMiss m{"input-unrecognised", "safetensors named model.bin", [] {
                 return Files{{"model.bin", Clean().at("weights.safetensors")}};
               }};
    m.form = InputForm::kFile;
    n.push_back(std::move(m));
  }

  // model folders: each a clean folder
  auto model_near = [&](std::string rule, std::string variant, const std::function<Files()>& make,
                        const std::string& input = "model") {
    NearMiss m{std::move(rule), std::move(variant), make};
    m.form = InputForm::kFolder;
    m.input_name = input;
    n.push_back(std::move(m));
  };
  auto sharded = [](std::size_t shards) {
    ModelFolderSpec spec;
    spec.shards = shards;
    return spec.Build();
  };
  model_near("input-no-weights", "configuration beside one safetensors file", [] {
    return Files{{"config.json", R"({"model_type": "bert"})"},
                 {"model.safetensors",
                  SafetensorsFile(R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", std::string(4, '\0'))}};
  });
  model_near("model-index-invalid", "metadata without total_size", [&] {
    Files f = sharded(2);
    boost::json::value index = boost::json::parse(f.at("model.safetensors.index.json"));
    index.as_object()["metadata"] = {{"format", "pt"}};
    f["model.safetensors.index.json"] = boost::json::serialize(index);
    return f;
  });
  model_near("model-index-unknown-key", "extra keys inside metadata", [&] {
    Files f = sharded(2);
    boost::json::value index = boost::json::parse(f.at("model.safetensors.index.json"));
    index.as_object()["metadata"].as_object()["mergekit_version"] = "0.1";
    f["model.safetensors.index.json"] = boost::json::serialize(index);
    return f;
  });
  model_near("model-index-path-escape", "tensor names holding '/' and '..'", [] {
    ModelFolderSpec spec;
    spec.shards = 2;
    spec.tensors[0].name = "encoder/../blocks.0.weight";
    return spec.Build();
  });
  model_near("model-shard-missing", "save_pretrained, 3 shards", [&] { return sharded(3); });
  model_near("model-index-wrong-shard", "save_pretrained, 2 shards", [&] { return sharded(2); });
  model_near("model-tensor-unmapped", "diffusers component with its own index", [] {
    ModelFolderSpec unet;
    unet.shards = 2;
    unet.prefix = "diffusion_pytorch_model";
    Files f = InFolder(unet.Build(), "unet");
    f["model_index.json"] = R"({"_class_name": "TestPipeline", "unet": ["diffusers", "UNet2DModel"]})";
    return f;
  });
  model_near("model-tensor-in-two-shards", "two components with the same tensor names", [] {
    ModelFolderSpec component;
    component.prefix = "diffusion_pytorch_model";
    Files f = InFolder(component.Build(), "unet");
    for (auto& [name, bytes] : InFolder(component.Build(), "vae")) f[name] = bytes;
    return f;
  });
  model_near("model-shard-name", "1-based names, 5 shards", [] {
    ModelFolderSpec spec;
    spec.shards = 5;
    return spec.Build();
  });
  model_near("model-unreferenced-weights", "two stand-alone files, no index", [] {
    Files f = ModelFolderSpec{}.Build();
    f["model.fp16.safetensors"] = f.at("model.safetensors");
    return f;
  });
  model_near("model-total-size", "total_size as transformers writes it", [&] { return sharded(2); });
  model_near(
      "model-symlink", "hub-cache snapshot", [] { return HubCache(ModelFolderSpec{}.Build()); }, kSnapshot);
  model_near(
      "model-path-escape", "cache links from a component folder",
      [] {
        ModelFolderSpec component;
        component.prefix = "diffusion_pytorch_model";
        return HubCache(InFolder(component.Build(), "unet"));
      },
      kSnapshot);
  model_near(
      "model-blob-digest", "intact LFS and git blobs", [] { return HubCache(ModelFolderSpec{}.Build()); }, kSnapshot);
  model_near("model-special-file", "a regular file named pipe", [] {
    Files f = ModelFolderSpec{}.Build();
    f["pipe"] = "not a FIFO";
    return f;
  });
  model_near("model-executable", "binary tokenizer model", [] {
    Files f = ModelFolderSpec{}.Build();
    f["tokenizer.model"] = std::string("\x0a\x0b\x0a\x05<unk>\x15\0\0\0\0\x18\x02", 15);
    return f;
  });
  model_near("model-archive", "JSON named weights.zip", [] {
    Files f = ModelFolderSpec{}.Build();
    f["generation.zip"] = R"({"max_length": 20})";
    return f;
  });
  model_near("model-remote-code", "config.json with architectures only", [] {
    Files f = ModelFolderSpec{}.Build();
    f["config.json"] = R"({"architectures": ["BertModel"], "model_type": "bert"})";
    f["README.md"] = "Load with modeling_bert.py from transformers.";
    return f;
  });
  model_near("model-config-invalid", "config.json with non-ASCII and nesting", [] {
    Files f = ModelFolderSpec{}.Build();
    f["config.json"] = R"({"id2label": {"0": "caf\u00e9", "1": "na\u00efve"}, "nested": [[[1]]]})";
    return f;
  });

  // pickle-based files: as close to firing as each rule allows.
  auto pickle_near = [&n](std::string rule, std::string variant, std::string name,
                          const std::function<std::string()>& make, bool clean = false) {
    NearMiss m{std::move(rule), std::move(variant), [name, make] { return Files{{name, make()}}; }, clean};
    m.form = InputForm::kFile;
    n.push_back(std::move(m));
  };
  using namespace pk;  // NOLINT(google-build-using-namespace): the opcode vocabulary
  // A state dict as torch writes it: _metadata given by BUILD, a Parameter, views of one storage.
  const auto torch_like = [] {
    const std::string pid =
        kMark + Str("storage") + Global("torch", "FloatStorage") + Str("0") + Str("cpu") + Int(6) + kTuple + kBinPersId;
    auto tensor = [&pid](int offset, int size) {
      return Global("torch._utils", "_rebuild_tensor_v2") + kMark + pid + Int(offset) + kMark + Int(size) + kTuple +
             kMark + Int(1) + kTuple + kNewFalse + Global("collections", "OrderedDict") + kEmptyTuple + kReduce +
             kTuple + kReduce;
    };
    const std::string parameter = Global("torch._utils", "_rebuild_parameter") + kMark + tensor(0, 6) + kNewTrue +
                                  Global("collections", "OrderedDict") + kEmptyTuple + kReduce + kTuple + kReduce;
    return Proto(2) + Global("collections", "OrderedDict") + kEmptyTuple + kReduce + kMark + Str("weight") + parameter +
           Str("head") + tensor(2, 4) + Str("tied") + tensor(0, 6) + kSetItems + kEmptyDict + Str("_metadata") +
           Global("collections", "OrderedDict") + kEmptyTuple + kReduce + Str("") + kEmptyDict + Str("version") +
           Int(1) + kSetItem + kSetItem + kSetItem + kBuild + kStop;
  };
  pickle_near("pickle-global-unsafe", "every global torch.save writes", "model.pt", [torch_like] {
    return TorchZip(torch_like(), {{"0", OneTensorRecord()}});
  });
  pickle_near("pickle-call-unsafe", "_codecs.encode(str, 'latin1')", "a.pkl", [] {
    return Proto(2) + Global("_codecs", "encode") + Str("abc") + Str("latin1") + kTuple2 + kReduce + kStop;
  });
  pickle_near("pickle-nested-loader", "pickle.dumps is not a loader", "a.pkl",
              [] { return Proto(2) + Global("pickle", "dumps") + kStop; });
  pickle_near("pickle-scanner-import", "a module named like a scanner", "a.pkl",
              [] { return Proto(2) + Global("fickle", "x") + kStop; });
  pickle_near("pickle-argument-invalid", "OrderedDict of pairs", "a.pkl", [] {
    return Proto(2) + Global("collections", "OrderedDict") + kMark + kMark + Str("a") + Int(1) + kTuple + kTuple +
           kTuple1 + kReduce + kStop;
  });
  pickle_near("pickle-build-unsafe", "_metadata given to a state dict", "model.pt", [torch_like] {
    return TorchZip(torch_like(), {{"0", OneTensorRecord()}});
  });
  pickle_near("pickle-stream-malformed", "memo slot rewritten, stack emptied", "a.pkl",
              [] { return Proto(2) + Int(1) + BinPut(0) + kPop + Str("x") + BinPut(0) + kPop + BinGet(0) + kStop; });
  pickle_near("pickle-extension-code", "EXT1 bytes inside a string", "a.pkl",
              [] { return Proto(2) + Str(std::string("\x82\x07", 2)) + kStop; });
  pickle_near("pickle-budget-exceeded", "100,000 appends", "a.pkl", [] {
    std::string s = Proto(2) + kEmptyList;
    for (int i = 0; i < 100000; ++i) s += Int(1) + kAppend;
    return s + kStop;
  });
  pickle_near("pickle-trailing-data", "a second pickle after STOP", "a.pkl",
              [] { return Proto(2) + kNone + kStop + Proto(4) + kEmptyDict + kStop; });
  pickle_near("pickle-tensor-invalid", "a view ending at the storage's last element", "model.pt", [] {
    return TorchZip(StateDictPickle({{"w", "FloatStorage", "0", 6, 2, {4}, {}}}), {{"0", OneTensorRecord()}});
  });
  pickle_near("pickle-storage-mismatch", "two views of one record", "model.pt", [] {
    return TorchZip(
        StateDictPickle({{"a", "FloatStorage", "0", 6, 0, {3}, {}}, {"b", "FloatStorage", "0", 6, 3, {3}, {}}}),
        {{"0", OneTensorRecord()}});
  });
  pickle_near("pickle-tensor-name", "one tensor under two names (tied)", "model.pt", [torch_like] {
    return TorchZip(torch_like(), {{"0", OneTensorRecord()}});
  });
  pickle_near("pickle-dtype-unsupported", "bfloat16, int64 and bool", "model.pt", [] {
    return TorchZip(StateDictPickle({{"h", "BFloat16Storage", "0", 2, 0, {2}, {}},
                                     {"i", "LongStorage", "1", 1, 0, {}, {}},
                                     {"b", "BoolStorage", "2", 4, 0, {4}, {}}}),
                    {{"0", std::string(4, '\0')}, {"1", std::string(8, '\0')}, {"2", std::string(4, '\0')}});
  });
  pickle_near(
      "pickle-format-note", "safetensors file", "model.safetensors", [] { return Clean().at("weights.safetensors"); },
      true);
  pickle_near("zip-structure", "data descriptors as torch 1.x writes them", "model.pt", [] {
    auto entries = TorchZipEntries(OneTensorPickle(), {{"0", OneTensorRecord()}});
    for (ZipEntry& e : entries) e.descriptor = true;
    return BuildZip(entries);
  });
  pickle_near("zip-header-mismatch", "zero local sizes with a data descriptor", "model.pt", [] {
    auto entries = TorchZipEntries(OneTensorPickle(), {{"0", OneTensorRecord()}});
    entries[0].descriptor = true;
    return BuildZip(entries);
  });
  pickle_near("zip-crc-mismatch", "every CRC-32 right", "model.pt", [] { return OneTensorZip(); });
  {
    NearMiss m{"input-kind-unexpected", "a safetensors file where safetensors are expected", [] {
                 return Files{
                     {"model.safetensors", SafetensorsFile(R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})",
                                                           std::string(4, '\0'))}};
               }};
    m.form = InputForm::kFile;
    m.policy.expected_kinds = {InputKind::kSafetensors};
    n.push_back(std::move(m));
  }
  pickle_near("zip-ambiguous", "a zip with an archive comment", "model.pt", [] {
    std::string zip = OneTensorZip();
    const std::string comment = "written by a tool that signs its archives";
    zip[zip.size() - 2] = static_cast<char>(comment.size());
    return zip + comment;
  });
  pickle_near("input-polyglot", "tensor bytes holding stray zip signatures", "model.safetensors", [] {
    std::string data(512, '\x33');
    data.replace(100, 4, std::string("PK\x03\x04", 4));
    data.replace(data.size() - 30, 4, std::string("PK\x05\x06", 4));
    return SafetensorsFile(R"({"w":{"dtype":"U8","shape":[512],"data_offsets":[0,512]}})", data);
  });
  pickle_near("pickle-frame-invalid", "one frame ending right after STOP", "a.pkl",
              [] { return Proto(4) + std::string("\x95\x02\0\0\0\0\0\0\0", 9) + kEmptyDict + kStop; });
  pickle_near("zip-member-unexpected", "every record torch 2 writes", "model.pt", [] {
    auto entries = TorchZipEntries(OneTensorPickle(), {{"0", OneTensorRecord()}});
    for (const char* extra : {"archive/.data/version", "archive/.format_version", "archive/.storage_alignment",
                              "archive/.data/serialization_id"}) {
      ZipEntry e;
      e.name = extra;
      e.data = "1";
      entries.push_back(e);
    }
    return BuildZip(entries);
  });
  pickle_near("zip-member-compressed", "stored members", "model.pt", [] { return OneTensorZip(); });
  pickle_near("torch-legacy-layout", "two storages", "model.bin", [] {
    return LegacyCheckpoint(
        StateDictPickle({{"a", "FloatStorage", "k1", 2, 0, {2}, {}}, {"b", "FloatStorage", "k2", 1, 0, {1}, {}}}, true),
        {{"k1", std::string(8, '\0')}, {"k2", std::string(4, '\0')}});
  });
  pickle_near("numpy-header-invalid", "a 0-d array", "a.npy", [] { return Npy("<f4", {}); });
  pickle_near("numpy-object-array", "float64 array", "a.npy", [] { return Npy("<f8", {2}, 8); });
  pickle_near("input-name-mismatch", "pickle named .pkl", "state.pkl", [] { return Proto(2) + kEmptyDict + kStop; });

  // GGUF files: as close to each refusal as a valid file gets.
  auto gguf_near = [&n](std::string rule, std::string variant, const std::function<gg::Spec()>& make) {
    NearMiss m{std::move(rule), std::move(variant), [make] { return Files{{"model.gguf", gg::Build(make())}}; }};
    m.form = InputForm::kFile;
    n.push_back(std::move(m));
  };
  gguf_near("gguf-header-invalid", "version 2", [] {
    gg::Spec s = gg::Several();
    s.version = 2;
    return s;
  });
  gguf_near("gguf-length-invalid", "no tensors, no key/values", [] { return gg::Spec{}; });
  gguf_near("gguf-string-invalid", "UTF-8 values and keys", [] {
    gg::Spec s = gg::Several();
    s.kvs.push_back(gg::Str("general.name", "mod\xc3\xa8le \xe2\x80\x94 \xf0\x9f\xa6\x99"));
    return s;
  });
  gguf_near("gguf-duplicate-key", "keys that differ by case", [] {
    gg::Spec s = gg::Several();
    s.kvs.push_back(gg::Str("General.Architecture", "llama"));
    return s;
  });
  gguf_near("gguf-value-type-invalid", "every scalar type", [] {
    gg::Spec s = gg::Several();
    s.kvs.push_back(gg::U16("a.u16", 7));
    s.kvs.push_back(gg::I32("a.i32", -7));
    s.kvs.push_back(gg::U64("a.u64", 7));
    s.kvs.push_back(gg::Bool("a.bool", 0));
    return s;
  });
  gguf_near("gguf-nested-array", "array of strings", [] { return gg::Several(); });
  gguf_near("gguf-alignment-invalid", "alignment 64", [] {
    gg::Spec s = gg::Several();
    s.alignment = 64;
    return s;
  });
  gguf_near("gguf-tensor-name-invalid", "63-byte name", [] {
    gg::Spec s = gg::Several();
    s.tensors[0].name = std::string(63, 'n');
    return s;
  });
  gguf_near("gguf-duplicate-tensor", "names that differ by one byte", [] {
    gg::Spec s = gg::Several();
    s.tensors[1].name = s.tensors[0].name + "2";
    return s;
  });
  gguf_near("gguf-type-unknown", "MXFP4 and Q2_K", [] {
    gg::Spec s = gg::Several();
    s.tensors.push_back({"mx.weight", {64}, 39, {}, {}});
    s.tensors.push_back({"k.weight", {256}, 10, {}, {}});
    return s;
  });
  gguf_near("gguf-rank-invalid", "rank 4", [] { return gg::Several(); });
  gguf_near("gguf-shape-invalid", "an empty tensor", [] {
    gg::Spec s = gg::Several();
    s.tensors.push_back({"empty.weight", {0, 4}, 0, {}, {}});
    return s;
  });
  gguf_near("gguf-offset-invalid", "offsets at each aligned end", [] { return gg::Several(); });
  gguf_near("gguf-data-past-end", "last tensor ends at the end", [] {
    gg::Spec s = gg::Several();
    s.tensors.back().dims = {8};  // 32 bytes: the file ends right after them
    return s;
  });
  gguf_near("gguf-trailing-data", "zero padding to the alignment", [] { return gg::Several(); });
  gguf_near("gguf-chat-template", "a template with a loop and a filter", [] {
    gg::Spec s = gg::Several();
    s.kvs[3] = gg::Str("tokenizer.chat_template",
                       "{# important: keep the class of each message #}{% for m in messages %}{{ m['content'] | trim "
                       "}}{% endfor %}");
    return s;
  });

  for (const char* rule : {"gguf-split-incomplete", "gguf-split-inconsistent"}) {
    NearMiss m{rule, "a whole 3-part split set", [] {
                 Files f;
                 for (auto& [name, bytes] : gg::SplitSet("model", 3)) f[name] = bytes;
                 return f;
               }};
    m.form = InputForm::kFolder;
    m.input_name = "model";
    m.clean = true;
    n.push_back(std::move(m));
  }

  // NumPy .npz: the same archive with each name once passes whole.
  {
    NearMiss m{"npz-duplicate-member", "w.npy and w2.npy", [] {
                 return Files{{"weights.npz", pk::NpzOf({{"w.npy", pk::Npy("<f4", {2})},
                                                         {"b.npy", pk::Npy("<i8", {1}, 8)},
                                                         {"w2.npy", pk::Npy("<f4", {3})}})}};
               }};
    m.form = InputForm::kFile;
    m.clean = true;
    n.push_back(std::move(m));
  }

  // .npz: numeric members pass, deflated (savez_compressed) as stored; exact sizes; root names.
  pickle_near(
      "npz-object-array", "float members, deflated", "weights.npz",
      [] {
        return ZipOf({{"w.npy", Npy("<f4", {2})}, {"b.npy", Npy("<i8", {3}, 8)}}, /*deflate=*/true);
      },
      true);
  pickle_near(
      "npz-member-size", "exact size", "weights.npz",
      [] {
        return NpzOf({{"w.npy", Npy("<f4", {3})}});
      },
      true);
  pickle_near(
      "npz-member-unexpected", "a root member named like a folder", "weights.npz",
      [] {
        return NpzOf({{"w.npy", Npy("<f4", {2})}, {"sub.b.npy", Npy("<f4", {1})}});
      },
      true);

  // TorchScript and torch.export: a torch.save zip whose archive folder is named "code" is
  // weights; an archive_format that is not "pt2" marks nothing; source text is not an ELF.
  pickle_near("torchscript-code", "torch.save zip under a folder named code", "model.pt", [] {
    return BuildZip(TorchZipEntries(OneTensorPickle(), {{"0", OneTensorRecord()}}, "code"));
  });
  pickle_near("torchscript-export", "archive_format holding pt3", "model.pt", [] {
    auto entries = TorchZipEntries(OneTensorPickle(), {{"0", OneTensorRecord()}});
    ZipEntry marker;
    marker.name = "archive/archive_format";
    marker.data = "pt3";
    entries.push_back(marker);
    return BuildZip(entries);
  });
  pickle_near("torchscript-native-code", "AOTInductor source, no binary", "model.pt2", [] {
    return ZipOf({{"model/archive_format", "pt2"},
                  {"model/models/model.json", "{}"},
                  {"model/data/aotinductor/model/model.cpp", "// not an ELF\n"}});
  });

  // joblib: 0xff padding, a complete zlib stream, 1 MB at a ratio past 2,000 but under
  // 64 MiB, and an estimator's name as data.
  const auto joblib_arrays = [] { return JoblibPickle({{"w", "f4", {2, 3}, std::string(24, '\0'), std::nullopt}}); };
  pickle_near("joblib-array-invalid", "0xff padding", "model.joblib", joblib_arrays);
  pickle_near("joblib-compression-invalid", "complete zlib stream", "model.joblib",
              [joblib_arrays] { return ZlibOf(joblib_arrays()); });
  pickle_near("joblib-decompression-bomb", "1 MB of zeros, bz2", "model.joblib", [] {
    return Bz2Of(JoblibPickle({{"w", "u1", {1'000'000}, std::string(1'000'000, '\0'), std::nullopt}}));
  });
  pickle_near("joblib-estimator", "an estimator's name as a string", "model.joblib", [] {
    return JoblibPickle({{"w", "f4", {1}, std::string(4, '\0'), std::nullopt}},
                        Str("class") + Str("sklearn.linear_model._logistic.LogisticRegression"));
  });

  // Flax msgpack: exact sizes, a chunked array, a 1 MiB key, 128 levels, one key in two maps, a
  // complex (ext 2), UTF-8 text, no byte after the map.
  {
    using mp::Map, mp::Str;
    const std::string w = Str("w") + mp::ZerosF32({3});
    pickle_near(
        "msgpack-array-invalid", "exact sizes and a chunked array", "flax_model.msgpack",
        [w] {
          const std::string chunked = Map(3) + Str("__msgpack_chunked_array__") + mp::kTrue + Str("shape") + Map(2) +
                                      Str("0") + mp::Uint(2) + Str("1") + mp::Uint(3) + Str("chunks") + Map(2) +
                                      Str("0") + mp::ZerosF32({4}) + Str("1") + mp::ZerosF32({2});
          return Map(2) + w + Str("big") + chunked;
        },
        true);
    pickle_near(
        "msgpack-budget-exceeded", "a 1 MiB key", "flax_model.msgpack",
        [] { return Map(1) + Str(std::string(1U << 20U, 'k')) + mp::kNil; }, true);
    pickle_near(
        "msgpack-depth-exceeded", "128 levels", "flax_model.msgpack",
        [] {
          std::string nested;
          for (int i = 0; i < 127; ++i) nested += mp::Array(1);
          return Map(1) + Str("a") + nested + mp::kNil;
        },
        true);
    pickle_near(
        "msgpack-duplicate-key", "one key in two maps", "flax_model.msgpack",
        [w] { return Map(2) + Str("a") + Map(1) + w + Str("b") + Map(1) + w; }, true);
    pickle_near(
        "msgpack-ext-type", "a complex (ext 2)", "flax_model.msgpack",
        [] {
          const std::string one = std::string("\xcb\x3f\xf0", 3) + std::string(6, '\0');
          return Map(1) + Str("z") + mp::Ext(2, mp::Array(2) + one + one);
        },
        true);
    pickle_near(
        "msgpack-invalid", "UTF-8 keys and text", "flax_model.msgpack",
        [w] { return Map(2) + w + Str("na\xc3\xafve") + Str("caf\xc3\xa9"); }, true);
    pickle_near(
        "msgpack-trailing-data", "nothing after the map", "flax_model.msgpack", [w] { return Map(1) + w; }, true);
  }

  // NeMo: plain YAML with quoted '&' and '*' text, allowed targets of every allowed root, the
  // checkpoint under the archive's one top folder.
  {
    const std::string ckpt = BuildZip(TorchZipEntries(OneTensorPickle(), {{"0", OneTensorRecord()}}));
    const auto nemo = [ckpt](const std::string& config, const std::string& prefix) {
      return BuildTar(TarOfFiles({{"model_config.yaml", config}, {"model_weights.ckpt", ckpt}}, prefix));
    };
    pickle_near(
        "nemo-config-invalid", "quoted & and * text", "model.nemo",
        [nemo] { return nemo("name: '&b *b'\nlist: [1, 2]\n", "./"); }, false);
    pickle_near(
        "nemo-target-unsafe", "allowed targets", "model.nemo",
        [nemo] {
          return nemo(
              "target: nemo.collections.asr.models.EncDecCTCModel\nencoder:\n  _target_: "
              "nemo.core.classes.NeuralModule\noptim:\n  _target_: torch.optim.AdamW\n  sched:\n    _target_: "
              "torch.optim.lr_scheduler.StepLR\nlayers:\n  - _target_: torch.nn.Linear\n",
              "./");
        },
        false);
    pickle_near(
        "nemo-weights-missing", "under one top folder", "model.nemo",
        [nemo] { return nemo("sample_rate: 16000\n", "model/"); }, false);
  }

  // ONNX: a thousand nodes, ONNX's own ML domain, a tensor of its own data, a model with a
  // graph, PyOp in the default domain, exact raw_data, a known field after the graph.
  {
    using ox::Model, ox::Graph, ox::Node;
    const std::string w = ox::FloatInitializer("w", 2, std::string(8, '\0'));
    pickle_near(
        "onnx-budget-exceeded", "a thousand nodes", "model.onnx",
        [] {
          std::string nodes;
          for (int i = 0; i < 1000; ++i) nodes += std::string("\x0a\x00", 2);
          return Model(Graph(nodes));
        },
        true);
    pickle_near(
        "onnx-custom-domain", "ai.onnx.ml imported", "model.onnx",
        [w] { return Model(ox::Opset("", 17) + ox::Opset("ai.onnx.ml", 3) + Graph(w)); }, true);
    pickle_near(
        "onnx-external-data-escape", "a location inside the folder", "model.onnx",
        [] { return Model(Graph(ox::ExternalInitializer("w", 2, "data/weights.bin"))); }, false);
    pickle_near(
        "onnx-external-data-unread", "raw_data in the file", "model.onnx", [w] { return Model(Graph(w)); }, true);
    pickle_near(
        "onnx-invalid", "a graph whose node reads an initializer", "model.onnx",
        [w] { return Model(ox::Opset("", 17) + Graph(w + Node("Relu", "", "w", "y"))); }, true);
    pickle_near(
        "onnx-python-op", "PyOp in no custom domain", "model.onnx",
        [w] { return Model(ox::Opset("", 17) + Graph(w + Node("PyOp", "", "w", "y"))); }, true);
    pickle_near(
        "onnx-tensor-invalid", "exact raw_data", "model.onnx", [w] { return Model(Graph(w)); }, true);
    pickle_near(
        "onnx-unknown-field", "doc_string after the graph", "model.onnx",
        [w] { return Model(Graph(w) + ox::Bytes(6, "a doc")); }, true);
  }

  // Keras: the same archives with what Keras itself writes in place of the hostile object.
  {
    using h5b::KerasArchive, h5b::KerasSequentialConfig;
    const auto keras_near = [&pickle_near](std::string rule, std::string variant, const std::string& layer) {
      pickle_near(
          std::move(rule), std::move(variant), "model.keras",
          [layer] { return KerasArchive(KerasSequentialConfig(layer)); }, true);
    };
    keras_near("keras-module-unsafe", "every module in keras", "");
    keras_near(
        "keras-module-unsafe", "relu of builtins (a Keras activation found by name)",
        R"({"module": "keras.layers", "class_name": "Dense", "config": {"name": "d", "units": 1, "activation": {"module": "builtins", "class_name": "function", "config": "relu", "registered_name": "function"}}, "registered_name": null})");
    keras_near(
        "keras-function-unsafe", "gelu of keras.activations",
        R"({"module": "keras.layers", "class_name": "Activation", "config": {"name": "act", "activation": {"module": "keras.activations", "class_name": "function", "config": "gelu", "registered_name": "gelu"}}, "registered_name": null})");
    keras_near(
        "keras-lambda", "a Dense layer named lambda",
        R"({"module": "keras.layers", "class_name": "Dense", "config": {"name": "lambda", "units": 1}, "registered_name": null})");
    keras_near(
        "keras-code-layer", "a Dense layer named TFSMLayer",
        R"({"module": "keras.layers", "class_name": "Dense", "config": {"name": "TFSMLayer", "units": 1}, "registered_name": null})");
    keras_near(
        "keras-class-unknown", "Dense by its defining module",
        R"({"module": "keras.src.layers.core.dense", "class_name": "Dense", "config": {"name": "d2", "units": 1}, "registered_name": null})");
    pickle_near(
        "keras-custom-object", "Keras 2 model.h5 of Keras layers", "model.h5",
        [] {
          return h5b::Keras2Model(
              R"({"class_name": "Sequential", "config": {"name": "sequential", "layers": [{"class_name": "InputLayer", "config": {"batch_input_shape": [null, 3]}}, {"class_name": "Dense", "config": {"name": "dense", "units": 2, "kernel_initializer": {"class_name": "GlorotUniform", "config": {"seed": null}}}}]}})");
        },
        true);
    pickle_near(
        "keras-config-invalid", "a Functional model, keys repeated only across objects", "model.keras",
        [] {
          return KerasArchive(
              R"({"module": "keras.src.models.functional", "class_name": "Functional", "config": {"name": "f", "layers": [{"module": "keras.layers", "class_name": "InputLayer", "config": {"name": "in"}, "registered_name": null}]}, "registered_name": "Functional"})");
        },
        true);
    pickle_near(
        "keras-metadata-invalid", "metadata.json with a field more", "model.keras",
        [] {
          return KerasArchive(KerasSequentialConfig(), {}, false,
                              R"({"keras_version": "3.6.0", "date_saved": "2024-10-01@12:00:00", "note": 1})");
        },
        true);
    pickle_near(
        "keras-member-unexpected", "an asset and stored members", "model.keras",
        [] {
          return KerasArchive(KerasSequentialConfig(), {{"assets/vocab.txt", "a\nb\n"}}, true);
        },
        true);
    keras_near(
        "keras-library-module", "a Dense layer named keras_hub",
        R"({"module": "keras.layers", "class_name": "Dense", "config": {"name": "keras_hub", "units": 1}, "registered_name": null})");
  }

  // HDF5: the closest files libhdf5 writes that the helper reads cleanly.
  {
    using h5b::FileBuilder;
    pickle_near(
        "hdf5-reader-failed", "the real helper on a valid file", "model.h5",
        [] {
          return FileBuilder().Dataset("w", "F32", {2, 3}).Image();
        },
        true);
    pickle_near(
        "hdf5-invalid", "a 512-byte user block", "model.h5",
        [] { return FileBuilder(512).Dataset("w", "I64", {3}).Image(); }, true);
    pickle_near(
        "hdf5-external-link", "a soft link inside the file", "model.h5",
        [] { return FileBuilder().Dataset("w", "F32", {2}).SoftLink("alias", "/w").Image(); }, true);
    pickle_near(
        "hdf5-external-storage", "contiguous data in the file", "model.h5",
        [] { return FileBuilder().Dataset("w", "F64", {4}).Image(); }, true);
    pickle_near(
        "hdf5-virtual-dataset", "a chunked dataset", "model.h5",
        [] { return FileBuilder().FilteredDataset("w", 1).Image(); }, true);
    pickle_near(
        "hdf5-filter-unsupported", "deflate", "model.h5", [] { return FileBuilder().FilteredDataset("w", 1).Image(); },
        true);
    pickle_near(
        "hdf5-budget-exceeded", "groups 64 deep", "model.h5",
        [] {
          std::string path = "g";
          for (int i = 1; i < 64; ++i) path += "/g";
          return FileBuilder().Group(path).Image();
        },
        true);
  }

  // ONNX external data present and sized in the folder.
  {
    const auto folder_near = [&n](std::string rule, std::string variant, const std::string& location,
                                  const std::string& path) {
      NearMiss m{std::move(rule), std::move(variant),
                 [location, path] {
                   return Files{{"model.onnx", ox::Model(ox::Graph(ox::ExternalInitializer("w", 2, location)))},
                                {path, std::string(8, '\0')}};
                 },
                 true};
      m.form = InputForm::kFolder;
      m.input_name = "model";
      n.push_back(std::move(m));
    };
    folder_near("onnx-external-data-missing", "weights.bin beside the model", "weights.bin", "weights.bin");
    folder_near("onnx-external-data-range", "./data/weights.bin of 8 bytes", "./data/weights.bin", "data/weights.bin");
  }

  {
    // The same shard beside an index of another model's shards (a folder holding two models).
    NearMiss miss{"input-shard-alone", "an index beside it that names other files", [] {
                    ModelFolderSpec spec;
                    spec.shards = 2;
                    spec.config = false;
                    Files files = spec.Build();
                    std::string& index = files.at("model.safetensors.index.json");
                    for (std::size_t at = index.find("model-0"); at != std::string::npos;
                         at = index.find("model-0", at)) {
                      index.replace(at, 7, "other-0");
                    }
                    return files;
                  }};
    miss.form = InputForm::kFile;
    n.push_back(std::move(miss));
  }

  {
    // The same folder written as files of its own (the symlinks of a hub cache are judged apart).
    NearMiss miss{"input-hard-link", "the same shards, each file with one link", [] {
                    ModelFolderSpec spec;
                    spec.shards = 2;
                    return spec.Build();
                  }};
    miss.form = InputForm::kFolder;
    n.push_back(std::move(miss));
  }

  return n;
}

}  // namespace ckpt::testing
