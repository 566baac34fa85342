// The canonical content hash of artifact-format.md section 5 (INV-CHECKPOINT-HASH).
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "lib/hashing/sha256.h"
#include "lib/io/artifact_source.h"
#include "lib/model/artifact.h"

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

/// Whole-file SHA-256s fed from windows someone else reads in order (the content hash's, the
/// fused diff pass's): a file's digest takes each window at the offset it expects next; the
/// bytes before the first window (the safetensors header) are read directly, as are gaps of
/// at most kMaxGap. A file whose windows arrive out of offset order is left without a digest
/// (its FileDigestRequest::sha256 stays empty) for the caller to read again. One thread at a time.
class WindowDigests {
 public:
  static constexpr std::uint64_t kMaxGap = 1 << 20;

  explicit WindowDigests(std::span<FileDigestRequest> requests) : requests_(requests), states_(requests.size()) {
    for (std::size_t i = 0; i < requests.size(); ++i) index_.emplace(requests[i].file, i);
  }

  void Take(const RandomAccessFile* file, std::uint64_t offset, std::span<const std::byte> bytes) {
    const std::size_t i = Find(file);
    if (i == requests_.size() || states_[i].abandoned) return;
    State& state = states_[i];
    if (offset < state.next || offset - state.next > kMaxGap || !Fill(i, offset)) {
      state.abandoned = true;
      return;
    }
    state.hash.Update(bytes);
    state.next += bytes.size();
  }

  // Completes every digest that saw its bytes in order (reading a short tail if any).
  void Finish() {
    for (std::size_t i = 0; i < requests_.size(); ++i) {
      State& state = states_[i];
      FileDigestRequest& r = requests_[i];
      if (state.abandoned || r.size - state.next > kMaxGap || !Fill(i, r.size)) continue;
      r.sha256 = state.hash.FinalHex();
    }
  }

 private:
  struct State {
    Sha256 hash;
    std::uint64_t next = 0;
    bool abandoned = false;
  };

  std::size_t Find(const RandomAccessFile* file) const {
    auto it = index_.find(file);
    return it == index_.end() ? requests_.size() : it->second;
  }

  // Reads and hashes file i's bytes from where its digest stands up to `offset`.
  bool Fill(std::size_t i, std::uint64_t offset) {
    State& state = states_[i];
    while (state.next < offset) {
      const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(gap_.size(), offset - state.next));
      if (!requests_[i].file->ReadAt(state.next, std::span(gap_).first(n))) return false;
      state.hash.Update(std::span(gap_).first(n));
      state.next += n;
    }
    return true;
  }

  std::span<FileDigestRequest> requests_;
  std::vector<State> states_;
  std::map<const RandomAccessFile*, std::size_t> index_;
  std::vector<std::byte> gap_ = std::vector<std::byte>(64 << 10);
};

/// The content hash and, from the same reads on a second thread, the digests of `digests`
/// (one read of every tensor byte feeds both streams).
/// With `overlap` false everything runs on the calling thread, still in one read (for
/// callers that already run one audit per core).
[[nodiscard]] IoResult<std::string> ComputeContentHash(const HashPlan& plan, std::span<FileDigestRequest> digests,
                                                       std::size_t buffer_size = 1 << 20, bool overlap = true);

}  // namespace ckpt
