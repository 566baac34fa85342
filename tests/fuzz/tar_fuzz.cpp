// Fuzz target: the tar reader and input recognition, then every admitted member read
// through its window (bounds are checked on every read; nothing may crash or hang).
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "lib/formats/input_classifier.h"
#include "lib/formats/tar/tar_reader.h"
#include "lib/io/memory_source.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ckpt::MemorySource source;
  source.AddFile("round.tar", std::string(reinterpret_cast<const char*>(data), size));
  auto file = source.Open("round.tar");
  const auto head = std::as_bytes(std::span(data, std::min(size, ckpt::kClassifyLength)));
  (void)ckpt::ClassifyFileHead(head, size);
  ckpt::DiagnosticList sink;
  auto index = ckpt::ReadTar(**file, sink);
  if (!index) return 0;
  std::array<std::byte, 4096> buffer{};
  for (const ckpt::TarMember& m : index->members) {
    if (!m.admitted) continue;
    for (std::uint64_t at = 0; at < m.size; at += buffer.size()) {
      const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(buffer.size(), m.size - at));
      if (!(*file)->ReadAt(m.data_offset + at, std::span(buffer).first(n))) break;
    }
  }
  return 0;
}
