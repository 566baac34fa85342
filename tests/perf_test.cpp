// Timing, scaling and peak-memory checks, under the CTest label `perf` (scripts/test runs
// them after the functional suite, one at a time). Bounds are ratios or generous limits
// that hold on a busy 2-core machine; sanitizer builds skip them (they measure ASan).
// Issue 8 items 9, 10 and 16.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>

#include "engine/audit.h"
#include "engine/chain_run.h"
#include "lib/metadata/template_analysis.h"
#include "tests/support/artifact_builder.h"
#include "tests/support/audit_helpers.h"
#include "tests/support/built_tools.h"
#include "tests/support/chat_template_corpus.h"
#include "tests/support/gguf_builder.h"
#include "tests/support/pickle_builder.h"
#include "tests/support/prerequisite.h"
#include "tests/support/process.h"

namespace ckpt::testing {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr double kMiB = 1024.0 * 1024.0;

struct Measured {
  int exit_code = -1;
  double seconds = 0;
  double peak_rss_mib = 0;
  double cpu_seconds = 0;  ///< user and system time of the children, all their threads
};

struct Command {
  std::string program;
  std::vector<std::string> args;
};

// Runs `commands` at once, each in a child, until all have exited: wall time, the worst
// exit code, and the largest peak RSS (wait4's ru_maxrss). ru_maxrss includes what the
// child had before exec, i.e. this process's pages: keep the test process small (generate
// big inputs in a helper process or by streaming).
Measured RunTogether(const std::vector<Command>& commands) {
  const auto start = Clock::now();
  std::vector<pid_t> children;
  for (const Command& command : commands) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      std::vector<std::string> copy = command.args;
      std::string program = command.program;
      std::vector<char*> argv = {program.data()};
      for (std::string& a : copy) argv.push_back(a.data());
      argv.push_back(nullptr);
      std::freopen("/dev/null", "w", stdout);
      std::freopen("/dev/null", "w", stderr);
      ::execv(program.c_str(), argv.data());
      std::_Exit(127);
    }
    children.push_back(pid);
  }
  Measured m;
  m.exit_code = 0;
  for (const pid_t pid : children) {
    int status = 0;
    struct rusage usage {};
    ::wait4(pid, &status, 0, &usage);
    m.exit_code = std::max(m.exit_code, WIFEXITED(status) ? WEXITSTATUS(status) : 255);
    m.peak_rss_mib = std::max(m.peak_rss_mib, static_cast<double>(usage.ru_maxrss) * 1024.0 / kMiB);  // KiB
    for (const timeval& t : {usage.ru_utime, usage.ru_stime}) {
      m.cpu_seconds += static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
    }
  }
  m.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return m;
}

Measured RunAudit(const std::vector<std::string>& args) { return RunTogether({{CKPT_AUDIT_BIN, args}}); }

// The fastest of three runs of `commands` (at once each time); every run must exit with at
// most `max_exit`.
Measured BestOfThree(const std::vector<Command>& commands, int max_exit) {
  Measured best;
  best.seconds = 1e9;
  for (int i = 0; i < 3; ++i) {
    const Measured m = RunTogether(commands);
    EXPECT_LE(m.exit_code, max_exit);
    if (m.seconds < best.seconds) best = m;
  }
  return best;
}

// User and system CPU seconds this process has used so far, all threads together.
double ProcessCpuSeconds() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  const auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

std::string SiblingTool(const char* name) { return (fs::path(CKPT_AUDIT_BIN).parent_path() / name).string(); }

// The reference for work on two cores, measured beside the run it judges: `openssl dgst
// -sha256` over `first` alone (one stream) and over `first` and `second` at once, in two
// processes (two streams). On some 2-core machines two SHA-256 streams run at 1.3x one, not
// 2x (shared execution units): every bound on two-core work is a ratio to this, never a
// fraction of the core count. Each side is a list of files one process hashes in turn.
struct TwoStreams {
  double one_stream = 0;   ///< seconds: the first list, one process
  double two_streams = 0;  ///< seconds: both lists at once, two processes
  /// What two streams cost against one: 1.0 where cores scale, about 1.5 where two run at 1.3x.
  [[nodiscard]] double Cost() const { return two_streams / one_stream; }
};

TwoStreams MeasureTwoStreams(const std::vector<std::string>& first, const std::vector<std::string>& second) {
  std::vector<std::string> dgst_first = {"dgst", "-sha256"};
  dgst_first.insert(dgst_first.end(), first.begin(), first.end());
  std::vector<std::string> dgst_second = {"dgst", "-sha256"};
  dgst_second.insert(dgst_second.end(), second.begin(), second.end());
  BestOfThree({{"/usr/bin/openssl", dgst_first}, {"/usr/bin/openssl", dgst_second}}, 0);  // warm the page cache
  TwoStreams streams;
  streams.one_stream = BestOfThree({{"/usr/bin/openssl", dgst_first}}, 0).seconds;
  streams.two_streams = BestOfThree({{"/usr/bin/openssl", dgst_first}, {"/usr/bin/openssl", dgst_second}}, 0).seconds;
  std::cout << "reference: openssl dgst -sha256, one stream " << streams.one_stream << " s, two streams at once "
            << streams.two_streams << " s (two cost " << streams.Cost() << "x one: the cores scale "
            << 2 / streams.Cost() << "x)\n";
  return streams;
}

void RequireOpenssl() {
  if (std::system("openssl version >/dev/null 2>&1") != 0) CKPT_MISSING_PREREQUISITE() << "openssl is missing";
}

// The files of artifacts `inputs` that hold bytes (weights and headers), split in two halves.
std::pair<std::vector<std::string>, std::vector<std::string>> FilesInHalves(const std::vector<std::string>& inputs) {
  std::vector<std::string> files;
  for (const std::string& input : inputs) {
    for (const auto& entry : fs::directory_iterator(input)) {
      if (entry.is_regular_file()) files.push_back(entry.path().string());
    }
  }
  std::sort(files.begin(), files.end());
  const auto middle = files.begin() + static_cast<std::ptrdiff_t>(files.size() / 2);
  return {std::vector<std::string>(files.begin(), middle), std::vector<std::string>(middle, files.end())};
}

// Item 9: a header.json of one huge array, at the 100,000,000-byte limit: peak RSS at most
// 4x the JSON plus 64 MiB (was 6.9 GB and 51 s for 99 MB), and quick.
TEST(Perf, HugeJsonArrayHeaderHasBoundedMemory) {
  TempDir dir;
  WriteFiles(ArtifactSpec::Clean().Build(), dir.path());
  for (const std::string unit : {"0,", "[],"}) {
    const std::size_t size = 99'000'000;
    {
      std::ofstream out(dir.path() / "header.json", std::ios::binary | std::ios::trunc);
      std::string body = "{\"schema_version\":1,\"x\":[";
      const std::size_t n = (size - body.size() - 4) / unit.size();
      std::string chunk;
      for (int i = 0; i < 4096; ++i) chunk += unit;
      out << body;
      std::size_t written = 0;
      for (; written + 4096 <= n; written += 4096) out << chunk;
      for (; written < n; ++written) out << unit;
      out << "0]}";
    }
    const double json_mib = static_cast<double>(fs::file_size(dir.path() / "header.json")) / kMiB;
    const Measured m = RunAudit({dir.path().string()});
    std::cout << "flood '" << unit << "': " << json_mib << " MiB header.json, peak RSS " << m.peak_rss_mib << " MiB, "
              << m.seconds << " s\n";
    EXPECT_EQ(m.exit_code, 1);
    EXPECT_LE(m.peak_rss_mib, 4 * json_mib + 64) << unit;
    EXPECT_LT(m.seconds, 20.0) << unit;
  }
}

// Item 9: a valid artifact with 10^6 tensors stays under 640 MiB (was 2.66 GB), i.e. at
// most 512 bytes per tensor beyond 4x its JSON plus 64 MiB.
TEST(Perf, MillionTensorArtifactUnder640MiB) {
  TempDir dir;
  // Written by a helper process: a child forked from this one would count its pages.
  const std::string make = (fs::path(CKPT_AUDIT_BIN).parent_path() / "ckpt-make-artifact").string();
  ASSERT_EQ(std::system((make + " " + dir.path().string() + " 1000000 4 >/dev/null").c_str()), 0);
  const Measured m = RunAudit({dir.path().string()});
  std::cout << "10^6 tensors: peak RSS " << m.peak_rss_mib << " MiB, " << m.seconds << " s\n";
  EXPECT_EQ(m.exit_code, 0);
  EXPECT_LT(m.peak_rss_mib, 640.0);
}

