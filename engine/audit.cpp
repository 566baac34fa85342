#include "engine/audit.h"

#include <algorithm>
#include <condition_variable>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <tuple>

#include "lib/artifact/input.h"
#include "lib/artifact/loader.h"
#include "lib/core/text.h"
#include "lib/formats/layout.h"
#include "lib/hashing/content_hash.h"
#include "lib/hashing/crc32.h"
#include "lib/hashing/sha256.h"
#include "lib/io/directory_source.h"
#include "rules/catalog.h"
#include "rules/reader_rules.h"

namespace ckpt {
namespace {

int FileRank(const std::string& file) {
  if (file == kHeaderFileName) return 0;
  if (file == kShardIndexFileName) return 1;
  if (IsWeightFileName(file)) return 2;
  return 3;
}

void SortFindings(std::vector<Finding>& findings) {
  std::stable_sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) {
    auto key = [](const Finding& f) {
      const Location& l = f.location;
      return std::tuple(static_cast<int>(f.rule->tier), FileRank(l.file), l.file, l.line.value_or(0),
                        l.column.value_or(0), l.byte_offset.value_or(0));
    };
    return key(a) < key(b);
  });
}

std::string Describe(const std::string& context, const boost::system::error_code& error) {
  return context + ": " + error.message();
}

// Reader diagnostics become findings under their rules as they arrive, so the per-rule
// cap bounds memory while reading.
using rules::RuleSink;

}  // namespace

