#include "lib/io/memory_source.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace ckpt {
namespace {

class MemoryFile final : public RandomAccessFile {
 public:
  explicit MemoryFile(const std::string& bytes) : bytes_(bytes) {}
  [[nodiscard]] std::uint64_t size() const override { return bytes_.size(); }
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
  return std::unique_ptr<RandomAccessFile>(new MemoryFile(it->second));
}

}  // namespace ckpt