// Item 10: audit time is linear in the shard count (it was quadratic: 20,000 shards 46 s).
// The template analysis (code-in-metadata.md section 3) costs what the template's size says:
// real-shaped templates and injections concatenated to 10 KB, 100 KB and 1 MB, the time per
// byte at most 1.75x the step before (the folding's passes, the name bindings and the hazard
// list are linear; a scan of the hazards found before each one was quadratic, 8-9x per byte
// at these steps). The slack is the memory hierarchy: the 1 MB text's node table (about
// 130,000 nodes, tens of MiB folded) leaves the cache, and on a 2-core CI VM whose page faults
// are paravirtualized its time per byte measured 1.34-1.47x that of the 100 KB one.
TEST(Perf, TemplateAnalysisIsLinearInTheTemplateSize) {
  std::string unit;
  for (const auto& part : {RealShapeTemplates(), InjectionTemplates()}) {
    for (const ChatTemplateCase& c : part) unit += c.text + "\n";
  }
  const auto best_of_three = [&](std::size_t bytes) {
    std::string text;
    while (text.size() < bytes) text += unit;
    double best = 1e9;
    std::size_t hazards = 0;
    for (int run = 0; run < 3; ++run) {
      const auto start = Clock::now();
      const TemplateReading reading = ReadTemplate(text);
      best = std::min(best, std::chrono::duration<double>(Clock::now() - start).count());
      EXPECT_FALSE(reading.invalid) << reading.invalid->message;
      hazards = reading.hazards.size();
    }
    const double per_byte = best / static_cast<double>(text.size());
    std::cout << text.size() << " bytes: " << best * 1e3 << " ms (" << per_byte * 1e9 << " ns per byte), " << hazards
              << " unsafe places kept\n";
    return per_byte;
  };
  const double small = best_of_three(10'000);
  const double medium = best_of_three(100'000);
  const double large = best_of_three(1'000'000);
  EXPECT_LT(medium, 1.75 * small);
  EXPECT_LT(large, 1.75 * medium);
}

// Issue 49's acceptance: a model folder with a 10 KB chat template (chat_template.jinja) and a
// 1 MB tokenizer_config.json (5,500 added tokens) costs under 10 ms more than the same folder
// without them. Held as a ratio to that folder's own audit, measured
// beside it (median of interleaved runs): the configuration is read once, hashed beside its
// parsing, and walked once.
TEST(Perf, AChatTemplateAndAMegabyteTokenizerConfigCostMilliseconds) {
  TempDir dir;
  const fs::path plain = dir.path() / "plain";
  const fs::path chat = dir.path() / "chat";
  std::string weights = std::string(8, '\0');
  std::string header = R"({"w":{"dtype":"F32","shape":[256,256],"data_offsets":[0,262144]}})";
  header.resize((header.size() + 7) / 8 * 8, ' ');
  weights[0] = static_cast<char>(header.size());
  weights += header + std::string(262144, '\x01');
  const std::string config = R"({"architectures": ["LlamaForCausalLM"], "model_type": "llama"})";
  std::string template_text;
  while (template_text.size() < 10'000) {
    for (const ChatTemplateCase& c : RealShapeTemplates()) template_text += c.text + "\n";
  }
  template_text.resize(template_text.rfind('\n', 10'500) + 1);  // whole templates, about 10 KB
  std::string tokens = R"({"added_tokens_decoder": {)";
  for (int i = 0; tokens.size() < 1'000'000; ++i) {
    tokens += (i == 0 ? "\n" : ",\n") + std::string(R"(    ")") + std::to_string(128000 + i) +
              R"(": {"content": "<|reserved_special_token_)" + std::to_string(i) +
              R"(|>", "lstrip": false, "normalized": false, "rstrip": false, "single_word": false, "special": true})";
  }
  tokens += "\n  },\n  \"model_max_length\": 131072\n}\n";
  for (const fs::path& folder : {plain, chat}) {
    fs::create_directories(folder);
    WriteText(folder / "model.safetensors", weights);
    WriteText(folder / "config.json", config);
  }
  WriteText(chat / "tokenizer_config.json", tokens);
  WriteText(chat / "chat_template.jinja", template_text);
  std::vector<double> without;
  std::vector<double> with;
  for (int run = 0; run < 21; ++run) {
    for (const fs::path* folder : {&plain, &chat}) {
      const Measured m = RunTogether({{CKPT_AUDIT_BIN, {"-q", folder->string()}}});
      ASSERT_EQ(m.exit_code, 0) << folder->string() << " did not pass";
      (folder == &plain ? without : with).push_back(m.seconds);
    }
  }
  std::sort(without.begin(), without.end());
  std::sort(with.begin(), with.end());
  const double base = without[without.size() / 2];
  const double extra = with[with.size() / 2] - base;
  std::cout << "model folder: " << base * 1000 << " ms; with a " << template_text.size() << "-byte template and a "
            << tokens.size() << "-byte tokenizer_config.json: +" << extra * 1000 << " ms (" << extra / base
            << "x the folder's own audit)" << std::endl;
  // Measured 0.31-0.33x (+9.0-9.7 ms) on a 2-core VM whose page faults cost 10 us each.
  EXPECT_LT(extra / base, 0.5);
}

TEST(Perf, AuditTimeIsLinearInTheShardCount) {
  AuditOptions structure_only;
  structure_only.compute_hash = false;
  auto best_of_three = [&](std::size_t shards) {
    TempDir dir;
    ArtifactSpec spec = ArtifactSpec::Uniform(shards, 4);
    spec.shards = static_cast<std::uint32_t>(shards);
    WriteFiles(spec.Build(), dir.path());
    double best = 1e9;
    for (int run = 0; run < 3; ++run) {
      const auto start = Clock::now();
      AuditResult result = AuditPath(dir.path().string(), structure_only);
      best = std::min(best, std::chrono::duration<double>(Clock::now() - start).count());
      EXPECT_TRUE(result.tool_errors.empty());
    }
    return best;
  };
  const double small = best_of_three(1000);
  const double large = best_of_three(10000);
  std::cout << "1,000 shards: " << small << " s; 10,000 shards: " << large << " s\n";
  EXPECT_LT(large, 30 * small) << "quadratic would be about 100x";
}

// Issue 50 item 1: a Hugging Face model folder of N one-tensor shards and its index costs what N
// says. Each rule over the index's shards used to list them from the whole weight_map with a
// linear de-duplication, and one did so per weight file: 10,000 shards took 254 s (N^2.5);
// the mapped files are now collected once when the index is read. Structure only, in-process
// (no process start-up in the ratio), best of three, at 100, 1,000 and 10,000 shards.
TEST(Perf, AModelFolderIsLinearInItsShardCount) {
  AuditOptions structure_only;
  structure_only.compute_hash = false;
  TempDir dir;
  const auto write_folder = [&](std::size_t shards) {
    fs::path folder = dir.path() / std::to_string(shards);
    fs::create_directories(folder);
    std::string weight_map;
    for (std::size_t i = 0; i < shards; ++i) {
      std::array<char, 64> name{};
      std::snprintf(name.data(), name.size(), "model-%05zu-of-%05zu.safetensors", i + 1, shards);
      std::string header = R"({"t)" + std::to_string(i) + R"(":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})";
      header.resize((header.size() + 7) / 8 * 8, ' ');
      std::string file(8, '\0');
      for (std::size_t b = 0; b < 8; ++b) file[b] = static_cast<char>((header.size() >> (8 * b)) & 0xFF);
      WriteText(folder / name.data(), file + header + std::string(16, '\0'));
      weight_map += (i == 0 ? "\"t" : ",\"t") + std::to_string(i) + "\":\"" + name.data() + "\"";
    }
    WriteText(folder / "model.safetensors.index.json", R"({"metadata":{"total_size":)" + std::to_string(16 * shards) +
                                                           R"(},"weight_map":{)" + weight_map + "}}");
    WriteText(folder / "config.json", R"({"model_type":"llama"})");
    return folder;
  };
  // Each size alone (its folder written, measured best of five, removed), so that one size's
  // files do not crowd another's caches.
  const std::vector<std::size_t> counts = {100, 1000, 10000};
  std::vector<double> best(counts.size(), 1e9);
  for (std::size_t i = 0; i < counts.size(); ++i) {
    const fs::path folder = write_folder(counts[i]);
    for (int run = 0; run < 5; ++run) {
      // CPU time of this process (every thread, user and system): a virtual machine's stolen
      // time and other tenants do not count, as they do in wall time.
      const double start = ProcessCpuSeconds();
      const AuditResult result = AuditPath(folder.string(), structure_only);
      best[i] = std::min(best[i], ProcessCpuSeconds() - start);
      EXPECT_TRUE(result.findings.empty() && result.tool_errors.empty()) << counts[i] << " shards";
    }
    fs::remove_all(folder);
  }
  std::cout << "model folder shards: 100 " << best[0] << " s, 1,000 " << best[1] << " s, 10,000 " << best[2] << " s ("
            << best[2] / best[1] << "x for 10x)" << std::endl;
  EXPECT_LE(best[2] / best[1], 12.0) << "10x the shards may cost at most 12x the time";
}

// The same through the tool, for an artifact as a GNU tar with a JSON report: a member looked
// up by name, and each file's format facts looked up among the weight files, by scanning,
// made 10,000 shards cost 20.9x what 1,000 cost (0.60 s); measured 7.5x (0.18 s) since.
TEST(Perf, ATarOfManyShardsAndItsReportAreLinear) {
  if (std::system("tar --version >/dev/null 2>&1") != 0) CKPT_MISSING_PREREQUISITE() << "GNU tar is missing";
  TempDir dir;
  auto best_of_three = [&](std::size_t shards) {
    const fs::path folder = dir.path() / std::to_string(shards);
    ArtifactSpec spec = ArtifactSpec::Uniform(shards, 4);
    spec.shards = static_cast<std::uint32_t>(shards);
    WriteFiles(spec.Build(), folder);
    const std::string tar = folder.string() + ".tar";
    EXPECT_EQ(std::system(("cd '" + folder.string() + "' && tar -cf '" + tar + "' *").c_str()), 0);
    return BestOfThree({{CKPT_AUDIT_BIN, {"--no-hash", "--format", "json", "-o", "/dev/null", tar}}}, 0).seconds;
  };
  const double small = best_of_three(1000);
  const double large = best_of_three(10000);
  std::cout << "tar of 1,000 shards: " << small << " s; of 10,000: " << large << " s (" << large / small << "x)\n";
  EXPECT_LT(large, 13 * small) << "a lookup by scanning made it 21x";
}

// Issue 9, acceptance 3: SARIF's file digests are computed beside the content hash, from the
// same reads, on the other core: --format sarif costs about what --format json does
// (measured 1.03-1.07x on 1 GiB, medians of 8-10 alternating runs: the two streams and the
// reads share both cores, where JSON's reads run on the idle one). The bound is what a busy machine allows
// while still catching a second, serial read of the bytes (about 2x).
TEST(Perf, SarifCostsAboutWhatJsonCosts) {
  TempDir dir;
  const std::string make = (fs::path(CKPT_AUDIT_BIN).parent_path() / "ckpt-make-artifact").string();
  ASSERT_EQ(std::system((make + " " + dir.path().string() + "/a 64 4194304 >/dev/null").c_str()), 0);  // 256 MiB
  auto best_of_three = [&](const char* format) {
    return BestOfThree({{CKPT_AUDIT_BIN,
                         {"--format", format, "-o", (dir.path() / "report").string(), (dir.path() / "a").string()}}},
                       0)
        .seconds;
  };
  best_of_three("json");  // warm the page cache
  const double json = best_of_three("json");
  const double sarif = best_of_three("sarif");
  RequireOpenssl();
  const std::string weights = (dir.path() / "a" / "weights.safetensors").string();
  const TwoStreams reference = MeasureTwoStreams({weights}, {weights});
  std::cout << "256 MiB: --format json " << json << " s, --format sarif " << sarif << " s (" << sarif / json
            << "x; two streams of the same bytes cost " << reference.Cost() << "x one)\n";
  EXPECT_LT(sarif / json, 1.25 * std::max(1.0, reference.Cost()));
}

// Issue 52's acceptance: writing the CycloneDX BOM beside the JSON report adds at most 5% to
// the audit of a 1 GiB artifact. The BOM lists every file by SHA-256, digested beside the
// content hash from the same reads on the other core (as SARIF's), so the cost is that second
// stream, never a second read. Medians of 7 interleaved runs of each, after a warm-up.
TEST(Perf, ACycloneDxBomAddsAtMostFivePercentToAGibibyteAudit) {
  TempDir dir;
  const std::string artifact = (dir.path() / "a").string();
  ASSERT_EQ(std::system((SiblingTool("ckpt-make-artifact") + " " + artifact + " 1 1073741824 >/dev/null").c_str()), 0);
  const std::string json = "json=" + (dir.path() / "r.json").string();
  const std::string bom = "cyclonedx=" + (dir.path() / "r.cdx.json").string();
  const Command json_alone{CKPT_AUDIT_BIN, {"-q", "--report", json, artifact}};
  const Command with_bom{CKPT_AUDIT_BIN, {"-q", "--report", json, "--report", bom, artifact}};
  ASSERT_EQ(RunTogether({with_bom}).exit_code, 0);  // warm the page cache
  std::vector<double> without;
  std::vector<double> with;
  for (int run = 0; run < 7; ++run) {
    without.push_back(RunTogether({json_alone}).seconds);
    with.push_back(RunTogether({with_bom}).seconds);
  }
  std::sort(without.begin(), without.end());
  std::sort(with.begin(), with.end());
  const double base = without[without.size() / 2];
  const double bom_cost = with[with.size() / 2] / base;
  std::cout << "1 GiB: --report json " << base << " s; with --report cyclonedx beside it " << with[with.size() / 2]
            << " s (" << bom_cost << "x)\n";
  EXPECT_LE(bom_cost, 1.05);
  EXPECT_TRUE(fs::exists(dir.path() / "r.cdx.json"));
}

// Issue 14, acceptance 3: --jobs 2 audits several large inputs on both cores (each audit on
// its own core, without a read-ahead thread of its own), the report byte-identical to --jobs 1.
// Measured 1.86x on 8 artifacts of 128 MiB on an idle 2-core machine; the bound leaves room
// for a busy one.
TEST(Perf, JobsTwoAuditsEightArtifactsOnBothCores) {
  TempDir dir;
  const std::string history = (dir.path() / "h").string();
  ASSERT_EQ(std::system((SiblingTool("ckpt-make-history") + " " + history + " 8 134217728 >/dev/null").c_str()), 0);
  std::vector<std::string> inputs(8);
  for (std::size_t i = 0; i < inputs.size(); ++i) inputs[i] = history + "/round-000" + std::to_string(i);
  auto run = [&](const char* jobs, const std::string& report) {
    std::vector<std::string> args = {"--jobs", jobs, "--format", "json", "-o", report};
    args.insert(args.end(), inputs.begin(), inputs.end());
    return BestOfThree({{CKPT_AUDIT_BIN, args}}, 0).seconds;
  };
  const std::string one_report = (dir.path() / "one.json").string();
  const std::string two_report = (dir.path() / "two.json").string();
  run("1", one_report);  // warm the page cache
  const double one = run("1", one_report);
  const double two = run("2", two_report);
  RequireOpenssl();
  const auto [first_half, second_half] = FilesInHalves(inputs);
  const TwoStreams reference = MeasureTwoStreams(first_half, second_half);
  std::cout << "8 x 128 MiB: --jobs 1 " << one << " s, --jobs 2 " << two << " s (" << one / two
            << "x faster); two openssl dgst over 4 artifacts each at once " << reference.two_streams << " s (--jobs 2 "
            << two / reference.two_streams << "x that)\n";
  EXPECT_LE(two / reference.two_streams, 1.15);
  std::ifstream a(one_report, std::ios::binary);
  std::ifstream b(two_report, std::ios::binary);
  const std::string first((std::istreambuf_iterator<char>(a)), std::istreambuf_iterator<char>());
  const std::string second((std::istreambuf_iterator<char>(b)), std::istreambuf_iterator<char>());
  EXPECT_EQ(first, second);
}

// The SHA-256 single-stream limit of this machine, in bytes per second, as `openssl speed`
// measures it (16 KiB blocks), now.
double OpensslSha256Rate() {
  const CommandResult speed = RunCommand("openssl speed -bytes 16384 -seconds 2 sha256 2>/dev/null | tail -n 1");
  // "sha256    2011420.04k": thousands of bytes per second.
  const std::size_t k = speed.output.rfind('k');
  const std::size_t space = speed.output.rfind(' ', k);
  if (k == std::string::npos || space == std::string::npos) return 0;
  return std::stod(speed.output.substr(space + 1, k - space - 1)) * 1000.0;
}

// Issue 31, item 3: a 1 GiB Lensemble audit runs at the SHA-256 limit (goal 1.03x; measured
// 1.0-1.04x on an idle 2-core VM; the margin is for a busy machine), the limit measured by
// openssl speed in the same run. What is compared is the hashing: the audit of a 1 KiB artifact,
// measured beside it, is the tool's fixed cost (loading its libraries, about 25 ms on a VM whose
// page faults are paravirtualized, 3-4% of this audit) and is taken off. A thread spinning for
// its turn instead of sleeping gained 2-3% idle but doubled two audits run at once, and cost
// 15-30% even yielding: not done.
TEST(Perf, OneAuditRunsAtTheSha256Limit) {
  RequireOpenssl();
  TempDir dir;
  const std::string artifact = (dir.path() / "a").string();
  ASSERT_EQ(std::system((SiblingTool("ckpt-make-artifact") + " " + artifact + " 1 1073741824 >/dev/null").c_str()), 0);
  const std::vector<Command> audit = {
      {CKPT_AUDIT_BIN, {"--format", "json", "-o", (dir.path() / "r.json").string(), artifact}}};
  const std::string tiny = (dir.path() / "tiny").string();
  ASSERT_EQ(std::system((SiblingTool("ckpt-make-artifact") + " " + tiny + " 1 1024 >/dev/null").c_str()), 0);
  const std::vector<Command> fixed_cost = {
      {CKPT_AUDIT_BIN, {"--format", "json", "-o", (dir.path() / "tiny.json").string(), tiny}}};
  // The 1 GiB just written goes to disk first: the kernel's writeback of it would otherwise run
  // beside the audit (a full perf run measured 1.13x where the test alone measures 1.08x).
  ::sync();
  BestOfThree(audit, 0);  // warm the page cache
  const Measured measured = BestOfThree(audit, 0);
  const double fixed = BestOfThree(fixed_cost, 0).seconds;
  const double rate = OpensslSha256Rate();
  ASSERT_GT(rate, 0);
  const double limit = 1073741824.0 / rate;
  const double hashing = measured.seconds - fixed;
  std::cout << "1 GiB audit " << measured.seconds << " s, of which the tool's fixed cost (a 1 KiB audit) " << fixed
            << " s; SHA-256 limit " << limit << " s (" << hashing / limit << "x), peak " << measured.peak_rss_mib
            << " MiB\n";
  EXPECT_LE(hashing / limit, 1.12);
  EXPECT_LT(measured.peak_rss_mib, 64.0);
}

// Issue 31, item 3: ckpt-chain --jobs 2 on 40 x 16 MiB rounds, against the reference of two
// `openssl dgst -sha256` processes hashing half the rounds each at once (issue 46: never a
// fraction of the core count; two streams run at 1.3x one on some 2-core machines). Measured
// 1.09-1.20x that here: the chain also opens, reads and judges 40 headers and sets up a ring per
// round, which openssl does not. Reports identical for --jobs 1 and 2.
TEST(Perf, ChainJobsTwoOnFortyRounds) {
  TempDir dir;
  const std::string history = (dir.path() / "h").string();
  ASSERT_EQ(std::system((SiblingTool("ckpt-make-history") + " " + history + " 40 16777216 >/dev/null").c_str()), 0);
  const std::string chain = (fs::path(CKPT_AUDIT_BIN).parent_path() / "ckpt-chain").string();
  auto run = [&](const char* jobs, const std::string& report) {
    return BestOfThree({{chain, {"--jobs", jobs, "--format", "json", "-o", report, history}}}, 0);
  };
  const std::string one_report = (dir.path() / "one.json").string();
  const std::string two_report = (dir.path() / "two.json").string();
  run("1", one_report);  // warm the page cache
  const Measured one = run("1", one_report);
  const Measured two = run("2", two_report);
  RequireOpenssl();
  std::vector<std::string> rounds;
  for (const auto& entry : fs::directory_iterator(history)) {
    if (entry.is_directory()) rounds.push_back(entry.path().string());
  }
  const auto [first_half, second_half] = FilesInHalves(rounds);
  const TwoStreams reference = MeasureTwoStreams(first_half, second_half);
  std::cout << "40 x 16 MiB: --jobs 1 " << one.seconds << " s, --jobs 2 " << two.seconds << " s ("
            << one.seconds / two.seconds << "x); two openssl dgst over 20 rounds each at once " << reference.two_streams
            << " s (--jobs 2 " << two.seconds / reference.two_streams << "x that), peak " << two.peak_rss_mib
            << " MiB\n";
  EXPECT_LE(two.seconds / reference.two_streams, 1.35);
  std::ifstream a(one_report, std::ios::binary);
  std::ifstream b(two_report, std::ios::binary);
  const std::string first((std::istreambuf_iterator<char>(a)), std::istreambuf_iterator<char>());
  const std::string second((std::istreambuf_iterator<char>(b)), std::istreambuf_iterator<char>());
  EXPECT_FALSE(first.empty());
  EXPECT_EQ(first, second);
}

// Issue 31, item 1: the files of one input are hashed on every core. A model folder of
// 2 x 512 MiB shards takes at most 0.6x the time of the same 1 GiB as one safetensors file
// (the limit on 2 cores is 0.5x); the reports of --jobs 1 and --jobs 2 are byte-identical,
// and the folder's peak memory stays under 64 MiB.
TEST(Perf, AModelFolderHashesItsShardsOnEveryCore) {
  TempDir dir;
  const fs::path sharded = dir.path() / "sharded";
  const fs::path single = dir.path() / "single";
  ASSERT_EQ(
      std::system((SiblingTool("ckpt-make-artifact") + " " + sharded.string() + " 2 536870912 2 >/dev/null").c_str()),
      0);
  ASSERT_EQ(
      std::system((SiblingTool("ckpt-make-artifact") + " " + single.string() + " 2 536870912 >/dev/null").c_str()), 0);
  // The shards as a Hugging Face model folder (config.json, the transformers shard names).
  const fs::path folder = dir.path() / "model";
  fs::create_directories(folder);
  fs::rename(sharded / "weights-00000-of-00002.safetensors", folder / "model-00001-of-00002.safetensors");
  fs::rename(sharded / "weights-00001-of-00002.safetensors", folder / "model-00002-of-00002.safetensors");
  std::ofstream(folder / "config.json") << R"({"model_type": "llama"})";
  const std::string file = (dir.path() / "one.safetensors").string();  // alone, out of its artifact
  fs::rename(single / "weights.safetensors", file);
  const std::string report = (dir.path() / "r.json").string();
  auto audit = [&](const std::string& input, const char* jobs, const std::string& out) {
    return BestOfThree({{CKPT_AUDIT_BIN, {"--jobs", jobs, "--format", "json", "-o", out, input}}}, 1);
  };
  audit(file, "2", report);  // warm the page cache
  audit(folder.string(), "2", report);
  const Measured one_file = audit(file, "2", report);
  const Measured two_files = audit(folder.string(), "2", report);
  RequireOpenssl();
  const TwoStreams reference = MeasureTwoStreams({(folder / "model-00001-of-00002.safetensors").string()},
                                                 {(folder / "model-00002-of-00002.safetensors").string()});
  std::cout << "1 GiB as one file " << one_file.seconds << " s, as 2 shards of a model folder " << two_files.seconds
            << " s (" << two_files.seconds / one_file.seconds << "x); two openssl dgst of the shards at once "
            << reference.two_streams << " s (the folder " << two_files.seconds / reference.two_streams
            << "x that), peak " << two_files.peak_rss_mib << " MiB\n";
  EXPECT_LE(two_files.seconds / reference.two_streams, 1.10);
  EXPECT_LT(two_files.peak_rss_mib, 64.0);
  // The same report whatever the number of workers.
  const std::string one_report = (dir.path() / "one.json").string();
  const std::string two_report = (dir.path() / "two.json").string();
  audit(folder.string(), "1", one_report);
  audit(folder.string(), "2", two_report);
  std::ifstream a(one_report, std::ios::binary);
  std::ifstream b(two_report, std::ios::binary);
  const std::string first((std::istreambuf_iterator<char>(a)), std::istreambuf_iterator<char>());
  const std::string second((std::istreambuf_iterator<char>(b)), std::istreambuf_iterator<char>());
  EXPECT_FALSE(first.empty());
  EXPECT_EQ(first, second);
}

// Issue 15, acceptance 5: converting a 1 GiB torch zip costs at most 1.3x copying it (cp)
// plus one SHA-256 pass over it: the input is read once (its SHA-256 on one core while the
// other copies and hashes each tensor), and the output read back is hashed on both cores.
// Peak RSS stays under 64 MiB.
TEST(Perf, ConvertingCostsAboutACopyAndAHash) {
  TempDir dir;
  const std::string input = (dir.path() / "model.pt").string();
  pk::WriteTorchZipFile(input, 256, std::uint64_t{1} << 20);  // 256 float32 tensors of 4 MiB
  const std::string output = (dir.path() / "model.safetensors").string();
  const std::string copy = (dir.path() / "copy.pt").string();
  auto convert = [&] {
    std::filesystem::remove(output);
    return RunTogether({{SiblingTool("ckpt-convert"), {input, "-o", output}}});
  };
  // The same work done by standard tools: a copy, then what the conversion hashes, on the
  // cores it uses: two streams of the input at once (its digest on one core, the tensors'
  // on the other), then the output read back as two half streams.
  auto baseline = [&] {
    std::filesystem::remove(copy);
    const Measured cp = RunTogether({{"/bin/cp", {input, copy}}});
    // coreutils' sha256sum does not use SHA-NI: openssl dgst runs at the hardware's pace.
    const Measured both = RunTogether(
        {{"/usr/bin/openssl", {"dgst", "-sha256", input}}, {"/usr/bin/openssl", {"dgst", "-sha256", copy}}});
    return cp.seconds + 1.5 * both.seconds;
  };
  convert();  // warm the page cache
  double best_convert = 1e9;
  double best_baseline = 1e9;
  double peak_rss = 0;
  for (int i = 0; i < 3; ++i) {
    const Measured m = convert();
    EXPECT_EQ(m.exit_code, 0);
    best_convert = std::min(best_convert, m.seconds);
    peak_rss = std::max(peak_rss, m.peak_rss_mib);
    best_baseline = std::min(best_baseline, baseline());
  }
  std::cout << "1 GiB torch zip: ckpt-convert " << best_convert << " s, cp + 1.5 x two openssl dgst -sha256 at once "
            << best_baseline << " s (" << best_convert / best_baseline << "x), peak RSS " << peak_rss << " MiB\n";
  EXPECT_LE(best_convert / best_baseline, 1.25);
  EXPECT_LT(peak_rss, 64.0);
}

// Issue 9, acceptance 3: ckpt-diff hashes both rounds and compares them in one read of each
// byte, one thread a side, so it costs about what hashing both rounds on two cores costs (two
// audits at once): measured 1.05-1.1x on an idle machine (2 cores, AVX-512 statistics). A second
// read of either side, or the sides one after the other, would be about 2x. Peak RSS stays
// under 32 MiB whatever the size.
// Issue 31, item 2: it also costs what hashing both rounds costs with the fastest standard tool,
// `openssl dgst -sha256` on each round at once, in the same run. That, not the `openssl speed`
// limit, is the floor here: each core must copy its round out of the page cache as well as hash
// it, which openssl speed (16 KiB blocks in L1) never does. Measured on 2 x 512 MiB rounds on an
// idle 2-core VM: ckpt-diff 0.98-1.08x the two openssl dgst, which are themselves 1.15-1.35x the
// speed limit (printed). The bounds leave room for a busy machine.
TEST(Perf, DiffCostsWhatHashingBothRoundsCosts) {
  RequireOpenssl();
  TempDir dir;
  const std::string history = (dir.path() / "h").string();
  constexpr std::uint64_t kRoundBytes = std::uint64_t{512} << 20;
  ASSERT_EQ(std::system(
                (SiblingTool("ckpt-make-history") + " " + history + " 2 " + std::to_string(kRoundBytes) + " >/dev/null")
                    .c_str()),
            0);
  const std::string a = history + "/round-0000";
  const std::string b = history + "/round-0001";
  const std::vector<Command> diff = {
      {SiblingTool("ckpt-diff"), {"--format", "json", "-o", (dir.path() / "r.json").string(), a, b}}};
  const std::vector<Command> both_audits = {{CKPT_AUDIT_BIN, {"--format", "json", a}},
                                            {CKPT_AUDIT_BIN, {"--format", "json", b}}};
  const std::vector<Command> both_dgst = {{"/usr/bin/openssl", {"dgst", "-sha256", a + "/weights.safetensors"}},
                                          {"/usr/bin/openssl", {"dgst", "-sha256", b + "/weights.safetensors"}}};
  BestOfThree(diff, 1);  // warm the page cache
  const Measured audits = BestOfThree(both_audits, 1);
  const Measured hashed = BestOfThree(both_dgst, 0);
  const Measured compared = BestOfThree(diff, 1);
  const double rate = OpensslSha256Rate();
  ASSERT_GT(rate, 0);
  const double limit = 2 * static_cast<double>(kRoundBytes) / rate / 2;  // both rounds on two cores
  std::cout << "2 x 512 MiB: ckpt-diff " << compared.seconds << " s; two audits at once " << audits.seconds << " s ("
            << compared.seconds / audits.seconds << "x); openssl dgst of both at once " << hashed.seconds << " s ("
            << compared.seconds / hashed.seconds << "x); against the speed limit " << limit << " s: ckpt-diff "
            << compared.seconds / limit << "x, openssl dgst " << hashed.seconds / limit << "x; peak "
            << compared.peak_rss_mib << " MiB\n";
  EXPECT_LT(compared.seconds, 1.5 * audits.seconds);
  EXPECT_LE(compared.seconds / hashed.seconds, 1.25);
  EXPECT_LT(compared.peak_rss_mib, 32.0);
}

// Issue 10, acceptance 3: an artifact audited as a tar costs what the same artifact costs as
// a directory (members are read in place at their offsets: measured 1.0x on 1 GiB), and
// --format sarif with every file's digest costs at most a little more than --format json
// (measured 1.03-1.07x on 1 GiB: one read of every byte feeds both SHA-256 streams, each on
// its own core, and the two threads share the reads). Peak RSS stays small.
TEST(Perf, TarCostsWhatTheDirectoryCosts) {
  TempDir dir;
  const std::string make = SiblingTool("ckpt-make-artifact");
  ASSERT_EQ(std::system((make + " " + dir.path().string() + "/a 64 4194304 >/dev/null").c_str()), 0);  // 256 MiB
  const std::string tar = (dir.path() / "a.tar").string();
  ASSERT_EQ(std::system(("tar -cf " + tar + " -C " + (dir.path() / "a").string() + " .").c_str()), 0);
  const std::string report = (dir.path() / "report").string();
  auto best_of_three = [&](const std::vector<std::string>& args) { return BestOfThree({{CKPT_AUDIT_BIN, args}}, 0); };
  best_of_three({"--format", "json", "-o", report, tar});  // warm the page cache
  const Measured directory = best_of_three({"--format", "json", "-o", report, (dir.path() / "a").string()});
  const Measured as_tar = best_of_three({"--format", "json", "-o", report, tar});
  const Measured sarif = best_of_three({"--format", "sarif", "-o", report, tar});
  std::cout << "256 MiB: directory " << directory.seconds << " s, tar " << as_tar.seconds << " s ("
            << as_tar.seconds / directory.seconds << "x), tar --format sarif " << sarif.seconds << " s ("
            << sarif.seconds / as_tar.seconds << "x), peak RSS " << std::max(as_tar.peak_rss_mib, sarif.peak_rss_mib)
            << " MiB\n";
  RequireOpenssl();
  const std::string weights = (dir.path() / "a" / "weights.safetensors").string();
  const TwoStreams reference = MeasureTwoStreams({weights}, {weights});
  EXPECT_LT(as_tar.seconds, 1.4 * directory.seconds);
  EXPECT_LT(sarif.seconds / as_tar.seconds, 1.25 * std::max(1.0, reference.Cost()));
  EXPECT_LT(std::max(as_tar.peak_rss_mib, sarif.peak_rss_mib), 32.0);
}

// Regression: name lookups and JSON positions were once quadratic in the tensor count.
TEST(Perf, StructureAuditIsLinearInTheTensorCount) {
  AuditOptions structure_only;
  structure_only.compute_hash = false;
  auto best_of_three = [&](std::size_t tensors) {
    ArtifactSpec spec = ArtifactSpec::Uniform(tensors, 4);
    spec.tensors.push_back({"encoder.action_head.w", "encoder", "float32", {1}, ""});  // one finding to locate
    const Files files = spec.Build();
    double best = 1e9;
    for (int run = 0; run < 3; ++run) {
      const auto start = Clock::now();
      AuditResult result = AuditFiles(files, structure_only);
      best = std::min(best, std::chrono::duration<double>(Clock::now() - start).count());
      EXPECT_EQ(FindingsOf(result, "residency-action-head").size(), 1u) << Describe(result);
    }
    return best;
  };
  const double small = best_of_three(2000);
  const double large = best_of_three(20000);
  std::cout << "2,000 tensors: " << small << " s; 20,000 tensors: " << large << " s\n";
  EXPECT_LT(large, 30 * small) << "quadratic would be about 100x";
}

TEST(Perf, TenThousandTinyArtifactsInSeconds) {
  TempDir dir;
  ArtifactSpec spec;
  spec.tensors = {{"encoder.w", "encoder", "float32", {1}, ""}};
  spec.FillData();
  const Files files = spec.Build();
  for (int i = 0; i < 10000; ++i) {
    WriteFiles(files, dir.path() / ("g" + std::to_string(i / 100)) / ("a" + std::to_string(i)));
  }
  ChainRunOptions options;
  options.jobs = 2;
  const auto start = Clock::now();
  ChainRun run = RunChain({dir.path().string()}, options);
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  std::cout << "10,000 artifacts audited and linked in " << seconds << " s\n";
  EXPECT_EQ(run.graph.nodes.size(), 10000u);
  EXPECT_LT(seconds, 20.0);
}

// Issue 50 item 1: cost grows no faster than the work. Each dimension is measured at three sizes
// a decade apart, each size's fixture written before it is measured and removed after, by the CPU
// time of the fastest of three runs of the tool (stolen time and other tenants do not count, as
// they do in wall time); process start-up is in every run, so the smallest size's ratio is
// flattered and the largest decade is the one that shows a superlinear cost. 10x the work may cost
// at most 12x (n log n at these sizes is about 11x; quadratic is 100x).
struct Growth {
  std::string what;
  std::vector<std::size_t> sizes;
  std::vector<double> cpu_seconds;
  std::vector<double> peak_mib;

  [[nodiscard]] double Exponent() const {
    return std::log(cpu_seconds.back() / cpu_seconds.front()) /
           std::log(static_cast<double>(sizes.back()) / static_cast<double>(sizes.front()));
  }
};

// `make(size, dir)` writes a fixture under `dir` and returns the tool's command for it.
Growth MeasureGrowth(const std::string& what, const std::vector<std::size_t>& sizes,
                     const std::function<Command(std::size_t, const fs::path&)>& make, int max_exit = 0) {
  Growth growth{what, sizes, {}, {}};
  for (const std::size_t size : sizes) {
    TempDir dir;
    const Command command = make(size, dir.path());
    Measured best;
    best.cpu_seconds = 1e9;
    for (int run = 0; run < 3; ++run) {
      const Measured m = RunTogether({command});
      EXPECT_LE(m.exit_code, max_exit) << what << " at " << size;
      if (m.cpu_seconds < best.cpu_seconds) best = m;
    }
    growth.cpu_seconds.push_back(best.cpu_seconds);
    growth.peak_mib.push_back(best.peak_rss_mib);
  }
  std::cout << what << ":";
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    std::cout << " " << sizes[i] << " " << growth.cpu_seconds[i] << " s CPU (" << growth.peak_mib[i] << " MiB)";
  }
  std::cout << "; exponent " << growth.Exponent() << std::endl;
  return growth;
}

void ExpectLinearGrowth(const Growth& growth) {
  for (std::size_t i = 1; i < growth.sizes.size(); ++i) {
    EXPECT_LE(growth.cpu_seconds[i] / growth.cpu_seconds[i - 1], 12.0)
        << growth.what << ": " << growth.sizes[i] << " cost " << growth.cpu_seconds[i] / growth.cpu_seconds[i - 1]
        << "x what " << growth.sizes[i - 1] << " cost";
  }
}

// A safetensors file of `count` one-element F32 tensors.
std::string ManyTensorSafetensors(std::size_t count) {
  std::string header = "{";
  for (std::size_t i = 0; i < count; ++i) {
    header += (i == 0 ? "\"layers." : ",\"layers.") + std::to_string(i) + R"(.weight":{"dtype":"F32","shape":[1],)" +
              R"("data_offsets":[)" + std::to_string(4 * i) + "," + std::to_string(4 * i + 4) + "]}";
  }
  header += "}";
  header.resize((header.size() + 7) / 8 * 8, ' ');
  std::string file(8, '\0');
  for (std::size_t b = 0; b < 8; ++b) file[b] = static_cast<char>((header.size() >> (8 * b)) & 0xFF);
  return file + header + std::string(4 * count, '\0');
}

// Issue 50 items 1 and 5: 10x the tensors costs at most 12x the time, and a file's peak memory
// is at most 3x its header's bytes plus 32 MiB (was 4.4x at 10^6: the header's text, its parsed
// tape and every tensor were held at once; the reader now gives back the pages behind it).
TEST(Perf, GrowthInTensorsIsLinear) {
  std::vector<double> header_mib;
  const Growth growth = MeasureGrowth("tensors of one safetensors file, --no-hash", {10000, 100000, 1000000},
                                      [&header_mib](std::size_t n, const fs::path& dir) {
                                        const fs::path file = dir / "model.safetensors";
                                        const std::string bytes = ManyTensorSafetensors(n);
                                        header_mib.push_back(static_cast<double>(bytes.size() - 8 - 4 * n) / kMiB);
                                        WriteText(file, bytes);
                                        return Command{CKPT_AUDIT_BIN, {"--no-hash", "-q", file.string()}};
                                      });
  ExpectLinearGrowth(growth);
  for (std::size_t i = 0; i < growth.sizes.size(); ++i) {
    std::cout << growth.sizes[i] << " tensors: peak " << growth.peak_mib[i] << " MiB, header " << header_mib[i]
              << " MiB, bound " << 3 * header_mib[i] + 32 << " MiB" << std::endl;
    EXPECT_LE(growth.peak_mib[i], 3 * header_mib[i] + 32) << growth.sizes[i] << " tensors";
  }
}

// Issue 50 item 5: the usual hub layout of 10^6 tensors, 141 shards and an index, costs at most
// 2x the time of one file with the same tensors, and its peak memory is at most 3x the JSON it
// must read (the shards' headers and the index, which is kept to locate findings) plus 32 MiB.
// Was 57 s and 952 MiB in the issue; 6.0 s and 511 MiB before the weight_map held each name
// once and the repeated-name rule stopped building a map of every name.
TEST(Perf, AHubFolderOfAMillionTensorsCostsAboutOneFile) {
  constexpr std::size_t kTensors = 1000000;
  constexpr std::size_t kShards = 141;
  TempDir dir;
  const fs::path folder = dir.path() / "model";
  fs::create_directories(folder);
  std::uint64_t json_bytes = 0;
  std::string index = R"({"metadata":{"total_size":)" + std::to_string(4 * kTensors) + R"(},"weight_map":{)";
  const std::size_t per_shard = (kTensors + kShards - 1) / kShards;
  for (std::size_t shard = 0; shard < kShards; ++shard) {
    char name[64];
    std::snprintf(name, sizeof name, "model-%05zu-of-%05zu.safetensors", shard + 1, kShards);
    const std::size_t first = shard * per_shard;
    const std::size_t last = std::min(kTensors, first + per_shard);
    std::string header = "{";
    for (std::size_t i = first; i < last; ++i) {
      const std::string tensor = "layers." + std::to_string(i) + ".weight";
      header += (i == first ? "\"" : ",\"") + tensor + R"(":{"dtype":"F32","shape":[1],"data_offsets":[)" +
                std::to_string(4 * (i - first)) + "," + std::to_string(4 * (i - first) + 4) + "]}";
      index += (i == 0 ? "\"" : ",\"") + tensor + "\":\"" + name + "\"";
    }
    header += "}";
    header.resize((header.size() + 7) / 8 * 8, ' ');
    json_bytes += header.size();
    std::string file(8, '\0');
    for (std::size_t b = 0; b < 8; ++b) file[b] = static_cast<char>((header.size() >> (8 * b)) & 0xFF);
    WriteText(folder / name, file + header + std::string(4 * (last - first), '\0'));
  }
  index += "}}";
  json_bytes += index.size();
  WriteText(folder / "model.safetensors.index.json", index);
  WriteText(folder / "config.json", R"({"model_type": "llama"})");
  const fs::path single = dir.path() / "model.safetensors";
  WriteText(single, ManyTensorSafetensors(kTensors));

  auto fastest = [](const std::vector<std::string>& args) {
    Measured best;
    best.seconds = 1e9;
    for (int run = 0; run < 2; ++run) {
      const Measured m = RunAudit(args);
      EXPECT_EQ(m.exit_code, 0);
      if (m.seconds < best.seconds) best = m;
    }
    return best;
  };
  const Measured one_file = fastest({"--no-hash", "-q", single.string()});
  const Measured hub = fastest({"--no-hash", "-q", folder.string()});
  const double json_mib = static_cast<double>(json_bytes) / kMiB;
  std::cout << "10^6 tensors: one file " << one_file.seconds << " s, " << one_file.peak_rss_mib << " MiB; " << kShards
            << " shards and an index " << hub.seconds << " s (" << hub.seconds / one_file.seconds << "x), "
            << hub.peak_rss_mib << " MiB for " << json_mib << " MiB of JSON (bound " << 3 * json_mib + 32 << ")"
            << std::endl;
  EXPECT_LE(hub.seconds, 2 * one_file.seconds);
  EXPECT_LE(hub.peak_rss_mib, 3 * json_mib + 32);
}

TEST(Perf, GrowthInPickleValuesIsLinear) {
  // A protocol 2 list of `n` small ints, appended a thousand at a time (what a pickled list is).
  ExpectLinearGrowth(MeasureGrowth(
      "values of one pickle, --no-hash", {100000, 1000000, 10000000},
      [](std::size_t n, const fs::path& dir) {
        std::string pickle("\x80\x02]q\x00(", 6);
        for (std::size_t i = 0; i < n; ++i) {
          pickle += 'K';
          pickle += static_cast<char>(i & 0xFF);
          if (i % 1000 == 999) pickle += "e(";
        }
        pickle += "e.";
        const fs::path file = dir / "values.pkl";
        WriteText(file, pickle);
        return Command{CKPT_AUDIT_BIN, {"--no-hash", "-q", file.string()}};
      },
      1));
}

TEST(Perf, GrowthInGgufKeyValuesIsLinear) {
  ExpectLinearGrowth(
      MeasureGrowth("key/values of one GGUF file", {10000, 100000, 1000000}, [](std::size_t n, const fs::path& dir) {
        std::string file("GGUF", 4);
        auto le = [&file](std::uint64_t v, int bytes) {
          for (int i = 0; i < bytes; ++i, v >>= 8) file += static_cast<char>(v & 0xFF);
        };
        le(3, 4);
        le(0, 8);
        le(n, 8);
        for (std::size_t i = 0; i < n; ++i) {
          const std::string key = "test.key." + std::to_string(i);
          le(key.size(), 8);
          file += key;
          le(4, 4);  // u32
          le(i, 4);
        }
        const fs::path path = dir / "kv.gguf";
        WriteText(path, file);
        return Command{CKPT_AUDIT_BIN, {"-q", path.string()}};
      }));
}

// Issue 50 item 5: a JSON report lists every tensor, written as it is made: a file of 3 x 10^5
// tensors and a diff of two files of 10^5 cost about the memory of the runs without the list
// (they held every tensor as a JSON value first: at 10^6 tensors 667 MiB against 368, and the
// diff 336 against 185).
TEST(Perf, TensorListsAreWrittenAsTheyAreMade) {
  TempDir dir;
  const fs::path million = dir.path() / "many.safetensors";
  WriteText(million, ManyTensorSafetensors(300000));
  const Measured quiet = RunAudit({"--no-hash", "-q", million.string()});
  const Measured json = RunAudit({"--no-hash", "-f", "json", "-o", (dir.path() / "r.json").string(), million.string()});
  EXPECT_EQ(quiet.exit_code, 0);
  EXPECT_EQ(json.exit_code, 0);
  const fs::path a = dir.path() / "a.safetensors";
  const fs::path b = dir.path() / "b.safetensors";
  std::string tensors = ManyTensorSafetensors(100000);
  WriteText(a, tensors);
  tensors.back() = '\x01';
  WriteText(b, tensors);
  const Measured diff_text = RunTogether({{CKPT_DIFF_BIN, {a.string(), b.string()}}});
  const Measured diff_json =
      RunTogether({{CKPT_DIFF_BIN, {"-f", "json", "-o", (dir.path() / "d.json").string(), a.string(), b.string()}}});
  std::cout << "3 x 10^5 tensors: -q " << quiet.peak_rss_mib << " MiB, JSON report " << json.peak_rss_mib
            << " MiB; ckpt-diff of 10^5: text " << diff_text.peak_rss_mib << " MiB, JSON " << diff_json.peak_rss_mib
            << " MiB" << std::endl;
  EXPECT_LE(json.peak_rss_mib, quiet.peak_rss_mib * 1.1 + 8);
  EXPECT_LE(diff_json.peak_rss_mib, diff_text.peak_rss_mib * 1.1 + 8);
  // Issue 50 item 5: a diff of 10^5 tensors under 128 MiB (was 154: a roll-up map node per
  // name prefix and two copies of every tensor's layout).
  EXPECT_LT(diff_text.peak_rss_mib, 128.0);
  EXPECT_LT(diff_json.peak_rss_mib, 128.0);
  EXPECT_LE(diff_text.exit_code, 1);
  EXPECT_LE(diff_json.exit_code, 1);
}

// `count` safetensors files of 1 to 4 KiB in `dir`, and a list of their paths for --inputs-from.
fs::path WriteSmallFiles(std::size_t count, const fs::path& dir, std::vector<std::string>& paths) {
  fs::create_directories(dir);
  std::string list;
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t elements = (1024 + (i * 7919) % 3072) / 4;
    std::string header = R"({"w":{"dtype":"F32","shape":[)" + std::to_string(elements) + R"(],"data_offsets":[0,)" +
                         std::to_string(4 * elements) + "]}}";
    header.resize((header.size() + 7) / 8 * 8, ' ');
    std::string file(8, '\0');
    for (std::size_t b = 0; b < 8; ++b) file[b] = static_cast<char>((header.size() >> (8 * b)) & 0xFF);
    std::string data(4 * elements, '\0');
    for (std::size_t b = 0; b < data.size(); ++b) data[b] = static_cast<char>((b * 131 + i) & 0x7F);
    const fs::path path = dir / ("f" + std::to_string(i) + ".safetensors");
    file += header;
    file += data;
    WriteText(path, file);
    paths.push_back(path.string());
    list += path.string();
    list += '\n';
  }
  fs::path list_file = dir.parent_path() / (dir.filename().string() + ".list");
  WriteText(list_file, list);
  return list_file;
}

// Issue 50 items 1 and 3: thousands of small files through --inputs-from cost about what
// reading them costs. Each file used to cost a listing and a stat of its whole folder and a
// 1 MiB read window mapped and unmapped (10,000 files took 171 s here, 10.5 s in the issue).
// Against `sha256sum` of the same files (wall time, fastest of three, page cache warm): what
// hashing adds to the structure-only run is at most 3x sha256sum, and each file beyond process
// start-up costs at most 8x what it costs sha256sum (measured 0.06 s over structure and 3.2x).
TEST(Perf, GrowthInInputsIsLinearAndSmallFilesCostMicroseconds) {
  ExpectLinearGrowth(
      MeasureGrowth("files through --inputs-from", {100, 1000, 10000}, [](std::size_t n, const fs::path& dir) {
        std::vector<std::string> paths;
        const fs::path list = WriteSmallFiles(n, dir / "files", paths);
        return Command{CKPT_AUDIT_BIN, {"--inputs-from", list.string(), "-f", "json", "-o", (dir / "r.json").string()}};
      }));
  if (std::system("sha256sum --version >/dev/null 2>&1") != 0) CKPT_MISSING_PREREQUISITE() << "sha256sum is missing";
  TempDir dir;
  std::vector<std::string> paths;
  const fs::path list = WriteSmallFiles(10000, dir.path() / "files", paths);
  const std::string report = (dir.path() / "r.json").string();
  const Measured hashed =
      BestOfThree({{CKPT_AUDIT_BIN, {"--inputs-from", list.string(), "-f", "json", "-o", report}}}, 0);
  const Measured structure =
      BestOfThree({{CKPT_AUDIT_BIN, {"--no-hash", "--inputs-from", list.string(), "-f", "json", "-o", report}}}, 0);
  const Measured one = BestOfThree({{CKPT_AUDIT_BIN, {"-f", "json", "-o", report, paths.front()}}}, 0);
  const Measured sha256sum = BestOfThree({{"/usr/bin/sha256sum", paths}}, 0);
  const Measured sha256sum_one = BestOfThree({{"/usr/bin/sha256sum", {paths.front()}}}, 0);
  const double per_file = (hashed.seconds - one.seconds) / (sha256sum.seconds - sha256sum_one.seconds);
  std::cout << "10,000 files of 1-4 KiB: audit " << hashed.seconds << " s, structure only " << structure.seconds
            << " s, one file " << one.seconds << " s; sha256sum " << sha256sum.seconds << " s (one file "
            << sha256sum_one.seconds << " s). Hashing adds " << (hashed.seconds - structure.seconds) / sha256sum.seconds
            << "x sha256sum; a file beyond start-up costs " << per_file << "x sha256sum's; peak " << hashed.peak_rss_mib
            << " MiB" << std::endl;
  EXPECT_LE((hashed.seconds - structure.seconds) / sha256sum.seconds, 3.0);
  EXPECT_LE(per_file, 8.0);
}

// Issue 50 items 1 and 3: ckpt-chain grows linearly in its rounds, and signing a statement for
// each of 1,000 rounds (--attest) costs at most 2x linking them: it cost 5.9x when the statements
// were signed one after another and written through a second open, 1.9x while each statement
// fingerprinted the rule catalog twice, field by field, and 1.6-1.8x since (a statement also
// needs every file's own SHA-256, a signature and a file of its own, which the chain does not).
TEST(Perf, GrowthInRoundsIsLinearAndAttestingThemCostsAboutTheChain) {
  ExpectLinearGrowth(
      MeasureGrowth("rounds through ckpt-chain", {10, 100, 1000}, [](std::size_t n, const fs::path& dir) {
        const std::string history = (dir / "h").string();
        EXPECT_EQ(std::system(
                      (SiblingTool("ckpt-make-history") + " " + history + " " + std::to_string(n) + " 65536 >/dev/null")
                          .c_str()),
                  0);
        return Command{CKPT_CHAIN_BIN, {"-q", history}};
      }));
  if (std::system("openssl version >/dev/null 2>&1") != 0) CKPT_MISSING_PREREQUISITE() << "openssl is missing";
  TempDir dir;
  const std::string history = (dir.path() / "h").string();
  ASSERT_EQ(std::system((SiblingTool("ckpt-make-history") + " " + history + " 1000 65536 >/dev/null").c_str()), 0);
  const std::string key = (dir.path() / "key.pem").string();
  ASSERT_EQ(std::system(("openssl genpkey -algorithm ed25519 -out '" + key + "' 2>/dev/null").c_str()), 0);
  // The rounds in name order, as a shell's round-* gives them and as ckpt-chain reads them (in
  // the directory's own order every file operation costs half as much again on ext4).
  std::vector<std::string> rounds;
  for (const auto& entry : fs::directory_iterator(history)) rounds.push_back(entry.path().string());
  std::sort(rounds.begin(), rounds.end());
  std::vector<std::string> attest = {"--attest", key, "--attestation-out", "", "-q"};
  attest.insert(attest.end(), rounds.begin(), rounds.end());
  // The rounds just written are on disk first: the kernel's writeback of 64 MiB would otherwise
  // land on the runs that write files (the statements), not on the chain, which writes none.
  ::sync();
  // What the file system charges for 1,000 statement-sized files written atomically (a
  // temporary file renamed over its name), measured beside: on ext4, soon after many files were
  // deleted, inode allocation scans for inodes not recently freed and this alone costs about
  // what the whole chain costs (it writes no file).
  const std::string statement(1829, 's');
  auto write_files = [&](const fs::path& folder) {
    fs::create_directories(folder);
    const auto start = Clock::now();
    for (int i = 0; i < 1000; ++i) {
      const fs::path name = folder / ("round-" + std::to_string(i) + ".audit.dsse.json");
      std::string temporary = (folder / ".statement.XXXXXX").string();
      const int fd = ::mkstemp(temporary.data());
      EXPECT_GE(fd, 0);
      EXPECT_EQ(::write(fd, statement.data(), statement.size()), static_cast<ssize_t>(statement.size()));
      ::close(fd);
      EXPECT_EQ(::rename(temporary.c_str(), name.c_str()), 0);
    }
    return std::chrono::duration<double>(Clock::now() - start).count();
  };
  double chain = 1e9;
  double signing = 1e9;
  double writing = 1e9;
  for (int run = 0; run < 4; ++run) {  // interleaved, the fastest of each
    chain = std::min(chain, RunTogether({{CKPT_CHAIN_BIN, {"-q", history}}}).seconds);
    attest[3] = (dir.path() / ("statements" + std::to_string(run))).string();
    const Measured m = RunTogether({{CKPT_AUDIT_BIN, attest}});
    EXPECT_EQ(m.exit_code, 0);
    signing = std::min(signing, m.seconds);
    writing = std::min(writing, write_files(dir.path() / ("files" + std::to_string(run))));
  }
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path() / "statements3"), fs::directory_iterator()), 1000);
  std::cout << "1,000 rounds of 64 KiB: ckpt-chain " << chain << " s, ckpt-audit --attest " << signing << " s ("
            << signing / chain << "x); writing 1,000 files of that size atomically here " << writing << " s"
            << std::endl;
  // The tool's own cost at most 2x the chain's, with what the file system charges for the
  // statements' files on top and 10% for a busy machine (measured 1.8-2.0x the chain on a settled
  // file system, 2.2-4x where writing the files alone cost up to as much as the chain).
  EXPECT_LE(signing, 1.1 * (2.0 * chain + writing));
}