namespace {

using WindowSink = std::function<void(std::uint64_t at, std::span<const std::byte> bytes)>;

// Files at least this big are read ahead on a helper thread (a thread per small file of a
// model folder would cost more than it saves).
constexpr std::uint64_t kReadAheadFrom = std::uint64_t{8} << 20;

// Reads `file` once, front to back, in windows of `window` bytes, and gives each window to
// `ahead` and then to `behind`. With `overlap` (and a file worth it) a helper thread reads
// and runs `ahead` (a CRC-32) up to kSlots windows in front of this thread, which runs
// `behind` (SHA-256): the digest then runs at the pace of the slower side, not of read +
// SHA + CRC. False when a read fails.
bool ReadWindows(const RandomAccessFile& file, std::uint64_t size, std::size_t window, const WindowSink* ahead,
                 const WindowSink& behind, bool overlap) {
  constexpr std::size_t kSlots = 4;
  const std::uint64_t count = (size + window - 1) / window;
  auto extent = [&](std::uint64_t k) {
    return std::pair(k * window, static_cast<std::size_t>(std::min<std::uint64_t>(window, size - k * window)));
  };
  if (!overlap || size < kReadAheadFrom) {
    std::vector<std::byte> buffer(static_cast<std::size_t>(std::min<std::uint64_t>(window, size)));
    for (std::uint64_t k = 0; k < count; ++k) {
      const auto [at, n] = extent(k);
      const std::span<std::byte> bytes = std::span(buffer).first(n);
      if (!file.ReadAt(at, bytes)) return false;
      if (ahead != nullptr) (*ahead)(at, bytes);
      behind(at, bytes);
    }
    return true;
  }
  std::vector<std::vector<std::byte>> slots(kSlots, std::vector<std::byte>(window));
  std::mutex mutex;
  std::condition_variable changed;
  std::uint64_t produced = 0;  // windows read (and given to `ahead`)
  std::uint64_t consumed = 0;  // windows `behind` is done with
  bool failed = false;
  bool stop = false;
  std::thread reader([&] {
    for (std::uint64_t k = 0; k < count; ++k) {
      {
        std::unique_lock lock(mutex);
        changed.wait(lock, [&] { return k - consumed < kSlots || stop; });
        if (stop) return;
      }
      const auto [at, n] = extent(k);
      const std::span<std::byte> bytes = std::span(slots[k % kSlots]).first(n);
      const bool read = file.ReadAt(at, bytes).has_value();
      if (read && ahead != nullptr) (*ahead)(at, bytes);
      {
        std::lock_guard lock(mutex);
        if (!read) {
          failed = true;
        } else {
          produced = k + 1;
        }
      }
      changed.notify_all();
      if (!read) return;
    }
  });
  for (std::uint64_t k = 0; k < count; ++k) {
    {
      std::unique_lock lock(mutex);
      changed.wait(lock, [&] { return produced > k || failed; });
      if (produced <= k) break;
    }
    const auto [at, n] = extent(k);
    behind(at, std::span(slots[k % kSlots]).first(n));
    {
      std::lock_guard lock(mutex);
      consumed = k + 1;
    }
    changed.notify_all();
  }
  {
    std::lock_guard lock(mutex);
    stop = true;
  }
  changed.notify_all();
  reader.join();
  return !failed;
}

// SHA-256 of `file`'s `size` bytes into `into`, with the git blob SHA-1 as well when `into`
// is a hub-cache blob named by one, and the CRC-32 of each zip member in `crcs` (a torch
// zip's data records) from the same reads, on a second core when `overlap`. False (nothing
// recorded) when a read fails.
bool DigestWholeFile(const RandomAccessFile& file, std::uint64_t size, AdmittedFile& into,
                     std::span<const PendingCrc> crcs = {}, DiagnosticSink* sink = nullptr, bool overlap = true,
                     const WindowSink* also = nullptr, const WindowSink* also_behind = nullptr, bool whole = true) {
  Sha256 hash;
  std::optional<Sha1> git;  // a hub-cache blob named by its git object id
  if (into.blob_digest && into.blob_digest->size() == 40) {
    git.emplace();
    git->Update("blob " + std::to_string(size) + std::string(1, '\0'));
  }
  const WindowSink digest = [&](std::uint64_t at, std::span<const std::byte> bytes) {
    if (whole) hash.Update(bytes);
    if (git) git->Update(bytes);
    if (also_behind != nullptr) (*also_behind)(at, bytes);
  };
  // Zip members whose CRC-32 is checked from these same reads, in offset order.
  std::vector<const PendingCrc*> pending;
  for (const PendingCrc& c : crcs) pending.push_back(&c);
  std::sort(pending.begin(), pending.end(),
            [](const PendingCrc* a, const PendingCrc* b) { return a->offset < b->offset; });
  std::vector<Crc32> running(pending.size());
  std::size_t first_open = 0;
  const WindowSink check = [&](std::uint64_t at, std::span<const std::byte> bytes) {
    const std::uint64_t end = at + bytes.size();
    for (std::size_t i = first_open; i < pending.size() && pending[i]->offset < end; ++i) {
      const PendingCrc& c = *pending[i];
      const std::uint64_t from = std::max(at, c.offset);
      const std::uint64_t to = std::min(end, c.offset + c.length);
      if (from < to) running[i].Update(bytes.subspan(from - at, to - from));
      if (c.offset + c.length <= end && i == first_open) ++first_open;
    }
  };
  const WindowSink ahead = [&](std::uint64_t at, std::span<const std::byte> bytes) {
    if (!pending.empty()) check(at, bytes);
    if (also != nullptr) (*also)(at, bytes);
  };
  const bool ok =
      ReadWindows(file, size, 1 << 20, pending.empty() && also == nullptr ? nullptr : &ahead, digest, overlap);
  if (!ok) return false;
  for (std::size_t i = 0; sink != nullptr && i < pending.size(); ++i) {
    if (running[i].value() == pending[i]->expected) continue;
    Location location;
    location.file = into.name;
    location.byte_offset = pending[i]->offset;
    sink->Report(Diag::kZipCrcMismatch, location,
                 "Member " + QuoteForMessage(pending[i]->member) + " has CRC-32 " + Crc32Hex(running[i].value()) +
                     ", not the " + Crc32Hex(pending[i]->expected) +
                     " its directory records: its bytes were changed after it was written (torch does not check).");
  }
  if (whole) into.sha256 = hash.FinalHex();
  if (git) into.git_blob_sha1 = git->FinalHex();
  return true;
}

std::map<std::string_view, AdmittedFile*> AdmittedByName(Artifact& artifact) {
  std::map<std::string_view, AdmittedFile*> by_name;
  for (AdmittedFile& f : artifact.files) by_name[f.name] = &f;
  return by_name;
}

}  // namespace

// Each weight file's SHA-256 over its whole length, into the matching AdmittedFile. A read
// that fails leaves the digest out: the identity check reports a file that changed.
void DigestWeightFiles(Artifact& artifact, DiagnosticSink* sink) {
  const auto admitted_by_name = AdmittedByName(artifact);
  for (const WeightFile& wf : artifact.weights) {
    auto found = admitted_by_name.find(wf.name);
    if (!wf.file || found == admitted_by_name.end()) continue;
    if (found->second->sha256) continue;  // digested from the content hash's reads
    DigestWholeFile(*wf.file, wf.size, *found->second, wf.pending_crcs, sink, artifact.policy.overlap_reads);
  }
}

// Every other admitted file of a model folder, read whole from its source (configuration,
// tokenizer and inventory files), with the git blob SHA-1 of a hub-cache blob named by
// one. A file that is no longer the admitted one keeps no digest (its identity check says so).
void DigestOtherFiles(Artifact& artifact, const ArtifactSource& source) {
  for (AdmittedFile& f : artifact.files) {
    if (f.sha256) continue;
    if (artifact.FindWeightFile(f.name) != nullptr) continue;  // DigestWeightFiles has it
    auto file = source.Open(f.name);
    if (!file || (*file)->identity() != f.identity) continue;
    DigestWholeFile(**file, (*file)->size(), f, {}, nullptr, artifact.policy.overlap_reads);
  }
}

