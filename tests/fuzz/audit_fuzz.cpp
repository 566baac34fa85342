// Fuzz target: a whole audit from memory, then both report writers. The input is split at
// "\n--\n" into header.json, weights.safetensors and (when present) weights.index.json,
// so the fuzzer can reach the cross-checks and the hash.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "engine/audit.h"
#include "lib/io/memory_source.h"
#include "reports/json_report.h"
#include "reports/text_report.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (std::size_t at; (at = input.find("\n--\n", start)) != std::string::npos && parts.size() < 2; start = at + 4) {
    parts.push_back(input.substr(start, at - start));
  }
  parts.push_back(input.substr(start));
  ckpt::MemorySource source;
  source.AddFile("header.json", parts[0]);
  if (parts.size() > 1)
    source.AddFile(parts.size() > 2 ? "weights-00000-of-00002.safetensors" : "weights.safetensors", parts[1]);
  if (parts.size() > 2) source.AddFile("weights.index.json", parts[2]);
  std::vector<ckpt::AuditResult> results;
  results.push_back(ckpt::AuditArtifact("fuzz", source, ckpt::AuditOptions{}));
  std::ostringstream out;
  ckpt::reports::ReportContext context;
  ckpt::reports::WriteJsonReport(out, results, context);
  ckpt::reports::WriteTextReport(out, results, context);
  return 0;
}
