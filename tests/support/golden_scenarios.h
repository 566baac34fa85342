// The three scenarios every report golden file is made from (tests/sarif_test.cpp and
// tests/report_golden_test.cpp), defined once so each format shows the same run.
#pragma once

#include <filesystem>

#include "engine/chain_run.h"
#include "engine/diff_run.h"
#include "tests/support/artifact_builder.h"

namespace ckpt::testing {

/// v1-single with a flipped data byte, a stray pickle and an invalid created_at.
Files TamperedFiles();

/// A five-round history under `root`/h with round 3 missing (a gap) and a second round 2
/// (a fork); returns the chain run with `options` (jobs and policy as the caller sets).
ChainRun RunGapAndFork(const std::filesystem::path& root, const ChainRunOptions& options);

/// Round 0 against round 2 of a three-round history under `root`, with every gate on
/// (require-child, max-rel-l2 1e-6, allow-change encoder.*).
DiffRun RunGatedDiff(const std::filesystem::path& root, DiffOptions options);

}  // namespace ckpt::testing
