// The files of a model as OpenSSF Model Signing sees them (docs/model-signing.md): every
// regular file under the model (hidden ones too), named relative to it with '/', less the
// ignored paths; symbolic links and special files found on the way. Listing, hashing (per
// file or per shard, SHA-256 or BLAKE2b, on several threads) and the comparison with a
// signed manifest, whose every difference is an oms-* diagnostic.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "lib/io/artifact_source.h"
#include "lib/model/diagnostic.h"
#include "lib/oms/statement.h"

namespace ckpt::oms {

/// A listed file: its name in the manifest's terms, the path read, the identity it had.
struct ModelFile {
  std::string name;  ///< relative, '/'-separated; a single-file model's one file: its basename
  std::filesystem::path path;
  bool valid_utf8 = true;  ///< a name that is not UTF-8 matches no resource
};

struct ModelListing {
  bool single_file = false;
  std::vector<ModelFile> files;  ///< sorted by name bytes
  /// Entries that cannot be signed: symbolic links not allowed (name, what it points to) and
  /// FIFOs, sockets, devices (name, what it is).
  std::vector<std::pair<std::string, std::string>> symlinks;
  std::vector<std::pair<std::string, std::string>> special_files;
  std::optional<std::string> error;  ///< the model could not be listed: a tool error
};

/// Ignore entries as model_signing applies them: relative, '/'-separated, "./" components
/// dropped; an absolute entry or one with a ".." component ignores nothing (nullopt).
std::optional<std::string> NormalizeIgnorePath(std::string_view entry);

/// Lists `model` (a directory, or one file). `ignore` holds normalized entries; each ignores
/// the path itself and everything under it. With `allow_symlinks`, a link to a regular file
/// inside the model is listed as a file under the link's name; any other link is listed in
/// `symlinks`.
ModelListing ListModel(const std::filesystem::path& model, const std::vector<std::string>& ignore, bool allow_symlinks);

/// A digest the audit already computed from its own read of a file, and the identity the file
/// had then: reused only when the file still has that identity.
struct KnownDigest {
  FileIdentity identity;
  std::string sha256_hex;
};

/// The digest of `path`'s bytes [start, end) (end nullopt: to the end) with `hash`; nullopt and
/// `error` when it cannot be read or changed while read. `identity` receives what it hashed.
std::optional<std::string> HashFileRange(const std::filesystem::path& path, HashType hash, std::uint64_t start,
                                         std::optional<std::uint64_t> end, FileIdentity& identity, std::string& error);

/// The identity of the open file `fd`.
FileIdentity IdentityOf(int fd);

struct HashedFiles {
  std::vector<std::string> digests;  ///< raw, in the listing's order
  std::optional<std::string> error;  ///< a file could not be read, or changed while read
};
/// Every listed file's whole-file digest, on up to `jobs` threads (`known` reused as above).
HashedFiles HashModelFiles(const ModelListing& listing, HashType hash, const std::map<std::string, KnownDigest>& known,
                           unsigned jobs);

struct ComparisonResult {
  std::size_t files_compared = 0;  ///< files in both the model and the manifest
  std::optional<std::string> error;
};

/// Compares `listing` with `manifest`: oms-symlink, -special-file, -file-unsigned, -file-missing,
/// -digest-mismatch, located at the model's files (Location.file relative to the model; a
/// single-file model's findings at the model itself). Hashes on up to `jobs` threads.
ComparisonResult CompareWithManifest(const ModelListing& listing, const Manifest& manifest,
                                     const std::map<std::string, KnownDigest>& known, unsigned jobs,
                                     DiagnosticSink& sink);

/// Lists the model `source` exposes (a remote model folder: its listing, or the files a
/// directory URL declares) as ListModel lists a folder: its regular files less `ignore`.
ModelListing ListSourceModel(const ArtifactSource& source, const std::vector<std::string>& ignore);

/// The raw digest (`hash`) of the whole file `name` of `source`, read once in order; nullopt
/// and `error` when it cannot be read (a remote file that changed while read is an error of
/// the read).
std::optional<std::string> HashSourceFile(const ArtifactSource& source, const std::string& name, HashType hash,
                                          std::string& error);

/// Where a file's whole-file digest comes from when the model is not on this disk (a remote
/// model: the audit's own digest of its read, else one read of it now); nullopt and `error`
/// when it cannot be had.
using WholeFileDigester = std::function<std::optional<std::string>(const ModelFile& file, std::string& error)>;

/// CompareWithManifest for a listing whose files are not local (ModelFile::path empty): a
/// files manifest only (a shards manifest needs byte ranges: a tool error), each digest from
/// `digest`, on up to `jobs` threads.
ComparisonResult CompareWithManifest(const ModelListing& listing, const Manifest& manifest,
                                     const WholeFileDigester& digest, unsigned jobs, DiagnosticSink& sink);

/// model_signing's resource order: by path components, each compared by bytes (`a/b` < `a-b`).
bool ComponentOrderLess(std::string_view a, std::string_view b);

}  // namespace ckpt::oms
