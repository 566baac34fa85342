#include "tests/support/artifact_builder.h"

#include <cryptopp/sha.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <stdexcept>

namespace ckpt::testing {
namespace {

void U64(CryptoPP::SHA256& h, std::uint64_t n) {
  unsigned char le[8];
  for (int i = 0; i < 8; ++i) le[i] = static_cast<unsigned char>(n >> (8 * i));
  h.Update(le, 8);
}

void Str(CryptoPP::SHA256& h, const std::string& s) {
  U64(h, s.size());
  h.Update(reinterpret_cast<const unsigned char*>(s.data()), s.size());
}

std::string ShardFileName(std::uint32_t index, std::uint32_t count) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "weights-%05u-of-%05u.safetensors", index, count);
  return buf;
}

}  // namespace

std::string SafetensorsDtype(const std::string& d) {
  if (d == "float32") return "F32";
  if (d == "bfloat16") return "BF16";
  if (d == "float16") return "F16";
  throw std::invalid_argument("unknown dtype " + d);
}

std::uint64_t ItemSize(const std::string& d) { return d == "float32" ? 4 : 2; }

std::string F32(std::initializer_list<float> values) {
  std::string out;
  for (float v : values) {
    char b[4];
    std::memcpy(b, &v, 4);
    out.append(b, 4);
  }
  return out;
}

ArtifactSpec ArtifactSpec::Clean() {
  ArtifactSpec spec;
  spec.tensors = {
      {"encoder.blocks.0.bias", "encoder", "float16", {3}, ""},
      {"encoder.blocks.0.weight", "encoder", "float32", {2, 3}, ""},
      {"encoder.n\xC3\xA9t.w", "encoder", "bfloat16", {2, 2}, ""},
      {"predictor.head.scale", "predictor", "bfloat16", {}, ""},
      {"predictor.head.weight", "predictor", "float32", {1, 0}, ""},
      {"predictor.proj.weight", "predictor", "float32", {4, 2}, ""},
  };
  spec.FillData();
  return spec;
}

ArtifactSpec ArtifactSpec::Uniform(std::size_t count, std::uint64_t bytes_each) {
  ArtifactSpec spec;
  for (std::size_t i = 0; i < count; ++i) {
    char name[64];
    std::snprintf(name, sizeof name, "encoder.layer%06zu.weight", i);
    spec.tensors.push_back({name, "encoder", "float32", {bytes_each / 4}, ""});
  }
  spec.FillData();
  return spec;
}

void ArtifactSpec::FillData() {
  for (TensorSpec& t : tensors) {
    if (!t.data.empty()) continue;
    std::uint64_t n = ItemSize(t.dtype);
    for (std::uint64_t d : t.shape) n *= d;
    t.data.resize(static_cast<std::size_t>(n));
    std::uint32_t state = 2166136261u;
    for (char c : t.name) state = (state ^ static_cast<unsigned char>(c)) * 16777619u;
    for (char& byte : t.data) {
      state = state * 1664525u + 1013904223u;
      byte = static_cast<char>(state >> 24);
    }
  }
}

std::string ArtifactSpec::ContentHash() const {
  std::vector<const TensorSpec*> sorted;
  for (const TensorSpec& t : tensors) sorted.push_back(&t);
  std::sort(sorted.begin(), sorted.end(), [](const TensorSpec* a, const TensorSpec* b) { return a->name < b->name; });
  CryptoPP::SHA256 h;
  Str(h, "lensemble.artifact.content.v1");
  U64(h, sorted.size());
  for (const TensorSpec* t : sorted) {
    Str(h, t->name);
    Str(h, t->group);
    Str(h, t->dtype);
    U64(h, t->shape.size());
    for (std::uint64_t d : t->shape) U64(h, d);
    h.Update(reinterpret_cast<const unsigned char*>(t->data.data()), t->data.size());
  }
  Str(h, "lensemble.artifact.structure.v1");
  U64(h, schema_version);
  Str(h, wmcp_version);
  U64(h, round_index);
  Str(h, parent_hash.value_or(""));
  std::vector<std::string> groups = param_groups;
  std::sort(groups.begin(), groups.end());
  U64(h, groups.size());
  for (const std::string& g : groups) Str(h, g);
  unsigned char digest[32];
  h.Final(digest);
  std::string hex;
  for (unsigned char b : digest) {
    char buf[3];
    std::snprintf(buf, sizeof buf, "%02x", b);
    hex += buf;
  }
  return hex;
}

