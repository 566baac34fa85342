// Fuzz target: the GGUF reader. Nothing may crash, hang or allocate past what the file's
// bytes could hold; a located tensor lies inside the file.
#include <cstddef>
#include <cstdint>
#include <string>

#include "lib/formats/gguf/gguf_reader.h"
#include "lib/io/memory_source.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ckpt::MemorySource source;
  source.AddFile("model.gguf", std::string(reinterpret_cast<const char*>(data), size));
  auto file = source.Open("model.gguf");
  ckpt::DiagnosticList sink;
  auto read = ckpt::ReadGguf("model.gguf", std::move(*file), sink);
  if (!read) return 0;
  for (const ckpt::StoredTensor& t : read->tensors) {
    if (t.data_length > 0 && (t.data_offset > size || t.data_length > size - t.data_offset)) __builtin_trap();
  }
  return 0;
}
