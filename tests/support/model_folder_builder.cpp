#include "tests/support/model_folder_builder.h"

#include <boost/json.hpp>
#include <cstdio>

#include "lib/hashing/sha256.h"

namespace ckpt::testing {
namespace {

std::string ShardName(const std::string& prefix, std::size_t i, std::size_t n) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "-%05zu-of-%05zu.safetensors", i, n);
  return prefix + buffer;
}

}  // namespace

Files ModelFolderSpec::Build() const {
  ArtifactSpec filled;
  filled.tensors = tensors;
  filled.FillData();
  Files files;
  const std::size_t n = std::max<std::size_t>(shards, 1);
  boost::json::object weight_map;
  std::uint64_t total = 0;
  for (std::size_t s = 0; s < n; ++s) {
    std::vector<const TensorSpec*> part;
    for (std::size_t i = s * filled.tensors.size() / n; i < (s + 1) * filled.tensors.size() / n; ++i) {
      part.push_back(&filled.tensors[i]);
    }
    const std::string name = n == 1 ? prefix + ".safetensors" : ShardName(prefix, s + 1, n);
    files[name] = SafetensorsFor(part, {{"format", "pt"}});
    for (const TensorSpec* t : part) {
      weight_map[t->name] = name;
      total += t->data.size();
    }
  }
  if (n > 1) {
    boost::json::object index{{"metadata", {{"total_size", total}}}, {"weight_map", std::move(weight_map)}};
    files[prefix + ".safetensors.index.json"] = boost::json::serialize(index);
  }
  if (config) files["config.json"] = R"({"model_type": "test", "hidden_size": 4})";
  return files;
}

Files InFolder(const Files& files, const std::string& folder) {
  Files out;
  for (const auto& [name, bytes] : files) {
    std::string path = folder;
    path += '/';
    path += name;
    out[path] = bytes;
  }
  return out;
}

Files HubCache(const Files& snapshot) {
  Files out;
  for (const auto& [name, bytes] : snapshot) {
    std::string digest;
    if (name.ends_with(".safetensors")) {
      Sha256 hash;
      hash.Update(bytes);
      digest = hash.FinalHex();
    } else {
      Sha1 hash;
      hash.Update("blob " + std::to_string(bytes.size()) + std::string(1, '\0'));
      hash.Update(bytes);
      digest = hash.FinalHex();
    }
    std::string up = "../../";
    for (char c : name) up += c == '/' ? "../" : "";
    out["../../blobs/" + digest] = bytes;
    up += "blobs/";
    up += digest;
    out[name] = SymlinkTo(up);
  }
  return out;
}

std::string BlobOf(const Files& cache, const std::string& name) {
  const std::string& link = cache.at(name);
  const std::string target = link.substr(kSymlinkMarker.size());
  return "../../blobs/" + target.substr(target.rfind('/') + 1);
}

}  // namespace ckpt::testing
