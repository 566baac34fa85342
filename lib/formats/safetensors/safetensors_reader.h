// Strict safetensors reader (artifact-format.md section 4): every check of the reference
// reader (safetensors/src/tensor.rs) plus the spec's stricter refusals and non-canonical
// warnings. Reads the 8-byte prefix and the header only; tensor bytes are never loaded.
#pragma once

#include <memory>
#include <string>

#include "lib/io/artifact_source.h"
#include "lib/model/artifact.h"
#include "lib/model/diagnostic.h"

namespace ckpt {

/// Reference reader's cap on the header length N (bytes).
inline constexpr std::uint64_t kMaxSafetensorsHeaderLength = 100'000'000;

/// Reads the structure of one weight file. Every problem is reported to `sink` (rule
/// family safetensors-*, or weights-format-* / weights-file-empty when the file fails to
/// parse and sniffing recognises it). The returned file is `valid` only if no error was
/// found; it keeps `file` open for hashing. An I/O failure of the read itself is returned
/// as an error: it is the tool's problem, not a finding.
[[nodiscard]] IoResult<WeightFile> ReadSafetensors(std::string name, std::unique_ptr<RandomAccessFile> file,
                                                   DiagnosticSink& sink);

}  // namespace ckpt