// Hostile inputs end quickly whatever they claim (the functional suite checks what they say).
TEST(Perf, HostileInputsEndQuickly) {
  Files files = ArtifactSpec::Clean().Build();
  const std::string bytes = files.at("weights.safetensors");
  const auto start = Clock::now();
  for (std::size_t cut = 0; cut < bytes.size(); ++cut) {
    Files cut_files = files;
    cut_files["weights.safetensors"] = bytes.substr(0, cut);
    (void)AuditFiles(cut_files);
  }
  const double per_case =
      std::chrono::duration<double>(Clock::now() - start).count() / static_cast<double>(bytes.size());
  std::cout << "truncated weights: " << per_case * 1e3 << " ms per case\n";
  EXPECT_LT(per_case, 0.5);
}

// Bytes this process has read through read(2)/pread(2) so far (/proc/self/io rchar).
std::uint64_t BytesRead() {
  std::ifstream io("/proc/self/io");
  std::string key;
  std::uint64_t value = 0;
  while (io >> key >> value) {
    if (key == "rchar:") return value;
  }
  return 0;
}

// The fastest of 20 in-process --no-hash audits of `path` (each must list `tensors` tensors
// and find nothing), and the bytes the first of them read.
struct StructureTiming {
  double seconds = 0;
  std::uint64_t bytes_read = 0;
};
StructureTiming TimeStructureAudit(const std::string& path, std::size_t tensors) {
  AuditOptions structure;
  structure.compute_hash = false;
  StructureTiming out;
  const std::uint64_t before = BytesRead();
  (void)AuditPath(path, structure);
  out.bytes_read = BytesRead() - before;
  out.seconds = 1e9;
  for (int i = 0; i < 20; ++i) {
    const auto start = Clock::now();
    const AuditResult r = AuditPath(path, structure);
    out.seconds = std::min(out.seconds, std::chrono::duration<double>(Clock::now() - start).count());
    EXPECT_EQ(r.artifact.weights.at(0).tensors.size(), tensors);
  }
  return out;
}

