#include "lib/formats/tar/tar_source.h"

#include <algorithm>
#include <cerrno>

namespace ckpt {
namespace {

boost::system::error_code Error(int code) { return {code, boost::system::system_category()}; }

// One member: a window [offset, offset + size) of the tar file.
class MemberFile final : public RandomAccessFile {
 public:
  MemberFile(std::shared_ptr<RandomAccessFile> tar, std::uint64_t offset, std::uint64_t size)
      : tar_(std::move(tar)), offset_(offset), size_(size) {}
  [[nodiscard]] std::uint64_t size() const override { return size_; }
  [[nodiscard]] IoResult<void> ReadAt(std::uint64_t offset, std::span<std::byte> out) const override {
    if (offset > size_ || out.size() > size_ - offset) return Error(EINVAL);  // never outside the member
    return tar_->ReadAt(offset_ + offset, out);
  }
  [[nodiscard]] FileIdentity identity() const override {
    FileIdentity id = tar_->identity();
    id.size = size_;
    return id;
  }
  void Release() const override { tar_->Release(); }

 private:
  std::shared_ptr<RandomAccessFile> tar_;
  std::uint64_t offset_;
  std::uint64_t size_;
};

}  // namespace

TarSource::TarSource(std::unique_ptr<ArtifactSource> container, std::string tar_name,
                     std::shared_ptr<RandomAccessFile> tar, TarIndex index)
    : container_(std::move(container)), tar_name_(std::move(tar_name)), tar_(std::move(tar)), index_(std::move(index)) {
  for (const TarMember& m : index_.members) {
    if (m.admitted) by_name_.push_back(&m);
  }
  std::stable_sort(by_name_.begin(), by_name_.end(),
                   [](const TarMember* a, const TarMember* b) { return a->entry_name < b->entry_name; });
}

const TarMember* TarSource::Find(const std::string& name) const {
  const auto it = std::lower_bound(by_name_.begin(), by_name_.end(), name,
                                   [](const TarMember* m, const std::string& n) { return m->entry_name < n; });
  return it != by_name_.end() && (*it)->entry_name == name ? *it : nullptr;
}

IoResult<std::vector<DirectoryEntry>> TarSource::List() const {
  std::vector<DirectoryEntry> entries;
  for (const TarMember& m : index_.members) {
    if (m.admitted) entries.push_back({m.entry_name, EntryKind::kRegular, m.size});
  }
  std::sort(entries.begin(), entries.end(),
            [](const DirectoryEntry& a, const DirectoryEntry& b) { return a.name < b.name; });
  return entries;
}

IoResult<std::unique_ptr<RandomAccessFile>> TarSource::Open(const std::string& name) const {
  const TarMember* m = Find(name);
  if (m == nullptr) return Error(ENOENT);
  return std::unique_ptr<RandomAccessFile>(std::make_unique<MemberFile>(tar_, m->data_offset, m->size));
}

IoResult<FileIdentity> TarSource::Stat(const std::string& name) const {
  const TarMember* m = Find(name);
  if (m == nullptr) return Error(ENOENT);
  auto now = container_->Stat(tar_name_);
  if (!now) return now.error();
  FileIdentity id = *now;
  id.size = m->size;
  if (now->size != tar_->identity().size) id.size = now->size;  // the tar itself changed size
  return id;
}

}  // namespace ckpt
