// The isolated HDF5 reader's pinned limits (formats.md section 6), shared by the audit, which
// sets them on the helper from outside, and by ckpt-h5probe, which sets them on itself before
// it reads its input. Header-only: the helper links nothing of ckpt::lib.
#pragma once

#include <sys/resource.h>

#include <array>
#include <cstdint>

namespace ckpt::hdf5 {

struct ProbeLimit {
  int resource;
  rlim_t soft;
  rlim_t hard;
};

/// The pinned time limits: the most CPU time and wall-clock time the helper gets. An embedder
/// may lower them (ckpt-audit --hdf5-cpu-limit and --hdf5-wall-limit, so that a test of a helper
/// that spins or hangs waits a second, not a minute), never raise them.
inline constexpr unsigned kPinnedCpuSeconds = 20;
inline constexpr unsigned kPinnedWallSeconds = 60;

/// RLIMIT_AS 2 GiB + the file size, CPU `cpu_seconds` (hard a second later, so reaching it is
/// SIGXCPU, which names the limit, not an anonymous SIGKILL), no file writes, 16 descriptors,
/// no core, no children.
inline std::array<ProbeLimit, 6> ProbeLimits(std::uint64_t file_size, unsigned cpu_seconds = kPinnedCpuSeconds) {
  const auto address_space = static_cast<rlim_t>((std::uint64_t{2} << 30) + file_size);
  const rlim_t cpu = cpu_seconds < kPinnedCpuSeconds ? cpu_seconds : kPinnedCpuSeconds;
  return {{
      {RLIMIT_AS, address_space, address_space},
      {RLIMIT_CPU, cpu, cpu + 1},
      {RLIMIT_FSIZE, 0, 0},
      {RLIMIT_NOFILE, 16, 16},
      {RLIMIT_CORE, 0, 0},
      {RLIMIT_NPROC, 0, 0},
  }};
}

/// The most the helper's answer may hold (after its 4-byte length).
inline constexpr std::uint32_t kMaxAnswerBytes = std::uint32_t{64} << 20;

}  // namespace ckpt::hdf5
