// Hugging Face model folders for tests, laid out as save_pretrained and huggingface_hub
// write them: model.safetensors, or 1-based shards with model.safetensors.index.json;
// config.json; and hub-cache snapshots whose entries are symlinks to digest-named blobs.
#pragma once

#include <string>
#include <vector>

#include "tests/support/artifact_builder.h"

namespace ckpt::testing {

struct ModelFolderSpec {
  std::vector<TensorSpec> tensors = ArtifactSpec::Clean().tensors;  ///< data filled by Build()
  std::size_t shards = 1;        ///< 1: <prefix>.safetensors; N: <prefix>-0000i-of-0000N.safetensors + index
  std::string prefix = "model";  ///< "model", or "diffusion_pytorch_model" for diffusers components
  bool config = true;            ///< write config.json

  /// The folder's files, by path relative to it.
  [[nodiscard]] Files Build() const;
};

/// `files` under `folder/` ("unet/config.json").
Files InFolder(const Files& files, const std::string& folder);

/// The input name of a hub-cache snapshot written by HubCache: the folder to audit.
inline const std::string kSnapshot = "hub/models--org--name/snapshots/0123abcd";

/// `snapshot` as a hub-cache snapshot: each file becomes a symlink to ../../blobs/DIGEST
/// (SHA-256 for *.safetensors, as LFS stores them; the git blob SHA-1 for the rest), with
/// the blobs beside. Paths are relative to kSnapshot.
Files HubCache(const Files& snapshot);

/// The blob path (relative to kSnapshot) that `name` of HubCache(snapshot) links to.
std::string BlobOf(const Files& cache, const std::string& name);

}  // namespace ckpt::testing
