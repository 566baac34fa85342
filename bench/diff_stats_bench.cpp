// Throughput of the element-wise diff statistics kernel (DiffStats::Accumulate) over one
// 4 MiB window pair held in memory, for each dtype, on two kinds of data:
//   sparse: every 97th byte of B differs from A (the bench/diff_vs_numpy data);
//   dense:  every element of B is A plus a small update (what a training round produces).
// Each kernel this machine has (portable, avx2, avx512) runs separately; all give the same figures.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "lib/diff/tensor_stats.h"

namespace {

using ckpt::DiffStats;
using ckpt::ElementType;

constexpr std::size_t kWindow = 4 << 20;

struct WindowPair {
  std::vector<std::byte> a = std::vector<std::byte>(kWindow);
  std::vector<std::byte> b = std::vector<std::byte>(kWindow);
};

WindowPair MakePair(ElementType type, bool dense) {
  WindowPair pair;
  std::mt19937 random(7);
  std::normal_distribution<float> weight(0.0F, 0.05F);
  const std::size_t size = ckpt::ElementSize(type);
  for (std::size_t at = 0; at < kWindow; at += size) {
    const float value = weight(random);
    const auto bits = std::bit_cast<std::uint32_t>(value);
    // Store the top bytes for the 16-bit types: a plausible bfloat16; float16 bits are only
    // a mix of classes, which is all the kernel cares about.
    if (size == 4) {
      std::memcpy(pair.a.data() + at, &bits, 4);
    } else {
      const auto top = static_cast<std::uint16_t>(bits >> 16);
      std::memcpy(pair.a.data() + at, &top, 2);
    }
  }
  pair.b = pair.a;
  if (dense) {
    for (std::size_t at = 0; at < kWindow; at += size) pair.b[at] ^= std::byte{0x01};  // lowest mantissa bit
  } else {
    for (std::size_t at = 0; at < kWindow; at += 97) pair.b[at] ^= std::byte{0x5A};
  }
  return pair;
}

void BM_DiffStats(benchmark::State& state) {
  const auto type = static_cast<ElementType>(state.range(0));
  const auto kernel = static_cast<ckpt::StatsKernel>(state.range(2));
  const std::vector<ckpt::StatsKernel> available = ckpt::AvailableStatsKernels();
  if (std::find(available.begin(), available.end(), kernel) == available.end()) {
    state.SkipWithError("this machine lacks the kernel");
    return;
  }
  const WindowPair pair = MakePair(type, state.range(1) != 0);
  for (auto _ : state) {
    DiffStats stats;
    stats.AccumulateWith(kernel, type, pair.a, pair.b);
    benchmark::DoNotOptimize(stats);
  }
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(kWindow));
  state.SetLabel(std::string(type == ElementType::kFloat32    ? "float32"
                             : type == ElementType::kBFloat16 ? "bfloat16"
                                                              : "float16") +
                 (state.range(1) != 0 ? " dense " : " sparse ") + std::string(ckpt::StatsKernelName(kernel)));
}
BENCHMARK(BM_DiffStats)
    ->ArgsProduct({{static_cast<int>(ElementType::kFloat32), static_cast<int>(ElementType::kBFloat16),
                    static_cast<int>(ElementType::kFloat16)},
                   {0, 1},
                   {static_cast<int>(ckpt::StatsKernel::kPortable), static_cast<int>(ckpt::StatsKernel::kAvx2),
                    static_cast<int>(ckpt::StatsKernel::kAvx512)}})
    ->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
