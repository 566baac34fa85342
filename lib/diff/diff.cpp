#include "lib/diff/diff.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <set>
#include <thread>

#include "lib/core/parallel.h"
#include "lib/digest/content_hash.h"
#include "lib/json/json_writer.h"
#include "lib/model/dtype.h"

namespace ckpt {
namespace {

constexpr std::uint64_t kWindow = 4 << 20;  // bytes per read window (a multiple of every element size)

// Each tensor of `artifact` with where its bytes are, sorted by name; for a name declared twice,
// the first declaration (the manifest's, else the first weight file's). A vector sorted once,
// not a map: a node a tensor, and a copy for the diff, made 10^5 tensors cost 336 MiB.
std::vector<std::pair<std::string, TensorSide>> TensorTable(const Artifact& artifact) {
  std::vector<std::pair<std::string, TensorSide>> table;
  auto locate = [&](const std::string& name, TensorSide& side) {
    auto stored = artifact.FindReadableTensor(name);
    if (!stored || stored->length() != side.length) return;
    side.file = stored->file->file.get();
    side.offset = stored->offset();
  };
  auto sorted = [&table] {
    std::stable_sort(table.begin(), table.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    table.erase(
        std::unique(table.begin(), table.end(), [](const auto& x, const auto& y) { return x.first == y.first; }),
        table.end());
    return std::move(table);
  };
  const Header* h = (artifact.header && artifact.header->version_supported) ? &*artifact.header : nullptr;
  if (h && h->tensor_manifest) {
    table.reserve(h->tensor_manifest->size());
    for (const ManifestEntry& e : *h->tensor_manifest) {
      if (!e.complete) continue;
      TensorSide side{e.group, e.dtype, e.shape, nullptr, 0, 0};
      const DtypeInfo* dtype = FindManifestDtype(e.dtype);
      auto size = dtype ? ManifestByteSize(e.shape, *dtype) : std::nullopt;
      if (size) {
        side.length = *size;
        locate(e.name, side);
      }
      table.emplace_back(e.name, side);
    }
    return sorted();
  }
  // No readable manifest: fall back to what the weight files declare. A model folder's
  // pickle-based and GGUF files count too (a .bin folder against its safetensors twin); a
  // name its safetensors files declare is theirs, as transformers loads them first.
  std::vector<const WeightFile*> files;
  for (const WeightFile& wf : artifact.weights) files.push_back(&wf);
  if (artifact.model) {
    for (const WeightFile& wf : artifact.model->other_weights) files.push_back(&wf);
  }
  std::size_t declared = 0;
  for (const WeightFile* wf : files) declared += wf->tensors.size();
  table.reserve(declared);
  const std::size_t own_weights = artifact.weights.size();
  for (std::size_t k = 0; k < files.size(); ++k) {
    const WeightFile& wf = *files[k];
    for (const StoredTensor& t : wf.tensors) {
      const DtypeInfo* dtype = FindSafetensorsDtype(t.dtype);
      if (!t.complete) continue;
      // The bytes the dtype and shape need: a tensor whose region is shorter (a pickle's
      // non-contiguous view, which has none) is not located, so never compared as empty.
      std::uint64_t length = t.end - t.begin;
      if (dtype) {
        const TensorSize size = SafetensorsByteSize(t.shape, *dtype);
        if (size.error == SizeError::kNone) length = size.bytes;
      }
      TensorSide side{std::string_view(t.name).substr(0, t.name.find('.')),
                      dtype && dtype->allowed_in_artifact() ? std::string_view(dtype->manifest) : t.dtype,
                      t.shape,
                      nullptr,
                      0,
                      length};
      if (k < own_weights) {
        locate(t.name, side);
      } else if (wf.valid && wf.file && t.data_length == side.length) {
        side.file = wf.file.get();
        side.offset = t.data_offset;
      }
      table.emplace_back(t.name, side);
    }
  }
  return sorted();
}

std::vector<HeaderFieldDiff> DiffHeaders(const Artifact& a, const Artifact& b) {
  std::vector<HeaderFieldDiff> out;
  if (!(a.header && a.header->json.parsed) || !(b.header && b.header->json.parsed)) return out;
  const json::Value ra = a.header->json.doc.root();
  const json::Value rb = b.header->json.doc.root();
  std::set<std::string> keys;
  for (const json::Member& m : ra.Members()) keys.insert(m.key);
  for (const json::Member& m : rb.Members()) keys.insert(m.key);
  for (const std::string& key : keys) {
    const std::optional<json::Value> va = ra.Find(key);
    const std::optional<json::Value> vb = rb.Find(key);
    std::optional<std::string> ja = va ? std::optional(json::ToCompactJson(*va)) : std::nullopt;
    std::optional<std::string> jb = vb ? std::optional(json::ToCompactJson(*vb)) : std::nullopt;
    if (ja != jb) out.push_back({key, std::move(ja), std::move(jb)});
  }
  return out;
}

LinkVerdict Link(const AuditResult& a, const AuditResult& b, bool hashes_recomputed) {
  LinkVerdict link;
  const Header* ha = (a.artifact.header && a.artifact.header->version_supported) ? &*a.artifact.header : nullptr;
  const Header* hb = (b.artifact.header && b.artifact.header->version_supported) ? &*b.artifact.header : nullptr;
  link.a_hash = hashes_recomputed ? a.artifact.computed_hash : (ha ? ha->content_hash : std::nullopt);
  if (hb) {
    link.b_parent = hb->parent_hash;
    link.b_round = hb->round_index;
  }
  if (ha) link.a_round = ha->round_index;
  link.parent_matches = link.a_hash && link.b_parent && *link.a_hash == *link.b_parent;
  link.round_follows = link.a_round && link.b_round && *link.a_round < UINT64_MAX && *link.b_round == *link.a_round + 1;
  return link;
}

// Per-thread read windows, allocated once per thread.
struct Windows {
  std::vector<std::byte> a = std::vector<std::byte>(kWindow);
  std::vector<std::byte> b = std::vector<std::byte>(kWindow);
};
thread_local std::unique_ptr<Windows> tls_windows;
Windows& MyWindows() {
  if (!tls_windows) tls_windows = std::make_unique<Windows>();
  return *tls_windows;
}

bool ReadBoth(const TensorSide& a, const TensorSide& b, std::uint64_t at, std::size_t n, Windows& w) {
  return a.file->ReadAt(a.offset + at, std::span(w.a).first(n)).has_value() &&
         b.file->ReadAt(b.offset + at, std::span(w.b).first(n)).has_value();
}

}  // namespace

void CompareTensors(std::vector<TensorDiff>& tensors, unsigned jobs) {
  // Phase 1: bytes only, stopping at the first difference. Unchanged tensors end here.
  std::vector<std::size_t> candidates;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    if (tensors[i].status == TensorStatus::kChanged) candidates.push_back(i);
  }
  std::vector<char> differs(tensors.size(), 0);
  std::vector<char> failed(tensors.size(), 0);
  // ||A||^2 of the windows found equal: an unchanged tensor's norm still weighs in the
  // roll-ups' relative L2 (a changed tensor's comes from its statistics below).
  std::vector<DiffStats> equal_part(tensors.size());
  ParallelFor(candidates.size(), jobs, [&](std::size_t k) {
    const std::size_t i = candidates[k];
    const TensorSide& a = *tensors[i].a;
    const TensorSide& b = *tensors[i].b;
    const std::optional<ElementType> type = ElementTypeOf(a.dtype);
    Windows& w = MyWindows();
    for (std::uint64_t at = 0; at < a.length; at += kWindow) {
      const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(kWindow, a.length - at));
      if (!ReadBoth(a, b, at, n, w)) {
        failed[i] = 1;
        return;
      }
      if (std::memcmp(w.a.data(), w.b.data(), n) != 0) {
        differs[i] = 1;
        return;
      }
      if (type) equal_part[i].Accumulate(*type, std::span(w.a).first(n), std::span(w.a).first(n));
    }
  });
  // Phase 2: statistics for changed tensors, window by window across threads.
  struct Item {
    std::size_t tensor;
    std::uint64_t at;
  };
  std::vector<Item> items;
  for (std::size_t i : candidates) {
    if (failed[i]) {
      tensors[i].status = TensorStatus::kUnreadable;
      continue;
    }
    if (!differs[i]) {
      tensors[i].status = TensorStatus::kUnchanged;
      if (ElementTypeOf(tensors[i].a->dtype)) tensors[i].a_squared = equal_part[i].squared_a;
      continue;
    }
    if (!ElementTypeOf(tensors[i].a->dtype)) continue;  // bytes differ; no statistics for its dtype
    for (std::uint64_t at = 0; at < tensors[i].a->length; at += kWindow) items.push_back({i, at});
  }
  std::vector<DiffStats> partial(items.size());
  std::vector<char> item_failed(items.size(), 0);
  ParallelFor(items.size(), jobs, [&](std::size_t k) {
    const TensorDiff& t = tensors[items[k].tensor];
    const ElementType type = *ElementTypeOf(t.a->dtype);
    const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(kWindow, t.a->length - items[k].at));
    Windows& w = MyWindows();
    if (!ReadBoth(*t.a, *t.b, items[k].at, n, w)) {
      item_failed[k] = 1;
      return;
    }
    partial[k].Accumulate(type, std::span(w.a).first(n), std::span(w.b).first(n));
  });
  for (std::size_t k = 0; k < items.size(); ++k) {  // fixed order: deterministic sums
    TensorDiff& t = tensors[items[k].tensor];
    if (item_failed[k]) t.status = TensorStatus::kUnreadable;
    if (!t.stats) t.stats.emplace();
    t.stats->Merge(partial[k]);
  }
  for (std::size_t i : candidates) {
    if (tensors[i].status != TensorStatus::kChanged) {
      tensors[i].stats.reset();
    } else if (tensors[i].stats) {
      tensors[i].a_squared = tensors[i].stats->squared_a;
    }
  }
}

