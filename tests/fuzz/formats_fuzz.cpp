// Fuzz target: the readers of formats.md. The first byte picks the kind (0 joblib, 1 npz,
// 2 TorchScript, 3 torch.export, 4 msgpack, 5 NeMo, 6 ONNX, 7 Keras, 8 an HDF5 helper answer,
// 9 a Keras config; 0xff: the reader of the kind recognition gives it, so a new format's seed
// needs no line here); the rest is the file. Every sniff of the format table runs on it too.
// Nothing may crash, hang or grow past the readers' bounds (a decompression stops at its
// bound), whatever the bytes. The HDF5 helper itself is libhdf5's, fuzzed upstream: here its
// answers are (8), and a .keras weights member meets a helper that cannot start (quick, and a
// finding).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <string>

#include "lib/formats/format_table.h"
#include "lib/formats/hdf5/hdf5.h"
#include "lib/formats/input_classifier.h"
#include "lib/formats/keras_config/keras_config.h"
#include "lib/io/memory_source.h"
#include "lib/json/strict_parser.h"

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  ::setenv("CKPT_H5PROBE", "/nonexistent/ckpt-h5probe", 1);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  static constexpr ckpt::InputKind kKinds[] = {
      ckpt::InputKind::kJoblib,  ckpt::InputKind::kNpz,  ckpt::InputKind::kTorchscript, ckpt::InputKind::kTorchExport,
      ckpt::InputKind::kMsgpack, ckpt::InputKind::kNemo, ckpt::InputKind::kOnnx,        ckpt::InputKind::kKeras,
      ckpt::InputKind::kHdf5,    ckpt::InputKind::kKeras};
  constexpr std::uint8_t kByRecognition = 0xff;
  const std::size_t pick = data[0] % std::size(kKinds);
  ckpt::InputKind kind = kKinds[pick];
  const std::string body(reinterpret_cast<const char*>(data + 1), size - 1);
  if (data[0] != kByRecognition && (pick == 8 || pick == 9)) {
    ckpt::DiagnosticList sink;
    const ckpt::FileReporter report("model.bin", sink);
    if (pick == 9) {
      ckpt::keras::AnalyseConfig(body, {"config.json", 0, true}, ckpt::keras::ConfigDialect::kKerasZip, report);
      return 0;
    }
    ckpt::json::Document doc(body);
    if (ckpt::json::Parse(doc)) return 0;
    ckpt::hdf5::Hdf5Reading reading;
    ckpt::hdf5::ReadProbeAnswer(doc.root(), report, 0, "The file", reading);
    return 0;
  }
  ckpt::MemorySource source;
  source.AddFile("model.bin", std::string(reinterpret_cast<const char*>(data + 1), size - 1));
  auto file = source.Open("model.bin");
  // Every sniff, with the file (zip directories, decompressed prefixes).
  const auto classified = ckpt::ClassifyFile(**file);
  if (data[0] == kByRecognition) {
    if (!classified) return 0;
    kind = classified->kind;
  }
  const auto read_kind = ckpt::FormatOf(kind).read;
  if (read_kind == nullptr) return 0;
  ckpt::DiagnosticList sink;
  auto read = read_kind("model.bin", std::move(*file), sink);
  if (read) {
    for (const ckpt::StoredTensor& t : read->tensors) {
      // A located tensor lies inside the file.
      if (t.data_length > 0 && (t.data_offset > size - 1 || t.data_length > size - 1 - t.data_offset)) __builtin_trap();
    }
  }
  return 0;
}