// Best-of-three hashed audits of `file` and of a 1 GiB safetensors file made beside it.
std::pair<Measured, Measured> HashedAgainstSafetensors(const std::string& file, const fs::path& dir) {
  const std::string make = SiblingTool("ckpt-make-artifact");
  EXPECT_EQ(std::system((make + " " + (dir / "a").string() + " 64 16777216 >/dev/null").c_str()), 0);  // 1 GiB
  // Out of its artifact: a Lensemble weight file given alone beside its header.json is
  // input-shard-alone.
  const std::string safetensors = (dir / "plain.safetensors").string();
  fs::rename(dir / "a" / "weights.safetensors", safetensors);
  const std::string report = (dir / "report").string();
  BestOfThree({{CKPT_AUDIT_BIN, {"--format", "json", "-o", report, file}}}, 0);  // warm the page cache
  const Measured measured = BestOfThree({{CKPT_AUDIT_BIN, {"--format", "json", "-o", report, file}}}, 0);
  const Measured plain = BestOfThree({{CKPT_AUDIT_BIN, {"--format", "json", "-o", report, safetensors}}}, 0);
  return {measured, plain};
}

// Issue 11 item 4: a 1 GiB torch.save checkpoint with --no-hash reads the pickle and the zip
// directory only (about as fast as a 1 MiB one with the same tensors); hashed, it costs what
// a safetensors file of its size costs (the data records' CRC-32s checked on a second core).
TEST(Perf, TorchCheckpointStructureReadsOnlyThePickleAndTheDirectory) {
  TempDir dir;
  const std::string big = (dir.path() / "big.pt").string();
  const std::string small = (dir.path() / "small.pt").string();
  pk::WriteTorchZipFile(big, 64, std::uint64_t{4} << 20);    // 64 x 16 MiB = 1 GiB
  pk::WriteTorchZipFile(small, 64, std::uint64_t{4} << 10);  // 64 x 16 KiB = 1 MiB
  const StructureTiming big_run = TimeStructureAudit(big, 64);
  const StructureTiming small_run = TimeStructureAudit(small, 64);
  std::cout << "--no-hash: 1 GiB " << big_run.seconds * 1e3 << " ms, 1 MiB " << small_run.seconds * 1e3 << " ms ("
            << big_run.seconds / small_run.seconds << "x); bytes read for 1 GiB: " << big_run.bytes_read << std::endl;
  EXPECT_LT(big_run.bytes_read, std::uint64_t{256} << 10);      // the pickle, the directory, the local headers
  EXPECT_LT(big_run.seconds, 1.2 * small_run.seconds + 0.002);  // 2 ms of slack for a busy machine's timer noise
  // Hashed: the same cost as a safetensors file of the same size.
  const auto [torch, plain] = HashedAgainstSafetensors(big, dir.path());
  std::cout << "hashed 1 GiB: torch zip " << torch.seconds << " s, safetensors " << plain.seconds << " s ("
            << torch.seconds / plain.seconds << "x), peak RSS " << torch.peak_rss_mib << " MiB\n";
  EXPECT_LT(torch.seconds, 1.25 * plain.seconds);
  EXPECT_LT(torch.peak_rss_mib, 32.0);
}