std::string_view TensorStatusName(TensorStatus status) {
  switch (status) {
    case TensorStatus::kUnchanged:
      return "unchanged";
    case TensorStatus::kChanged:
      return "changed";
    case TensorStatus::kLayoutChanged:
      return "layout_changed";
    case TensorStatus::kAdded:
      return "added";
    case TensorStatus::kRemoved:
      return "removed";
    case TensorStatus::kUnreadable:
      return "unreadable";
  }
  return "unreadable";
}

std::vector<TensorDiff> BuildTensorDiffs(const Artifact& a, const Artifact& b) {
  auto ta = TensorTable(a);
  auto tb = TensorTable(b);
  std::vector<TensorDiff> tensors;
  tensors.reserve(std::max(ta.size(), tb.size()));
  // The two sorted tables merged by name, each side moved into its tensor's record.
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < ta.size() || j < tb.size()) {
    TensorDiff d;
    const bool from_a = j == tb.size() || (i < ta.size() && ta[i].first <= tb[j].first);
    const bool from_b = i == ta.size() || (j < tb.size() && tb[j].first <= ta[i].first);
    if (from_a) {
      d.name = std::move(ta[i].first);
      d.a = ta[i++].second;
    }
    if (from_b) {
      if (!from_a) d.name = std::move(tb[j].first);
      d.b = tb[j++].second;
    }
    if (!d.b) {
      d.status = TensorStatus::kRemoved;
    } else if (!d.a) {
      d.status = TensorStatus::kAdded;
    } else if (d.a->dtype != d.b->dtype || !std::ranges::equal(d.a->shape, d.b->shape) || d.a->group != d.b->group) {
      d.status = TensorStatus::kLayoutChanged;
    } else if (!d.a->file || !d.b->file) {
      d.status = TensorStatus::kUnreadable;
    } else {
      d.status = TensorStatus::kChanged;  // until the comparison finds the bytes equal
    }
    tensors.push_back(std::move(d));
  }
  return tensors;
}

