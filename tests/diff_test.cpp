// ckpt-diff: every status, the statistics against values computed independently here
// (float16 and bfloat16 bit patterns written out by hand), NaN/Inf appearance, the gates
// firing and staying quiet, determinism across job counts, and bad input.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <bit>
#include <boost/json.hpp>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <set>

#include "engine/diff_run.h"
#include "lib/formats/polyglot.h"
#include "lib/io/directory_source.h"
#include "reports/diff_reports.h"
#include "rules/catalog.h"
#include "tests/support/built_tools.h"
#include "tests/support/history_builder.h"
#include "tests/support/prerequisite.h"
#include "tests/support/process.h"
#include "tests/support/python_fixtures.h"

namespace ckpt::testing {
namespace {

std::string U16(std::initializer_list<std::uint16_t> bits) {
  std::string out;
  for (std::uint16_t v : bits) {
    out.push_back(static_cast<char>(v & 0xFF));
    out.push_back(static_cast<char>(v >> 8));
  }
  return out;
}

struct Pair {
  TempDir dir;
  std::string a, b;
};

// A: round 0. B: round 1, child of A, with controlled changes.
std::unique_ptr<Pair> MakePair(const std::function<void(ArtifactSpec&)>& change_b = {}, bool child = true) {
  auto p = std::make_unique<Pair>();
  ArtifactSpec a = ArtifactSpec::Clean();
  a.tensors[0].data = U16({0x3E00, 0xC080, 0x3000});          // f16 bias: 1.5, -2.25, 0.125
  a.tensors[1].data = F32({1, 2, 3, 4, 5, 6});                // f32 weight
  a.tensors[2].data = U16({0x3FC0, 0x4000, 0xC040, 0x0000});  // bf16: 1.5, 2, -3, 0
  Round ra = WriteRound(p->dir.path(), "a", a);
  ArtifactSpec b = a;
  b.round_index = 1;
  b.parent_hash = child ? std::optional(ra.hash) : std::nullopt;
  if (!child) b.round_index = 0;
  b.tensors[0].data = U16({0x3E00, 0xC000, 0x3400});  // 1.5, -2, 0.25
  b.tensors[1].data = F32({1, 2.5f, 3, 4, -5, 6});
  b.tensors[2].data = U16({0x3FC0, 0x4000, 0xC040, 0x3F80});                // last: 0 -> 1
  b.tensors[4].shape = {2, 0};                                              // predictor.head.weight: layout_changed
  b.tensors.erase(b.tensors.begin() + 5);                                   // predictor.proj.weight: removed
  b.tensors.push_back({"predictor.new", "predictor", "float32", {2}, ""});  // added
  if (change_b) change_b(b);
  WriteRound(p->dir.path(), "b", b);
  p->a = (p->dir.path() / "a").string();
  p->b = (p->dir.path() / "b").string();
  return p;
}

const TensorDiff& Tensor(const DiffRun& run, const std::string& name) {
  for (const TensorDiff& t : run.tensors) {
    if (t.name == name) return t;
  }
  throw std::logic_error("no tensor " + name);
}

DiffOptions Options(unsigned jobs = 2) {
  DiffOptions o;
  o.jobs = jobs;
  return o;
}

TEST(Diff, EveryStatus) {
  auto p = MakePair();
  DiffRun run = RunDiff(p->a, p->b, Options());
  EXPECT_EQ(Tensor(run, "encoder.blocks.0.bias").status, TensorStatus::kChanged);
  EXPECT_EQ(Tensor(run, "encoder.blocks.0.weight").status, TensorStatus::kChanged);
  EXPECT_EQ(Tensor(run, "encoder.n\xC3\xA9t.w").status, TensorStatus::kChanged);
  EXPECT_EQ(Tensor(run, "predictor.head.scale").status, TensorStatus::kUnchanged);
  EXPECT_FALSE(Tensor(run, "predictor.head.scale").stats.has_value()) << "no statistics for unchanged tensors";
  EXPECT_EQ(Tensor(run, "predictor.head.weight").status, TensorStatus::kLayoutChanged);
  EXPECT_EQ(Tensor(run, "predictor.proj.weight").status, TensorStatus::kRemoved);
  EXPECT_EQ(Tensor(run, "predictor.new").status, TensorStatus::kAdded);
  EXPECT_TRUE(run.link.is_child());
  EXPECT_EQ(DiffExitCode(run, Severity::kError), kExitClean);
}

TEST(Diff, Float32StatisticsMatchAnIndependentComputation) {
  auto p = MakePair();
  DiffRun run = RunDiff(p->a, p->b, Options());
  const DiffStats& s = *Tensor(run, "encoder.blocks.0.weight").stats;
  EXPECT_EQ(s.numel, 6u);
  EXPECT_EQ(s.changed, 2u);
  EXPECT_DOUBLE_EQ(s.max_abs, 10.0);                                   // 5 -> -5
  EXPECT_DOUBLE_EQ(s.l2(), std::sqrt(0.25 + 100.0));                   // 2 -> 2.5, 5 -> -5
  EXPECT_DOUBLE_EQ(*s.rel_l2(), std::sqrt(100.25) / std::sqrt(91.0));  // ||a||^2 = 1+4+9+16+25+36
}

TEST(Diff, Float16AndBFloat16ArithmeticIsExact) {
  auto p = MakePair();
  DiffRun run = RunDiff(p->a, p->b, Options());
  const DiffStats& h = *Tensor(run, "encoder.blocks.0.bias").stats;  // 1.5,-2.25,0.125 -> 1.5,-2,0.25
  EXPECT_EQ(h.changed, 2u);
  EXPECT_DOUBLE_EQ(h.max_abs, 0.25);
  EXPECT_DOUBLE_EQ(h.l2(), std::sqrt(0.0625 + 0.015625));
  EXPECT_DOUBLE_EQ(*h.rel_l2(), std::sqrt(0.078125) / std::sqrt(2.25 + 5.0625 + 0.015625));
  const DiffStats& bf = *Tensor(run, "encoder.n\xC3\xA9t.w").stats;  // 1.5,2,-3,0 -> 1.5,2,-3,1
  EXPECT_EQ(bf.changed, 1u);
  EXPECT_DOUBLE_EQ(bf.max_abs, 1.0);
  EXPECT_DOUBLE_EQ(*bf.rel_l2(), 1.0 / std::sqrt(2.25 + 4 + 9));
  // Subnormal and extreme float16 values widen exactly.
  EXPECT_DOUBLE_EQ(WidenElement(ElementType::kFloat16, reinterpret_cast<const std::byte*>(U16({0x0001}).data())),
                   std::ldexp(1.0, -24));
  EXPECT_DOUBLE_EQ(WidenElement(ElementType::kFloat16, reinterpret_cast<const std::byte*>(U16({0x7BFF}).data())),
                   65504.0);
  EXPECT_TRUE(
      std::isinf(WidenElement(ElementType::kFloat16, reinterpret_cast<const std::byte*>(U16({0xFC00}).data()))));
}

TEST(Diff, NanAndInfAppearingAreCountedAndBitIdenticalNansAreUnchanged) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  auto p = MakePair([&](ArtifactSpec& b) {
    b.tensors[1].data = F32({nan, 2, inf, 4, 5, 7});  // A: 1..6
  });
  DiffRun run = RunDiff(p->a, p->b, Options());
  const DiffStats& s = *Tensor(run, "encoder.blocks.0.weight").stats;
  EXPECT_EQ(s.changed, 3u);
  EXPECT_EQ(s.nan_appeared, 1u);
  EXPECT_EQ(s.inf_appeared, 1u);
  EXPECT_EQ(s.non_finite_pairs, 2u);
  EXPECT_DOUBLE_EQ(s.max_abs, 1.0);  // only 6 -> 7 is finite on both sides
  // The same NaN bits on both sides are not a change; another NaN payload is, but no NaN "appeared".
  const std::string a_bits = U16({0x7E00, 0x3C00});
  DiffStats same;
  same.Accumulate(ElementType::kFloat16, std::as_bytes(std::span(a_bits.data(), a_bits.size())),
                  std::as_bytes(std::span(a_bits.data(), a_bits.size())));
  EXPECT_EQ(same.changed, 0u);
  const std::string b_bits = U16({0x7E01, 0x3C00});
  DiffStats payload;
  payload.Accumulate(ElementType::kFloat16, std::as_bytes(std::span(a_bits.data(), a_bits.size())),
                     std::as_bytes(std::span(b_bits.data(), b_bits.size())));
  EXPECT_EQ(payload.changed, 1u);
  EXPECT_EQ(payload.nan_appeared, 0u);
  EXPECT_EQ(payload.non_finite_pairs, 1u);
}

// Every kernel this machine runs (portable, AVX2, AVX-512) gives bit-identical figures on
// data that exercises every class: NaN payloads (float16 signalling ones included), +-Inf,
// subnormals, -0 vs +0, equal and changed elements, and lengths that leave a ragged tail.
TEST(Diff, EveryStatisticsKernelGivesBitIdenticalFigures) {
  const std::vector<StatsKernel> kernels = AvailableStatsKernels();
  ASSERT_EQ(kernels.front(), StatsKernel::kPortable);
  std::mt19937 rng(11);
  const std::uint32_t specials[] = {0x7F800000, 0xFF800000, 0x7FC00000, 0x7F800001, 0xFFFFFFFF,
                                    0x00000001, 0x80000000, 0x00000000, 0x3F800000, 0x7F7FFFFF};
  for (const ElementType type : {ElementType::kFloat32, ElementType::kBFloat16, ElementType::kFloat16}) {
    const std::size_t size = ElementSize(type);
    for (const std::size_t count : {std::size_t{1}, std::size_t{15}, std::size_t{17}, std::size_t{255},
                                    std::size_t{256}, std::size_t{257}, std::size_t{4099}}) {
      std::vector<std::byte> a(count * size);
      std::vector<std::byte> b(count * size);
      for (std::size_t i = 0; i < count; ++i) {
        std::uint32_t x = (rng() % 4 == 0) ? specials[rng() % std::size(specials)] : static_cast<std::uint32_t>(rng());
        std::uint32_t y = x;
        switch (rng() % 4) {
          case 0:
            break;  // unchanged
          case 1:
            y = specials[rng() % std::size(specials)];
            break;
          case 2:
            y = static_cast<std::uint32_t>(rng());
            break;
          default:
            y = x ^ (1U << (rng() % 32));
        }
        if (size == 2) {
          x >>= 16;
          y >>= 16;
        }
        std::memcpy(a.data() + i * size, &x, size);
        std::memcpy(b.data() + i * size, &y, size);
      }
      DiffStats reference;
      reference.AccumulateWith(StatsKernel::kPortable, type, a, b);
      if (count > 100) {
        EXPECT_GT(reference.changed, 0u);
      }
      for (const StatsKernel kernel : kernels) {
        DiffStats stats;
        stats.AccumulateWith(kernel, type, a, b);
        SCOPED_TRACE(std::string(StatsKernelName(kernel)) + " count " + std::to_string(count));
        EXPECT_EQ(stats.numel, reference.numel);
        EXPECT_EQ(stats.changed, reference.changed);
        EXPECT_EQ(stats.nan_appeared, reference.nan_appeared);
        EXPECT_EQ(stats.inf_appeared, reference.inf_appeared);
        EXPECT_EQ(stats.non_finite_pairs, reference.non_finite_pairs);
        EXPECT_EQ(std::bit_cast<std::uint64_t>(stats.max_abs), std::bit_cast<std::uint64_t>(reference.max_abs));
        EXPECT_EQ(std::bit_cast<std::uint64_t>(stats.squared_a.Value()),
                  std::bit_cast<std::uint64_t>(reference.squared_a.Value()));
        EXPECT_EQ(std::bit_cast<std::uint64_t>(stats.squared_diff.Value()),
                  std::bit_cast<std::uint64_t>(reference.squared_diff.Value()));
      }
    }
  }
}

TEST(Diff, StatisticsWithinOneInABillionOfAnIndependentComputationOnLargeTensors) {
  // 3 windows and a bit of float32, plus bfloat16 and float16, random values.
  TempDir dir;
  std::mt19937_64 rng(7);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  ArtifactSpec a;
  a.tensors = {{"encoder.big", "encoder", "float32", {3 * (1 << 20) + 12345}, ""},
               {"encoder.bf", "encoder", "bfloat16", {700001}, ""},
               {"encoder.half", "encoder", "float16", {700001}, ""}};
  a.FillData();
  auto fill_f32 = [&](std::string& data, float scale) {
    for (std::size_t i = 0; i + 4 <= data.size(); i += 4) {
      float v = normal(rng) * scale;
      std::memcpy(&data[i], &v, 4);
    }
  };
  auto fill_16 = [&](std::string& data, bool bf) {
    for (std::size_t i = 0; i + 2 <= data.size(); i += 2) {
      std::uint16_t bits = bf ? static_cast<std::uint16_t>(std::bit_cast<std::uint32_t>(normal(rng)) >> 16)
                              : static_cast<std::uint16_t>(0x3C00 + (rng() % 0x400) - 0x200);  // values near 1
      std::memcpy(&data[i], &bits, 2);
    }
  };
  fill_f32(a.tensors[0].data, 1.0f);
  fill_16(a.tensors[1].data, true);
  fill_16(a.tensors[2].data, false);
  ArtifactSpec b = a;
  fill_f32(b.tensors[0].data, 1.001f);
  fill_16(b.tensors[1].data, true);
  fill_16(b.tensors[2].data, false);
  WriteRound(dir.path(), "a", a);
  WriteRound(dir.path(), "b", b);
  DiffRun run = RunDiff((dir.path() / "a").string(), (dir.path() / "b").string(), Options(3));
  for (std::size_t k = 0; k < 3; ++k) {
    const TensorSpec& ta = a.tensors[k];
    const TensorSpec& tb = b.tensors[k];
    const std::size_t size = ta.dtype == "float32" ? 4 : 2;
    long double sq_diff = 0, sq_a = 0, max_abs = 0;
    for (std::size_t i = 0; i < ta.data.size(); i += size) {
      long double x = 0, y = 0;
      if (size == 4) {
        float fx, fy;
        std::memcpy(&fx, &ta.data[i], 4);
        std::memcpy(&fy, &tb.data[i], 4);
        x = static_cast<long double>(fx), y = static_cast<long double>(fy);
      } else {
        std::uint16_t bx, by;
        std::memcpy(&bx, &ta.data[i], 2);
        std::memcpy(&by, &tb.data[i], 2);
        auto widen = [&](std::uint16_t v) -> long double {
          if (ta.dtype == "bfloat16") {
            return static_cast<long double>(std::bit_cast<float>(static_cast<std::uint32_t>(v) << 16));
          }
          const int e = (v >> 10) & 0x1F, m = v & 0x3FF;  // normal numbers only in this data
          return std::ldexp(static_cast<long double>(1024 + m), e - 25) * ((v >> 15) ? -1 : 1);
        };
        x = widen(bx), y = widen(by);
      }
      sq_a += x * x;
      sq_diff += (y - x) * (y - x);
      max_abs = std::max(max_abs, std::fabs(y - x));
    }
    const DiffStats& s = *Tensor(run, ta.name).stats;
    auto rel_err = [](long double got, long double want) { return std::fabs(got - want) / std::fabs(want); };
    EXPECT_LT(rel_err(static_cast<long double>(s.l2()), std::sqrt(sq_diff)), 1e-9) << ta.name;
    EXPECT_LT(rel_err(static_cast<long double>(*s.rel_l2()), std::sqrt(sq_diff) / std::sqrt(sq_a)), 1e-9) << ta.name;
    EXPECT_LT(rel_err(static_cast<long double>(s.max_abs), max_abs), 1e-12) << ta.name;
  }
}

// Issue 9, acceptance 3: with hashing, ckpt-diff reads every byte of both rounds once: the
// content hashes and the comparison share one pass (at most the 64-byte format probe of
// each weight file is read twice).
TEST(Diff, HashingAndComparingReadEachByteOnce) {
  for (unsigned jobs : {1u, 2u}) {
    // A 1 MiB tensor changed between the rounds: a second read of compared bytes would show
    // far above the slack.
    auto p = std::make_unique<Pair>();
    ArtifactSpec a = ArtifactSpec::Clean();
    a.tensors.push_back({"predictor.big", "predictor", "float32", {262144}, std::string(1 << 20, '\x01')});
    const Round ra = WriteRound(p->dir.path(), "a", a);
    ArtifactSpec b = a;
    b.round_index = 1;
    b.parent_hash = ra.hash;
    b.tensors.back().data[4096] = '\x02';
    WriteRound(p->dir.path(), "b", b);
    p->a = (p->dir.path() / "a").string();
    p->b = (p->dir.path() / "b").string();
    std::uint64_t total = 0;
    std::uint64_t files = 0;
    std::uint64_t polyglot_search = 0;  // each weight file's head and the tail zip readers search
    for (const std::string& side : {p->a, p->b}) {
      for (const auto& entry : std::filesystem::directory_iterator(side)) {
        total += std::filesystem::file_size(entry.path());
        ++files;
        if (entry.path().extension() == ".safetensors") {
          const std::uint64_t size = std::filesystem::file_size(entry.path());
          // The head and the tail zip readers search, and the HDF5 signature's 8 bytes at 0,
          // 512, 1024, ... where h5py looks for one (formats.md section 14).
          polyglot_search +=
              1024 + std::min<std::uint64_t>(size, kZipSearchWindow) + 8 * (2 + std::bit_width(size / 512));
        }
      }
    }
    const std::uint64_t before = DirectorySource::BytesRead();
    DiffRun run = RunDiff(p->a, p->b, Options(jobs));
    const std::uint64_t read = DirectorySource::BytesRead() - before;
    EXPECT_LE(read, total + 64 * files + polyglot_search)
        << "jobs " << jobs << ": " << read << " bytes read for " << total;
    EXPECT_TRUE(run.a.artifact.computed_hash.has_value());
    EXPECT_EQ(run.a.artifact.computed_hash, run.a.artifact.header->content_hash) << "the fused hash is the hash";
    EXPECT_EQ(run.b.artifact.computed_hash, run.b.artifact.header->content_hash);
    EXPECT_EQ(Tensor(run, "predictor.big").status, TensorStatus::kChanged);
    EXPECT_EQ(Tensor(run, "encoder.blocks.0.weight").status, TensorStatus::kUnchanged);
  }
}

TEST(Diff, ResultsDoNotDependOnTheJobCount) {
  TempDir dir;
  ArtifactSpec a = ArtifactSpec::Uniform(3, (9 << 20) + 4);  // several windows per tensor
  ArtifactSpec b = a;
  for (TensorSpec& t : b.tensors) t.data[t.data.size() / 2] ^= 0x10;
  WriteRound(dir.path(), "a", a);
  WriteRound(dir.path(), "b", b);
  reports::ReportContext context;
  std::ostringstream one, four;
  reports::WriteDiffJson(one, RunDiff((dir.path() / "a").string(), (dir.path() / "b").string(), Options(1)), context);
  reports::WriteDiffJson(four, RunDiff((dir.path() / "a").string(), (dir.path() / "b").string(), Options(4)), context);
  EXPECT_EQ(one.str(), four.str());
}

// A re-laid-out tensor's layout (its dtype token and its group, the first part of its name)
// comes from the input: the text report escapes it like the name. It printed the group raw,
// so a name holding an escape sequence reached the terminal.
TEST(Diff, ALayoutInTheTextReportIsEscaped) {
  TempDir dir;
  auto safetensors = [](const std::string& shape) {
    std::string header =
        std::string("{\"\\u001b[2Jevil.w\":{\"dtype\":\"F32\",\"shape\":") + shape + ",\"data_offsets\":[0,8]}}";
    header.resize((header.size() + 7) / 8 * 8, ' ');
    std::string file(8, '\0');
    for (std::size_t b = 0; b < 8; ++b) file[b] = static_cast<char>((header.size() >> (8 * b)) & 0xFF);
    return file + header + std::string(8, '\0');
  };
  const std::string a = (dir.path() / "a.safetensors").string();
  const std::string b = (dir.path() / "b.safetensors").string();
  std::ofstream(a, std::ios::binary) << safetensors("[2]");
  std::ofstream(b, std::ios::binary) << safetensors("[1,2]");
  const DiffRun run = RunDiff(a, b, Options());
  ASSERT_EQ(Tensor(run, "\x1b[2Jevil.w").status, TensorStatus::kLayoutChanged);
  std::ostringstream text;
  reports::WriteDiffText(text, run, reports::ReportContext{});
  EXPECT_EQ(text.str().find('\x1b'), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("float32[2]"), std::string::npos) << "the layout is still shown: " << text.str();
}

// ---- gates

TEST(DiffGates, AllowChange) {
  auto p = MakePair();
  DiffOptions quiet = Options();
  quiet.allow_change = {"encoder.*", "predictor.*"};
  EXPECT_TRUE(RunDiff(p->a, p->b, quiet).findings.empty());
  DiffOptions fires = Options();
  fires.allow_change = {"encoder.blocks.*"};
  DiffRun run = RunDiff(p->a, p->b, fires);
  std::set<std::string> flagged;
  for (const Finding& f : run.findings) {
    EXPECT_EQ(f.rule->id, "diff-change-not-allowed");
    EXPECT_EQ(CodeName(f.rule->code), "CHAIN_INTEGRITY");
    flagged.insert(*f.location.tensor);
  }
  EXPECT_EQ(flagged, (std::set<std::string>{"encoder.n\xC3\xA9t.w", "predictor.head.weight", "predictor.new",
                                            "predictor.proj.weight"}));
  EXPECT_EQ(DiffExitCode(run, Severity::kError), kExitFindings);
}

TEST(DiffGates, MaxRelL2) {
  auto p = MakePair();
  DiffOptions quiet = Options();
  quiet.max_rel_l2 = {{"*", 2.0}};
  EXPECT_TRUE(RunDiff(p->a, p->b, quiet).findings.empty());
  DiffOptions fires = Options();
  fires.max_rel_l2 = {{"*", 0.2}};  // weight: 1.05, bf16 tensor: 0.26, f16 bias: 0.10
  DiffRun run = RunDiff(p->a, p->b, fires);
  std::set<std::string> flagged;
  for (const Finding& f : run.findings) {
    EXPECT_EQ(f.rule->id, "diff-rel-l2-exceeded");
    EXPECT_EQ(CodeName(f.rule->code), "CHAIN_INTEGRITY");
    flagged.insert(*f.location.tensor);
  }
  EXPECT_EQ(flagged, (std::set<std::string>{"encoder.blocks.0.weight", "encoder.n\xC3\xA9t.w"}));
  // NaN appearing exceeds any limit.
  auto q = MakePair([](ArtifactSpec& b) {
    b.tensors[1].data = F32({1, 2, 3, 4, 5, std::numeric_limits<float>::quiet_NaN()});
  });
  DiffOptions huge = Options();
  huge.max_rel_l2 = {{"*", 1e9}};
  EXPECT_EQ(RunDiff(q->a, q->b, huge).findings.size(), 1u);
}

// Issue 8 item 5: a change involving NaN or Inf exceeds every finite threshold, even 0 and
// even when no NaN or Inf "appears" (NaN -> 3e38, +Inf -> -Inf, one NaN payload to another).
TEST(DiffGates, ChangesInvolvingNanOrInfExceedEveryThreshold) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const float other_nan = std::bit_cast<float>(std::uint32_t{0x7FC00001});
  struct Case {
    const char* what;
    float from, to;
    bool fires;
  };
  for (const Case& c : {Case{"NaN -> 3e38", nan, 3e38f, true}, Case{"+Inf -> -Inf", inf, -inf, true},
                        Case{"NaN payload", nan, other_nan, true}, Case{"finite -> NaN", 6, nan, true},
                        Case{"same NaN bits (near miss)", nan, nan, false}}) {
    TempDir dir;
    ArtifactSpec a = ArtifactSpec::Clean();
    a.tensors[1].data = F32({1, 2, 3, 4, 5, c.from});
    Round ra = WriteRound(dir.path(), "a", a);
    ArtifactSpec b = a;
    b.round_index = 1;
    b.parent_hash = ra.hash;
    b.tensors[1].data = F32({1, 2, 3, 4, 5, c.to});
    WriteRound(dir.path(), "b", b);
    DiffOptions zero = Options();
    zero.max_rel_l2 = {{"*", 0}};
    DiffRun run = RunDiff((dir.path() / "a").string(), (dir.path() / "b").string(), zero);
    if (!c.fires) {
      EXPECT_TRUE(run.findings.empty()) << c.what;
      continue;
    }
    ASSERT_EQ(run.findings.size(), 1u) << c.what;
    EXPECT_EQ(run.findings[0].rule->id, "diff-rel-l2-exceeded") << c.what;
    EXPECT_NE(run.findings[0].message.find("1 changed elements involve NaN or Inf"), std::string::npos)
        << c.what << ": " << run.findings[0].message;
    EXPECT_NE(run.findings[0].message.find("which exceeds every finite threshold."), std::string::npos) << c.what;
  }
}

