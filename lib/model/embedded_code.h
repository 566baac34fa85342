// What an audit found of the code a loader reads out of configuration and metadata
// (code-in-metadata.md section 4): every chat template and every import target, passing or
// not, for the JSON report's templates[] and targets[].
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ckpt {

struct TemplateRecord {
  std::string file;  ///< the file holding it
  std::string name;  ///< "chat_template", a list entry's name, a GGUF key
  std::uint64_t length = 0;
  std::string sha256;  ///< of the template's text (lowercase hex)
  bool parsed = false;
  std::uint64_t hazards = 0;  ///< template-unsafe places
};

struct TargetRecord {
  std::string file;          ///< the file ("" for the input itself, as files[] names it)
  std::string key_path;      ///< JSON Pointer inside the configuration
  std::string metadata_key;  ///< the safetensors __metadata__ or GGUF key holding the configuration
  std::string value;         ///< the target ("" when it is not a string)
  bool is_string = true;
  bool allowed = false;
  bool operator==(const TargetRecord&) const = default;
};

struct EmbeddedCode {
  /// Bounds on what one file records (a hostile file cannot make the report unbounded; the
  /// findings are capped apart).
  static constexpr std::size_t kMaxRecordsPerFile = 1000;
  std::vector<TemplateRecord> templates;
  std::vector<TargetRecord> targets;
  std::uint64_t templates_dropped = 0;
  std::uint64_t targets_dropped = 0;

  void Add(TemplateRecord record) {
    if (templates.size() >= kMaxRecordsPerFile) {
      ++templates_dropped;
      return;
    }
    templates.push_back(std::move(record));
  }
  void Add(TargetRecord record) {
    if (targets.size() >= kMaxRecordsPerFile) {
      ++targets_dropped;
      return;
    }
    targets.push_back(std::move(record));
  }
};

}  // namespace ckpt
