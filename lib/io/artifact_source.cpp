#include "lib/io/artifact_source.h"

namespace ckpt {

IoResult<std::string> ReadAll(const RandomAccessFile& file) {
  std::string text(static_cast<std::size_t>(file.size()), '\0');
  auto bytes = std::as_writable_bytes(std::span<char>(text));
  if (auto read = file.ReadAt(0, bytes); !read) return read.error();
  return text;
}

IoResult<TextBuffer> ReadWhole(const RandomAccessFile& file) {
  TextBuffer text = TextBuffer::Uninitialised(static_cast<std::size_t>(file.size()));
  if (auto read = file.ReadAt(0, std::as_writable_bytes(std::span<char>(text.data(), text.size()))); !read) {
    return read.error();
  }
  return text;
}

std::string DescribeIdentityChange(const FileIdentity& before, const FileIdentity& after) {
  if (!before.etag.empty() || !before.last_modified.empty()) {
    const bool etag = !before.etag.empty();
    const std::string& was = etag ? before.etag : before.last_modified;
    const std::string& now = etag ? after.etag : after.last_modified;
    std::string text =
        std::string(etag ? "ETag " : "Last-Modified ") + was + ", now " + (now.empty() ? "unknown" : now);
    if (before.size != after.size && after.size != 0) {
      text += "; size " + std::to_string(before.size) + ", now " + std::to_string(after.size);
    }
    return text;
  }
  if (before.device != after.device || before.inode != after.inode) {
    return "its name now points to another file (replaced, e.g. by mv)";
  }
  std::string what;
  auto add = [&](const char* part) { what += (what.empty() ? "" : ", ") + std::string(part); };
  if (before.size != after.size) {
    add(("its size (" + std::to_string(before.size) + " -> " + std::to_string(after.size) + " bytes)").c_str());
  }
  if (before.mtime_ns != after.mtime_ns) add("its modification time");
  if (before.ctime_ns != after.ctime_ns) add("its status-change time");
  return what.empty() ? "nothing visible" : what + " changed (rewritten in place)";
}

}  // namespace ckpt