TEST(DiffGates, RequireChild) {
  auto child = MakePair();
  DiffOptions gate = Options();
  gate.require_child = true;
  EXPECT_TRUE(RunDiff(child->a, child->b, gate).findings.empty());
  auto orphan = MakePair({}, false);
  DiffRun run = RunDiff(orphan->a, orphan->b, gate);
  ASSERT_EQ(run.findings.size(), 1u);
  EXPECT_EQ(run.findings[0].rule->id, "diff-not-child");
  EXPECT_EQ(CodeName(run.findings[0].rule->code), "CHAIN_INTEGRITY");
  EXPECT_FALSE(run.link.is_child());
}

TEST(DiffGates, IntegrityFailureIsReportedAndTheDiffStillProduced) {
  auto p = MakePair();
  std::fstream f(p->b + "/weights.safetensors", std::ios::in | std::ios::out | std::ios::binary);
  f.seekp(-1, std::ios::end);
  f.put('\x7f');
  f.close();
  DiffRun run = RunDiff(p->a, p->b, Options());
  bool mismatch = false;
  for (const Finding& x : run.b.findings) mismatch |= x.rule->id == "hash-mismatch";
  EXPECT_TRUE(mismatch);
  EXPECT_EQ(Tensor(run, "encoder.blocks.0.weight").status, TensorStatus::kChanged);
  EXPECT_EQ(DiffExitCode(run, Severity::kError), kExitFindings);
}

