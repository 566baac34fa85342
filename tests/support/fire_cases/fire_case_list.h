// What the fire cases of every rule family share (tests/support/fire_cases/FAMILY.cpp): the
// spec's codes, the inputs they start from and the ways a case is written (an artifact in
// memory, a tar, a model folder, a hub cache, a pickle-based file, a GGUF file or split set).
#pragma once

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

inline const std::string CI = "CHECKPOINT_INTEGRITY";
inline const std::string AI = "ARTIFACT_INVALID";
inline const std::string RV = "RESIDENCY_VIOLATION";
inline const std::string kTouch = "touch /tmp/ckpt-audit-sentinel";  ///< the payloads' command

inline const std::string kShard0 = "weights-00000-of-00003.safetensors";
inline const std::string kShard1 = "weights-00001-of-00003.safetensors";
inline const std::string kShard2 = "weights-00002-of-00003.safetensors";

template <class Edit>
inline Files CleanWithHeader(Edit edit) {
  Files f = Clean();
  EditHeader(f, edit);
  return f;
}

inline Files CleanWithWeights(const std::string& header_json, const std::string& data) {
  Files f = Clean();
  f["weights.safetensors"] = SafetensorsFile(header_json, data);
  return f;
}

template <class Edit>
inline Files ShardedWithIndex(Edit edit) {
  Files f = Sharded();
  boost::json::value index = boost::json::parse(f.at("weights.index.json"));
  edit(index.as_object());
  f["weights.index.json"] = boost::json::serialize(index);
  return f;
}

inline boost::json::object& ManifestEntry(boost::json::object& header, std::size_t i) {
  return header["tensor_manifest"].as_array()[i].as_object();
}

// Replaces the first occurrence of `from` in `text`.
inline std::string Replace(std::string text, const std::string& from, const std::string& to) {
  auto pos = text.find(from);
  if (pos == std::string::npos) throw std::logic_error("fixture text not found: " + from);
  return text.replace(pos, from.size(), to);
}

inline const std::string kF32One = R"("dtype":"F32","shape":[1],"data_offsets":[0,4])";

// The clean artifact as a tar (bare names), changed by `edit`; one file input "round.tar".
inline Files CleanTar(const std::function<void(TarSpec&)>& edit) {
  TarSpec spec = TarOfFiles(Clean());
  edit(spec);
  return {{"round.tar", BuildTar(spec)}};
}

// A base-256 size field (first byte 0x80) holding `value`.
inline std::string Base256(std::uint64_t value) {
  std::string field(12, '\0');
  field[0] = static_cast<char>(0x80);
  for (int i = 11; i >= 4; --i, value >>= 8) field[static_cast<std::size_t>(i)] = static_cast<char>(value & 0xFF);
  return field;
}

// A model folder with `shards` shards, changed by `edit` (files by path in the folder).
inline Files Model(std::size_t shards, const std::function<void(Files&)>& edit) {
  ModelFolderSpec spec;
  spec.shards = shards;
  Files files = spec.Build();
  edit(files);
  return files;
}

// The weight_map of a sharded model's index, edited.
inline void EditIndex(Files& files, const std::function<void(boost::json::object&)>& edit) {
  boost::json::value index = boost::json::parse(files.at("model.safetensors.index.json"));
  edit(index.as_object());
  files["model.safetensors.index.json"] = boost::json::serialize(index);
}

inline const std::string kShardA = "model-00001-of-00002.safetensors";
inline const std::string kShardB = "model-00002-of-00002.safetensors";

/// A case over an artifact in memory.
inline void Add(std::vector<FireCase>& c, std::string rule, std::string code, std::string variant,
                std::function<Files()> make, AuditOptions policy = {}, Entries entries = {}) {
  c.push_back(
      {std::move(rule), std::move(code), std::move(variant), std::move(make), std::move(policy), std::move(entries)});
}

/// The clean artifact with its weights replaced by `bytes`.
inline std::function<Files()> WeightsAs(const std::string& bytes) {
  return [bytes] {
    Files f = Clean();
    f["weights.safetensors"] = bytes;
    return f;
  };
}

