// GGUF files (inputs.md section 5), read as strictly as safetensors: versions 2 and 3,
// little-endian; counts and lengths checked against the bytes left before anything is
// allocated; typed key/values walked without recursion; ggml's type table; the data layout
// ggml's loader requires. Reads the header only: tensor bytes are located, never read.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "lib/io/artifact_source.h"
#include "lib/model/artifact.h"
#include "lib/model/diagnostic.h"

namespace ckpt {

/// One ggml type: its id, the name gguf-py gives it, elements per block and bytes per block.
struct GgmlType {
  std::uint32_t id;
  std::string_view name;
  std::uint64_t block_size;
  std::uint64_t type_size;
};

/// Every type ggml's table holds today (ids 0-3, 6-30, 34, 35, 39-42).
std::span<const GgmlType> GgmlTypes();
const GgmlType* FindGgmlType(std::uint32_t id);

/// Reads the GGUF file into the model: tensors (gguf-py type name, dims as stored, absolute
/// data region) and the file's facts (WeightFile::gguf). Diagnostics name `name` ("" for a
/// file input) with absolute offsets. An I/O failure of the tool is the error.
IoResult<WeightFile> ReadGguf(std::string name, std::unique_ptr<RandomAccessFile> file, DiagnosticSink& sink);

/// A split part's name: `<prefix>-00001-of-00003.gguf` (1-based).
struct GgufSplitName {
  std::string prefix;
  std::uint32_t index = 0;
  std::uint32_t count = 0;
};
std::optional<GgufSplitName> ParseGgufSplitName(std::string_view file_name);

/// Checks split parts read by ReadGguf as one set (names are their file names): every part
/// present and numbered as its name says (split.no 0-based, split.count), split.tensors.count
/// equal to the tensors the parts hold, no tensor in two parts. `expected` is the set the
/// first part's name announces.
void CheckGgufSplitSet(const GgufSplitName& expected, std::span<const WeightFile* const> parts, DiagnosticSink& sink);

}  // namespace ckpt
