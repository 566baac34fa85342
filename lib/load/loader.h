// Reads the artifact an ArtifactSource exposes into the model: layout, header, index and
// weight-file structure, with every file's identity. No hashing, no rules: what is wrong
// in the bytes goes to a DiagnosticSink (lib/model/diagnostic.h).
#pragma once

#include <string>
#include <vector>

#include "lib/io/artifact_source.h"
#include "lib/model/artifact.h"
#include "lib/model/diagnostic.h"

namespace ckpt {

/// Reads the artifact that `source` exposes into the model (layout, header, index, weight
/// structure) without hashing or running the catalog's checks. Weight files stay admitted
/// (released descriptors reopen on demand). Reader diagnostics go to `sink`; I/O failures
/// of the tool to `tool_errors`.
Artifact LoadArtifact(const std::string& display_path, const ArtifactSource& source, const AuditOptions& policy,
                      DiagnosticSink& sink, std::vector<std::string>& tool_errors,
                      InputKind kind = InputKind::kLensemble);

/// Checks, after the last read, that every admitted name still resolves to the identity it
/// had when admitted (device, inode, size, mtime, ctime); sets AdmittedFile::change if not.
void VerifyAdmittedFiles(Artifact& artifact, const ArtifactSource& source);

}  // namespace ckpt
