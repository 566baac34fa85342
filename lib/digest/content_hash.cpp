#include "lib/digest/content_hash.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <thread>

#include "lib/core/checked_math.h"
#include "lib/core/text.h"
#include "lib/hashing/sha256.h"
#include "lib/io/read_ring.h"
#include "lib/model/dtype.h"

namespace ckpt {
namespace {

// Windows of the two threads that take turns over local files (measured on a 2-core VM:
// 1 MiB windows run at 1.07x the SHA-256 limit, 2 MiB and more at 1.03x).
constexpr std::size_t kTurnWindow = std::size_t{2} << 20;

void PutU64(Sha256& hash, std::uint64_t n) {
  std::array<std::byte, 8> le{};
  for (std::size_t i = 0; i < 8; ++i) le[i] = static_cast<std::byte>((n >> (8 * i)) & 0xFF);
  hash.Update(le);
}

void PutStr(Sha256& hash, std::string_view s) {
  PutU64(hash, s.size());
  hash.Update(s);
}

}  // namespace

PlanOrReason BuildHashPlan(const Artifact& artifact) {
  if (!artifact.header || !artifact.header->version_supported) return {std::nullopt, "header.json could not be read"};
  const Header& h = *artifact.header;
  if (!h.schema_version || !h.wmcp_version || !h.round_index || !h.parent_hash_present || !h.param_groups ||
      !h.tensor_manifest) {
    return {std::nullopt, "a hashed header field is missing or has the wrong type"};
  }
  HashPlan plan;
  plan.schema_version = *h.schema_version;
  plan.wmcp_version = *h.wmcp_version;
  plan.round_index = *h.round_index;
  plan.parent_hash = h.parent_hash;
  plan.param_groups = *h.param_groups;
  for (const ManifestEntry& entry : *h.tensor_manifest) {
    if (!entry.complete) return {std::nullopt, "a tensor_manifest entry is incomplete"};
    const DtypeInfo* dtype = FindManifestDtype(entry.dtype);
    if (dtype == nullptr) return {std::nullopt, "tensor " + QuoteForMessage(entry.name) + " has an unknown dtype"};
    auto size = ManifestByteSize(entry.shape, *dtype);
    if (!size) return {std::nullopt, "tensor " + QuoteForMessage(entry.name) + " has a size that overflows"};
    auto stored = artifact.FindReadableTensor(entry.name);
    if (!stored) {
      return {std::nullopt,
              "the bytes of tensor " + QuoteForMessage(entry.name) + " are not in a readable weight file"};
    }
    if (stored->length() != *size) {
      return {std::nullopt, "tensor " + QuoteForMessage(entry.name) + " is stored with a different byte size"};
    }
    plan.tensors.push_back({&entry, stored->file->file.get(), stored->offset(), *size});
  }
  return {std::move(plan), ""};
}

ContentHasher::ContentHasher(const HashPlan& plan) : plan_(plan) {
  order_.reserve(plan.tensors.size());
  for (const HashPlan::Tensor& t : plan.tensors) order_.push_back(&t);
  // std::string compares bytes as unsigned char through char_traits: UTF-8 byte order.
  std::stable_sort(order_.begin(), order_.end(), [](const HashPlan::Tensor* a, const HashPlan::Tensor* b) {
    return a->entry->name < b->entry->name;
  });
  PutStr(hash_, "lensemble.artifact.content.v1");
  PutU64(hash_, order_.size());
}

void ContentHasher::BeginTensor(const HashPlan::Tensor& tensor) {
  const ManifestEntry& e = *tensor.entry;
  PutStr(hash_, e.name);
  PutStr(hash_, e.group);
  PutStr(hash_, e.dtype);
  PutU64(hash_, e.shape.size());
  for (std::uint64_t dim : e.shape) PutU64(hash_, dim);
}

std::string ContentHasher::Finish() {
  PutStr(hash_, "lensemble.artifact.structure.v1");
  PutU64(hash_, plan_.schema_version);
  PutStr(hash_, plan_.wmcp_version);
  PutU64(hash_, plan_.round_index);
  PutStr(hash_, plan_.parent_hash.value_or(""));
  std::vector<std::string> groups = plan_.param_groups;
  std::sort(groups.begin(), groups.end());
  PutU64(hash_, groups.size());
  for (const std::string& g : groups) PutStr(hash_, g);
  return hash_.FinalHex();
}

IoResult<std::string> ComputeContentHash(const HashPlan& plan, std::size_t buffer_size) {
  return ComputeContentHash(plan, {}, buffer_size);
}

IoResult<std::string> ComputeContentHash(const HashPlan& plan, std::span<FileDigestRequest> digests,
                                         std::size_t buffer_size, bool overlap) {
  ContentHasher hasher(plan);
  const std::vector<const HashPlan::Tensor*>& order = hasher.order();
  if (order.empty()) return hasher.Finish();
  const std::size_t window = std::max<std::size_t>(buffer_size, 4096);
  auto extent_at = [&order](std::size_t i) { return ReadExtent{order[i]->file, order[i]->offset, order[i]->length}; };
  const ReadRing::Process hash = [&](const RingWindow& w) {
    if (w.first) hasher.BeginTensor(*order[w.extent]);
    hasher.Update(w.bytes);
  };
  std::optional<WindowDigests> digest;
  if (!digests.empty()) digest.emplace(digests);
  const ReadRing::Process take = [&](const RingWindow& w) { digest->Take(w.file, w.offset, w.bytes); };
  std::optional<boost::system::error_code> error;
  if (!overlap) {  // one thread: read, hash, digest, window by window
    ReadRing ring(extent_at, order.size(), window, 1, 1, ReadRing::Readers::kStreams);
    error = ring.Run(0, [&](const RingWindow& w) {
      hash(w);
      if (digest) take(w);
    });
  } else if (!digest) {
    // Local files: two threads take turns, each hashing the window it copied while the other
    // copies the next (the bytes never cross cores; 2 MiB windows amortise the hand-off).
    // Remote files: the reads on a thread of their own, a few windows ahead of the hashing.
    const bool remote =
        std::any_of(order.begin(), order.end(), [](const HashPlan::Tensor* t) { return t->file->ReadsAreRequests(); });
    if (remote) {
      ReadRing ring(extent_at, order.size(), window, 4, 1, ReadRing::Readers::kOwnThread);
      error = ring.Run(0, hash);
    } else {
      ReadRing ring(extent_at, order.size(), std::max(window, kTurnWindow), 2, 1, ReadRing::Readers::kTurns);
      error = ring.Run(0, hash);
    }
  } else if (const bool requests = order.front()->file != nullptr && order.front()->file->ReadsAreRequests();
             !requests) {
    // Local files, two SHA-256 streams: two threads take turns, each running both streams on
    // the window it copied (the content hash there while the other thread digests the window
    // before). On a 2-core VM, 1 GiB: 1.03x the content hash alone, where each stream on its
    // own thread, hashing the windows the other core copied, cost 1.09-1.12x.
    ReadRing ring(extent_at, order.size(), window, 2, 2, ReadRing::Readers::kTurns);
    error = ring.RunInTurns(hash, take);
  } else {  // remote files, two SHA-256 streams over one read: read by one thread, in order,
    // so that each range is one request, a few windows ahead of both streams.
    ReadRing ring(extent_at, order.size(), window, 6, 2, ReadRing::Readers::kOwnThread);
    std::optional<boost::system::error_code> digest_error;
    std::thread digester([&] { digest_error = ring.Run(1, take); });
    error = ring.Run(0, hash);
    digester.join();
    if (!error) error = digest_error;
  }
  if (error) return *error;
  if (digest) digest->Finish();
  return hasher.Finish();
}

}  // namespace ckpt
