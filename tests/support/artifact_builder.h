// Generates artifacts for tests from a readable description: tensors with their data,
// header fields, single or sharded layout. Files are produced as bytes (name -> content)
// so a test can mutate exactly one thing, then audit from memory or from a directory.
#pragma once

#include <boost/json.hpp>
#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ckpt::testing {

using Files = std::map<std::string, std::string>;

struct TensorSpec {
  std::string name;
  std::string group;
  std::string dtype;  ///< manifest token: float32, bfloat16, float16
  std::vector<std::uint64_t> shape;
  std::string data;  ///< element bytes; filled deterministically by Build() when empty
};

struct ArtifactSpec {
  std::vector<TensorSpec> tensors;
  std::uint64_t schema_version = 1;
  std::string wmcp_version = "wmcp-1.0";
  std::uint64_t round_index = 0;
  std::optional<std::string> parent_hash;
  std::vector<std::string> param_groups{"encoder", "predictor"};
  std::string config_hash = std::string(64, '0');
  std::string created_at = "2026-06-02T00:00:00Z";
  std::uint32_t shards = 0;  ///< 0: weights.safetensors; N >= 2: N shards plus weights.index.json
  std::vector<std::pair<std::string, std::string>> metadata{{"format", "pt"}};

  /// A small valid artifact: every dtype, a scalar, an empty tensor, a non-ASCII name.
  static ArtifactSpec Clean();
  /// `count` float32 tensors of `bytes_each` bytes (benchmarks and large fixtures).
  static ArtifactSpec Uniform(std::size_t count, std::uint64_t bytes_each);

  /// Fills missing tensor data with a deterministic pattern (byte size from dtype and shape).
  void FillData();
  /// The canonical content hash (artifact-format.md section 5), computed independently
  /// of the library under test.
  [[nodiscard]] std::string ContentHash() const;
  [[nodiscard]] boost::json::object HeaderJson() const;
  /// header.json, weight file(s) and, when sharded, weights.index.json.
  [[nodiscard]] Files Build() const;
  /// Writes Build()'s files to `dir`, each tensor's bytes straight from the spec (a
  /// gigabyte of perf fixture is never assembled in memory).
  void Write(const std::filesystem::path& dir) const;
};

/// Little-endian float32 element bytes, for TensorSpec::data.
std::string F32(std::initializer_list<float> values);

/// Manifest dtype token -> safetensors token ("float32" -> "F32").
std::string SafetensorsDtype(const std::string& manifest_dtype);
std::uint64_t ItemSize(const std::string& manifest_dtype);

/// A safetensors file: 8-byte LE length, the header text, then the data buffer.
std::string SafetensorsFile(const std::string& header_json, const std::string& data);
/// Header JSON and data buffer for `tensors` (data in the given order).
std::string SafetensorsFor(const std::vector<const TensorSpec*>& tensors,
                           const std::vector<std::pair<std::string, std::string>>& metadata);

/// Splits a safetensors file into header text and data buffer (for mutations).
struct SafetensorsParts {
  std::string header;
  std::string data;
};
SafetensorsParts SplitSafetensors(const std::string& file);

/// Parses header.json of `files`, lets `edit` change it, writes it back (compact JSON).
template <class Edit>
void EditHeader(Files& files, Edit edit) {
  boost::json::value header = boost::json::parse(files.at("header.json"));
  edit(header.as_object());
  files["header.json"] = boost::json::serialize(header);
}

/// Writes `files` under `dir`; names may hold sub-folders ("unet/config.json"), and a value
/// starting with kSymlinkMarker is written as a symlink to the rest of the value.
void WriteFiles(const Files& files, const std::filesystem::path& dir);
inline const std::string kSymlinkMarker = std::string("\0symlink:", 9);
inline std::string SymlinkTo(const std::string& target) { return kSymlinkMarker + target; }

/// How a test input reaches the audit: an artifact in memory (MemorySource), one file on
/// disk (a tar, a safetensors file), or a folder on disk (a model folder, a hub cache).
enum class InputForm { kMemory, kFile, kFolder };
/// The regular files directly in `dir`, by name (the inverse of WriteFiles).
Files ReadFiles(const std::filesystem::path& dir);

/// A fresh temporary directory, removed with everything in it on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace ckpt::testing
