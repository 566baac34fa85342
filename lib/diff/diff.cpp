#include "lib/diff/diff.h"

#include <algorithm>
#include <cstring>
#include <set>
#include <thread>

#include "lib/core/parallel.h"
#include "lib/formats/dtype.h"
#include "lib/json/json_writer.h"

namespace ckpt {
namespace {

constexpr std::uint64_t kWindow = 4 << 20;  // bytes per read window (a multiple of every element size)

std::map<std::string, TensorSide> TensorTable(const Artifact& artifact) {
  std::map<std::string, TensorSide> table;
  auto locate = [&](const std::string& name, TensorSide& side) {
    auto stored = artifact.FindReadableTensor(name);
    if (!stored || stored->length() != side.length) return;
    side.file = stored->file->file.get();
    side.offset = stored->offset();
  };
  const Header* h = (artifact.header && artifact.header->version_supported) ? &*artifact.header : nullptr;
  if (h && h->tensor_manifest) {
    for (const ManifestEntry& e : *h->tensor_manifest) {
      if (!e.complete || table.count(e.name)) continue;
      TensorSide side{e.group, e.dtype, e.shape, nullptr, 0, 0};
      const DtypeInfo* dtype = FindManifestDtype(e.dtype);
      auto size = dtype ? ManifestByteSize(e.shape, *dtype) : std::nullopt;
      if (size) {
        side.length = *size;
        locate(e.name, side);
      }
      table.emplace(e.name, std::move(side));
    }
    return table;
  }
  // No readable manifest: fall back to what the weight files declare.
  for (const WeightFile& wf : artifact.weights) {
    for (const StoredTensor& t : wf.tensors) {
      const DtypeInfo* dtype = FindSafetensorsDtype(t.dtype);
      if (!t.complete || table.count(t.name)) continue;
      TensorSide side{t.name.substr(0, t.name.find('.')),
                      dtype && dtype->allowed_in_artifact() ? std::string(dtype->manifest) : t.dtype,
                      t.shape,
                      nullptr,
                      0,
                      t.end - t.begin};
      locate(t.name, side);
      table.emplace(t.name, std::move(side));
    }
  }
  return table;
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

void CompareTensors(std::vector<TensorDiff>& tensors, unsigned jobs) {
  // Phase 1: bytes only, stopping at the first difference. Unchanged tensors end here.
  std::vector<std::size_t> candidates;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    if (tensors[i].status == TensorStatus::kChanged) candidates.push_back(i);
  }
  std::vector<char> differs(tensors.size(), 0);
  std::vector<char> failed(tensors.size(), 0);
  ParallelFor(candidates.size(), jobs, [&](std::size_t k) {
    const std::size_t i = candidates[k];
    const TensorSide& a = *tensors[i].a;
    const TensorSide& b = *tensors[i].b;
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
      continue;
    }
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
    if (tensors[i].status != TensorStatus::kChanged) tensors[i].stats.reset();
  }
}

}  // namespace

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

DiffRun CompareAudited(AuditResult a, AuditResult b, const DiffOptions& options) {
  DiffRun run;
  run.options = options;
  run.a = std::move(a);
  run.b = std::move(b);
  run.header = DiffHeaders(run.a.artifact, run.b.artifact);
  run.link = Link(run.a, run.b, options.policy.compute_hash);
  const auto ta = TensorTable(run.a.artifact);
  const auto tb = TensorTable(run.b.artifact);
  std::set<std::string> names;
  for (const auto& [name, side] : ta) names.insert(name);
  for (const auto& [name, side] : tb) names.insert(name);
  for (const std::string& name : names) {
    TensorDiff d;
    d.name = name;
    if (auto it = ta.find(name); it != ta.end()) d.a = it->second;
    if (auto it = tb.find(name); it != tb.end()) d.b = it->second;
    if (!d.b) {
      d.status = TensorStatus::kRemoved;
    } else if (!d.a) {
      d.status = TensorStatus::kAdded;
    } else if (d.a->dtype != d.b->dtype || d.a->shape != d.b->shape || d.a->group != d.b->group) {
      d.status = TensorStatus::kLayoutChanged;
    } else if (!d.a->file || !d.b->file || !ElementTypeOf(d.a->dtype)) {
      d.status = TensorStatus::kUnreadable;
    } else {
      d.status = TensorStatus::kChanged;  // until phase 1 finds the bytes equal
    }
    run.tensors.push_back(std::move(d));
  }
  CompareTensors(run.tensors, std::max(1u, options.jobs));

  return run;
}

}  // namespace ckpt