bool DigestSessionFileWith(AuditSession& session, const WeightFile& wf,
                           const std::function<void(std::uint64_t, std::span<const std::byte>)>& also,
                           const std::function<void(std::uint64_t, std::span<const std::byte>)>& behind, bool whole) {
  Artifact& artifact = session.result.artifact;
  auto admitted = AdmittedByName(artifact);
  auto found = admitted.find(wf.name);
  if (!wf.file || found == admitted.end()) return false;
  RuleSink crc_sink(session.sink);
  const WindowSink behind_sink = behind;
  return DigestWholeFile(*wf.file, wf.size, *found->second, wf.pending_crcs, &crc_sink, true, &also,
                         behind ? &behind_sink : nullptr, whole);
}

void DigestSessionFiles(AuditSession& session) {
  RuleSink crc_sink(session.sink);
  DigestWeightFiles(session.result.artifact, &crc_sink);
}

std::vector<FileDigestRequest> WeightDigestRequests(const Artifact& artifact) {
  std::vector<FileDigestRequest> requests;
  for (const WeightFile& wf : artifact.weights) {
    if (wf.file) requests.push_back({wf.file.get(), wf.size, std::nullopt});
  }
  return requests;
}

void RecordDigests(Artifact& artifact, std::span<const FileDigestRequest> requests) {
  const auto admitted_by_name = AdmittedByName(artifact);
  std::size_t next = 0;
  for (const WeightFile& wf : artifact.weights) {
    if (!wf.file || next >= requests.size()) continue;
    const FileDigestRequest& request = requests[next++];
    if (auto it = admitted_by_name.find(wf.name); request.sha256 && it != admitted_by_name.end()) {
      it->second->sha256 = request.sha256;
    }
  }
}

void RecordContentHash(AuditSession& session, const IoResult<std::string>& hash) {
  Artifact& artifact = session.result.artifact;
  if (hash) {
    artifact.computed_hash = *hash;
  } else if (hash.error().value() == kFileChangedErrno) {
    artifact.hash_not_computed_reason = "not computed: a weight file changed while being read";
  } else {
    session.result.tool_errors.push_back(Describe("cannot read tensor data of " + artifact.path, hash.error()));
    artifact.hash_not_computed_reason = "not computed: read error";
  }
}

namespace {

// Loads the input `source` exposes into `session` (whose sink may already hold the
// container's diagnostics) and plans its content hash.
void LoadInto(AuditSession& session, const std::string& display_path, const ArtifactSource& source, InputKind kind) {
  session.source = &source;
  RuleSink reader_sink(session.sink);
  session.result.artifact =
      LoadArtifact(display_path, source, session.policy, reader_sink, session.result.tool_errors, kind);
  const Artifact& artifact = session.result.artifact;
  session.unreadable = artifact.entries.empty() && !session.result.tool_errors.empty();
  const bool lensemble = InputKinds::Lensemble().Has(kind);
  if (!session.unreadable && session.policy.compute_hash && lensemble) {
    PlanOrReason plan = BuildHashPlan(artifact);
    if (plan.plan) {
      session.plan = std::move(plan.plan);
    } else {
      session.result.artifact.hash_not_computed_reason = "not computable: " + plan.reason;
    }
  } else if (!session.policy.compute_hash && lensemble) {
    session.result.artifact.hash_not_computed_reason = "not recomputed (--no-hash)";
  }
}

}  // namespace

std::unique_ptr<AuditSession> BeginAudit(const std::string& display_path, const ArtifactSource& source,
                                         const Policy& policy, InputKind kind) {
  auto session = std::make_unique<AuditSession>();
  session->policy = policy;
  LoadInto(*session, display_path, source, kind);
  return session;
}

std::unique_ptr<AuditSession> BeginAuditPath(const std::string& path, const Policy& policy) {
  auto session = std::make_unique<AuditSession>();
  session->policy = policy;
  Artifact& artifact = session->result.artifact;
  artifact.path = path;
  artifact.policy = policy;
  RuleSink reader_sink(session->sink);
  OpenedInput input = OpenInputPath(path, reader_sink);
  artifact.kind = input.kind;
  if (input.tool_error) {
    session->result.tool_errors.push_back(*input.tool_error);
    session->unreadable = true;
    return session;
  }
  if (!input.source) {  // refused by content (compressed, unknown, not yet analysed): its finding says why
    session->refused = true;
    return session;
  }
  session->owned_source = std::move(input.source);
  LoadInto(*session, path, *session->owned_source, input.kind);
  if (input.container) session->result.artifact.container = std::pair(input.container->name, input.container->size);
  return session;
}