boost::json::object ArtifactSpec::HeaderJson() const {
  boost::json::object h;
  h["schema_version"] = schema_version;
  h["content_hash"] = ContentHash();
  h["parent_hash"] = parent_hash ? boost::json::value(*parent_hash) : boost::json::value(nullptr);
  h["wmcp_version"] = wmcp_version;
  h["round_index"] = round_index;
  h["config_hash"] = config_hash;
  boost::json::array groups;
  for (const std::string& g : param_groups) groups.push_back(boost::json::value(g));
  h["param_groups"] = std::move(groups);
  std::vector<const TensorSpec*> sorted;
  for (const TensorSpec& t : tensors) sorted.push_back(&t);
  std::sort(sorted.begin(), sorted.end(), [](const TensorSpec* a, const TensorSpec* b) { return a->name < b->name; });
  boost::json::array manifest;
  for (const TensorSpec* t : sorted) {
    boost::json::array shape;
    for (std::uint64_t d : t->shape) shape.push_back(d);
    manifest.push_back(
        boost::json::object{{"name", t->name}, {"group", t->group}, {"dtype", t->dtype}, {"shape", shape}});
  }
  h["tensor_manifest"] = std::move(manifest);
  boost::json::array files;
  if (shards == 0) {
    files.push_back("weights.safetensors");
  } else {
    for (std::uint32_t i = 0; i < shards; ++i) files.push_back(boost::json::value(ShardFileName(i, shards)));
  }
  h["weight_files"] = std::move(files);
  h["created_at"] = created_at;
  if (schema_version >= 2) h["hash_algorithm"] = "sha256";
  return h;
}

std::string SafetensorsFile(const std::string& header_json, const std::string& data) {
  std::string out(8, '\0');
  std::uint64_t n = header_json.size();
  for (int i = 0; i < 8; ++i) out[static_cast<std::size_t>(i)] = static_cast<char>(n >> (8 * i));
  return out + header_json + data;
}

namespace {

// A safetensors file's bytes before its data: the length, the header (offsets in `tensors`'
// order), padded with spaces to 8 bytes as canonical writers do.
std::string SafetensorsPrefix(const std::vector<const TensorSpec*>& tensors,
                              const std::vector<std::pair<std::string, std::string>>& metadata) {
  boost::json::object header;
  if (!metadata.empty()) {
    boost::json::object meta;
    for (const auto& [k, v] : metadata) meta[k] = v;
    header["__metadata__"] = std::move(meta);
  }
  std::uint64_t offset = 0;
  for (const TensorSpec* t : tensors) {
    boost::json::array shape;
    for (std::uint64_t d : t->shape) shape.push_back(d);
    header[t->name] = boost::json::object{{"dtype", SafetensorsDtype(t->dtype)},
                                          {"shape", shape},
                                          {"data_offsets", boost::json::array{offset, offset + t->data.size()}}};
    offset += t->data.size();
  }
  std::string text = boost::json::serialize(header);
  text.append((8 - text.size() % 8) % 8, ' ');
  return SafetensorsFile(text, "");
}

// One file of an artifact: its leading bytes, then the bytes of `data`'s tensors in order.
struct PlannedFile {
  std::string name;
  std::string prefix;
  std::vector<const TensorSpec*> data;
};

// The files of `spec` (every tensor's bytes filled) as Build() lays them out.
std::vector<PlannedFile> PlanFiles(const ArtifactSpec& spec) {
  std::vector<PlannedFile> files;
  files.push_back({"header.json", boost::json::serialize(spec.HeaderJson()), {}});
  std::vector<const TensorSpec*> sorted;
  for (const TensorSpec& t : spec.tensors) sorted.push_back(&t);
  std::sort(sorted.begin(), sorted.end(), [](const TensorSpec* a, const TensorSpec* b) { return a->name < b->name; });
  if (spec.shards == 0) {
    files.push_back({"weights.safetensors", SafetensorsPrefix(sorted, spec.metadata), sorted});
    return files;
  }
  boost::json::object map;
  std::uint64_t total = 0;
  for (std::uint32_t s = 0; s < spec.shards; ++s) {
    std::vector<const TensorSpec*> part;
    for (std::size_t i = 0; i < sorted.size(); ++i) {
      if (i * spec.shards / sorted.size() == s) part.push_back(sorted[i]);
    }
    for (const TensorSpec* t : part) {
      map[t->name] = ShardFileName(s, spec.shards);
      total += t->data.size();
    }
    files.push_back({ShardFileName(s, spec.shards), SafetensorsPrefix(part, spec.metadata), part});
  }
  files.push_back(
      {"weights.index.json",
       boost::json::serialize(boost::json::object{{"metadata", {{"total_size", total}}}, {"weight_map", map}}),
       {}});
  return files;
}

}  // namespace

