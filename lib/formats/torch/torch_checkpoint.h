// Pickle-based files (inputs.md section 6), read without running anything: torch zip
// checkpoints (every member classified, records matched to storages), the legacy stacked
// format (every pickle analysed, storages located), plain pickles of any protocol (bytes
// after STOP analysed as further pickles) and NumPy .npy files (an object array is a
// pickle). Each reads into the format-neutral WeightFile: tensors by path name with a
// safetensors dtype token, shape and, when the bytes can be located, their region.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "lib/core/input_kind.h"
#include "lib/io/artifact_source.h"
#include "lib/model/artifact.h"
#include "lib/model/diagnostic.h"

namespace ckpt {

/// Whether a file of this kind is read by ReadPickleFamily.
bool IsPickleFamily(InputKind kind);

/// What recognition calls a file that starts with a pickle opcode and ends with STOP before
/// a syntax walk (ClassifyFile) confirms it is a pickle without a PROTO header.
inline constexpr std::string_view kHeaderlessPickleDescription = "a Python pickle (no protocol header)";

/// Analyses `file` as the pickle-family `kind`. Diagnostics name the file `name` ("" for a
/// file input) with absolute byte offsets. An I/O failure of the tool is the error.
IoResult<WeightFile> ReadPickleFamily(InputKind kind, std::string name, std::unique_ptr<RandomAccessFile> file,
                                      DiagnosticSink& sink);

/// Reads `file` as one .npy array into `wf` (its pickle facts set): a tensor named "" with
/// its bytes located in `file`, or the .npy diagnostics; an object array's pickle is analysed.
/// For a container of arrays (.npz), `file` is one member's bytes.
/// `in_npz`: an .npz member, whose object dtype and wrong size are the npz rules' findings.
IoResult<WeightFile> ReadNpy(WeightFile wf, const RandomAccessFile& file, DiagnosticSink& sink, bool in_npz = false);

}  // namespace ckpt