// Issue 46, acceptance: checkpoints the size real tools write (a 50 MiB Flax msgpack as
// flax.serialization writes it, a 100 MiB npz, a 100 MiB joblib of arrays) each pass, within
// 64 MiB of peak memory and at most 1.5x the time sha256sum takes over the same file, measured
// beside it. Small fixtures hid a crash on every real Flax checkpoint.
TEST(Perf, RealShapedCheckpointsPassAtHashingSpeed) {
  TempDir dir;
  const CommandResult made =
      RunCommand("/usr/bin/python3 tests/real_shapes/make_large.py " + ShellQuote(dir.path().string()) + " 2>&1");
  if (made.exit_code != 0) CKPT_MISSING_PREREQUISITE() << "make_large.py (numpy, msgpack, joblib): " << made.output;
  for (const char* name : {"flax_model.msgpack", "model.npz", "model.joblib"}) {
    const std::string file = (dir.path() / name).string();
    const std::vector<Command> audit = {
        {CKPT_AUDIT_BIN, {"--format", "json", "-o", (dir.path() / "report.json").string(), file}}};
    const std::vector<Command> sha256sum = {{"/usr/bin/sha256sum", {file}}};
    BestOfThree(sha256sum, 0);  // warm the page cache
    const Measured audited = BestOfThree(audit, 0);
    const Measured hashed = BestOfThree(sha256sum, 0);
    const double mib = static_cast<double>(std::filesystem::file_size(file)) / (1 << 20);
    std::cout << name << " (" << mib << " MiB): ckpt-audit " << audited.seconds << " s, sha256sum " << hashed.seconds
              << " s (" << audited.seconds / hashed.seconds << "x), peak " << audited.peak_rss_mib << " MiB"
              << std::endl;  // flushed before the next child is forked
    EXPECT_EQ(audited.exit_code, 0) << name << " did not pass";
    EXPECT_LT(audited.peak_rss_mib, 64.0) << name;
    EXPECT_LE(audited.seconds / hashed.seconds, 1.5) << name;
  }
}

