#include "lib/hashing/file_digests.h"

#include <algorithm>
#include <vector>

#include "lib/formats/header_schema.h"
#include "lib/formats/layout.h"
#include "lib/hashing/sha256.h"
#include "lib/io/directory_source.h"

namespace ckpt {

std::vector<FileDigest> DigestArtifactFiles(const std::vector<std::string>& artifact_paths) {
  std::vector<FileDigest> out;
  std::vector<std::byte> buffer(1 << 20);
  for (const std::string& root : artifact_paths) {
    auto source = DirectorySource::OpenDirectory(root);
    if (!source) continue;
    auto entries = (*source)->List();
    if (!entries) continue;
    for (const DirectoryEntry& entry : *entries) {
      const bool layout =
          entry.name == kHeaderFileName || entry.name == kShardIndexFileName || IsWeightFileName(entry.name);
      if (!layout || entry.kind != EntryKind::kRegular) continue;
      // JSON files over the bound were refused unread by the audit: not "read", not digested.
      const bool json = entry.name == kHeaderFileName || entry.name == kShardIndexFileName;
      if (json && entry.size > kMaxJsonFileSize) continue;
      auto file = (*source)->Open(entry.name);
      if (!file) continue;
      Sha256 hash;
      bool ok = true;
      const std::uint64_t size = (*file)->size();
      for (std::uint64_t at = 0; at < size && ok;) {
        const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(buffer.size(), size - at));
        ok = (*file)->ReadAt(at, std::span(buffer).first(n)).has_value();
        if (ok) hash.Update(std::span(buffer).first(n));
        at += n;
      }
      if (ok) out.push_back({root + "/" + entry.name, size, hash.FinalHex()});
    }
  }
  return out;
}

}  // namespace ckpt
