// Import targets (code-in-metadata.md section 1): the strings Hydra, NeMo and OmegaConf import
// and call when a configuration is instantiated (`_target_`, `target`, and Hydra 0.x's `cls` and
// `class`, which NeMo's _convert_config turns into `_target_`), found at any depth of a
// configuration read from JSON or YAML, each judged against the allowlist of formats.md
// section 9. Readers report what they find; rules judge it.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/json/json_value.h"
#include "lib/model/embedded_code.h"

namespace ckpt {

/// One target of a configuration.
struct ImportTarget {
  std::string key_path;    ///< JSON Pointer of the target's value ("/model/encoder/_target_")
  std::string key;         ///< the key that made it a target (`_target_`, `cls`, ...)
  std::string value;       ///< the target as written; empty when it is not a string
  bool is_string = true;   ///< false for a mapping, a list, a number, null, ...
  bool allowed = false;    ///< a class the allowlist admits
  std::uint64_t line = 0;  ///< 1-based, in the text that held it
  std::uint64_t column = 0;
};

/// True for a class NeMo restores and torch may instantiate: `nemo.collections.` and
/// `nemo.core.` classes, and exact `torch.nn.`, `torch.optim.`, `torch.optim.lr_scheduler.`
/// and `torch.utils.data.` classes (formats.md section 9).
bool IsAllowedTarget(std::string_view target);

/// `_target_`, `target`, `cls` and `class`.
bool IsTargetKey(std::string_view key);

/// Where the key `class` names a target: anywhere (a NeMo or Hydra YAML config), or in JSON only
/// beside `params`, `_partial_` or `_args_` (plain configurations use `class` for other things).
enum class ClassKey : std::uint8_t { kAnywhere, kBesideHydraKeys };

/// Every target of a parsed JSON document, in document order. Walks with its own stack: the
/// document's depth is bounded by its parser, the walk costs O(values).
/// Called for each member of every object FindJsonTargets walks, with the path tokens of the
/// object holding it: a caller looking for other keys shares the one walk.
/// `key` is decoded and valid for the call only.
using JsonMemberVisitor =
    std::function<void(std::string_view key, const json::Value& value, const std::vector<std::string>& path)>;
std::vector<ImportTarget> FindJsonTargets(const json::Document& document, ClassKey class_key,
                                          const JsonMemberVisitor& visit = {});

/// Records every target (allowed or not) for the JSON report's targets[]: found in `file`, in the
/// configuration kept under `metadata_key` ("" for a configuration file of its own).
void RecordTargets(const std::vector<ImportTarget>& targets, const std::string& file, const std::string& metadata_key,
                   EmbeddedCode& record);

/// The JSON Pointer of `tokens` ("/a/b~1c").
std::string JsonPointerOf(const std::vector<std::string>& tokens);

/// Why a YAML configuration was refused, and where.
struct ConfigRefusal {
  std::string why;        ///< "it uses an alias (*x), which ..."
  bool not_yaml = false;  ///< libyaml's own parse error: no YAML loader reads it either
  std::uint64_t line = 1;
  std::uint64_t column = 1;
};

/// A YAML configuration read as NeMo's is (formats.md section 9): libyaml's event parser, one
/// document, at most kMaxYamlConfigDepth levels, no alias, anchor, tag, %TAG directive, duplicate
/// key or non-scalar key. `targets` holds what was found before a refusal.
struct YamlConfig {
  std::vector<ImportTarget> targets;
  std::optional<ConfigRefusal> refused;
  bool mapping_root = false;  ///< the document is a mapping
};
inline constexpr std::size_t kMaxYamlConfigDepth = 64;
YamlConfig ReadYamlConfig(std::string_view text, ClassKey class_key = ClassKey::kAnywhere);

/// The targets of a configuration kept in a string (a safetensors `__metadata__` value, a GGUF
/// `*config` string): parsed as JSON when it starts with `{` or `[` (Hydra's `class` counts only
/// beside its keys), as YAML when it is not JSON and a line of it is a mapping key (`key:`);
/// anything else holds none. Key paths, lines and columns are inside the string. `refused`:
/// YAML the strict reading refuses but a YAML loader reads (an alias, a tag, ...), whose later
/// targets cannot be seen; text no YAML loader reads is not a configuration.
YamlConfig FindTargetsInString(std::string_view text);

/// "is 'os.system'", or "is not a string": the target as findings state it.
std::string DescribeTargetValue(const ImportTarget& target);
/// The allowlist as findings state it.
inline constexpr std::string_view kAllowedTargetsText =
    "only nemo.collections / nemo.core classes and torch.nn, torch.optim and torch.utils.data classes are allowed";

/// The findings' texts for a configuration kept in a value (FindTargetsInString): one per target
/// outside the allowlist, and one for a refusal. `holder` names the value ("The GGUF value 'x'").
std::vector<std::string> EmbeddedConfigProblems(std::string_view holder, const YamlConfig& config);

}  // namespace ckpt
