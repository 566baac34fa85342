#include "tests/support/golden_scenarios.h"

#include <boost/json.hpp>

#include "tests/support/history_builder.h"

namespace ckpt::testing {

namespace fs = std::filesystem;

Files TamperedFiles() {
  Files files = ReadFiles("fixtures/vectors/v1-single");
  files["weights.safetensors"][455] = '\x7f';
  files["optimizer.pt"] = std::string("\x80\x02}q\x00.", 6);
  EditHeader(files, [](boost::json::object& h) { h["created_at"] = "yesterday"; });
  return files;
}

ChainRun RunGapAndFork(const fs::path& root, const ChainRunOptions& options) {
  auto rounds = WriteHistory(root / "h", 5);
  fs::remove_all(rounds[3].dir);
  ArtifactSpec fork = RoundSpec(2, rounds[1].hash);
  fork.tensors[0].data[0] ^= 1;
  WriteRound(root / "h", "fork-2", fork);
  return RunChain({(fs::absolute(root) / "h").string()}, options);
}

DiffRun RunGatedDiff(const fs::path& root, DiffOptions options) {
  WriteHistory(root, 3);
  options.require_child = true;
  options.max_rel_l2 = {{"*", 1e-6}};
  options.allow_change = {"encoder.*"};
  const fs::path absolute = fs::absolute(root);
  return RunDiff((absolute / "round-0000").string(), (absolute / "round-0002").string(), options);
}

}  // namespace ckpt::testing
