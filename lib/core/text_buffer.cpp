#include "lib/core/text_buffer.h"

#include <sys/mman.h>

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

void MappingRelease::operator()(char* address) const { ::munmap(address, length); }

}  // namespace ckpt
