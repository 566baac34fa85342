// The canonical content hash of artifact-format.md section 5 (INV-CHECKPOINT-HASH).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "lib/artifact/artifact.h"
#include "lib/hashing/sha256.h"
#include "lib/io/artifact_source.h"

namespace ckpt {

/// Everything the hash covers, with each tensor's bytes located in a weight file. The plan
/// points into the artifact it was built from (no copy of names or shapes: a header with
/// 10^6 tensors must not be held twice), so it lives no longer than that artifact.
struct HashPlan {
  struct Tensor {
    const ManifestEntry* entry = nullptr;  ///< name, group, dtype (manifest token), shape
    const RandomAccessFile* file = nullptr;
    std::uint64_t offset = 0;  ///< absolute offset of the first element byte
    std::uint64_t length = 0;
  };
  std::vector<Tensor> tensors;       ///< any order: hashing sorts by name bytes
  std::uint64_t schema_version = 0;  ///< as written, before migration
  std::string wmcp_version;
  std::uint64_t round_index = 0;
  std::optional<std::string> parent_hash;  ///< nullopt: null
  std::vector<std::string> param_groups;
};

/// Builds the plan from a read artifact, or says why the hash is not defined for it
/// (a missing field, or a manifest tensor whose bytes cannot be located).
struct PlanOrReason {
  std::optional<HashPlan> plan;
  std::string reason;
};
PlanOrReason BuildHashPlan(const Artifact& artifact);

/// The content hash as a stream, for callers that read the tensor bytes themselves (the
/// fused diff pass): construct, then for each tensor of order() BeginTensor and Update with
/// exactly its bytes, then Finish. ComputeContentHash is this with its own reads.
class ContentHasher {
 public:
  explicit ContentHasher(const HashPlan& plan);
  /// The plan's tensors in hashing order (ascending by the UTF-8 bytes of their names).
  [[nodiscard]] const std::vector<const HashPlan::Tensor*>& order() const { return order_; }
  void BeginTensor(const HashPlan::Tensor& tensor);
  /// Where in a buffer the next window should start so SHA-256 reads it aligned (0..63).
  [[nodiscard]] std::size_t Alignment() const { return static_cast<std::size_t>(hash_.bytes_hashed() % 64); }
  /// Bytes of the stream hashed so far.
  [[nodiscard]] std::uint64_t BytesHashed() const { return hash_.bytes_hashed(); }
  void Update(std::span<const std::byte> bytes) { hash_.Update(bytes); }
  /// Appends the structure frame and returns the hex digest.
  std::string Finish();

 private:
  const HashPlan& plan_;
  std::vector<const HashPlan::Tensor*> order_;
  Sha256 hash_;
};

/// Streams the plan through SHA-256, reading windows of `buffer_size` bytes on another
/// thread a few windows ahead of the hashing (memory: four windows).
[[nodiscard]] IoResult<std::string> ComputeContentHash(const HashPlan& plan, std::size_t buffer_size = 1 << 20);

/// A whole file's SHA-256 wanted beside the content hash (SARIF `artifacts[]`).
struct FileDigestRequest {
  const RandomAccessFile* file = nullptr;
  std::uint64_t size = 0;
  /// Set when the content hash's own reads covered the file in offset order (plus its
  /// header and any short gap, read directly); nullopt when the caller must read it again.
  std::optional<std::string> sha256;
};

/// The content hash and, from the same reads on a second thread, the digests of `digests`
/// (one read of every tensor byte feeds both streams).
[[nodiscard]] IoResult<std::string> ComputeContentHash(const HashPlan& plan, std::span<FileDigestRequest> digests,
                                                       std::size_t buffer_size = 1 << 20);

}  // namespace ckpt
