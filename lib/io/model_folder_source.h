// ArtifactSource over a model folder (inputs.md section 4): the folder and its component
// sub-folders, walked without following a symlink, files named by their path relative to
// the folder ("unet/diffusion_pytorch_model.safetensors"). In a Hugging Face hub cache
// snapshot (models--ORG--NAME/snapshots/REV) a symlink is followed only when it resolves,
// component by component and never through another link, to a regular file inside that
// models--ORG--NAME folder; every other symlink is listed as refused, with the reason.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "lib/io/artifact_source.h"
#include "lib/io/directory_source.h"

namespace ckpt {

/// A symlink met in the folder.
struct FolderLink {
  std::string name;                     ///< its path in the folder
  std::string target;                   ///< as written
  std::optional<std::string> resolved;  ///< the regular file it names, relative to the repository (admitted links)
  std::string refusal;                  ///< why it is not followed (empty when admitted)
};

class ModelFolderSource final : public ArtifactSource {
 public:
  static constexpr std::size_t kMaxDepth = 8;
  static constexpr std::size_t kMaxEntries = 100'000;

  /// Opens the folder at `path` (a symlink given on the command line is followed) and walks it,
  /// leaving out the entries at the paths `excluded` (a run's own reports, written there).
  [[nodiscard]] static IoResult<std::unique_ptr<ModelFolderSource>> OpenFolder(
      const std::string& path, std::span<const std::string> excluded = {});

  /// Every entry of the tree, sorted by path: regular files (and admitted links, listed as
  /// regular files), directories, refused symlinks and other entries.
  [[nodiscard]] IoResult<std::vector<DirectoryEntry>> List() const override { return entries_; }
  [[nodiscard]] IoResult<std::unique_ptr<RandomAccessFile>> Open(const std::string& name) const override;
  [[nodiscard]] IoResult<FileIdentity> Stat(const std::string& name) const override;

  [[nodiscard]] const std::vector<FolderLink>& links() const { return links_; }
  /// "models--ORG--NAME" when the folder is a hub-cache snapshot.
  [[nodiscard]] const std::optional<std::string>& repository() const { return repository_; }
  /// Sub-folders holding header.json: Lensemble artifacts, audited on their own, not walked.
  [[nodiscard]] const std::vector<std::string>& artifacts() const { return artifacts_; }
  /// Folders not walked because the tree is deeper or larger than the bounds.
  [[nodiscard]] const std::vector<std::string>& not_walked() const { return not_walked_; }

 private:
  ModelFolderSource() = default;
  void Walk();
  /// The directory source and file name for `name` (a path in the folder), if it is listed.
  [[nodiscard]] IoResult<std::pair<const DirectorySource*, std::string>> Locate(const std::string& name) const;
  /// Follows `path` (relative to the repository) from the repository root, never through a link.
  [[nodiscard]] IoResult<std::pair<const DirectorySource*, std::string>> InRepository(const std::string& path) const;
  void AddLink(const DirectorySource& dir, const std::string& folder, const std::string& name);

  std::unique_ptr<DirectorySource> root_;
  std::map<std::string, std::unique_ptr<DirectorySource>> folders_;  // by path ("" is root_)
  std::unique_ptr<DirectorySource> repo_root_;
  mutable std::map<std::string, std::unique_ptr<DirectorySource>> repo_folders_;
  std::string snapshot_;  // the folder's path inside the repository ("snapshots/REV")
  std::optional<std::string> repository_;
  std::vector<DirectoryEntry> entries_;
  std::vector<FolderLink> links_;
  std::map<std::string, std::size_t> link_index_;  // name -> links_ index
  std::vector<std::string> artifacts_;
  std::vector<std::string> not_walked_;
  std::vector<std::string> excluded_;  // sorted
};

}  // namespace ckpt
