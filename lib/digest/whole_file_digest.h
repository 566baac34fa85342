// Whole-file digests of an artifact's files, read once each through the read ring: a weight
// file's SHA-256 (and a hub-cache blob's git SHA-1) with the CRC-32 of each torch zip member
// its reader deferred (PendingCrc) from the same reads, on a second core for a large file.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string_view>
#include <vector>

#include "lib/digest/content_hash.h"
#include "lib/io/artifact_source.h"
#include "lib/model/artifact.h"
#include "lib/model/diagnostic.h"

namespace ckpt {

using WindowSink = std::function<void(std::uint64_t at, std::span<const std::byte> bytes)>;

/// SHA-256 of `file`'s `size` bytes into `into` (when `whole`), with the git blob SHA-1 when
/// `into` is a hub-cache blob named by one, and the CRC-32 of each of `crcs` (a mismatch is
/// reported to `sink`, when given). `also` sees every window on the reading thread and
/// `also_behind` on the hashing one (ckpt-convert copies and hashes tensors there). On a
/// second core when `overlap`. False (nothing recorded) when a read fails.
bool DigestWholeFile(const RandomAccessFile& file, std::uint64_t size, AdmittedFile& into,
                     std::span<const PendingCrc> crcs = {}, DiagnosticSink* sink = nullptr, bool overlap = true,
                     const WindowSink* also = nullptr, const WindowSink* also_behind = nullptr, bool whole = true);

/// The same digests as DigestWholeFile's (SHA-256, and a hub-cache blob's git SHA-1) of a file
/// a reader already read whole into `text`: a configuration or template is read once, not
/// once more for its digest.
void DigestWholeText(std::string_view text, AdmittedFile& into);

/// The artifact's admitted files by name.
std::map<std::string_view, AdmittedFile*> AdmittedByName(Artifact& artifact);

/// Each weight file's SHA-256 over its whole length, into its AdmittedFile (those without
/// one yet), on up to AuditOptions::file_jobs workers, one file each (local files only).
/// The CRC-32s a torch zip defers are checked too; a mismatch goes to `sink`, in file order.
void DigestWeightFiles(Artifact& artifact, DiagnosticSink* sink = nullptr);
/// Every other admitted file of a model folder, read whole from `source`, on up to
/// AuditOptions::file_jobs workers (one at a time from a `remote` source).
void DigestOtherFiles(Artifact& artifact, const ArtifactSource& source, bool remote = false);
/// Requests for the open weight files' whole-file digests (to be fed from a pass's reads),
/// and, once fed, their digests recorded in the matching AdmittedFiles.
std::vector<FileDigestRequest> WeightDigestRequests(const Artifact& artifact);
void RecordDigests(Artifact& artifact, std::span<const FileDigestRequest> requests);

}  // namespace ckpt
