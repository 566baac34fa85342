#include "lib/hashing/content_hash.h"

#include <algorithm>
#include <array>

#include "lib/core/checked_math.h"
#include "lib/core/text.h"
#include "lib/formats/dtype.h"
#include "lib/hashing/sha256.h"

namespace ckpt {
namespace {

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
  ContentHasher hasher(plan);
  // SHA-256 hashes straight from the input only when, after completing a pending partial
  // block, the input is word aligned; otherwise every block is copied first (about 10%
  // slower). So each window starts at an offset equal to the bytes pending in the block.
  constexpr std::size_t kBlock = 64;
  const std::size_t window_size = std::max<std::size_t>(buffer_size, 4096);
  std::vector<std::byte> buffer(window_size + kBlock);
  for (const HashPlan::Tensor* t : hasher.order()) {
    hasher.BeginTensor(*t);
    std::uint64_t done = 0;
    while (done < t->length) {
      std::size_t chunk = static_cast<std::size_t>(std::min<std::uint64_t>(window_size, t->length - done));
      std::span<std::byte> window(buffer.data() + hasher.Alignment(), chunk);
      if (auto read = t->file->ReadAt(t->offset + done, window); !read) return read.error();
      hasher.Update(window);
      done += chunk;
    }
  }
  return hasher.Finish();
}

}  // namespace ckpt