std::string SafetensorsFor(const std::vector<const TensorSpec*>& tensors,
                           const std::vector<std::pair<std::string, std::string>>& metadata) {
  std::string out = SafetensorsPrefix(tensors, metadata);
  for (const TensorSpec* t : tensors) out += t->data;
  return out;
}

SafetensorsParts SplitSafetensors(const std::string& file) {
  std::uint64_t n = 0;
  for (int i = 0; i < 8; ++i)
    n |= static_cast<std::uint64_t>(static_cast<unsigned char>(file[static_cast<std::size_t>(i)])) << (8 * i);
  return {file.substr(8, static_cast<std::size_t>(n)), file.substr(8 + static_cast<std::size_t>(n))};
}

Files ArtifactSpec::Build() const {
  std::optional<ArtifactSpec> filled;
  if (std::any_of(tensors.begin(), tensors.end(), [](const TensorSpec& t) { return t.data.empty(); })) {
    filled = *this;
    filled->FillData();
  }
  Files files;
  for (PlannedFile& f : PlanFiles(filled ? *filled : *this)) {
    std::string& bytes = files[f.name];
    std::size_t size = f.prefix.size();
    for (const TensorSpec* t : f.data) size += t->data.size();
    bytes.reserve(size);
    bytes = std::move(f.prefix);
    for (const TensorSpec* t : f.data) bytes += t->data;
  }
  return files;
}

void ArtifactSpec::Write(const std::filesystem::path& dir) const {
  std::optional<ArtifactSpec> filled;
  if (std::any_of(tensors.begin(), tensors.end(), [](const TensorSpec& t) { return t.data.empty(); })) {
    filled = *this;
    filled->FillData();
  }
  std::filesystem::create_directories(dir);
  for (const PlannedFile& f : PlanFiles(filled ? *filled : *this)) {
    std::ofstream out(dir / f.name, std::ios::binary | std::ios::trunc);
    out.write(f.prefix.data(), static_cast<std::streamsize>(f.prefix.size()));
    for (const TensorSpec* t : f.data) out.write(t->data.data(), static_cast<std::streamsize>(t->data.size()));
    if (!out) throw std::runtime_error("cannot write " + (dir / f.name).string());
  }
}

void WriteFiles(const Files& files, const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  for (const auto& [name, bytes] : files) {
    std::filesystem::create_directories((dir / name).parent_path());
    if (bytes.starts_with(kSymlinkMarker)) {
      std::filesystem::create_symlink(bytes.substr(kSymlinkMarker.size()), dir / name);
      continue;
    }
    std::ofstream out(dir / name, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) throw std::runtime_error("cannot write " + (dir / name).string());
  }
}

Files ReadFiles(const std::filesystem::path& dir) {
  Files files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    std::ifstream in(entry.path(), std::ios::binary);
    files[entry.path().filename().string()].assign(std::istreambuf_iterator<char>(in),
                                                   std::istreambuf_iterator<char>());
  }
  return files;
}

TempDir::TempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "ckpt-test-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

}  // namespace ckpt::testing