DiffRun AssembleDiff(AuditResult a, AuditResult b, std::vector<TensorDiff> tensors, const DiffOptions& options) {
  DiffRun run;
  run.options = options;
  run.a = std::move(a);
  run.b = std::move(b);
  run.header = DiffHeaders(run.a.artifact, run.b.artifact);
  run.link = Link(run.a, run.b, options.policy.compute_hash);
  run.tensors = std::move(tensors);
  return run;
}

// ---- the fused pass: both content hashes and the comparison in one read of each byte

namespace {

// What one side (A or B) does for one tensor of the union, in name order.
struct SideStep {
  const TensorSide* side = nullptr;          // where its bytes are (compare or hash)
  const HashPlan::Tensor* hashed = nullptr;  // when the side's content hash covers it
};

// The fused pass reads each side in windows of kFusedWindow bytes into a ring of kRing
// slots, so a thread that runs ahead of the other keeps reading and hashing instead of
// waiting at every window: the two sides meet only when one is kRing windows ahead.
constexpr std::size_t kFusedWindow = 1 << 20;  // a multiple of every element size
constexpr std::size_t kRing = 4;

// One side's hasher and ring of read windows.
struct SideWork {
  std::optional<ContentHasher> hasher;
  std::vector<std::byte> buffer = std::vector<std::byte>(kRing * kFusedWindow);
  std::optional<boost::system::error_code> hash_error;
  std::array<std::span<const std::byte>, kRing> window{};
  std::array<bool, kRing> read_failed{};
  std::optional<WindowDigests> digests;  // whole-file digests from the same reads (SARIF)

