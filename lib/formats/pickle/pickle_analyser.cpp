#include "lib/formats/pickle/pickle_analyser.h"

#include <algorithm>

#include "lib/formats/pickle/pickle_machine.h"

namespace ckpt::pickle {

void Budget::ScaleTo(std::uint64_t pickle_bytes) {
  const std::uint64_t p = pickle_bytes;
  auto times = [&](std::uint64_t k) { return p > UINT64_MAX / k ? UINT64_MAX : p * k; };
  max_values = std::max(max_values, times(4));
  max_text_bytes = std::max(max_text_bytes, times(2));
  max_opcodes = std::max(max_opcodes, p);
  max_path_bytes = std::max(max_path_bytes, times(8));
}

std::string DescribeLimit(std::uint64_t limit) {
  if (limit == Budget::kMinValues) return "2^21";
  if (limit == Budget::kMinOpcodes) return "2^24";
  return std::to_string(limit);
}

std::string DescribeByteLimit(std::uint64_t limit) {
  return limit == Budget::kMinTextBytes ? std::string("64 MiB") : std::to_string(limit) + " bytes";
}

// Runs pickles from `begin` until `end`: each STOP followed by more bytes starts another
// pickle (a loader reading in a loop would run it), bytes that are not one are a finding.
// Returns the first pickle's result.
IoResult<std::optional<PickleEnd>> AnalyseStream(Analyser& analyser, const RandomAccessFile& file, std::uint64_t begin,
                                                 std::uint64_t end, const FileReporter& report,
                                                 std::uint32_t& pickles) {
  std::optional<PickleEnd> first;
  std::uint64_t at = begin;
  while (at < end) {
    if (pickles > 0) {
      auto follows = PickleFollows(file, at);
      if (!follows) return follows.error();
      if (!*follows) {
        report(Diag::kPickleTrailingData, at,
               std::to_string(end - at) + " bytes after the pickle's STOP at byte " + std::to_string(at) +
                   " are not a further pickle: one loader ignores them, another reads them.");
        break;
      }
    }
    auto run = analyser.Run(file, at, end);
    if (!run) return run.error();
    ++pickles;
    if (!first) first = *run;
    if (!run->stopped || analyser.budget().exceeded) break;
    at = run->end;
  }
  return first;
}

IoResult<PickleEnd> Analyser::Run(const RandomAccessFile& file, std::uint64_t begin, std::uint64_t end) {
  budget_.ScaleTo(end - begin);
  Machine machine(*this, file, begin, end);
  return machine.Run();
}

}  // namespace ckpt::pickle
