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
  static const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto from = reinterpret_cast<std::uintptr_t>(begin);
  const std::uintptr_t first = (from + page - 1) / page * page;  // pages wholly inside only
  const std::uintptr_t last = (from + length) / page * page;
  // Advice, not a requirement: if the system declines, the pages simply stay.
  if (last > first) (void)::madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
}

void TextBuffer::ReleasePrefix(std::size_t end) {
  if (mapped_) ReleasePages(mapped_.get(), std::min(end, size_));
}

void MappingRelease::operator()(char* address) const { ::munmap(address, length); }

}  // namespace ckpt