AuditResult FinishAudit(AuditSession& session) {
  AuditResult& result = session.result;
  if (session.unreadable) return std::move(result);
  if (session.refused) {
    result.findings = std::move(session.sink.findings());
    result.dropped = session.sink.dropped();
    if (session.policy.gate != nullptr)
      ApplyGate(*session.policy.gate, result.findings, result.dropped, result.artifact.path);
    return std::move(result);
  }
  Artifact& artifact = result.artifact;
  const Policy& policy = session.policy;
  // The last read is done: every admitted name must still be the file that was read.
  for (WeightFile& wf : artifact.weights) wf.file->Release();
  VerifyAdmittedFiles(artifact, *session.source);

  FindingSink& sink = session.sink;
  for (const rules::RuleEntry& rule : rules::AllRules()) {
    if (rule.check != nullptr && rule.info->inputs.Has(artifact.kind)) rule.check(artifact, sink);
  }
  result.findings = std::move(sink.findings());
  result.dropped = sink.dropped();
  if (artifact.kind == InputKind::kGguf && artifact.weights.size() > 1) {
    // A split set given by its first part: its parts are files of that part's folder, so a
    // finding about a part names the part there, never "part/part".
    const std::string folder = std::filesystem::path(artifact.path).parent_path().string();
    for (Finding& f : result.findings) {
      if (!f.location.file.empty() && f.location.artifact.empty()) f.location.artifact = folder.empty() ? "." : folder;
    }
  }
  if (policy.gate != nullptr) ApplyGate(*policy.gate, result.findings, result.dropped, artifact.path);
  SortFindings(result.findings);
  if (policy.max_findings > 0 && result.findings.size() > policy.max_findings) {
    std::vector<DroppedFindings> cut;
    for (std::size_t i = policy.max_findings; i < result.findings.size(); ++i) {
      cut.push_back({result.findings[i].rule, result.findings[i].location.file, 1});
    }
    result.findings.resize(policy.max_findings);
    MergeDropped(result.dropped, cut);  // folds the ones into counts per rule and file
  }
  // The audit is over: release descriptors so a run over thousands of artifacts cannot run out.
  for (WeightFile& wf : artifact.weights) wf.file.reset();
  return std::move(result);
}

namespace {

// The middle phase of a whole audit: the content hash, and (SARIF) each weight file's
// SHA-256 beside it on another core, from the same admitted descriptors (no second open,
// and the identity checks cover both reads).
AuditResult HashAndFinish(AuditSession& session) {
  if (!session.unreadable && !session.refused) {
    Artifact& artifact = session.result.artifact;
    // Inputs without a content hash (a safetensors file, a model folder) are hashed as files.
    const bool lensemble = InputKinds::Lensemble().Has(artifact.kind);
    const bool digests_wanted = session.policy.digest_files || !lensemble;
    if (session.plan && digests_wanted) {
      // One read: the weight files' digests come from the content hash's own windows; a
      // file whose bytes the hash does not visit in order is read again afterwards.
      std::vector<FileDigestRequest> requests = WeightDigestRequests(artifact);
      RecordContentHash(session, ComputeContentHash(*session.plan, requests, 1 << 20, session.policy.overlap_reads));
      RecordDigests(artifact, requests);
      DigestWeightFiles(artifact);  // only those still without a digest
    } else {
      auto digest_files = [&artifact, &session] {
        RuleSink crc_sink(session.sink);
        DigestWeightFiles(artifact, &crc_sink);
        if (artifact.kind == InputKind::kModelFolder) DigestOtherFiles(artifact, *session.source);
      };
      std::thread digests;
      if (digests_wanted && session.policy.compute_hash) {
        if (session.policy.overlap_reads) {
          digests = std::thread(digest_files);
        } else {
          digest_files();
        }
      }
      if (session.plan) {
        RecordContentHash(session, ComputeContentHash(*session.plan, {}, 1 << 20, session.policy.overlap_reads));
      }
      if (digests.joinable()) digests.join();
    }
  }
  return FinishAudit(session);
}

}  // namespace

AuditResult AuditArtifact(const std::string& display_path, const ArtifactSource& source, const Policy& policy) {
  return HashAndFinish(*BeginAudit(display_path, source, policy));
}

AuditResult AuditPath(const std::string& path, const Policy& policy) {
  return HashAndFinish(*BeginAuditPath(path, policy));
}

}  // namespace ckpt