TEST(DiffCatalogCoverage, EveryDiffRuleHasAGateTest) {
  // The gate tests above assert exactly these rule ids; a new diff rule needs its own test.
  const std::set<std::string> tested = {"diff-change-not-allowed", "diff-rel-l2-exceeded", "diff-not-child"};
  std::set<std::string> catalog;
  for (const rules::RuleEntry& entry : rules::AllRules()) {
    if (entry.scope() == rules::RuleScope::kDiff) catalog.insert(std::string(entry.info->id));
  }
  EXPECT_EQ(catalog, tested);
}

// ---- command line

CommandResult Cli(const std::string& args) { return RunCommand(std::string(CKPT_DIFF_BIN) + " " + args + " 2>&1"); }

// Issue 51: two plain files have no content hash, so the JSON report knows each side by its
// file's SHA-256, from the diff's own read: the bytes read stay those of one read, and --no-hash
// reports none rather than inventing one.
TEST(DiffCli, PlainFilesAreKnownByTheirSha256) {
  TempDir dir;
  const std::string header = R"({"w":{"dtype":"U8","shape":[1048576],"data_offsets":[0,1048576]}})";
  std::string prefix(8, '\0');
  for (std::size_t i = 0; i < 8; ++i) prefix[i] = static_cast<char>((header.size() >> (8 * i)) & 0xFF);
  for (const char* side : {"a", "b"}) {
    WriteText(dir.path() / (std::string(side) + ".safetensors"),
              prefix + header + std::string(1 << 20, side[0] == 'a' ? '\x01' : '\x02'));
  }
  const std::string cd = "cd " + ShellQuote(dir.path()) + " && " + CKPT_DIFF_BIN;
  const CommandResult run = RunCommand(cd + " --format json a.safetensors b.safetensors");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const boost::json::value report = boost::json::parse(run.output);
  for (const char* side : {"a", "b"}) {
    const boost::json::array& files = report.at(side).at("files").as_array();
    ASSERT_EQ(files.size(), 1u) << run.output;
    EXPECT_EQ(files[0].at("name").as_string(), std::string(side) + ".safetensors");
    const CommandResult sum = RunCommand("sha256sum " + ShellQuote(dir.path() / (std::string(side) + ".safetensors")));
    EXPECT_EQ(std::string(files[0].at("sha256").as_string()), sum.output.substr(0, 64)) << side;
  }
  // One read: what the two audits alone read (each file hashed whole once, its header parsed,
  // its head and tail searched for other formats' signatures), the digests from the same windows.
  const std::string path_a = (dir.path() / "a.safetensors").string();
  const std::string path_b = (dir.path() / "b.safetensors").string();
  const std::uint64_t before_audits = DirectorySource::BytesRead();
  (void)AuditPath(path_a, AuditOptions{});
  (void)AuditPath(path_b, AuditOptions{});
  const std::uint64_t audits = DirectorySource::BytesRead() - before_audits;
  const std::uint64_t before = DirectorySource::BytesRead();
  const DiffRun in_process = RunDiff(path_a, path_b, Options(1));
  const std::uint64_t read = DirectorySource::BytesRead() - before;
  EXPECT_LE(read, audits + std::uint64_t{128}) << read << " bytes read by the diff, " << audits << " by the two audits";
  ASSERT_EQ(in_process.a.artifact.files.size(), 1u);
  EXPECT_TRUE(in_process.a.artifact.files[0].sha256.has_value());
  const CommandResult structure = RunCommand(cd + " --no-hash --format json a.safetensors b.safetensors");
  const boost::json::value none = boost::json::parse(structure.output);
  EXPECT_TRUE(none.at("a").at("files").as_array()[0].at("sha256").is_null()) << structure.output;
}

