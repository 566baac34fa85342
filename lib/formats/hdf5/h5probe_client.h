// Runs the isolated HDF5 reader, ckpt-h5probe (formats.md section 6), on a file's bytes. The
// helper is started with posix_spawn (no fork of the audit's heap) with an empty environment,
// only its three standard descriptors, and the pinned resource limits set on it from outside
// (prlimit) as it also sets them on itself; the bytes are the file's own read-only descriptor
// when it is one local file, else they are written to it through a pipe (at most 4 GiB). Its
// answer (a 4-byte big-endian length, then at most 64 MiB of JSON) is parsed strictly. After
// 60 s of wall-clock time (or the lower limit the embedder set) it is killed and reaped. Every way the helper can fail
// is an outcome with a reason, never an exception: the caller reports it as a finding.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "lib/formats/hdf5/h5probe_limits.h"
#include "lib/io/artifact_source.h"
#include "lib/json/json_value.h"

namespace ckpt::hdf5 {

inline constexpr std::uint64_t kMaxPipedBytes = std::uint64_t{4} << 30;

struct ProbeOutcome {
  std::optional<json::Document> answer;  ///< the helper's parsed answer, when it gave a well-formed one
  std::string failure;                   ///< otherwise why not ("was killed by signal SEGV", ...)
};

/// Where the helper is: $CKPT_H5PROBE when set (packagers, and tests that substitute a helper
/// that misbehaves), else the embedder's SetProbeFallback, else ckpt-h5probe beside the
/// running executable.
std::string ProbePath();
/// Where the helper is for a library loaded into another program (the Python module, whose
/// executable is the interpreter): its own installed or built helper.
void SetProbeFallback(std::string path);

/// The helper's time limits for this process: at most the pinned ones (h5probe_limits.h); a
/// value above them, or zero, keeps the pinned one.
struct ProbeTimes {
  unsigned cpu_seconds = kPinnedCpuSeconds;
  unsigned wall_seconds = kPinnedWallSeconds;
};
void SetProbeTimes(ProbeTimes times);
ProbeTimes CurrentProbeTimes();

/// The category of RunProbe's error when the helper cannot be started (it is missing, or not
/// executable): the tool's installation is at fault, so the audit reports a tool error.
const boost::system::error_category& ProbeStartCategory();

/// Runs the helper on `file`'s bytes. The error is an I/O failure of the audit reading `file`,
/// or the helper not starting (ProbeStartCategory).
IoResult<ProbeOutcome> RunProbe(const RandomAccessFile& file);

}  // namespace ckpt::hdf5
