// header.json reader (artifact-format.md section 2): the first-stage checks in the spec's
// order, schema_version before any other field, the key set of the version as written,
// the migration chain, then typed extraction. Domain checks of each field are rules in
// rules/header/ that run on the returned Header.
#pragma once

#include "lib/io/artifact_source.h"
#include "lib/model/artifact.h"
#include "lib/model/diagnostic.h"

namespace ckpt {

/// Reads header.json. Findings go to `sink`; an I/O failure of the read is returned.
[[nodiscard]] IoResult<Header> ReadHeader(const RandomAccessFile& file, DiagnosticSink& sink);

}  // namespace ckpt