// Issue 30, item 4: the .bin to safetensors migration confirmed: a folder of torch.save
// weights (zip, legacy, sharded) against its safetensors twin has every tensor unchanged, and
// a changed element shows as the one changed tensor.
TEST(DiffCli, ABinFolderAgainstItsSafetensorsTwin) {
  TempDir dir;
  const PythonMade made = MadeByPython("bin-twins", dir.path());
  if (made.missing_module) {
    CKPT_MISSING_PREREQUISITE() << "no python3 with torch (scripts/install-deps --test installs python3-torch): "
                                << made.problem;
  }
  ASSERT_TRUE(made.ok) << made.problem;
  const std::string twin = (dir.path() / "safetensors").string();
  for (const char* form : {"bin", "legacy", "sharded"}) {
    const CommandResult run =
        RunCommand(std::string(CKPT_DIFF_BIN) + " " + (dir.path() / form).string() + " " + twin + " 2>&1");
    EXPECT_EQ(run.exit_code, 0) << form << "\n" << run.output;
    EXPECT_NE(run.output.find("\n21 tensors: 21 unchanged; 0 gate findings"), std::string::npos) << form << "\n"
                                                                                                 << run.output;
    // Either way round.
    const CommandResult back =
        RunCommand(std::string(CKPT_DIFF_BIN) + " " + twin + " " + (dir.path() / form).string() + " 2>&1");
    EXPECT_NE(back.output.find("\n21 tensors: 21 unchanged; 0 gate findings"), std::string::npos) << back.output;
  }
  const CommandResult changed = RunCommand(std::string(CKPT_DIFF_BIN) + " --format json " +
                                           (dir.path() / "changed").string() + " " + twin + " 2>&1");
  const boost::json::object report = boost::json::parse(changed.output).as_object();
  std::map<std::string, std::string> status;
  for (const boost::json::value& t : report.at("tensors").as_array()) {
    status[std::string(t.at("name").as_string())] = std::string(t.at("status").as_string());
  }
  ASSERT_EQ(status.size(), 21u) << changed.output;
  for (const auto& [name, s] : status) {
    EXPECT_EQ(s, name == "model.layers.3.weight" ? "changed" : "unchanged") << name;
  }
}