/// The clean artifact as a tar (inputs.md section 2), changed by `edit`: a file input.
inline void TarCase(std::vector<FireCase>& c, std::string rule, std::string variant,
                    const std::function<void(TarSpec&)>& edit) {
  FireCase fc{std::move(rule), CI, std::move(variant), [edit] { return CleanTar(edit); }};
  fc.form = InputForm::kFile;
  c.push_back(std::move(fc));
}

/// A model folder (inputs.md section 4) named "model".
inline void ModelCase(std::vector<FireCase>& c, std::string rule, std::string variant,
                      const std::function<Files()>& make) {
  FireCase fc{std::move(rule), CI, std::move(variant), make};
  fc.form = InputForm::kFolder;
  fc.input_name = "model";
  c.push_back(std::move(fc));
}

/// A hub-cache snapshot.
inline void CacheCase(std::vector<FireCase>& c, std::string rule, std::string variant,
                      const std::function<Files()>& make) {
  FireCase fc{std::move(rule), CI, std::move(variant), make};
  fc.form = InputForm::kFolder;
  fc.input_name = kSnapshot;
  c.push_back(std::move(fc));
}

/// A pickle-based file (inputs.md section 6) named `name`, built opcode by opcode.
inline void PickleCase(std::vector<FireCase>& c, std::string rule, std::string variant, std::string name,
                       const std::function<std::string()>& make) {
  FireCase fc{std::move(rule), CI, std::move(variant), [name, make] { return Files{{name, make()}}; }};
  fc.form = InputForm::kFile;
  c.push_back(std::move(fc));
}

/// A GGUF file (inputs.md section 5) written by the test GGUF writer, then `trailing`.
inline void GgufCase(std::vector<FireCase>& c, std::string rule, std::string variant,
                     const std::function<gg::Spec()>& edit, const std::string& trailing = "") {
  FireCase fc{std::move(rule), CI, std::move(variant), [edit, trailing] {
                return Files{{"model.gguf", gg::Build(edit()) + trailing}};
              }};
  fc.form = InputForm::kFile;
  c.push_back(std::move(fc));
}

/// A GGUF split set of three parts in a folder "model", edited.
inline void SplitCase(std::vector<FireCase>& c, std::string rule, std::string variant,
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
}

/// A dict of wrapped arrays as joblib.dump writes it (formats.md section 3).
inline std::string JoblibArrays(std::optional<std::string> padding = std::nullopt) {
  return pk::JoblibPickle({{"w", "f4", {2, 3}, std::string(24, '\0'), std::move(padding)}});
}

void AddLayoutFireCases(std::vector<FireCase>& c);
void AddHeaderFireCases(std::vector<FireCase>& c);
void AddSafetensorsFireCases(std::vector<FireCase>& c);
void AddWeightsFireCases(std::vector<FireCase>& c);
void AddManifestFireCases(std::vector<FireCase>& c);
void AddIndexFireCases(std::vector<FireCase>& c);
void AddPathFireCases(std::vector<FireCase>& c);
void AddResidencyFireCases(std::vector<FireCase>& c);
void AddHashFireCases(std::vector<FireCase>& c);
void AddTarFireCases(std::vector<FireCase>& c);
void AddInputFireCases(std::vector<FireCase>& c);
void AddModelFireCases(std::vector<FireCase>& c);
void AddPickleFireCases(std::vector<FireCase>& c);
void AddZipFireCases(std::vector<FireCase>& c);
void AddTorchFireCases(std::vector<FireCase>& c);
void AddNumpyFireCases(std::vector<FireCase>& c);
void AddGgufFireCases(std::vector<FireCase>& c);
void AddNpzFireCases(std::vector<FireCase>& c);
void AddTorchscriptFireCases(std::vector<FireCase>& c);
void AddJoblibFireCases(std::vector<FireCase>& c);
void AddMsgpackFireCases(std::vector<FireCase>& c);
void AddNemoFireCases(std::vector<FireCase>& c);
void AddOnnxFireCases(std::vector<FireCase>& c);
void AddKerasFireCases(std::vector<FireCase>& c);
void AddHdf5FireCases(std::vector<FireCase>& c);
void AddConfigFireCases(std::vector<FireCase>& c);
void AddTemplateFireCases(std::vector<FireCase>& c);

}  // namespace ckpt::testing
