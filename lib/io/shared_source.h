// An ArtifactSource shared with whoever opened it: every call goes to the shared source, so a
// caller that hands this to an audit keeps the source (a remote model's bound files, its
// transfer counters) for work after the audit, such as checking a model signature.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "lib/io/artifact_source.h"

namespace ckpt {

class SharedSource final : public ArtifactSource {
 public:
  explicit SharedSource(std::shared_ptr<const ArtifactSource> shared) : shared_(std::move(shared)) {}

  [[nodiscard]] IoResult<std::vector<DirectoryEntry>> List() const override { return shared_->List(); }
  [[nodiscard]] IoResult<std::unique_ptr<RandomAccessFile>> Open(const std::string& name) const override {
    return shared_->Open(name);
  }
  [[nodiscard]] IoResult<FileIdentity> Stat(const std::string& name) const override { return shared_->Stat(name); }
  [[nodiscard]] std::optional<ExpectedContent> Expected(const std::string& name) const override {
    return shared_->Expected(name);
  }

 private:
  std::shared_ptr<const ArtifactSource> shared_;
};

}  // namespace ckpt