// Issue 50 item 2: a real torch.save of 10^6 tensors (Debian torch, data.pkl about 100 MB)
// passes, within inputs.md section 6's 64 MiB plus 16 times the pickle's size. It peaked at
// 1.8 GiB (over the 1.66 GiB bound) and took 46 s: four maps of records and storage keys held a
// tree node for every tensor; they are sorted vectors now (1.46 GiB, 30 s).
TEST(Perf, AMillionTensorTorchSavePassesWithinItsMemoryBound) {
  TempDir dir;
  const std::string file = (dir.path() / "model.pt").string();
  const CommandResult made = RunCommand(
      "/usr/bin/python3 -c 'import sys, torch, zipfile\n"
      "torch.save({f\"layers.{i}.weight\": torch.zeros(1) for i in range(1000000)}, sys.argv[1])\n"
      "print(next(i.file_size for i in zipfile.ZipFile(sys.argv[1]).infolist() if "
      "i.filename.endswith(\"/data.pkl\")))' " +
      ShellQuote(file) + " 2>&1");
  if (made.exit_code != 0) CKPT_MISSING_PREREQUISITE() << "python3-torch: " << made.output;
  const double pickle_mib = std::stod(made.output) / kMiB;
  const Measured m = RunAudit({"-q", file});
  std::cout << "torch.save of 10^6 tensors: data.pkl " << pickle_mib << " MiB, peak " << m.peak_rss_mib
            << " MiB (bound " << 64 + 16 * pickle_mib << "), " << m.seconds << " s" << std::endl;
  EXPECT_EQ(m.exit_code, 0) << "a real torch.save of 10^6 tensors must pass";
  EXPECT_LE(m.peak_rss_mib, 64 + 16 * pickle_mib);
}

