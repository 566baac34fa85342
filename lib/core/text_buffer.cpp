#include "lib/core/text_buffer.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <new>

namespace ckpt {

TextBuffer TextBuffer::Uninitialised(std::size_t size) {
  TextBuffer buffer;
  buffer.size_ = size;
  if (size < kMapFrom) {
    buffer.small_.resize(size);
    return buffer;
  }
  void* address = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
  if (address == MAP_FAILED) throw std::bad_alloc();
  buffer.mapped_ = std::unique_ptr<char, MappingRelease>(static_cast<char*>(address), MappingRelease{size});
  return buffer;
}

void ReleasePages(void* begin, std::size_t length) {
  static const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  char* const bytes = static_cast<char*>(begin);
  const std::size_t skip = (page - reinterpret_cast<std::uintptr_t>(bytes) % page) % page;  // to a page boundary
  if (length <= skip) return;
  const std::size_t whole = (length - skip) / page * page;  // pages wholly inside only
  // Advice, not a requirement: if the system declines, the pages simply stay.
  if (whole > 0) (void)::madvise(bytes + skip, whole, MADV_DONTNEED);
}

void TextBuffer::ReleasePrefix(std::size_t end) {
  if (mapped_) ReleasePages(mapped_.get(), std::min(end, size_));
}

void MappingRelease::operator()(char* address) const { ::munmap(address, length); }

}  // namespace ckpt
