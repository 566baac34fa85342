// A range of another file read as a file of its own: an archive member read in place (an
// .npz member, a .nemo member), never copied. Offsets count from the range's start; a read
// outside the range fails. The archive must outlive the window.
#pragma once

#include <cerrno>
#include <cstdint>
#include <span>

#include "lib/io/artifact_source.h"

namespace ckpt {

class WindowFile final : public RandomAccessFile {
 public:
  WindowFile(const RandomAccessFile& archive, std::uint64_t offset, std::uint64_t size)
      : archive_(archive), offset_(offset), size_(size) {}
  [[nodiscard]] std::uint64_t size() const override { return size_; }
  [[nodiscard]] IoResult<void> ReadAt(std::uint64_t offset, std::span<std::byte> out) const override {
    if (offset > size_ || out.size() > size_ - offset) {
      return boost::system::error_code(EINVAL, boost::system::generic_category());
    }
    return archive_.ReadAt(offset_ + offset, out);
  }
  [[nodiscard]] FileIdentity identity() const override { return archive_.identity(); }

 private:
  const RandomAccessFile& archive_;
  std::uint64_t offset_;
  std::uint64_t size_;
};

}  // namespace ckpt