// Issue 11 item 3: hostile pickles end in a finding within 1 s; peak RSS within the bound of
// inputs.md section 6, 64 MiB plus 16 times the pickle's size (the budgets scale with it).
TEST(Perf, HostilePicklesEndWithinASecondAndTheirMemoryBound) {
  TempDir dir;
  // Written to files first, so this process is small when the audits fork from it (a
  // child's peak RSS counts the parent's pages it started with).
  auto write = [&](const std::string& name, const std::function<void(std::ofstream&)>& body) {
    std::ofstream out(dir.path() / name, std::ios::binary);
    body(out);
  };
  const std::string huge_length =
      pk::Proto(4) + "\x8d" + std::string("\x00\x00\x00\x00\x00\x00\x00\x40", 8) + pk::kStop;
  write("dup-storm.pkl",
        [](std::ofstream& o) { o << pk::Proto(2) << pk::kEmptyList << std::string(3'000'000, '2') << pk::kStop; });
  write("deep.pkl", [](std::ofstream& o) {
    o << pk::Proto(2);
    for (int i = 0; i < 1000; ++i) o << pk::kEmptyList << pk::kMark;
    o << pk::kStop;
  });
  write("huge-length.pkl", [&](std::ofstream& o) { o << huge_length; });
  write("huge-length.pt", [&](std::ofstream& o) { o << pk::TorchZip(huge_length, {}); });
  write("value-storm.pkl", [](std::ofstream& o) {
    o << pk::Proto(2);
    for (int i = 0; i < 3'000'000; ++i) o << "K\x01";
    o << pk::kStop;
  });
  write("list-storm.pkl", [](std::ofstream& o) {
    o << pk::Proto(2);
    for (int i = 0; i < 3'000'000; ++i) o << pk::kEmptyList;
    o << pk::kStop;
  });
  write("tuple-storm.pkl", [](std::ofstream& o) {
    o << pk::Proto(2);
    for (int i = 0; i < 3'000'000; ++i) o << "K\x01" << pk::kTuple1;
    o << pk::kStop;
  });
  write("put-storm.pkl", [](std::ofstream& o) {
    o << pk::Proto(2) << pk::kNone;
    for (std::uint32_t i = 0; i < 2'500'000; ++i) {
      o << 'r';
      for (int b = 0; b < 4; ++b) o.put(static_cast<char>(((i * 2654435761U) >> (8 * b)) & 0xFF));
    }
    o << pk::kStop;
  });
  // Billion laughs: ten levels of lists holding the level below ten times, listed by path.
  write("laughs.pt", [](std::ofstream& o) {
    std::string laughs = pk::Proto(2) + pk::kEmptyList + pk::BinPut(0);
    for (int level = 1; level < 10; ++level) {
      laughs += pk::kEmptyList + pk::kMark;
      for (int k = 0; k < 10; ++k) laughs += pk::BinGet(level - 1);
      laughs += "e" + pk::BinPut(level) + pk::kPop;
    }
    laughs += pk::kPop + pk::BinGet(9) + pk::kStop;
    o << pk::TorchZip(laughs, {});
  });
  // Issue 46: 16,000 tied tensors under an 8 KiB memoized key: 128 MiB of names from a
  // 100 KB pickle (it peaked at 396 MB).
  write("tied-tensors.pt", [](std::ofstream& o) {
    const std::string tensor = pk::Cat({pk::Global("torch._utils", "_rebuild_tensor_v2"),
                                        pk::kMark,
                                        pk::kMark,
                                        pk::Str("storage"),
                                        pk::Global("torch", "FloatStorage"),
                                        pk::Str("0"),
                                        pk::Str("cpu"),
                                        pk::Int(1),
                                        pk::kTuple,
                                        pk::kBinPersId,
                                        pk::Int(0),
                                        pk::kMark,
                                        pk::Int(1),
                                        pk::kTuple,
                                        pk::kMark,
                                        pk::Int(1),
                                        pk::kTuple,
                                        pk::kNewFalse,
                                        pk::Global("collections", "OrderedDict"),
                                        pk::kEmptyTuple,
                                        pk::kReduce,
                                        pk::kTuple,
                                        pk::kReduce,
                                        pk::BinPut(0)});
    std::string p = pk::Proto(2) + pk::kEmptyDict + pk::Str(std::string(8192, 'k')) + pk::kEmptyDict + pk::kMark;
    for (int i = 0; i < 16000; ++i) p += pk::Int(i) + (i == 0 ? tensor : pk::BinGet(0));
    p += pk::kSetItems + pk::kSetItem;
    o << pk::TorchZip(p + pk::kStop, {{"0", std::string(4, '\0')}});
  });
  // One value tied under two 60,000-byte keys at each of 12 levels: gigabytes of path names.
  write("tied.pt", [](std::ofstream& o) {
    std::string p = pk::Proto(2) + pk::Str(std::string(60000, 'k')) + pk::BinPut(0) + pk::kPop +
                    pk::Str(std::string(60000, 'j')) + pk::BinPut(1) + pk::kPop + pk::kNone + pk::BinPut(2) + pk::kPop;
    for (int level = 0; level < 12; ++level) {
      p.append(pk::kEmptyDict).append(pk::kMark).append(pk::BinGet(0)).append(pk::BinGet(2 + level));
      p.append(pk::BinGet(1)).append(pk::BinGet(2 + level)).append(pk::kSetItems).append(pk::BinPut(3 + level));
      if (level < 11) p += pk::kPop;
    }
    o << pk::TorchZip(p + pk::kStop, {});
  });
  for (const char* name :
       {"dup-storm.pkl", "deep.pkl", "huge-length.pkl", "huge-length.pt", "value-storm.pkl", "list-storm.pkl",
        "tuple-storm.pkl", "put-storm.pkl", "laughs.pt", "tied-tensors.pt", "tied.pt"}) {
    const Measured m =
        RunAudit({"--format", "json", "-o", (dir.path() / "report").string(), (dir.path() / name).string()});
    const double pickle_mib = static_cast<double>(std::filesystem::file_size(dir.path() / name)) / (1 << 20);
    const double bound = 64.0 + 16 * pickle_mib;
    std::cout << name << ": " << m.seconds << " s, peak RSS " << m.peak_rss_mib << " MiB (bound " << bound << " MiB)"
              << std::endl;
    EXPECT_EQ(m.exit_code, 1) << name;
    EXPECT_LT(m.seconds, 1.0) << name;
    EXPECT_LT(m.peak_rss_mib, bound) << name;
  }
}
// Issue 12 item 4: --no-hash reads a 1 GiB GGUF's header only (as fast as a 1 MiB one with
// the same tensor infos); hashed, it costs what a safetensors file of its size costs.
TEST(Perf, GgufStructureReadsTheHeaderOnly) {
  TempDir dir;
  const std::string big = (dir.path() / "big.gguf").string();
  const std::string small = (dir.path() / "small.gguf").string();
  gg::WriteF32File(big, 64, std::uint64_t{4} << 20);    // 64 x 16 MiB
  gg::WriteF32File(small, 64, std::uint64_t{4} << 10);  // 64 x 16 KiB
  const StructureTiming big_run = TimeStructureAudit(big, 64);
  const StructureTiming small_run = TimeStructureAudit(small, 64);
  std::cout << "GGUF --no-hash: 1 GiB " << big_run.seconds * 1e3 << " ms, 1 MiB " << small_run.seconds * 1e3 << " ms ("
            << big_run.seconds / small_run.seconds << "x); bytes read for 1 GiB: " << big_run.bytes_read << std::endl;
  EXPECT_LT(big_run.bytes_read, std::uint64_t{256} << 10);
  EXPECT_LT(big_run.seconds, 1.2 * small_run.seconds + 0.002);
  const auto [gguf, plain] = HashedAgainstSafetensors(big, dir.path());
  std::cout << "hashed 1 GiB: GGUF " << gguf.seconds << " s, safetensors " << plain.seconds << " s ("
            << gguf.seconds / plain.seconds << "x), peak RSS " << gguf.peak_rss_mib << " MiB" << std::endl;
  EXPECT_LT(gguf.seconds, 1.25 * plain.seconds);
  EXPECT_LT(gguf.peak_rss_mib, 32.0);
}

