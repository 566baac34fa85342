// Hashing throughput of the canonical content hash over a generated artifact on disk,
// against a plain Crypto++ SHA-256 of the same bytes (the hardware limit), and the cost
// of a structure-only audit (--no-hash) as the tensor count grows.
//   CKPT_BENCH_ARTIFACT=DIR  use an existing artifact (e.g. the 1 GiB one) instead of a generated 64 MiB one.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <stdexcept>
#include <vector>

#include "engine/audit.h"
#include "lib/digest/content_hash.h"
#include "lib/hashing/sha256.h"
#include "lib/io/directory_source.h"
#include "lib/load/loader.h"
#include "tests/support/artifact_builder.h"

namespace {

using ckpt::testing::ArtifactSpec;

struct BenchArtifact {
  ckpt::testing::TempDir dir;
  std::string path;
  std::uint64_t bytes = 0;
  BenchArtifact(std::size_t tensors, std::uint64_t bytes_each) {
    ArtifactSpec spec = ArtifactSpec::Uniform(tensors, bytes_each);
    ckpt::testing::WriteFiles(spec.Build(), dir.path());
    path = dir.path().string();
    bytes = tensors * bytes_each;
  }
};

// The artifact read into the model with its weight files open (no audit, no hashing).
struct Loaded {
  std::unique_ptr<ckpt::DirectorySource> source;
  ckpt::Artifact artifact;
  explicit Loaded(const std::string& path) {
    auto opened = ckpt::DirectorySource::OpenDirectory(path);
    if (!opened) throw std::runtime_error("cannot open " + path);
    source = std::move(*opened);
    ckpt::DiagnosticList sink;
    std::vector<std::string> errors;
    artifact = ckpt::LoadArtifact(path, *source, ckpt::AuditOptions{}, sink, errors);
  }
};

std::string ArtifactPath(std::uint64_t& bytes) {
  if (const char* given = std::getenv("CKPT_BENCH_ARTIFACT")) {
    Loaded loaded(given);
    bytes = 0;
    for (const auto& w : loaded.artifact.weights) bytes += w.size;
    return given;
  }
  static BenchArtifact generated(64, 1 << 20);  // 64 MiB
  bytes = generated.bytes;
  return generated.path;
}

void BM_ContentHash(benchmark::State& state) {
  std::uint64_t bytes = 0;
  const std::string path = ArtifactPath(bytes);
  Loaded loaded(path);
  ckpt::PlanOrReason plan = ckpt::BuildHashPlan(loaded.artifact);
  if (!plan.plan) {
    state.SkipWithError(plan.reason.c_str());
    return;
  }
  for (auto _ : state) {
    auto hash = ckpt::ComputeContentHash(*plan.plan, static_cast<std::size_t>(state.range(0)));
    benchmark::DoNotOptimize(hash);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(static_cast<std::uint64_t>(state.iterations()) * bytes));
  state.SetLabel(ckpt::Sha256::UsesHardware() ? "SHA extensions" : "software SHA-256");
}
BENCHMARK(BM_ContentHash)->Arg(64 << 10)->Arg(1 << 20)->Arg(4 << 20)->Unit(benchmark::kMillisecond)->UseRealTime();

// The same bytes through Crypto++ alone, read with pread in 1 MiB windows: the limit.
void BM_PlainSha256OfWeights(benchmark::State& state) {
  std::uint64_t bytes = 0;
  const std::string path = ArtifactPath(bytes);
  Loaded loaded(path);
  std::vector<std::byte> buffer(1 << 20);
  for (auto _ : state) {
    ckpt::Sha256 hash;
    for (const auto& w : loaded.artifact.weights) {
      for (std::uint64_t off = 0; off < w.size;) {
        auto n = static_cast<std::size_t>(std::min<std::uint64_t>(buffer.size(), w.size - off));
        if (!w.file->ReadAt(off, std::span(buffer).first(n))) state.SkipWithError("read failed");
        hash.Update(std::span(buffer).first(n));
        off += n;
      }
    }
    benchmark::DoNotOptimize(hash.FinalHex());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(static_cast<std::uint64_t>(state.iterations()) * bytes));
}
BENCHMARK(BM_PlainSha256OfWeights)->Unit(benchmark::kMillisecond)->UseRealTime();

// SHA-256 of 1 MiB in memory starting `range(0)` bytes past a 64-byte boundary, and after a
// 5-byte update (as a file digest meets a window placed for another stream): Sha256 hashes
// every alignment in place, where Crypto++'s own Update copies each block of an unaligned input.
void BM_Sha256InMemory(benchmark::State& state) {
  std::vector<std::byte> storage((1 << 20) + 128, std::byte{0x5A});
  const std::size_t to_boundary = (64 - reinterpret_cast<std::uintptr_t>(storage.data()) % 64) % 64;
  const std::span<const std::byte> input(storage.data() + to_boundary + static_cast<std::size_t>(state.range(0)),
                                         1 << 20);
  for (auto _ : state) {
    ckpt::Sha256 hash;
    hash.Update(input.first(5));
    hash.Update(input.subspan(5));
    benchmark::DoNotOptimize(hash.FinalHex());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * (1 << 20));
}
BENCHMARK(BM_Sha256InMemory)->Arg(0)->Arg(1)->Arg(3);

// Structure-only audit: should depend on the tensor count, not on the bytes.
void BM_StructureOnlyAudit(benchmark::State& state) {
  BenchArtifact artifact(static_cast<std::size_t>(state.range(0)), static_cast<std::uint64_t>(state.range(1)));
  ckpt::AuditOptions policy;
  policy.compute_hash = false;
  for (auto _ : state) benchmark::DoNotOptimize(ckpt::AuditPath(artifact.path, policy));
  state.counters["tensors"] = static_cast<double>(state.range(0));
  state.counters["MiB"] = static_cast<double>(artifact.bytes) / (1 << 20);
}
BENCHMARK(BM_StructureOnlyAudit)
    ->Args({256, 4 << 10})    // 1 MiB
    ->Args({256, 256 << 10})  // 64 MiB
    ->Args({2048, 512})       // 1 MiB, more tensors
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
