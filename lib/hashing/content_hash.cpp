#include "lib/hashing/content_hash.h"

#include <algorithm>
#include <array>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>

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

namespace {

// Bytes the stream holds before a tensor's element bytes: str(name) str(group) str(dtype)
// u64(rank) u64(dim)... (ContentHasher::BeginTensor).
std::uint64_t TensorPreamble(const ManifestEntry& e) {
  return 8 + e.name.size() + 8 + e.group.size() + 8 + e.dtype.size() + 8 + 8 * e.shape.size();
}

// The reads of ComputeContentHash, done on a thread of their own one window ahead of the
// hashing: a ring of kSlots windows, each placed at the offset that keeps SHA-256 aligned
// (the stream position of every window is known in advance from the plan).
class ReadAhead {
 public:
  static constexpr std::size_t kSlots = 4;

  ReadAhead(const std::vector<const HashPlan::Tensor*>& order, std::uint64_t stream_start, std::size_t window)
      : order_(order), window_(window), buffer_(kSlots * (window + 64)) {
    thread_ = std::thread([this, stream_start] { Run(stream_start); });
  }
  ~ReadAhead() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    changed_.notify_all();
    thread_.join();
  }
  ReadAhead(const ReadAhead&) = delete;
  ReadAhead& operator=(const ReadAhead&) = delete;

  struct Window {
    std::size_t tensor = 0;  // index into order
    bool first = false;      // the tensor's first window (its preamble is hashed before it)
    bool last = false;       // the stream's last window
    std::span<const std::byte> bytes;
    std::optional<boost::system::error_code> error;
  };

  // The next window in stream order (blocks until read).
  const Window& Next() {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return produced_ > consumed_; });
    return slots_[consumed_ % kSlots];
  }
  void Done() {
    {
      std::lock_guard lock(mutex_);
      ++consumed_;
    }
    changed_.notify_all();
  }

 private:
  void Run(std::uint64_t position) {
    for (std::size_t i = 0; i < order_.size(); ++i) {
      const HashPlan::Tensor& t = *order_[i];
      position += TensorPreamble(*t.entry);
      std::uint64_t done = 0;
      do {  // a tensor without bytes still has its (empty) first window
        const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(window_, t.length - done));
        std::uint64_t slot_index = 0;
        {
          std::unique_lock lock(mutex_);
          changed_.wait(lock, [&] { return stop_ || produced_ - consumed_ < kSlots; });
          if (stop_) return;
          slot_index = produced_;
        }
        Window& w = slots_[slot_index % kSlots];
        const std::size_t at = (slot_index % kSlots) * (window_ + 64) + static_cast<std::size_t>(position % 64);
        const std::span<std::byte> target = std::span(buffer_).subspan(at, n);
        w = Window{i, done == 0, i + 1 == order_.size() && done + n == t.length, target, std::nullopt};
        if (auto read = t.file->ReadAt(t.offset + done, target); !read) w.error = read.error();
        const bool failed = w.error.has_value();
        {
          std::lock_guard lock(mutex_);
          ++produced_;
        }
        changed_.notify_all();
        if (failed) return;
        done += n;
        position += n;
      } while (done < t.length);
    }
  }

  const std::vector<const HashPlan::Tensor*>& order_;
  std::size_t window_;
  std::vector<std::byte> buffer_;
  std::array<Window, kSlots> slots_{};
  std::mutex mutex_;
  std::condition_variable changed_;
  std::uint64_t produced_ = 0;
  std::uint64_t consumed_ = 0;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace

IoResult<std::string> ComputeContentHash(const HashPlan& plan, std::size_t buffer_size) {
  ContentHasher hasher(plan);
  if (hasher.order().empty()) return hasher.Finish();
  // SHA-256 hashes straight from the input only when, after completing a pending partial
  // block, the input is word aligned; otherwise every block is copied first (about 10%
  // slower). So each window starts at an offset equal to the bytes pending in the block;
  // ReadAhead computes those offsets from the plan, since it reads ahead of the hashing.
  ReadAhead reads(hasher.order(), hasher.BytesHashed(), std::max<std::size_t>(buffer_size, 4096));
  for (;;) {
    const ReadAhead::Window& w = reads.Next();
    if (w.error) return *w.error;
    if (w.first) hasher.BeginTensor(*hasher.order()[w.tensor]);
    hasher.Update(w.bytes);
    const bool last = w.last;
    reads.Done();
    if (last) break;
  }
  return hasher.Finish();
}

}  // namespace ckpt
