// Fuzz target: the readers of formats.md. The first byte picks the kind (0 joblib, 1 npz,
// 2 TorchScript, 3 torch.export, 4 msgpack, 5 NeMo, 6 ONNX); the rest is the file. Every sniff of the format table runs
// on it too. Nothing may crash, hang or grow past the readers' bounds (a decompression
// stops at its bound), whatever the bytes.
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>

#include "lib/formats/format_table.h"
#include "lib/formats/input_classifier.h"
#include "lib/io/memory_source.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  static constexpr ckpt::InputKind kKinds[] = {ckpt::InputKind::kJoblib,      ckpt::InputKind::kNpz,
                                               ckpt::InputKind::kTorchscript, ckpt::InputKind::kTorchExport,
                                               ckpt::InputKind::kMsgpack,     ckpt::InputKind::kNemo};
  const ckpt::InputKind kind = kKinds[data[0] % std::size(kKinds)];
  ckpt::MemorySource source;
  source.AddFile("model.bin", std::string(reinterpret_cast<const char*>(data + 1), size - 1));
  auto file = source.Open("model.bin");
  (void)ckpt::ClassifyFile(**file);  // every sniff, with the file (zip directories, decompressed prefixes)
  ckpt::DiagnosticList sink;
  auto read = ckpt::FormatOf(kind).read("model.bin", std::move(*file), sink);
  if (read) {
    for (const ckpt::StoredTensor& t : read->tensors) {
      // A located tensor lies inside the file.
      if (t.data_length > 0 && (t.data_offset > size - 1 || t.data_length > size - 1 - t.data_offset)) __builtin_trap();
    }
  }
  return 0;
}
