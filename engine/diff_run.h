// ckpt-diff's job: audit two rounds, compare them (lib/diff), run the gates.
#pragma once

#include <string>

#include "engine/verdict.h"
#include "lib/diff/diff.h"

namespace ckpt {

/// Audits A and B (in parallel), then diffs them, streaming both weight sets once in
/// bounded memory (`jobs` threads, two 4 MiB windows each).
DiffRun RunDiff(const std::string& path_a, const std::string& path_b, const DiffOptions& options);

/// 2 if A or B could not be audited; 1 if an audit or gate finding is at or above the
/// threshold; 0 otherwise.
int DiffExitCode(const DiffRun& run, FailThreshold threshold);

}  // namespace ckpt
