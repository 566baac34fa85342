// ArtifactSource over the members of a tar (inputs.md section 2), read in place: a member
// is a window of the tar file, nothing is extracted and no temporary file is written. The
// member table comes from ReadTar (lib/formats/tar/tar_reader.h); only admitted members are
// listed. A member's identity is the tar's (device, inode, times) with the member's size,
// so a tar replaced or touched while it is audited is caught like any changed file.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "lib/formats/tar/tar_reader.h"
#include "lib/io/artifact_source.h"

namespace ckpt {

class TarSource final : public ArtifactSource {
 public:
  /// `container` holds the tar under `tar_name`; `tar` is that file, opened from it.
  TarSource(std::unique_ptr<ArtifactSource> container, std::string tar_name, std::shared_ptr<RandomAccessFile> tar,
            TarIndex index);

  [[nodiscard]] IoResult<std::vector<DirectoryEntry>> List() const override;
  [[nodiscard]] IoResult<std::unique_ptr<RandomAccessFile>> Open(const std::string& name) const override;
  [[nodiscard]] IoResult<FileIdentity> Stat(const std::string& name) const override;

  [[nodiscard]] const TarIndex& index() const { return index_; }
  [[nodiscard]] const RandomAccessFile& tar() const { return *tar_; }

 private:
  [[nodiscard]] const TarMember* Find(const std::string& name) const;
  std::unique_ptr<ArtifactSource> container_;
  std::string tar_name_;
  std::shared_ptr<RandomAccessFile> tar_;
  TarIndex index_;
  // The admitted members by name (equal names in tar order): Open and Stat run once per
  // member, so a scan of the table would make a many-shard tar quadratic.
  std::vector<const TarMember*> by_name_;
};

}  // namespace ckpt
