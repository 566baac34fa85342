// The remote inputs as ArtifactSources (remote.md sections 1 to 3): a single file, a
// Lensemble directory URL (header.json first, then the files it declares: no listing), and
// an hf:// repository at one commit (the revision resolved once, the tree listed page by
// page). Every file is a RemoteObject, bound on first open and revalidated by Stat.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "lib/io/artifact_source.h"
#include "lib/remote/remote_file.h"

namespace ckpt::remote {

/// The report's `remote` object (remote.md section 9).
struct RemoteFacts {
  std::string url;     ///< the input as given, redacted
  std::string scheme;  ///< "https", "http" or "hf"
  std::optional<std::string> endpoint;
  std::optional<std::string> revision;
  std::optional<std::string> commit;
  std::optional<bool> listed;
  std::string path;  ///< what reports call the input: the redacted URL, hf://ORG/NAME@COMMIT[/SUB]
  std::shared_ptr<TransferCounters> counters = std::make_shared<TransferCounters>();
};

/// What the listing says a file is (hf://).
struct ListedFile {
  std::uint64_t size = 0;
  std::optional<std::string> lfs_oid;
  std::optional<std::string> git_oid;
};

class RemoteSource final : public ArtifactSource {
 public:
  RemoteSource(RemoteFacts facts, RemoteOptions options) : facts_(std::move(facts)), options_(std::move(options)) {}

  /// A file served at `endpoint`, listed (hf://) or declared.
  void AddFile(FileEndpoint endpoint, std::optional<ListedFile> listed = std::nullopt);
  /// A folder of the listing (for the layout, as a local walk lists it).
  void AddDirectory(const std::string& name) { directories_.insert(name); }
  /// Binds `name` now (its first read); ENOENT when the server answers 404 or 410.
  IoResult<void> Bind(const std::string& name) const;
  /// Forgets a declared file the server does not have (a directory URL's missing file).
  void Drop(const std::string& name);
  /// Keeps the top level only, as a local artifact directory lists it: a file in a sub-folder
  /// becomes that folder's entry (a Lensemble artifact in a repository).
  void KeepTopLevel();

  [[nodiscard]] IoResult<std::vector<DirectoryEntry>> List() const override;
  [[nodiscard]] IoResult<std::unique_ptr<RandomAccessFile>> Open(const std::string& name) const override;
  [[nodiscard]] IoResult<FileIdentity> Stat(const std::string& name) const override;
  [[nodiscard]] std::optional<ExpectedContent> Expected(const std::string& name) const override;

  [[nodiscard]] const RemoteFacts& facts() const { return facts_; }
  [[nodiscard]] std::optional<RemoteFileReport> FileReport(const std::string& name) const;
  [[nodiscard]] const ListedFile* Listed(const std::string& name) const;

 private:
  struct Entry {
    std::shared_ptr<RemoteObject> object;
    std::optional<ListedFile> listed;
  };
  RemoteFacts facts_;
  RemoteOptions options_;
  std::map<std::string, Entry> files_;
  std::set<std::string> directories_;
};

/// A remote argument opened as far as its form says (remote.md sections 1 to 3).
struct OpenedRemote {
  std::unique_ptr<RemoteSource> source;
  enum class Form : std::uint8_t { kFile, kDirectory, kRepository } form = Form::kFile;
  bool lensemble = false;   ///< a directory URL, or a repository folder holding header.json
  std::string file_name;    ///< kFile: the file's name (its last path segment, decoded)
  std::string tool_error;   ///< non-empty: nothing can be audited
  bool not_found = false;   ///< kFile: the tool error is the server's 404 or 410
  std::string usage_error;  ///< non-empty: the argument itself is refused (exit 2)
};

/// Checks the argument's syntax and the loopback rule without any lookup or connection.
std::string RemoteUsageError(const std::string& argument, const RemoteOptions& options);

OpenedRemote OpenRemote(const std::string& argument, const RemoteOptions& options);

/// The options from the environment: HF_ENDPOINT, HF_TOKEN.
RemoteOptions RemoteOptionsFromEnvironment();

}  // namespace ckpt::remote