  [[nodiscard]] bool hashing(const SideStep& step) const { return step.hashed && hasher && !hash_error; }

  // Reads `n` bytes at `offset` of `side` into ring slot `slot`.
  void Read(const TensorSide& side, std::uint64_t offset, std::size_t n, std::size_t slot) {
    const std::span<std::byte> target = std::span(buffer).subspan(slot * kFusedWindow, n);
    read_failed[slot] = !side.file->ReadAt(side.offset + offset, target).has_value();
    window[slot] = target;
    if (digests && !read_failed[slot]) digests->Take(side.file, side.offset + offset, target);
  }

  // Feeds ring slot `slot` to the hasher when `step` is hashed (a failed read poisons it).
  void Hash(const SideStep& step, std::size_t slot) {
    if (!hashing(step)) return;
    if (read_failed[slot]) {
      hash_error = boost::system::error_code(EIO, boost::system::system_category());
    } else {
      hasher->Update(window[slot]);
    }
  }
};

// What one compared tensor accumulated: each half of every window goes to its own DiffStats
// (the first halves in window order, then the second halves), so the figures are the same
// whether one thread or two did the work.
struct ComparedHalves {
  DiffStats half[2];
  bool failed[2] = {false, false};        // one flag per half: each thread writes only its own
  bool bytes_differ[2] = {false, false};  // a dtype without statistics (quantized, integer): bytes only
};

// Accumulates half `h` of the window pair in ring slot `slot` into `into`.
void AccumulateHalf(const SideWork (&work)[2], std::size_t slot, std::optional<ElementType> type, int h,
                    ComparedHalves& into) {
  if (work[0].read_failed[slot] || work[1].read_failed[slot]) {
    into.failed[h] = true;
    return;
  }
  const std::span<const std::byte> a = work[0].window[slot];
  const std::span<const std::byte> b = work[1].window[slot];
  if (!type) {  // compared as bytes: each half its own
    const std::size_t mid = a.size() / 2;
    const std::size_t from = h == 0 ? 0 : mid;
    const std::size_t to = h == 0 ? mid : a.size();
    if (std::memcmp(a.data() + from, b.data() + from, to - from) != 0) into.bytes_differ[h] = true;
    return;
  }
  const std::size_t element = ElementSize(*type);
  const std::size_t mid = a.size() / element / 2 * element;
  const std::size_t from = h == 0 ? 0 : mid;
  const std::size_t to = h == 0 ? mid : a.size();
  into.half[h].Accumulate(*type, a.subspan(from, to - from), b.subspan(from, to - from));
}

void WaitUntilAtLeast(const std::atomic<std::uint64_t>& counter, std::uint64_t target) {
  for (std::uint64_t seen = counter.load(std::memory_order_acquire); seen < target;
       seen = counter.load(std::memory_order_acquire)) {
    counter.wait(seen, std::memory_order_acquire);
  }
}

void Publish(std::atomic<std::uint64_t>& counter, std::uint64_t value) {
  counter.store(value, std::memory_order_release);
  counter.notify_all();
}

std::vector<SideStep> StepsFor(const std::vector<TensorDiff>& tensors, const HashPlan* plan, bool side_a,
                               const std::vector<const HashPlan::Tensor*>* order) {
  std::vector<SideStep> steps(tensors.size());
  std::size_t k = 0;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const std::optional<TensorSide>& side = side_a ? tensors[i].a : tensors[i].b;
    if (side && side->file) steps[i].side = &*side;
    if (plan && order && k < order->size() && (*order)[k]->entry->name == tensors[i].name) {
      steps[i].hashed = (*order)[k++];
    }
  }
  return steps;
}

}  // namespace

