// Reads a bounded JSON file of the artifact (header.json, weights.index.json): size
// bound first, then nesting depth (serde_json's 127 levels), then UTF-8, syntax and duplicate keys, then "is an
// object".
#pragma once

#include "lib/io/artifact_source.h"
#include "lib/model/artifact.h"
#include "lib/model/diagnostic.h"

namespace ckpt {

/// The rules a JSON file's first-stage failures are reported under.
struct JsonFileDiagnostics {
  Diag too_large;
  Diag too_deep;
  Diag not_utf8;
  Diag syntax;
  Diag duplicate_key;
  Diag not_object;
};

/// Fills `out` (name, text, doc, parsed). Findings go to `sink`; an I/O failure is returned.
[[nodiscard]] IoResult<void> ReadJsonFile(const RandomAccessFile& file, const JsonFileDiagnostics& rules, JsonFile& out,
                                          DiagnosticSink& sink);

}  // namespace ckpt
