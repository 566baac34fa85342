#include "lib/hashing/content_hash.h"

#include <algorithm>
#include <array>
#include <condition_variable>
#include <cstring>
#include <map>
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

// Two SHA-256 streams over one read of the tensor bytes: the content hash (stream 0) and
// the file digests (stream 1), each on its own thread. The threads share the reading as
// well: each reads every other window into the shared ring, so the copy out of the page
// cache is split evenly and neither thread waits on a third. A slot is reused once both
// streams are done with the window it holds.
class SharedPass {
 public:
  static constexpr std::size_t kSlots = 6;

  SharedPass(const std::vector<const HashPlan::Tensor*>& order, std::size_t window)
      : order_(order), window_(window), buffer_(kSlots * window) {}

  struct Window {
    std::size_t tensor = 0;
    bool first = false;
    bool last = false;
    std::span<const std::byte> bytes;
    const RandomAccessFile* file = nullptr;
    std::uint64_t offset = 0;
  };

  // Runs stream `s` on the calling thread, calling `process` with each window in order.
  // Returns the read error that stopped it, if any.
  template <class Process>
  std::optional<boost::system::error_code> Run(std::size_t s, Process&& process) {
    Cursor reading = Start();
    if (reading.index % 2 != s) Step(reading);
    Cursor processing = Start();
    for (;;) {
      // Read my windows ahead while the ring has room, without waiting.
      while (!reading.end && reading.index < processing.index + kSlots && Room(reading.index)) {
        if (!Read(reading)) return Failure();
        Step(reading);
        Step(reading);
      }
      if (processing.index % 2 == s && !Ready(processing.index)) {  // mine and not read yet: read it now
        WaitFor([&] { return Room(processing.index); });
        if (failed_) return Failure();
        if (!Read(processing)) return Failure();
        if (reading.index == processing.index) {
          Step(reading);
          Step(reading);
        }
      }
      WaitFor([&] { return Ready(processing.index); });
      if (failed_) return Failure();
      const Slot& slot = slots_[processing.index % kSlots];
      process(slot.window);
      {
        std::lock_guard lock(mutex_);
        processed_[s] = processing.index + 1;
      }
      changed_.notify_all();
      if (slot.window.last) return std::nullopt;
      Step(processing);
    }
  }

 private:
  struct Cursor {
    std::size_t tensor = 0;
    std::uint64_t done = 0;   // bytes of the tensor before this window
    std::uint64_t index = 0;  // window number
    bool end = false;
  };
  struct Slot {
    std::uint64_t index = ~std::uint64_t{0};
    Window window;
  };

  Cursor Start() const {
    Cursor c;
    c.end = order_.empty();
    return c;
  }
  std::size_t Length(const Cursor& c) const {
    return static_cast<std::size_t>(std::min<std::uint64_t>(window_, order_[c.tensor]->length - c.done));
  }
  void Step(Cursor& c) const {
    if (c.end) return;
    c.done += Length(c);
    ++c.index;
    if (c.done < order_[c.tensor]->length) return;
    if (++c.tensor == order_.size()) {
      c.end = true;
      return;
    }
    c.done = 0;
  }
  bool Room(std::uint64_t index) const { return std::min(processed_[0], processed_[1]) + kSlots > index; }
  bool Ready(std::uint64_t index) const { return slots_[index % kSlots].index == index; }