// Issue 30, item 5: figures that read as figures. A tensor moved off zero has rel_l2 "inf
// (A is zero)"; a gate finding points at the tensor's bytes, not at header.json; the HTML
// marks the tensors that broke a gate, gives the linear share beside each log bar and says
// what the bars' ends are; paths stay as the user gave them.
TEST(DiffCli, NumbersReadAsNumbers) {
  TempDir dir;
  ArtifactSpec a = RoundSpec(0, std::nullopt);
  ArtifactSpec b = RoundSpec(1, a.ContentHash());
  ASSERT_GE(a.tensors.size(), 2u);
  a.tensors[0].data = std::string(a.tensors[0].data.size(), '\0');  // A is zero here
  b.tensors[0].data = a.tensors[0].data;
  b.tensors[0].data[1] = '\x3f';
  b.tensors[1].data = a.tensors[1].data;
  b.tensors[1].data[0] = static_cast<char>(b.tensors[1].data[0] ^ 0x01);  // a tiny move
  b.parent_hash = a.ContentHash();
  WriteFiles(a.Build(), dir.path() / "a");
  WriteFiles(b.Build(), dir.path() / "b");
  const std::string zero = a.tensors[0].name;
  const std::string moved = a.tensors[1].name;
  const std::string gate = " --max-rel-l2 " + moved.substr(0, moved.find('.')) + "=0 ";
  const std::string cd = "cd " + dir.path().string() + " && " + CKPT_DIFF_BIN;
  CommandResult text = RunCommand(cd + gate + "a b 2>&1");
  EXPECT_EQ(text.exit_code, 1) << text.output;
  EXPECT_NE(text.output.find("changed         inf (A is zero)"), std::string::npos) << text.output;
  EXPECT_EQ(text.output.find("undefined"), std::string::npos) << text.output;
  // The gate finding is located at the tensor's bytes in B's weight file.
  const std::size_t at = text.output.find("b/weights.safetensors@");
  ASSERT_NE(at, std::string::npos) << text.output;
  EXPECT_NE(text.output.find("Tensor '" + moved + "' changed too much", at), std::string::npos) << text.output;
  EXPECT_EQ(text.output.find("b/header.json:1:"), std::string::npos) << text.output;

  const std::string html = RunCommand(cd + gate + "--format html a b 2>/dev/null").output;
  EXPECT_NE(html.find("<tr class=\"gate\"><td>changed</td>"), std::string::npos) << html;
  EXPECT_NE(html.find("<span class=\"sev sev-error\">broke</span> <code>diff-rel-l2-exceeded</code>"),
            std::string::npos);
  EXPECT_NE(html.find("<p class=\"scale\">Bars: log scale over 6 decades, left edge "), std::string::npos);
  EXPECT_NE(html.find("% of the largest</td>"), std::string::npos);
  EXPECT_NE(html.find(">inf (A is zero)<"), std::string::npos);
  EXPECT_NE(html.find("A <code>a</code> &rarr; B <code>b</code>"), std::string::npos) << "relative, as given";
  EXPECT_EQ(html.find(dir.path().string()), std::string::npos) << "no absolute path the user did not give";
  // Near miss: without the gate nothing is marked.
  const std::string plain = RunCommand(cd + " --format html a b 2>/dev/null").output;
  EXPECT_EQ(plain.find("<tr class=\"gate\">"), std::string::npos);
}

