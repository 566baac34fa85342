#include "lib/digest/whole_file_digest.h"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <string_view>

#include "lib/core/parallel.h"
#include "lib/core/text.h"
#include "lib/hashing/crc32.h"
#include "lib/hashing/sha256.h"
#include "lib/io/read_ring.h"

namespace ckpt {
namespace {

// Files at least this big are read ahead on a helper thread (a thread per small file of a
// model folder would cost more than it saves).
constexpr std::uint64_t kReadAheadFrom = std::uint64_t{8} << 20;
// Windows of the two threads that take turns (as the content hash's).
constexpr std::size_t kTurnWindow = std::size_t{2} << 20;

// Reads `file` once, front to back, in windows of `window` bytes, giving each to `ahead` (on
// the reading thread) and then to `behind`. With `overlap` and a file worth it, the reads and
// `ahead` (a CRC-32) run a few windows in front of `behind` (SHA-256) on a second core.
bool ReadWindows(const RandomAccessFile& file, std::uint64_t size, std::size_t window, const WindowSink* ahead,
                 const WindowSink& behind, bool overlap) {
  const bool read_ahead = (overlap && size >= kReadAheadFrom) || file.ReadsAreRequests();
  if (read_ahead && ahead == nullptr && !file.ReadsAreRequests()) {
    // A local file and nothing to do on the reading thread: two threads take turns, each
    // hashing the window it copied (see Readers::kTurns).
    ReadRing turns(
        [&file, size](std::size_t) {
          return ReadExtent{&file, 0, size};
        },
        size == 0 ? 0 : 1, std::max<std::size_t>(window, kTurnWindow), 2, 1, ReadRing::Readers::kTurns);
    return !turns.Run(0, [&behind](const RingWindow& w) { behind(w.offset, w.bytes); });
  }
  const ReadRing::Process on_read = [ahead](const RingWindow& w) { (*ahead)(w.offset, w.bytes); };
  ReadRing ring(
      [&file, size](std::size_t) {
        return ReadExtent{&file, 0, size};
      },
      size == 0 ? 0 : 1, window, read_ahead ? 4 : 1, 1,
      read_ahead ? ReadRing::Readers::kOwnThread : ReadRing::Readers::kStreams, ahead != nullptr ? on_read : nullptr);
  return !ring.Run(0, [&behind](const RingWindow& w) { behind(w.offset, w.bytes); });
}

// Workers for `count` independent files: at most `jobs`, at most one a file.
unsigned FileWorkers(unsigned jobs, std::size_t count) {
  return static_cast<unsigned>(std::max<std::size_t>(1, std::min<std::size_t>(std::max(1u, jobs), count)));
}

}  // namespace

std::map<std::string_view, AdmittedFile*> AdmittedByName(Artifact& artifact) {
  std::map<std::string_view, AdmittedFile*> by_name;
  for (AdmittedFile& f : artifact.files) by_name[f.name] = &f;
  return by_name;
}

// SHA-256 of `file`'s `size` bytes into `into`, with the git blob SHA-1 as well when `into`
// is a hub-cache blob named by one, and the CRC-32 of each zip member in `crcs` (a torch
// zip's data records) from the same reads, on a second core when `overlap`. False (nothing
// recorded) when a read fails.
bool DigestWholeFile(const RandomAccessFile& file, std::uint64_t size, AdmittedFile& into,
                     std::span<const PendingCrc> crcs, DiagnosticSink* sink, bool overlap, const WindowSink* also,
                     const WindowSink* also_behind, bool whole) {
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
  std::vector<std::uint32_t> crc_of(pending.size(), 0);
  bool ok = false;
  if (also == nullptr && !pending.empty() && !file.ReadsAreRequests() && overlap && size >= kReadAheadFrom) {
    // A local torch zip with nothing else to do: two threads take turns (Readers::kTurns).
    // Each computes the CRC-32 of the member pieces in the window it copied, right after the
    // copy and beside the other thread's hashing; the pieces are joined in order
    // (crc32_combine) when the window's turn comes, with the SHA-256.
    struct Piece {
      std::size_t member;
      std::uint32_t crc;
      std::uint64_t length;
      bool starts;  // the member's first bytes
    };
    std::array<std::vector<Piece>, 2> pieces;  // by window parity: each thread's own
    const ReadRing::Process cut = [&](const RingWindow& w) {
      std::vector<Piece>& mine = pieces[(w.offset / kTurnWindow) % 2];
      mine.clear();
      const std::uint64_t end = w.offset + w.bytes.size();
      auto first = std::lower_bound(pending.begin(), pending.end(), w.offset,
                                    [](const PendingCrc* c, std::uint64_t at) { return c->offset + c->length <= at; });
      for (auto it = first; it != pending.end() && (*it)->offset < end; ++it) {
        const std::uint64_t from = std::max(w.offset, (*it)->offset);
        const std::uint64_t to = std::min(end, (*it)->offset + (*it)->length);
        if (from >= to) continue;
        const std::span<const std::byte> part = w.bytes.subspan(from - w.offset, to - from);
        const auto crc = static_cast<std::uint32_t>(
            ::crc32(0L, reinterpret_cast<const Bytef*>(part.data()), static_cast<uInt>(part.size())));
        mine.push_back({static_cast<std::size_t>(it - pending.begin()), crc, to - from, from == (*it)->offset});
      }
    };
    const ReadRing::Process join = [&](const RingWindow& w) {
      for (const Piece& piece : pieces[(w.offset / kTurnWindow) % 2]) {
        std::uint32_t& crc = crc_of[piece.member];
        crc = piece.starts
                  ? piece.crc
                  : static_cast<std::uint32_t>(::crc32_combine(crc, piece.crc, static_cast<z_off_t>(piece.length)));
      }
      digest(w.offset, w.bytes);
    };
    ReadRing turns(
        [&file, size](std::size_t) {
          return ReadExtent{&file, 0, size};
        },
        1, kTurnWindow, 2, 1, ReadRing::Readers::kTurns, cut);
    ok = !turns.Run(0, join);
  } else {
    ok = ReadWindows(file, size, 1 << 20, pending.empty() && also == nullptr ? nullptr : &ahead, digest, overlap);
    for (std::size_t i = 0; i < pending.size(); ++i) crc_of[i] = running[i].value();
  }
  if (!ok) return false;
  for (std::size_t i = 0; sink != nullptr && i < pending.size(); ++i) {
    if (crc_of[i] == pending[i]->expected) continue;
    Location location;
    location.file = into.name;
    location.byte_offset = pending[i]->offset;
    sink->Report(Diag::kZipCrcMismatch, location,
                 "Member " + QuoteForMessage(pending[i]->member) + " has CRC-32 " + Crc32Hex(crc_of[i]) + ", not the " +
                     Crc32Hex(pending[i]->expected) +
                     " its directory records: its bytes were changed after it was written (torch does not check).");
  }
  if (whole) into.sha256 = hash.FinalHex();
  if (git) into.git_blob_sha1 = git->FinalHex();
  return true;
}

void DigestWholeText(std::string_view text, AdmittedFile& into) {
  // Both digests are computed before either is recorded: a failure records neither.
  Sha256 hash;
  hash.Update(text);
  std::string sha256 = hash.FinalHex();
  std::optional<std::string> git_sha1;
  if (into.blob_digest && into.blob_digest->size() == 40) {
    Sha1 git;
    git.Update("blob " + std::to_string(text.size()) + std::string(1, '\0'));
    git.Update(text);
    git_sha1 = git.FinalHex();
  }
  into.sha256 = std::move(sha256);
  if (git_sha1) into.git_blob_sha1 = std::move(git_sha1);
}

// Each weight file's SHA-256 over its whole length, into the matching AdmittedFile. A read
// that fails leaves the digest out: the identity check reports a file that changed.
void DigestWeightFiles(Artifact& artifact, DiagnosticSink* sink) {
  const auto admitted_by_name = AdmittedByName(artifact);
  struct Work {
    const WeightFile* file;
    AdmittedFile* into;
  };
  std::vector<Work> work;
  for (const WeightFile& wf : artifact.weights) {
    auto found = admitted_by_name.find(wf.name);
    if (!wf.file || found == admitted_by_name.end()) continue;
    if (found->second->sha256) continue;  // digested from the content hash's reads
    work.push_back({&wf, found->second});
  }
  // Each file's digest is independent: one file a worker, each with its own ring. A worker
  // alone reads ahead on a second core instead. Diagnostics are kept per file and passed on
  // in file order, so the report does not depend on the number of workers.
  // Remote files are read by requests on their source's own connection: one at a time.
  const bool remote =
      std::any_of(work.begin(), work.end(), [](const Work& w) { return w.file->file->ReadsAreRequests(); });
  const unsigned workers = remote ? 1 : FileWorkers(artifact.policy.file_jobs, work.size());
  std::vector<DiagnosticList> found(work.size());
  ParallelFor(work.size(), workers, [&](std::size_t i) {
    const WeightFile& wf = *work[i].file;
    DigestWholeFile(*wf.file, wf.size, *work[i].into, wf.pending_crcs, sink != nullptr ? &found[i] : nullptr,
                    workers == 1 && artifact.policy.overlap_reads);
  });
  for (DiagnosticList& list : found) {
    for (Diagnostic& d : list.items) sink->Report(d.kind, std::move(d.location), std::move(d.message));
  }
}

// Every other admitted file of a model folder, read whole from its source (configuration,
// tokenizer and inventory files), with the git blob SHA-1 of a hub-cache blob named by
// one. A file that is no longer the admitted one keeps no digest (its identity check says so).
void DigestOtherFiles(Artifact& artifact, const ArtifactSource& source, bool remote) {
  std::vector<AdmittedFile*> work;
  for (AdmittedFile& f : artifact.files) {
    if (f.sha256) continue;
    if (artifact.FindWeightFile(f.name) != nullptr) continue;  // DigestWeightFiles has it
    work.push_back(&f);
  }
  const unsigned workers = remote ? 1 : FileWorkers(artifact.policy.file_jobs, work.size());
  ParallelFor(work.size(), workers, [&](std::size_t i) {
    AdmittedFile& f = *work[i];
    auto file = source.Open(f.name);
    if (!file || (*file)->identity() != f.identity) return;
    DigestWholeFile(**file, (*file)->size(), f, {}, nullptr, workers == 1 && artifact.policy.overlap_reads);
  });
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

}  // namespace ckpt