void FusedHashAndCompare(std::vector<TensorDiff>& tensors, const HashPlan* plan_a, const HashPlan* plan_b,
                         unsigned jobs, FusedHashes& out) {
  SideWork work[2];
  if (plan_a) work[0].hasher.emplace(*plan_a);
  if (plan_b) work[1].hasher.emplace(*plan_b);
  if (!out.a.digests.empty()) work[0].digests.emplace(out.a.digests);
  if (!out.b.digests.empty()) work[1].digests.emplace(out.b.digests);
  const std::vector<SideStep> steps[2] = {
      StepsFor(tensors, plan_a, true, plan_a ? &work[0].hasher->order() : nullptr),
      StepsFor(tensors, plan_b, false, plan_b ? &work[1].hasher->order() : nullptr)};
  // A side whose plan names a tensor the union does not hold cannot be hashed in this pass
  // (its stream would skip bytes): its caller hashes it separately.
  for (int s = 0; s < 2; ++s) {
    if (!work[s].hasher) continue;
    std::size_t covered = 0;
    for (const SideStep& step : steps[s]) covered += step.hashed ? 1 : 0;
    if (covered != work[s].hasher->order().size()) work[s].hasher.reset();
  }
  std::vector<std::size_t> compared;  // indices of kChanged tensors, in order
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    if (tensors[i].status == TensorStatus::kChanged) compared.push_back(i);
  }
  std::vector<ComparedHalves> halves(compared.size());

  // Hashes the bytes of a step that is not compared (its side alone), through ring slot 0.
  auto hash_alone = [&](int s, const SideStep& step) {
    SideWork& w = work[s];
    if (!w.hashing(step)) return;
    w.hasher->BeginTensor(*step.hashed);
    TensorSide hashed_bytes;
    hashed_bytes.file = step.hashed->file;
    hashed_bytes.offset = step.hashed->offset;
    for (std::uint64_t at = 0; at < step.hashed->length && !w.hash_error; at += kFusedWindow) {
      const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(kFusedWindow, step.hashed->length - at));
      w.Read(hashed_bytes, at, n, 0);
      w.Hash(step, 0);
    }
  };
  // Runs side `s` through every tensor; with `both`, the one thread does both sides.
  // Between two threads, counters say how many compared windows each side has read
  // (`ready`) and finished its half of (`consumed`); a slot is reused only once both sides
  // are done with the window it held.
  std::atomic<std::uint64_t> ready[2] = {0, 0};
  std::atomic<std::uint64_t> consumed[2] = {0, 0};
  auto run = [&](int s, bool both) {
    std::uint64_t sequence = 0;  // compared windows so far, the same sequence on both sides
    std::size_t c = 0;
    for (std::size_t i = 0; i < tensors.size(); ++i) {
      if (c < compared.size() && compared[c] == i) {
        const TensorDiff& t = tensors[i];
        const std::optional<ElementType> type = ElementTypeOf(t.a->dtype);
        for (int side = 0; side < 2; ++side) {
          if ((both || side == s) && work[side].hashing(steps[side][i])) {
            work[side].hasher->BeginTensor(*steps[side][i].hashed);
          }
        }
        for (std::uint64_t at = 0; at < t.a->length; at += kFusedWindow, ++sequence) {
          const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(kFusedWindow, t.a->length - at));
          const std::size_t slot = sequence % kRing;
          if (both) {
            for (int side = 0; side < 2; ++side) {
              work[side].Read(*steps[side][i].side, at, n, slot);
              work[side].Hash(steps[side][i], slot);
            }
            AccumulateHalf(work, slot, type, 0, halves[c]);
            AccumulateHalf(work, slot, type, 1, halves[c]);
            continue;
          }
          if (sequence >= kRing) {  // the slot's previous window is done on both sides
            WaitUntilAtLeast(consumed[0], sequence - kRing + 1);
            WaitUntilAtLeast(consumed[1], sequence - kRing + 1);
          }
          work[s].Read(*steps[s][i].side, at, n, slot);
          Publish(ready[s], sequence + 1);
          work[s].Hash(steps[s][i], slot);
          WaitUntilAtLeast(ready[1 - s], sequence + 1);
          AccumulateHalf(work, slot, type, s, halves[c]);
          Publish(consumed[s], sequence + 1);
        }
        ++c;
        continue;
      }
      // Slot 0 is about to be overwritten: the other side must be done with every window.
      if (!both && work[s].hashing(steps[s][i])) WaitUntilAtLeast(consumed[1 - s], sequence);
      hash_alone(s, steps[s][i]);
      if (both) hash_alone(1, steps[1][i]);
    }
  };
  if (jobs >= 2) {
    std::thread other([&] { run(1, false); });
    run(0, false);
    other.join();
  } else {
    run(0, true);
  }

  for (std::size_t c = 0; c < compared.size(); ++c) {
    TensorDiff& t = tensors[compared[c]];
    const ComparedHalves& h = halves[c];
    if (h.failed[0] || h.failed[1]) {
      t.status = TensorStatus::kUnreadable;
    } else if (!ElementTypeOf(t.a->dtype)) {  // bytes only: changed, without statistics
      if (!h.bytes_differ[0] && !h.bytes_differ[1]) t.status = TensorStatus::kUnchanged;
    } else {
      DiffStats merged = h.half[0];
      merged.Merge(h.half[1]);
      t.a_squared = merged.squared_a;
      if (merged.changed == 0) {  // every element bit-identical
        t.status = TensorStatus::kUnchanged;
      } else {
        t.stats = merged;
      }
    }
  }
  for (SideWork& w : work) {
    if (w.digests) w.digests->Finish();  // the threads are done: no window is in flight
  }
  for (int s = 0; s < 2; ++s) {
    FusedHashes::Side& side = s == 0 ? out.a : out.b;
    if (!work[s].hasher) continue;
    if (work[s].hash_error) {
      side.error = *work[s].hash_error;
    } else {
      side.hash = work[s].hasher->Finish();
    }
  }
}

}  // namespace ckpt