// Issue 51 papercuts: -q keeps the inputs, the findings and the summary line; two names of one
// file are "the same file".
TEST(DiffCli, QuietKeepsTheFindingsAndTheSummaryLine) {
  auto p = MakePair();
  const CommandResult full = Cli(p->a + " " + p->b);
  const CommandResult quiet = Cli("-q " + p->a + " " + p->b);
  EXPECT_EQ(quiet.exit_code, full.exit_code);
  EXPECT_EQ(quiet.output.find("STATUS          REL_L2"), std::string::npos) << quiet.output;
  EXPECT_NE(full.output.find("STATUS          REL_L2"), std::string::npos) << full.output;  // the near miss
  const std::string last = full.output.substr(full.output.rfind('\n', full.output.size() - 2) + 1);
  EXPECT_EQ(quiet.output.substr(quiet.output.size() - last.size()), last) << quiet.output;
  EXPECT_EQ(quiet.output.rfind("A: " + p->a + " (", 0), 0u) << quiet.output;
  TempDir dir;
  WriteText(dir.path() / "m.safetensors",
            SafetensorsFile(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", std::string(8, '\0')));
  const std::string file = (dir.path() / "m.safetensors").string();
  const CommandResult same = Cli(file + " " + (dir.path() / "." / "m.safetensors").string());
  EXPECT_EQ(same.exit_code, 2);
  EXPECT_NE(same.output.find("A and B are the same file ('" + file + "')"), std::string::npos) << same.output;
}

TEST(DiffCli, BadInputBehavesAsDocumented) {
  auto p = MakePair();
  EXPECT_EQ(Cli(p->a + " /nonexistent/b").exit_code, 2);     // one missing
  EXPECT_EQ(Cli(p->a + " " + p->a).exit_code, 2);            // identical paths
  const CommandResult same = Cli(p->a + " " + p->a + "/.");  // same folder, other spelling
  EXPECT_EQ(same.exit_code, 2);
  EXPECT_NE(same.output.find("ckpt-diff: A and B are the same folder ('" + p->a + "'); nothing to compare"),
            std::string::npos)
      << same.output;
  EXPECT_EQ(Cli(p->a).exit_code, 2);  // one argument
  EXPECT_EQ(Cli("--max-rel-l2 -1 " + p->a + " " + p->b).exit_code, 2);
  // A broken artifact: header.json is not JSON. Reported as findings; the diff is still produced.
  std::ofstream(p->b + "/header.json", std::ios::trunc) << "{";
  CommandResult r = Cli("--format json " + p->a + " " + p->b);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  auto report = boost::json::parse(r.output).as_object();
  EXPECT_EQ(report["b"].as_object()["findings"].as_array()[0].as_object()["rule"], "header-json-syntax");
  EXPECT_FALSE(report["tensors"].as_array().empty());
}

TEST(DiffCli, JsonShape) {
  auto p = MakePair();
  CommandResult r = Cli("--format json --require-child " + p->a + " " + p->b);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  auto report = boost::json::parse(r.output).as_object();
  EXPECT_EQ(report["link"].as_object()["is_child"], true);
  for (const auto& t : report["tensors"].as_array()) {
    for (const char* key : {"name", "status", "a", "b", "stats"}) EXPECT_TRUE(t.as_object().contains(key)) << key;
  }
  const auto& first = report["tensors"].as_array()[0].as_object();
  EXPECT_EQ(first.at("name"), "encoder.blocks.0.weight") << "sorted by rel_l2, largest first";
  EXPECT_EQ(first.at("stats").as_object().at("changed"), 2);
}

TEST(DiffCli, UnreadableArtifactIsAToolError) {
  auto p = MakePair();
  std::filesystem::permissions(p->b + "/weights.safetensors", std::filesystem::perms::none);
  std::filesystem::permissions(p->dir.path(), std::filesystem::perms::all);
  const std::optional<std::string> prefix = UnprivilegedPrefix();
  if (!prefix)
    CKPT_MISSING_PREREQUISITE() << "running as root without setpriv: cannot drop privileges for a permission test";
  const std::string diff = ReachableCopy(CKPT_DIFF_BIN, p->dir.path().string());
  EXPECT_EQ(RunCommand("cd " + p->dir.path().string() + " && " + *prefix + diff + " " + p->a + " " + p->b +
                       " >/dev/null 2>&1")
                .exit_code,
            2);
}

}  // namespace
}  // namespace ckpt::testing
