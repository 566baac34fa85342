// Fuzz target: the strict safetensors reader (and the content sniffer behind it).
#include <cstddef>
#include <cstdint>
#include <string>

#include "lib/formats/safetensors/safetensors_reader.h"
#include "lib/io/memory_source.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ckpt::MemorySource source;
  source.AddFile("weights.safetensors", std::string(reinterpret_cast<const char*>(data), size));
  auto file = source.Open("weights.safetensors");
  ckpt::DiagnosticList sink;
  auto weights = ckpt::ReadSafetensors("weights.safetensors", std::move(*file), sink);
  (void)weights;  // the reader alone: no rule, no engine
  return 0;
}
