// What the near misses of every rule family share (tests/support/near_misses/FAMILY.cpp): the
// inputs they start from and the ways a near miss is written.
#pragma once

#include <boost/json.hpp>

#include "tests/support/fire_cases.h"
#include "tests/support/gguf_builder.h"
#include "tests/support/hdf5_builder.h"
#include "tests/support/model_folder_builder.h"
#include "tests/support/msgpack_builder.h"
#include "tests/support/near_misses.h"
#include "tests/support/onnx_builder.h"
#include "tests/support/pickle_builder.h"
#include "tests/support/tar_builder.h"

namespace ckpt::testing {
inline std::string LengthPrefix(std::uint64_t n) {
  std::string out(8, '\0');
  for (std::size_t i = 0; i < 8; ++i) out[i] = static_cast<char>((n >> (8 * i)) & 0xFF);
  return out;
}

// Clean() with one weight file replaced by a raw safetensors header and data.
inline Files CleanWithRawWeights(const std::string& header, const std::string& data) {
  Files f = Clean();
  f["weights.safetensors"] = SafetensorsFile(header, data);
  return f;
}

// The clean weight file rewritten with its header text changed by `edit` (same data).
template <class Edit>
inline Files CleanWeightsHeader(Edit edit) {
  Files f = Clean();
  SafetensorsParts parts = SplitSafetensors(f.at("weights.safetensors"));
  edit(parts.header);
  f["weights.safetensors"] = SafetensorsFile(parts.header, parts.data);
  return f;
}

inline Files WithStray(const std::string& name, const std::string& bytes) {
  Files f = Clean();
  f[name] = bytes;
  return f;
}

inline Files Round1() {
  return FromSpec([](ArtifactSpec& s) {
    s.round_index = 1;
    s.parent_hash = std::string(64, 'a');
  });
}

/// A near miss over an artifact in memory; `clean`: no rule at all may fire on it.
inline void Add(std::vector<NearMiss>& n, std::string rule, std::string variant, std::function<Files()> make,
                bool clean = true, AuditOptions policy = {}) {
  n.push_back({std::move(rule), std::move(variant), std::move(make), clean, std::move(policy)});
}

/// The clean artifact as a tar (members under `prefix`), changed by `edit`: a file input.
inline void TarNear(std::vector<NearMiss>& n, std::string rule, std::string variant,
                    const std::function<void(TarSpec&)>& edit, const std::string& prefix = "") {
  NearMiss m{std::move(rule), std::move(variant), [edit, prefix] {
               TarSpec spec = TarOfFiles(Clean(), prefix);
               edit(spec);
               return Files{{"round.tar", BuildTar(spec)}};
             }};
  m.form = InputForm::kFile;
  n.push_back(std::move(m));
}

/// A model folder named `input`.
inline void ModelNear(std::vector<NearMiss>& n, std::string rule, std::string variant,
                      const std::function<Files()>& make, const std::string& input = "model") {
  NearMiss m{std::move(rule), std::move(variant), make};
  m.form = InputForm::kFolder;
  m.input_name = input;
  n.push_back(std::move(m));
}

/// A model folder of `shards` shards as save_pretrained writes it.
inline Files ShardedModel(std::size_t shards) {
  ModelFolderSpec spec;
  spec.shards = shards;
  return spec.Build();
}

/// A pickle-based file named `name`.
inline void PickleNear(std::vector<NearMiss>& n, std::string rule, std::string variant, std::string name,
                       const std::function<std::string()>& make, bool clean = false) {
  NearMiss m{std::move(rule), std::move(variant), [name, make] { return Files{{name, make()}}; }, clean};
  m.form = InputForm::kFile;
  n.push_back(std::move(m));
}

/// A GGUF file written by the test GGUF writer.
inline void GgufNear(std::vector<NearMiss>& n, std::string rule, std::string variant,
                     const std::function<gg::Spec()>& make) {
  NearMiss m{std::move(rule), std::move(variant), [make] { return Files{{"model.gguf", gg::Build(make())}}; }};
  m.form = InputForm::kFile;
  n.push_back(std::move(m));
}

/// A state dict as torch writes it: _metadata given by BUILD, a Parameter, views of one storage.
inline std::string TorchLikeStateDict() {
  using namespace pk;  // NOLINT(google-build-using-namespace): the opcode vocabulary
  const std::string pid =
      kMark + Str("storage") + Global("torch", "FloatStorage") + Str("0") + Str("cpu") + Int(6) + kTuple + kBinPersId;
  auto tensor = [&pid](int offset, int size) {
    return Global("torch._utils", "_rebuild_tensor_v2") + kMark + pid + Int(offset) + kMark + Int(size) + kTuple +
           kMark + Int(1) + kTuple + kNewFalse + Global("collections", "OrderedDict") + kEmptyTuple + kReduce + kTuple +
           kReduce;
  };
  const std::string parameter = Global("torch._utils", "_rebuild_parameter") + kMark + tensor(0, 6) + kNewTrue +
                                Global("collections", "OrderedDict") + kEmptyTuple + kReduce + kTuple + kReduce;
  return Proto(2) + Global("collections", "OrderedDict") + kEmptyTuple + kReduce + kMark + Str("weight") + parameter +
         Str("head") + tensor(2, 4) + Str("tied") + tensor(0, 6) + kSetItems + kEmptyDict + Str("_metadata") +
         Global("collections", "OrderedDict") + kEmptyTuple + kReduce + Str("") + kEmptyDict + Str("version") + Int(1) +
         kSetItem + kSetItem + kSetItem + kBuild + kStop;
}

/// A dict of wrapped arrays as joblib.dump writes it.
inline std::string JoblibArraysNear() {
  return pk::JoblibPickle({{"w", "f4", {2, 3}, std::string(24, '\0'), std::nullopt}});
}

void AddHashNearMisses(std::vector<NearMiss>& n);
void AddHeaderNearMisses(std::vector<NearMiss>& n);
void AddIndexNearMisses(std::vector<NearMiss>& n);
void AddLayoutNearMisses(std::vector<NearMiss>& n);
void AddManifestNearMisses(std::vector<NearMiss>& n);
void AddPathNearMisses(std::vector<NearMiss>& n);
void AddResidencyNearMisses(std::vector<NearMiss>& n);
void AddSafetensorsNearMisses(std::vector<NearMiss>& n);
void AddWeightsNearMisses(std::vector<NearMiss>& n);
void AddTarNearMisses(std::vector<NearMiss>& n);
void AddInputNearMisses(std::vector<NearMiss>& n);
void AddModelNearMisses(std::vector<NearMiss>& n);
void AddPickleNearMisses(std::vector<NearMiss>& n);
void AddZipNearMisses(std::vector<NearMiss>& n);
void AddTorchNearMisses(std::vector<NearMiss>& n);
void AddNumpyNearMisses(std::vector<NearMiss>& n);
void AddGgufNearMisses(std::vector<NearMiss>& n);
void AddNpzNearMisses(std::vector<NearMiss>& n);
void AddTorchscriptNearMisses(std::vector<NearMiss>& n);
void AddJoblibNearMisses(std::vector<NearMiss>& n);
void AddMsgpackNearMisses(std::vector<NearMiss>& n);
void AddNemoNearMisses(std::vector<NearMiss>& n);
void AddOnnxNearMisses(std::vector<NearMiss>& n);
void AddKerasNearMisses(std::vector<NearMiss>& n);
void AddHdf5NearMisses(std::vector<NearMiss>& n);
void AddConfigNearMisses(std::vector<NearMiss>& n);
void AddTemplateNearMisses(std::vector<NearMiss>& n);

}  // namespace ckpt::testing