  template <class Predicate>
  void WaitFor(Predicate ready) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return failed_ || ready(); });
  }

  // Reads window `c` into its slot.
  bool Read(const Cursor& c) {
    const HashPlan::Tensor& t = *order_[c.tensor];
    const std::size_t n = Length(c);
    const std::size_t slot = static_cast<std::size_t>(c.index % kSlots);
    const std::span<std::byte> target = std::span(buffer_).subspan(slot * window_, n);
    if (auto read = t.file->ReadAt(t.offset + c.done, target); !read) {
      std::lock_guard lock(mutex_);
      failed_ = true;
      error_ = read.error();
      changed_.notify_all();
      return false;
    }
    {
      std::lock_guard lock(mutex_);
      const bool last = c.tensor + 1 == order_.size() && c.done + n == t.length;
      slots_[slot].window = Window{c.tensor, c.done == 0, last, target, t.file, t.offset + c.done};
      slots_[slot].index = c.index;
    }
    changed_.notify_all();
    return true;
  }

  std::optional<boost::system::error_code> Failure() {
    std::lock_guard lock(mutex_);
    failed_ = true;
    changed_.notify_all();
    return error_;
  }

  const std::vector<const HashPlan::Tensor*>& order_;
  std::size_t window_;
  std::vector<std::byte> buffer_;
  std::array<Slot, kSlots> slots_{};
  std::array<std::uint64_t, 2> processed_{};
  std::mutex mutex_;
  std::condition_variable changed_;
  bool failed_ = false;
  std::optional<boost::system::error_code> error_;
};

// The reads of ComputeContentHash, done on a thread of their own a few windows ahead of the
// hashing: a ring of kSlots windows.
class ReadAhead {
 public:
  static constexpr std::size_t kSlots = 4;

  ReadAhead(const std::vector<const HashPlan::Tensor*>& order, std::size_t window)
      : order_(order), window_(window), buffer_(kSlots * window) {
    thread_ = std::thread([this] { Run(); });
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
    const RandomAccessFile* file = nullptr;  // where the bytes are, for the file digests
    std::uint64_t offset = 0;
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
  void Run() {
    for (std::size_t i = 0; i < order_.size(); ++i) {
      const HashPlan::Tensor& t = *order_[i];
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
        const std::span<std::byte> target =
            std::span(buffer_).subspan(static_cast<std::size_t>(slot_index % kSlots) * window_, n);
        w = Window{i,           done == 0, i + 1 == order_.size() && done + n == t.length,
                   target,      t.file,    t.offset + done,
                   std::nullopt};
        if (auto read = t.file->ReadAt(t.offset + done, target); !read) w.error = read.error();
        const bool failed = w.error.has_value();
        {
          std::lock_guard lock(mutex_);
          ++produced_;
        }
        changed_.notify_all();
        if (failed) return;
        done += n;
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
  return ComputeContentHash(plan, {}, buffer_size);
}

IoResult<std::string> ComputeContentHash(const HashPlan& plan, std::span<FileDigestRequest> digests,
                                         std::size_t buffer_size, bool overlap) {
  ContentHasher hasher(plan);
  if (hasher.order().empty()) return hasher.Finish();
  const std::size_t window = std::max<std::size_t>(buffer_size, 4096);
  if (!overlap) {  // one thread: read, hash, digest, window by window
    std::optional<WindowDigests> digest;
    if (!digests.empty()) digest.emplace(digests);
    std::vector<std::byte> buffer(window);
    for (const HashPlan::Tensor* t : hasher.order()) {
      hasher.BeginTensor(*t);
      for (std::uint64_t done = 0; done < t->length;) {
        const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(window, t->length - done));
        const std::span<std::byte> target(buffer.data(), n);
        if (auto read = t->file->ReadAt(t->offset + done, target); !read) return read.error();
        hasher.Update(target);
        if (digest) digest->Take(t->file, t->offset + done, target);
        done += n;
      }
    }
    if (digest) digest->Finish();
    return hasher.Finish();
  }
  if (digests.empty()) {
    ReadAhead reads(hasher.order(), window);
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
  // With file digests: one read, two streams on two threads (SharedPass).
  WindowDigests digest(digests);
  SharedPass pass(hasher.order(), window);
  std::optional<boost::system::error_code> digest_error;
  std::thread digester([&] {
    digest_error = pass.Run(1, [&](const SharedPass::Window& w) { digest.Take(w.file, w.offset, w.bytes); });
  });
  const std::optional<boost::system::error_code> error = pass.Run(0, [&](const SharedPass::Window& w) {
    if (w.first) hasher.BeginTensor(*hasher.order()[w.tensor]);
    hasher.Update(w.bytes);
  });
  digester.join();
  if (error) return *error;
  if (!digest_error) digest.Finish();
  return hasher.Finish();
}

}  // namespace ckpt
