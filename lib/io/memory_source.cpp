#include "lib/io/memory_source.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace ckpt {
namespace {

// Memory files cannot change behind the audit's back; the address stands in for an inode.
FileIdentity MemoryIdentity(const std::string& bytes) {
  FileIdentity id;
  id.inode = reinterpret_cast<std::uintptr_t>(&bytes);
  id.size = bytes.size();
  return id;
}

class MemoryFile final : public RandomAccessFile {
 public:
  explicit MemoryFile(const std::string& bytes) : bytes_(bytes) {}
  [[nodiscard]] std::uint64_t size() const override { return bytes_.size(); }
  [[nodiscard]] FileIdentity identity() const override { return MemoryIdentity(bytes_); }
  [[nodiscard]] IoResult<void> ReadAt(std::uint64_t offset, std::span<std::byte> out) const override {
    if (offset > bytes_.size() || out.size() > bytes_.size() - offset) {
      return boost::system::error_code(EIO, boost::system::system_category());
    }
    if (!out.empty()) std::memcpy(out.data(), bytes_.data() + offset, out.size());
    return {};
  }

 private:
  const std::string& bytes_;
};

}  // namespace

IoResult<std::vector<DirectoryEntry>> MemorySource::List() const {
  std::vector<DirectoryEntry> entries;
  for (const auto& [name, bytes] : files_) entries.push_back({name, EntryKind::kRegular, bytes.size()});
  for (const auto& [name, kind] : others_) entries.push_back({name, kind, 0});
  std::sort(entries.begin(), entries.end(),
            [](const DirectoryEntry& a, const DirectoryEntry& b) { return a.name < b.name; });
  return entries;
}

IoResult<std::unique_ptr<RandomAccessFile>> MemorySource::Open(const std::string& name) const {
  auto it = files_.find(name);
  if (it == files_.end()) return boost::system::error_code(ENOENT, boost::system::system_category());
  if (replace_on_open_.count(name)) replaced_.insert(name);
  return std::unique_ptr<RandomAccessFile>(new MemoryFile(it->second));
}

IoResult<FileIdentity> MemorySource::Stat(const std::string& name) const {
  auto it = files_.find(name);
  if (it == files_.end()) return boost::system::error_code(ENOENT, boost::system::system_category());
  FileIdentity id = MemoryIdentity(it->second);
  if (replaced_.count(name)) id.inode += 1;
  return id;
}

}  // namespace ckpt
