// Fuzz target: the pickle analyser and its containers. The first byte picks the container
// (torch zip, legacy torch, plain pickle, .npy); the rest is the file. Nothing may crash,
// hang or grow past the analyser's budgets, whatever the bytes.
#include <cstddef>
#include <cstdint>
#include <string>

#include "lib/formats/input_classifier.h"
#include "lib/formats/torch/torch_checkpoint.h"
#include "lib/io/memory_source.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  static constexpr ckpt::InputKind kKinds[] = {ckpt::InputKind::kTorchZip, ckpt::InputKind::kTorchLegacy,
                                               ckpt::InputKind::kPickle, ckpt::InputKind::kNumpy};
  const ckpt::InputKind kind = kKinds[data[0] % 4];
  ckpt::MemorySource source;
  source.AddFile("model.pt", std::string(reinterpret_cast<const char*>(data + 1), size - 1));
  auto file = source.Open("model.pt");
  (void)ckpt::ClassifyFileHead(std::as_bytes(std::span(data + 1, size - 1)), size - 1);  // every sniff
  (void)ckpt::ClassifyFile(**file);  // the headerless-pickle syntax walk and the zip end record
  ckpt::DiagnosticList sink;
  auto read = ckpt::ReadPickleFamily(kind, "model.pt", std::move(*file), sink);
  if (read) {
    for (const ckpt::StoredTensor& t : read->tensors) {
      // A located tensor lies inside the file.
      if (t.data_length > 0 && (t.data_offset > size - 1 || t.data_length > size - 1 - t.data_offset)) __builtin_trap();
    }
  }
  return 0;
}