// Issue 12 item 2: hostile GGUF counts end in a finding within 1 s and 16 MiB of growth.
TEST(Perf, HostileGgufCountsEndWithinASecond) {
  TempDir dir;
  const Measured baseline =
      RunAudit({"--format", "json", "-o", (dir.path() / "r").string(), "fixtures/vectors/v1-single"});
  std::vector<std::pair<std::string, gg::Spec>> cases;
  gg::Spec tensors = gg::Several();
  tensors.tensor_count = std::uint64_t{1} << 60;
  cases.emplace_back("tensors.gguf", tensors);
  gg::Spec keys = gg::Several();
  keys.kv_count = std::uint64_t{1} << 60;
  cases.emplace_back("keys.gguf", keys);
  gg::Spec string = gg::Several();
  string.kvs.push_back({"general.name", 8, std::string("\x00\x00\x00\x00\x00\x00\x00\x40", 8)});
  cases.emplace_back("string.gguf", string);
  gg::Spec array = gg::Several();
  array.kvs.push_back(
      {"general.tags", 9, std::string("\x00\x00\x00\x00", 4) + std::string("\x00\x00\x00\x00\x00\x00\x00\x20", 8)});
  cases.emplace_back("array.gguf", array);
  for (const auto& [name, spec] : cases) {
    std::ofstream(dir.path() / name, std::ios::binary) << gg::Build(spec);
    const Measured m = RunAudit({"--format", "json", "-o", (dir.path() / "r").string(), (dir.path() / name).string()});
    std::cout << name << ": " << m.seconds << " s, peak RSS " << m.peak_rss_mib << " MiB (baseline "
              << baseline.peak_rss_mib << ")" << std::endl;
    EXPECT_EQ(m.exit_code, 1) << name;
    EXPECT_LT(m.seconds, 1.0) << name;
    EXPECT_LT(m.peak_rss_mib, baseline.peak_rss_mib + 16.0) << name;
  }
}

// inputs.md 5: peak memory for a GGUF file stays within the larger of 64 MiB and 10 times
// its size, in every report format: 10^6 key/values (17 MB) are read whole, listed in part.
TEST(Perf, MillionKeyValueGgufStaysWithinTenTimesItsSize) {
  TempDir dir;
  std::string file = std::string("GGUF", 4);
  auto le = [&file](std::uint64_t v, int n) {
    for (int i = 0; i < n; ++i, v >>= 8) file += static_cast<char>(v & 0xFF);
  };
  le(3, 4);
  le(0, 8);
  le(1000000, 8);
  for (int i = 0; i < 1000000; ++i) {
    const std::string key = "k" + std::to_string(i);
    le(key.size(), 8);
    file += key;
    le(0, 4);  // u8
    file += '\x01';
  }
  const fs::path path = dir.path() / "kv.gguf";
  std::ofstream(path, std::ios::binary) << file;
  const double bound = std::max(64.0, 10.0 * static_cast<double>(file.size()) / kMiB);
  for (const char* format : {"text", "json", "sarif"}) {
    const Measured m = RunAudit({"--format", format, "-o", (dir.path() / "r").string(), path.string()});
    std::cout << format << ": " << m.seconds << " s, peak RSS " << m.peak_rss_mib << " MiB for a "
              << static_cast<double>(file.size()) / kMiB << " MiB file (bound " << bound << " MiB)" << std::endl;
    EXPECT_EQ(m.exit_code, 0) << format;
    EXPECT_LT(m.peak_rss_mib, bound) << format;
  }
}

// The fastest of five runs of `command` (a shell command), in seconds.
double FastestOf5(const std::string& command) {
  double best = 1e9;
  for (int i = 0; i < 5; ++i) {
    const auto start = Clock::now();
    const CommandResult run = RunCommand(command);
    best = std::min(best, std::chrono::duration<double>(Clock::now() - start).count());
    EXPECT_NE(run.exit_code, 127) << command << ": " << run.output;
  }
  return best;
}

// A joblib bz2 bomb (about 10 GB out of 11 KB) stops at its 64 MiB bound: the audit costs about
// what decompressing 64 MiB of it costs Python's bz2 (JoblibFiles.ATenGigabyteBombStopsFastAndSmall
// checks the finding).
TEST(Perf, AJoblibBombStopsAtItsBound) {
  TempDir dir;
  const fs::path bomb = dir.path() / "bomb.bz2";
  const CommandResult made = RunCommand(
      "/usr/bin/python3 -c 'import bz2, sys\nzeros = bz2.compress(bytes(45_000_000), 9)\n"
      "with open(sys.argv[1], \"wb\") as f:\n    f.write(bz2.compress(b\"\\x80\\x04\\x95\" + bytes(45_000_000), 9))\n"
      "    f.write(zeros * 222)' " +
      ShellQuote(bomb.string()) + " 2>&1");
  ASSERT_EQ(made.exit_code, 0) << made.output;
  const double reference = FastestOf5("/usr/bin/python3 -c 'import bz2, sys; bz2.open(sys.argv[1]).read(64 << 20)' " +
                                      ShellQuote(bomb.string()));
  const double audit = FastestOf5(ShellQuote(CKPT_AUDIT_BIN) + " -q " + ShellQuote(bomb.string()) + " >/dev/null");
  std::cout << "bz2 bomb: audit " << audit << " s, Python bz2 reading 64 MiB of it " << reference << " s ("
            << audit / reference << "x)" << std::endl;
  EXPECT_LE(audit / reference, 2.0);
}

// A million nested msgpack lists and a map counting 2^32-1 entries stop at their head: auditing
// both costs about what auditing a clean msgpack file of the same size costs
// (MsgpackBounds.AMillionNestedListsAndAHugeCountEndAtOnce checks the findings).
TEST(Perf, DeepAndHugeMsgpackStopAtTheirHead) {
  TempDir dir;
  const fs::path deep = dir.path() / "deep.msgpack";
  std::ofstream(deep, std::ios::binary) << std::string(
                                               "\x81\xa1"
                                               "a",
                                               3)
                                        << std::string(1'000'000, '\x91') << "\xc0";
  const fs::path counted = dir.path() / "counted.msgpack";
  std::ofstream(counted, std::ios::binary) << std::string(
      "\x81\xa1"
      "a"
      "\xdf\xff\xff\xff\xff\xa1"
      "b",
      10);
  // The reference: a clean file of the same size, {"a": <1,000,000 bytes of bin>}.
  const fs::path clean = dir.path() / "clean.msgpack";
  std::ofstream(clean, std::ios::binary) << std::string(
                                                "\x81\xa1"
                                                "a"
                                                "\xc6\x00\x0f\x42\x40",
                                                8)
                                         << std::string(1'000'000, '\x01');
  const std::string audit = ShellQuote(CKPT_AUDIT_BIN) + " -q ";
  const double reference = FastestOf5(audit + ShellQuote(clean.string()) + " >/dev/null");
  const double hostile =
      FastestOf5(audit + ShellQuote(deep.string()) + " " + ShellQuote(counted.string()) + " >/dev/null");
  std::cout << "deep + huge msgpack: " << hostile << " s, a clean file of the same size " << reference << " s ("
            << hostile / reference << "x)" << std::endl;
  EXPECT_LE(hostile / reference, 3.0);
}

}  // namespace
}  // namespace ckpt::testing
